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
	smsOutbox ports.SMSOutbox
}

// NewReadSMSOutboxHandler returns the handler on the ports it uses.
func NewReadSMSOutboxHandler(smsOutbox ports.SMSOutbox) *ReadSMSOutboxHandler {
	return &ReadSMSOutboxHandler{smsOutbox: smsOutbox}
}

// outboxLimit bounds the messages one call returns.
const outboxLimit = 50

// Handle returns the messages the partner's requests sent to the phone.
func (h *ReadSMSOutboxHandler) Handle(ctx context.Context, partner uuid.UUID, phone domain.Phone) ([]ports.SentSMS, error) {
	if h.smsOutbox == nil {
		return nil, errors.New("no SMS outbox outside the sandbox")
	}
	return h.smsOutbox.List(ctx, partner, phone, outboxLimit)
}
