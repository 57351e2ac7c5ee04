package console

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ResendEventHandler delivers an event to its partner's webhook again.
type ResendEventHandler struct {
	UoW        ports.UnitOfWork
	BackOffice ports.BackOffice
	Audit      Audit
}

// Handle makes the event due now, its attempts counted afresh; the delivery worker takes it.
// The partner may get it twice: webhooks are at-least-once, deduplicated by the event's id.
func (h *ResendEventHandler) Handle(ctx context.Context, who Actor, id uuid.UUID) error {
	if err := who.may(domain.RoleOfficer); err != nil {
		return err
	}
	return h.UoW.Do(ctx, func(ctx context.Context) error {
		if err := h.BackOffice.ResendEvent(ctx, id, h.Audit.now()); err != nil {
			return err
		}
		return h.Audit.record(ctx, who, "event.resend", "event:"+id.String(), "")
	})
}
