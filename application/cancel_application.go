package application

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// CancelApplication cancels an application on behalf of the partner or the client (endpoint 2).
type CancelApplication struct {
	PartnerID     uuid.UUID
	ApplicationID uuid.UUID
	Initiator     domain.CancelInitiator
}

// CancelApplicationHandler applies rule 3.5.1 under the application's row lock, so that a
// cancel and the start of loan issuance never both win.
type CancelApplicationHandler struct {
	clock        ports.Clock
	applications ports.ApplicationRepository
	ttl          time.Duration
	rq           Requests
}

// NewCancelApplicationHandler returns the handler on the ports it uses.
func NewCancelApplicationHandler(clock ports.Clock, uow ports.UnitOfWork, idempotency ports.IdempotencyStore,
	applications ports.ApplicationRepository, cfg Config) *CancelApplicationHandler {
	return &CancelApplicationHandler{
		clock:        clock,
		applications: applications,
		ttl:          cfg.ApplicationTTL,
		rq:           Requests{UoW: uow, Store: idempotency},
	}
}

// Handle cancels the application.
func (h *CancelApplicationHandler) Handle(ctx context.Context, call Call, cmd CancelApplication) (Reply[struct{}], error) {
	return finish(ctx, h.rq, call, func(ctx context.Context) (struct{}, error) {
		now := h.clock.Now(cmd.PartnerID)
		return struct{}{}, updateOwned(ctx, h.applications, cmd.PartnerID, cmd.ApplicationID, now, h.ttl, func(a *domain.Application) error {
			return a.Cancel(cmd.Initiator, now)
		})
	})
}
