package console

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// RetryStageHandler runs a waiting application's stage now, instead of after its backoff.
type RetryStageHandler struct {
	uow          ports.UnitOfWork
	applications ports.ApplicationRepository
	queue        ports.WorkQueue
	clock        ports.Clock
	audit        audit
}

// NewRetryStageHandler returns the handler on the ports it uses.
func NewRetryStageHandler(clock ports.Clock, uow ports.UnitOfWork, applications ports.ApplicationRepository, queue ports.WorkQueue,
	log ports.AuditLog) *RetryStageHandler {
	return &RetryStageHandler{uow: uow, applications: applications, queue: queue, clock: clock, audit: audit{clock: clock, log: log}}
}

// Handle makes the stage due now and hands it to a worker. Retrying twice is retrying once:
// a stage due already stays as it is.
func (h *RetryStageHandler) Handle(ctx context.Context, who Actor, id uuid.UUID) error {
	if err := who.may(domain.RoleOfficer); err != nil {
		return err
	}
	err := h.uow.Do(ctx, func(ctx context.Context) error {
		var stage domain.StageName
		var partner uuid.UUID
		err := h.applications.Update(ctx, id, func(a *domain.Application) error {
			stage, partner = a.Stage().Name, a.PartnerID()
			return a.RetryNow(h.clock.Now(a.PartnerID()))
		})
		if err != nil {
			return err
		}
		if err := h.audit.recordOn(ctx, who, partner, "application.retry_stage", "application:"+id.String(), stage.String()); err != nil {
			return err
		}
		return h.queue.EnqueueApplications(ctx, id) // commits with the retry it runs
	})
	return err
}
