package application

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
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
	clock        ports.Clock
	applications ports.ApplicationRepository
	product      Product
	ttl          time.Duration
	queue        ports.WorkQueue
	rq           Requests
}

// NewIssueApplicationHandler returns the handler on the ports it uses.
func NewIssueApplicationHandler(clock ports.Clock, uow ports.UnitOfWork, idempotency ports.IdempotencyStore,
	applications ports.ApplicationRepository, queue ports.WorkQueue, cfg Config) *IssueApplicationHandler {
	return &IssueApplicationHandler{
		clock:        clock,
		applications: applications,
		product:      cfg.Product,
		ttl:          cfg.ApplicationTTL,
		queue:        queue,
		rq:           Requests{UoW: uow, Store: idempotency},
	}
}

// Handle starts issuance.
func (h *IssueApplicationHandler) Handle(ctx context.Context, call Call, cmd IssueApplication) (Reply[struct{}], error) {
	return finish(ctx, h.rq, call, func(ctx context.Context) (struct{}, error) {
		now := h.clock.Now(cmd.PartnerID)
		err := updateOwned(ctx, h.applications, cmd.PartnerID, cmd.ApplicationID, now, h.ttl, func(a *domain.Application) error {
			if err := a.Issue(cmd.ClientData, now); err != nil {
				return err
			}
			a.Correlate(ports.RequestID(ctx))
			// Verify checked the cap for every day the offer could be issued on; issue checks
			// the schedule of today, the day it is issued, again before anything is lent.
			today := domain.BusinessDate(now)
			return domain.CheckCapForIssueDates(h.product.offerTerms(*a.Offer()), today, today)
		})
		if err != nil {
			return struct{}{}, err
		}
		return struct{}{}, h.queue.EnqueueApplications(ctx, cmd.ApplicationID)
	})
}
