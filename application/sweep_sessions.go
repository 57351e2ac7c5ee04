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
	Clock     ports.Clock
	UoW       ports.UnitOfWork
	Operators ports.OperatorRepository
}

// Handle deletes them and returns how many.
func (h *SweepSessionsHandler) Handle(ctx context.Context) (int64, error) {
	now := h.Clock.Now(uuid.Nil)
	var n int64
	err := h.UoW.Do(ctx, func(ctx context.Context) (err error) {
		n, err = h.Operators.PurgeSessions(ctx, now.Add(-domain.SessionIdle), now.Add(-domain.SessionLifetime))
		return err
	})
	return n, err
}
