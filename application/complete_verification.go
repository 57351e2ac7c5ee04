package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// CompleteVerification records that the client finished the required phone call. In the
// sandbox it is the call-centre's side of verification, triggered by a sandbox endpoint.
type CompleteVerification struct {
	PartnerID     uuid.UUID
	ApplicationID uuid.UUID
}

// CompleteVerificationHandler completes a pending phone verification.
type CompleteVerificationHandler struct {
	d  Deps
	rq requests
}

// Handle completes the verification.
func (h *CompleteVerificationHandler) Handle(ctx context.Context, req Request[struct{}], cmd CompleteVerification) Answer {
	return once(ctx, h.rq, req, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, updateOwned(ctx, h.d.Applications, cmd.PartnerID, cmd.ApplicationID, func(a *domain.Application) error {
			return a.CompleteVerification(h.d.Clock.Now())
		})
	})
}
