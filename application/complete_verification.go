package application

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// CompleteVerification records that the client finished the required phone call. In the
// sandbox it is the call-centre's side of verification, triggered by a sandbox endpoint.
type CompleteVerification struct {
	PartnerID     uuid.UUID
	ApplicationID uuid.UUID
}

// CompleteVerificationHandler completes a pending phone verification.
type CompleteVerificationHandler struct {
	clock        ports.Clock
	applications ports.ApplicationRepository
	ttl          time.Duration
	rq           Requests
}

// NewCompleteVerificationHandler returns the handler on the ports it uses.
func NewCompleteVerificationHandler(clock ports.Clock, uow ports.UnitOfWork, idempotency ports.IdempotencyStore,
	applications ports.ApplicationRepository, cfg Config) *CompleteVerificationHandler {
	return &CompleteVerificationHandler{
		clock:        clock,
		applications: applications,
		ttl:          cfg.ApplicationTTL,
		rq:           Requests{UoW: uow, Store: idempotency},
	}
}

// Handle completes the verification.
func (h *CompleteVerificationHandler) Handle(ctx context.Context, call Call, cmd CompleteVerification) (Reply[struct{}], error) {
	return finish(ctx, h.rq, call, func(ctx context.Context) (struct{}, error) {
		now := h.clock.Now(cmd.PartnerID)
		return struct{}{}, updateOwned(ctx, h.applications, cmd.PartnerID, cmd.ApplicationID, now, h.ttl, func(a *domain.Application) error {
			return a.CompleteVerification(now)
		})
	})
}
