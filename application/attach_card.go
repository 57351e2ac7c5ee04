package application

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// AttachCard binds a card issued by any bank and sends the client an SMS code (endpoint 19).
type AttachCard struct {
	PartnerID uuid.UUID
	PAN       domain.PAN
	Expiry    domain.Expiry
	Network   domain.Network
	Phone     domain.Phone
}

// AttachCardHandler asks the network whether it knows the card, then, in one transaction,
// stores the card UNVERIFIED with the hash of a new code (or gives the partner's card still
// waiting for its code a new one) and sends the code. A code that cannot be sent leaves nothing.
type AttachCardHandler struct {
	d   Deps
	cfg Config
}

// Handle returns the card's id.
func (h *AttachCardHandler) Handle(ctx context.Context, cmd AttachCard) (uuid.UUID, error) {
	ref, err := h.d.Processing.LookupCard(ctx, ports.CardQuery{PAN: cmd.PAN, Expiry: cmd.Expiry, Network: cmd.Network, Phone: cmd.Phone})
	if err != nil {
		if errors.Is(err, domain.ErrCardRejected) {
			return uuid.Nil, err
		}
		return uuid.Nil, gatewayError(err)
	}
	code, err := newOTP(h.cfg.SandboxOTP)
	if err != nil {
		return uuid.Nil, err
	}
	ttl := h.cfg.OTPTTL
	if ttl <= 0 {
		ttl = domain.DefaultOTPTTL
	}
	pans := panHashes(h.d.Sealer, cmd.PAN)
	var id uuid.UUID
	err = h.d.UoW.Do(ctx, func(ctx context.Context) error {
		now := h.d.Clock.Now()
		existing, err := h.d.Cards.FindLive(ctx, cmd.PartnerID, pans)
		switch {
		case err == nil:
			id = existing.ID()
			err = h.d.Cards.Update(ctx, id, func(c *domain.Card) error {
				return c.Resend(ref, otpHash(h.d.Sealer, id, code), ttl, now)
			})
		case errors.Is(err, domain.ErrCardNotFound):
			id = newID()
			err = h.d.Cards.Create(ctx, domain.NewAttachedCard(domain.NewAttachedCardParams{ID: id, PartnerID: cmd.PartnerID,
				PAN: cmd.PAN, PANHash: pans[0], Expiry: cmd.Expiry, Network: cmd.Network, Phone: cmd.Phone, NetworkRef: ref,
				OTPHash: otpHash(h.d.Sealer, id, code), OTPTTL: ttl, Now: now}))
		}
		if err != nil {
			return err
		}
		text := fmt.Sprintf("tiyin: %s is the code to attach card %s. It is valid for %s. Never share it.",
			code, cmd.PAN.Masked(), humanDuration(ttl))
		if err := h.d.SMS.Send(ctx, ports.SMS{Phone: cmd.Phone, Text: text, Code: code, Card: cmd.PAN.Masked()}); err != nil {
			if errors.Is(err, domain.ErrSMSNotSent) {
				return err // the gateway refused it: 1006, the partner's answer
			}
			return gatewayError(err) // the outcome is unknown: code 10, the same id may retry
		}
		return nil
	})
	if err != nil {
		return uuid.Nil, err
	}
	return id, nil
}

// humanDuration writes whole minutes as "3 minutes", anything else as Go does.
func humanDuration(d time.Duration) string {
	if d%time.Minute == 0 && d >= time.Minute {
		return fmt.Sprintf("%d minutes", int(d.Minutes()))
	}
	return d.String()
}
