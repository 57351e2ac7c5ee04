package application

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// AdvanceClock moves the partner's sandbox clock forward.
type AdvanceClock struct {
	PartnerID uuid.UUID
	By        time.Duration
}

// AdvanceClockHandler moves the sandbox clock; outside the sandbox there is no such clock.
type AdvanceClockHandler struct {
	sandboxClock ports.SandboxClock
	rq           Requests
}

// NewAdvanceClockHandler returns the handler on the ports it uses.
func NewAdvanceClockHandler(uow ports.UnitOfWork, idempotency ports.IdempotencyStore, sandboxClock ports.SandboxClock) *AdvanceClockHandler {
	return &AdvanceClockHandler{sandboxClock: sandboxClock, rq: Requests{UoW: uow, Store: idempotency}}
}

// Handle advances the partner's clock (zero just reads it) and returns the new time.
func (h *AdvanceClockHandler) Handle(ctx context.Context, call Call, cmd AdvanceClock) (Reply[time.Time], error) {
	return finish(ctx, h.rq, call, func(ctx context.Context) (time.Time, error) {
		if h.sandboxClock == nil {
			return time.Time{}, errors.New("the clock can only be moved in sandbox mode")
		}
		if cmd.By < 0 {
			return time.Time{}, &domain.ValidationError{Fields: []domain.FieldError{{Path: "params.duration", Reason: "must not be negative"}}}
		}
		if cmd.By == 0 {
			return h.sandboxClock.Now(cmd.PartnerID), nil
		}
		now, err := h.sandboxClock.Advance(ctx, cmd.PartnerID, cmd.By)
		if errors.Is(err, ports.ErrClockBound) {
			return now, &domain.ValidationError{Fields: []domain.FieldError{{Path: "params.duration", Reason: err.Error()}}}
		}
		return now, err
	})
}
