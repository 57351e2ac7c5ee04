package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// RegisterApplication is pre-scoring registration (endpoint 1), the entry point of issuance.
type RegisterApplication struct {
	PartnerID         uuid.UUID
	ExternalID        uuid.UUID
	Phone             domain.Phone
	ClientData        domain.ClientData
	AgreementAccepted bool
}

// RegisterApplicationHandler registers applications and starts their pre-scoring.
type RegisterApplicationHandler struct {
	Clock        ports.Clock
	Applications ports.ApplicationRepository
	Queue        ports.WorkQueue
	Requests     Requests
}

// Handle stores the new application with its answer (its id) and enqueues its pre-scoring.
// An externalId the partner used before is refused by the store naming the application that
// has it (domain.ExternalIDUsedError), found only when the insert meets the partner's key: a
// registration that uses a new externalId reads nothing more.
func (h *RegisterApplicationHandler) Handle(ctx context.Context, call Call, cmd RegisterApplication) (Reply[uuid.UUID], error) {
	return finish(ctx, h.Requests, call, func(ctx context.Context) (uuid.UUID, error) {
		a, err := domain.NewApplication(domain.NewApplicationParams{
			ID: NewID(), PartnerID: cmd.PartnerID, ExternalID: cmd.ExternalID, Phone: cmd.Phone,
			ClientData: cmd.ClientData, AgreementAccepted: cmd.AgreementAccepted, Now: h.Clock.Now(cmd.PartnerID),
		})
		if err != nil {
			return uuid.Nil, err
		}
		a.Correlate(ports.RequestID(ctx))
		if err := h.Applications.Create(ctx, a); err != nil {
			return uuid.Nil, err
		}
		return a.ID(), h.Queue.EnqueueApplications(ctx, a.ID())
	})
}
