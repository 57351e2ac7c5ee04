package application

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/ports"
)

// ResetSandbox erases the partner's sandbox: its objects and its clock.
type ResetSandbox struct {
	PartnerID uuid.UUID
}

// ResetSandboxHandler resets a partner's sandbox, in the spirit of deleting a test clock:
// everything the partner made goes, and its time is the real time again. Other partners of
// the same sandbox keep their objects and their clocks.
type ResetSandboxHandler struct {
	sandboxClock ports.SandboxClock
	rq           Requests
}

// NewResetSandboxHandler returns the handler on the ports it uses.
func NewResetSandboxHandler(uow ports.UnitOfWork, idempotency ports.IdempotencyStore, sandboxClock ports.SandboxClock) *ResetSandboxHandler {
	return &ResetSandboxHandler{sandboxClock: sandboxClock, rq: Requests{UoW: uow, Store: idempotency}}
}

// Handle erases the partner's objects and sets its clock back, in one transaction with the
// request's stored answer, and returns the partner's time. The answers stored before it are
// erased with the rest, the answer of this very id included, so a repeat of the id is found
// first and replayed: it would otherwise claim the id anew and erase again.
func (h *ResetSandboxHandler) Handle(ctx context.Context, call Call, cmd ResetSandbox) (Reply[time.Time], error) {
	return finish(ctx, h.rq, call, func(ctx context.Context) (time.Time, error) {
		if h.sandboxClock == nil {
			return time.Time{}, errors.New("the sandbox can only be reset in sandbox mode")
		}
		if rec, err := h.rq.Store.Lookup(ctx, call.PartnerID, call.Key); err != nil || rec != nil {
			return time.Time{}, cmp.Or(err, ports.ErrDuplicateRequest)
		}
		return h.sandboxClock.Reset(ctx, cmd.PartnerID)
	})
}
