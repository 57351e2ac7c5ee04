package application

import (
	"context"
	"errors"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ReadSMSOutboxHandler returns what the sandbox SMS gateway sent to a phone, newest first
// (sandbox only).
type ReadSMSOutboxHandler struct{ d Deps }

// outboxLimit bounds the messages one call returns.
const outboxLimit = 50

// Handle returns the messages.
func (h *ReadSMSOutboxHandler) Handle(ctx context.Context, phone domain.Phone) ([]ports.SentSMS, error) {
	if h.d.SMSOutbox == nil {
		return nil, errors.New("no SMS outbox outside the sandbox")
	}
	return h.d.SMSOutbox.List(ctx, phone, outboxLimit)
}
