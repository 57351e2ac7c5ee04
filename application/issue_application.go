package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// IssueApplication starts loan issuance (endpoint 4).
type IssueApplication struct {
	PartnerID     uuid.UUID
	ApplicationID uuid.UUID
	ClientData    domain.ClientData
}

// IssueApplicationHandler checks clientData against pre-scoring's and starts the issuance
// stages in the background.
type IssueApplicationHandler struct {
	d  Deps
	rq requests
}

// Handle starts issuance.
func (h *IssueApplicationHandler) Handle(ctx context.Context, req Request[struct{}], cmd IssueApplication) Answer {
	return once(ctx, h.rq, req, func(ctx context.Context) (struct{}, error) {
		err := updateOwned(ctx, h.d.Applications, cmd.PartnerID, cmd.ApplicationID, func(a *domain.Application) error {
			return a.Issue(cmd.ClientData, h.d.Clock.Now())
		})
		if err != nil {
			return struct{}{}, err
		}
		enqueueAfterCommit(ctx, h.d, cmd.ApplicationID)
		return struct{}{}, nil
	})
}
