package application

import (
	"context"
	"errors"
	"time"

	"github.com/tiyin/tiyin/domain"
)

// AdvanceClock moves the sandbox clock forward.
type AdvanceClock struct {
	By time.Duration
}

// AdvanceClockHandler moves the sandbox clock; outside the sandbox there is no such clock.
type AdvanceClockHandler struct {
	d  Deps
	rq requests
}

// Handle advances the clock (zero just reads it) and returns the new time.
func (h *AdvanceClockHandler) Handle(ctx context.Context, req Request[time.Time], cmd AdvanceClock) Answer {
	return once(ctx, h.rq, req, func(ctx context.Context) (time.Time, error) {
		if h.d.SandboxClock == nil {
			return time.Time{}, errors.New("the clock can only be moved in sandbox mode")
		}
		if cmd.By < 0 {
			return time.Time{}, &domain.ValidationError{Fields: []domain.FieldError{{Path: "params.duration", Reason: "must not be negative"}}}
		}
		if cmd.By == 0 {
			return h.d.SandboxClock.Now(), nil
		}
		return h.d.SandboxClock.Advance(ctx, cmd.By)
	})
}
