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
	operators ports.OperatorRepository
}

// NewSweepSessionsHandler returns the handler on the ports it uses.
func NewSweepSessionsHandler(clock ports.Clock, operators ports.OperatorRepository) *SweepSessionsHandler {
	return &SweepSessionsHandler{clock: clock, operators: operators}
}

// Handle deletes them and returns how many.
func (h *SweepSessionsHandler) Handle(ctx context.Context) (int64, error) {
	now := h.clock.Now(uuid.Nil)
	return h.operators.PurgeSessions(ctx, now.Add(-domain.SessionIdle), now.Add(-domain.SessionLifetime))
}
