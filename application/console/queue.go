package console

import (
	"context"
	"fmt"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// QueueFilter picks a collections queue: a bucket (its index in the buckets; -1: every overdue
// loan), whose loans (Mine: the operator's own; Unassigned: nobody's; else everyone's), and
// whether only the loans back after a broken promise.
type QueueFilter struct {
	Bucket           int
	Mine, Unassigned bool
	Flagged          bool
	After            *ports.QueueRow
}

// QueuePage is a page of a collections queue, with the buckets to switch between and the
// officers a loan may be given to.
type QueuePage struct {
	Buckets    domain.Buckets
	Filter     QueueFilter
	Rows       []ports.QueueRow
	Next       *ports.QueueRow
	Collectors []*domain.Operator
}

// QueueHandler reads the collections queues, each loan overdue on its partner's clock.
type QueueHandler struct {
	clock       ports.Clock
	collections ports.CollectionsRepository
	operators   ports.OperatorRepository
	buckets     domain.Buckets
}

// NewQueueHandler returns the handler on the ports it uses.
func NewQueueHandler(clock ports.Clock, collections ports.CollectionsRepository, operators ports.OperatorRepository,
	cfg application.Config) *QueueHandler {
	return &QueueHandler{clock: clock, collections: collections, operators: operators, buckets: cfg.Collections.WithDefaults().Buckets}
}

// queueRows is a queue page's length.
const queueRows = 50

// Handle reads a page of the queue f picks, for who.
func (h *QueueHandler) Handle(ctx context.Context, who Actor, f QueueFilter) (QueuePage, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return QueuePage{}, err
	}
	if f.Bucket >= len(h.buckets) || f.Bucket < -1 {
		return QueuePage{}, fmt.Errorf("%w: no bucket %d", ports.ErrBadList, f.Bucket)
	}
	q := ports.QueueQuery{Scopes: application.QueueScopes(h.clock), MinDays: 1, Flagged: f.Flagged, Unassigned: f.Unassigned && !f.Mine,
		After: f.After, Limit: queueRows + 1}
	if f.Bucket >= 0 {
		q.MinDays, q.MaxDays = h.buckets[f.Bucket].From, h.buckets[f.Bucket].To
	}
	if f.Mine {
		q.Collector = who.ID
	}
	p := QueuePage{Buckets: h.buckets, Filter: f}
	rows, err := h.collections.Queue(ctx, q)
	if err != nil {
		return p, err
	}
	if len(rows) > queueRows {
		rows = rows[:queueRows]
		p.Next = &rows[queueRows-1]
	}
	p.Rows = rows
	all, err := h.operators.List(ctx)
	if err != nil {
		return p, err
	}
	for _, o := range all {
		if !o.Disabled() && o.Role().Allows(domain.RoleOfficer) {
			p.Collectors = append(p.Collectors, o)
		}
	}
	return p, nil
}

// Bucket is the index of the bucket days overdue fall in, -1 for none.
func (p QueuePage) Bucket(days int) int { return p.Buckets.Of(days) }
