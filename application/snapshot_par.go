package application

import (
	"context"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// SnapshotPARHandler records today's portfolio at risk and each overdue loan's bucket, so the
// collections report can chart the history and count roll rates. The day is the latest
// partner's (in the sandbox, a clock moved ahead makes new days); each partner's loans are
// counted overdue on its own clock.
type SnapshotPARHandler struct {
	clock       ports.Clock
	collections ports.CollectionsRepository
	buckets     domain.Buckets
}

// NewSnapshotPARHandler returns the handler on the ports it uses.
func NewSnapshotPARHandler(clock ports.Clock, collections ports.CollectionsRepository, cfg Config) *SnapshotPARHandler {
	return &SnapshotPARHandler{clock: clock, collections: collections, buckets: cfg.Collections.WithDefaults().Buckets}
}

// Handle takes (or takes again) today's snapshot.
func (h *SnapshotPARHandler) Handle(ctx context.Context) error {
	return h.collections.SnapshotPAR(ctx, QueueScopes(h.clock), domain.BusinessDate(LatestNow(h.clock)), h.buckets)
}
