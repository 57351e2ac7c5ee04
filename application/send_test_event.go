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
	Clock    ports.Clock
	Events   ports.EventOutbox
	Requests Requests
}

// Handle records the event and answers its id.
func (h *SendTestEventHandler) Handle(ctx context.Context, call Call, cmd SendTestEvent) (Reply[uuid.UUID], error) {
	return finish(ctx, h.Requests, call, func(ctx context.Context) (uuid.UUID, error) {
		e := domain.NewTestEvent(cmd.PartnerID, h.Clock.Now(cmd.PartnerID))
		return e.ID, h.Events.Record(ctx, e)
	})
}
