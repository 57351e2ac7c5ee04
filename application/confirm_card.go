package application

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ConfirmCard confirms an attach with the SMS code (endpoint 20).
type ConfirmCard struct {
	PartnerID uuid.UUID
	CardID    uuid.UUID
	Code      string
}

// ConfirmCardHandler checks the code under the card's row lock; a right code gets the card
// tokenised by the network and ACTIVE.
type ConfirmCardHandler struct {
	Clock      ports.Clock
	Processing ports.Processing
	Cards      ports.CardRepository
	Sealer     ports.Sealer
	Requests   Requests
}

// Handle confirms the attach.
//
// Steps, each transaction short and no gateway call inside one:
//  1. one transaction claims the request and checks the code under the card's row lock: a
//     wrong code's attempt is stored with its answer (1009), any other refusal is the answer;
//     the right code is used up and the card waits for its token;
//  2. the network tokenises the card;
//  3. one transaction makes the card ACTIVE with the token and stores the answer.
//
// A retry with the same id after a stop between 1 and 3 finds the claim unanswered and
// resumes at 2; a concurrent duplicate waits for step 1's claim, so an attempt is counted
// once.
func (h *ConfirmCardHandler) Handle(ctx context.Context, call Call, cmd ConfirmCard) (Reply[struct{}], error) {
	prior, err := lookup[struct{}](ctx, h.Requests, call)
	if err != nil || prior.ended {
		return prior.reply, err
	}
	if !prior.resume {
		if first, err := h.checkCode(ctx, call, cmd); err != nil || first.ended {
			return first.reply, err
		}
	}
	c, err := getCard(ctx, h.Cards, cmd.PartnerID, cmd.CardID)
	if err != nil {
		return Reply[struct{}]{}, err
	}
	token, tokenErr := h.Processing.Tokenise(ctx, c.NetworkRef())
	if tokenErr != nil {
		return Reply[struct{}]{}, gatewayError(tokenErr) // not stored: a retry resumes here
	}
	return resume(ctx, h.Requests, call, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, updateCard(ctx, h.Cards, cmd.PartnerID, cmd.CardID, func(c *domain.Card) error {
			return c.Activate(token, h.Clock.Now(cmd.PartnerID))
		})
	})
}

// checkCode is step 1. It ends the call (ended) unless the code was right.
func (h *ConfirmCardHandler) checkCode(ctx context.Context, call Call, cmd ConfirmCard) (standing[struct{}], error) {
	return begin[struct{}](ctx, h.Requests, call, func(ctx context.Context) error {
		var refusal error
		err := updateCard(ctx, h.Cards, cmd.PartnerID, cmd.CardID, func(c *domain.Card) error {
			refusal = c.Confirm(otpHash(h.Sealer, c.ID(), cmd.Code), h.Clock.Now(cmd.PartnerID))
			if errors.Is(refusal, domain.ErrOTPWrong) {
				return nil // the attempt is stored, with the refusal as the answer
			}
			return refusal
		})
		if err != nil {
			return err
		}
		if refusal != nil {
			return keep(refusal)
		}
		return nil
	})
}
