package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// SendTestEvent asks for a test event to the partner's webhook (sandbox).
type SendTestEvent struct {
	PartnerID uuid.UUID
}

// SendTestEventHandler records a test event, delivered and listed like any other.
type SendTestEventHandler struct {
	clock  ports.Clock
	events ports.EventOutbox
	rq     requests
}

// NewSendTestEventHandler returns the handler on the ports it uses.
func NewSendTestEventHandler(clock ports.Clock, uow ports.UnitOfWork, idempotency ports.IdempotencyStore,
	events ports.EventOutbox) *SendTestEventHandler {
	return &SendTestEventHandler{clock: clock, events: events, rq: requests{uow: uow, store: idempotency}}
}

// Handle records the event and answers its id.
func (h *SendTestEventHandler) Handle(ctx context.Context, call Call, cmd SendTestEvent) (Reply[uuid.UUID], error) {
	return finish(ctx, h.rq, call, func(ctx context.Context) (uuid.UUID, error) {
		e := domain.NewTestEvent(cmd.PartnerID, h.clock.Now(cmd.PartnerID))
		return e.ID, h.events.Record(ctx, e)
	})
}
