package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// ChangeCardStatus changes a card's status (endpoint 18).
type ChangeCardStatus struct {
	PartnerID uuid.UUID
	CardID    uuid.UUID
	Status    domain.CardStatus
	Reason    string
}

// ChangeCardStatusHandler applies the transition table under the card's row lock; for a card
// issued through tiyin the network is told of the change before it commits.
type ChangeCardStatusHandler struct{ d Deps }

// Handle returns the card after the change.
func (h *ChangeCardStatusHandler) Handle(ctx context.Context, cmd ChangeCardStatus) (*domain.Card, error) {
	var card *domain.Card
	err := h.d.UoW.Do(ctx, func(ctx context.Context) error {
		return updateCard(ctx, h.d, cmd.PartnerID, cmd.CardID, func(c *domain.Card) error {
			card = c
			changed, err := c.ChangeStatus(cmd.Status, cmd.Reason, h.d.Clock.Now())
			if err != nil || !changed || c.Origin() != domain.CardIssued {
				return err
			}
			if err := h.d.Processing.SetCardState(ctx, c.Token(), cmd.Status); err != nil {
				return gatewayError(err)
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return card, nil
}
