package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ChangeCardStatus changes a card's status (endpoint 18).
type ChangeCardStatus struct {
	PartnerID uuid.UUID
	CardID    uuid.UUID
	Status    domain.CardStatus
	Reason    string
}

// ChangeCardStatusHandler applies the transition table under the card's row lock; for a card
// issued through tiyin the network is told of the change first.
type ChangeCardStatusHandler struct {
	Clock      ports.Clock
	Processing ports.Processing
	Cards      ports.CardRepository
	Requests   Requests
}

// Handle answers with the card after the change.
//
// Steps: a stored answer is replayed without telling the network again; for an issued card
// whose status changes, the network is told the new status outside any transaction (setting
// a state twice is setting it once); one transaction changes the card under its row lock and
// stores the request's claim and answer. A crash between the two leaves the network ahead of
// tiyin: a retry tells it again and records the change.
func (h *ChangeCardStatusHandler) Handle(ctx context.Context, call Call, cmd ChangeCardStatus) (Reply[CardState], error) {
	if prior, err := lookup[CardState](ctx, h.Requests, call); err != nil || prior.ended {
		return prior.reply, err
	}
	c, err := getCard(ctx, h.Cards, cmd.PartnerID, cmd.CardID)
	if err != nil {
		return refuse[CardState](ctx, h.Requests, call, err)
	}
	changed, err := c.ChangeStatus(cmd.Status, cmd.Reason, h.Clock.Now(cmd.PartnerID))
	if err != nil {
		return refuse[CardState](ctx, h.Requests, call, err)
	}
	if changed && c.Origin() == domain.CardIssued {
		if err := h.Processing.SetCardState(ctx, c.Token(), cmd.Status); err != nil {
			return Reply[CardState]{}, gatewayError(err)
		}
	}
	return finish(ctx, h.Requests, call, func(ctx context.Context) (CardState, error) {
		var state CardState
		err := updateCard(ctx, h.Cards, cmd.PartnerID, cmd.CardID, func(c *domain.Card) error {
			_, err := c.ChangeStatus(cmd.Status, cmd.Reason, h.Clock.Now(cmd.PartnerID))
			state = cardStateOf(c)
			return err
		})
		return state, err
	})
}
