package application

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// ConfirmCard confirms an attach with the SMS code (endpoint 20).
type ConfirmCard struct {
	PartnerID uuid.UUID
	CardID    uuid.UUID
	Code      string
}

// ConfirmCardHandler checks the code under the card's row lock; a right code gets the card
// tokenised by the network and ACTIVE. A wrong code's attempt is stored even though the call
// is refused, so it runs in its own transaction, before the request's.
type ConfirmCardHandler struct {
	d   Deps
	cfg Config
}

// Handle confirms the attach.
func (h *ConfirmCardHandler) Handle(ctx context.Context, cmd ConfirmCard) error {
	var outcome error
	err := h.d.UoW.Do(h.d.UoW.Detach(ctx), func(tx context.Context) error {
		return updateCard(tx, h.d, cmd.PartnerID, cmd.CardID, func(c *domain.Card) error {
			outcome = c.Confirm(otpHash(h.d.Sealer, c.ID(), cmd.Code), h.d.Clock.Now())
			if errors.Is(outcome, domain.ErrOTPWrong) {
				return nil // keep the attempt
			}
			if outcome != nil {
				return outcome
			}
			token, err := h.d.Processing.Tokenise(ctx, c.NetworkRef())
			if err != nil {
				return gatewayError(err)
			}
			c.Activate(token, h.d.Clock.Now())
			return nil
		})
	})
	if err != nil {
		return err
	}
	return outcome
}
