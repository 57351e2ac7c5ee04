package console

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ResendEventHandler delivers an event to its partner's webhook again.
type ResendEventHandler struct {
	uow        ports.UnitOfWork
	backOffice ports.BackOffice
	audit      audit
}

// NewResendEventHandler returns the handler on the ports it uses.
func NewResendEventHandler(clock ports.Clock, uow ports.UnitOfWork, backOffice ports.BackOffice, log ports.AuditLog) *ResendEventHandler {
	return &ResendEventHandler{uow: uow, backOffice: backOffice, audit: audit{clock: clock, log: log}}
}

// Handle makes the event due now, its attempts counted afresh; the delivery worker takes it.
// The partner may get it twice: webhooks are at-least-once, deduplicated by the event's id.
func (h *ResendEventHandler) Handle(ctx context.Context, who Actor, id uuid.UUID) error {
	if err := who.may(domain.RoleOfficer); err != nil {
		return err
	}
	return h.uow.Do(ctx, func(ctx context.Context) error {
		if err := h.backOffice.ResendEvent(ctx, id, h.audit.now()); err != nil {
			return err
		}
		return h.audit.record(ctx, who, "event.resend", "event:"+id.String(), "")
	})
}
