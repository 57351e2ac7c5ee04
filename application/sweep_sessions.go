package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// SweepSessionsHandler deletes the console sessions that can no longer be resumed: idle longer
// than domain.SessionIdle or older than domain.SessionLifetime.
type SweepSessionsHandler struct {
	clock     ports.Clock
	uow       ports.UnitOfWork
	operators ports.OperatorRepository
}

// NewSweepSessionsHandler returns the handler on the ports it uses.
func NewSweepSessionsHandler(clock ports.Clock, uow ports.UnitOfWork, operators ports.OperatorRepository) *SweepSessionsHandler {
	return &SweepSessionsHandler{clock: clock, uow: uow, operators: operators}
}

// Handle deletes them and returns how many.
func (h *SweepSessionsHandler) Handle(ctx context.Context) (int64, error) {
	now := h.clock.Now(uuid.Nil)
	var n int64
	err := h.uow.Do(ctx, func(ctx context.Context) (err error) {
		n, err = h.operators.PurgeSessions(ctx, now.Add(-domain.SessionIdle), now.Add(-domain.SessionLifetime))
		return err
	})
	return n, err
}
