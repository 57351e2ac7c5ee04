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
	clock        ports.Clock
	applications ports.ApplicationRepository
	queue        ports.WorkQueue
	rq           requests
}

// NewRegisterApplicationHandler returns the handler on the ports it uses.
func NewRegisterApplicationHandler(clock ports.Clock, uow ports.UnitOfWork, idempotency ports.IdempotencyStore,
	applications ports.ApplicationRepository, queue ports.WorkQueue) *RegisterApplicationHandler {
	return &RegisterApplicationHandler{
		clock:        clock,
		applications: applications,
		queue:        queue,
		rq:           requests{uow: uow, store: idempotency},
	}
}

// Handle stores the new application with its answer (its id) and enqueues its pre-scoring.
// An externalId the partner used before is refused by the store naming the application that
// has it (domain.ExternalIDUsedError), found only when the insert meets the partner's key: a
// registration that uses a new externalId reads nothing more.
func (h *RegisterApplicationHandler) Handle(ctx context.Context, call Call, cmd RegisterApplication) (Reply[uuid.UUID], error) {
	return finish(ctx, h.rq, call, func(ctx context.Context) (uuid.UUID, error) {
		a, err := domain.NewApplication(domain.NewApplicationParams{
			ID: NewID(), PartnerID: cmd.PartnerID, ExternalID: cmd.ExternalID, Phone: cmd.Phone,
			ClientData: cmd.ClientData, AgreementAccepted: cmd.AgreementAccepted, Now: h.clock.Now(cmd.PartnerID),
		})
		if err != nil {
			return uuid.Nil, err
		}
		a.Correlate(ports.RequestID(ctx))
		if err := h.applications.Create(ctx, a); err != nil {
			return uuid.Nil, err
		}
		return a.ID(), h.queue.EnqueueApplications(ctx, a.ID())
	})
}
