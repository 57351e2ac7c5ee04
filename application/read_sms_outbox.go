package application

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ReadSMSOutboxHandler returns what the sandbox SMS gateway sent to a phone, newest first
// (sandbox only).
type ReadSMSOutboxHandler struct {
	SmsOutbox ports.SMSOutbox
}

// outboxLimit bounds the messages one call returns.
const outboxLimit = 50

// Handle returns the messages the partner's requests sent to the phone.
func (h *ReadSMSOutboxHandler) Handle(ctx context.Context, partner uuid.UUID, phone domain.Phone) ([]ports.SentSMS, error) {
	if h.SmsOutbox == nil {
		return nil, errors.New("no SMS outbox outside the sandbox")
	}
	return h.SmsOutbox.List(ctx, partner, phone, outboxLimit)
}
