package console

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// RetryStageHandler runs a waiting application's stage now, instead of after its backoff.
type RetryStageHandler struct {
	UoW          ports.UnitOfWork
	Applications ports.ApplicationRepository
	Queue        ports.WorkQueue
	Clock        ports.Clock
	Audit        Audit
}

// Handle makes the stage due now and hands it to a worker. Retrying twice is retrying once:
// a stage due already stays as it is.
func (h *RetryStageHandler) Handle(ctx context.Context, who Actor, id uuid.UUID) error {
	if err := who.may(domain.RoleOfficer); err != nil {
		return err
	}
	err := h.UoW.Do(ctx, func(ctx context.Context) error {
		var stage domain.StageName
		var partner uuid.UUID
		err := h.Applications.Update(ctx, id, func(a *domain.Application) error {
			stage, partner = a.Stage().Name, a.PartnerID()
			return a.RetryNow(h.Clock.Now(a.PartnerID()))
		})
		if err != nil {
			return err
		}
		if err := h.Audit.recordOn(ctx, who, partner, "application.retry_stage", "application:"+id.String(), stage.String()); err != nil {
			return err
		}
		return h.Queue.EnqueueApplications(ctx, id) // commits with the retry it runs
	})
	return err
}
