package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
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
	d  Deps
	rq requests
}

// Handle cancels the application.
func (h *CancelApplicationHandler) Handle(ctx context.Context, req Request[struct{}], cmd CancelApplication) Answer {
	return once(ctx, h.rq, req, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, updateOwned(ctx, h.d.Applications, cmd.PartnerID, cmd.ApplicationID, func(a *domain.Application) error {
			return a.Cancel(cmd.Initiator, h.d.Clock.Now())
		})
	})
}
