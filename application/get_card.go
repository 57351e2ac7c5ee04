package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// GetCard reads a card's status (endpoint 17).
type GetCard struct {
	PartnerID uuid.UUID
	CardID    uuid.UUID
}

// GetCardHandler answers card status; it stores nothing.
type GetCardHandler struct {
	Cards ports.CardRepository
}

// CardState is a card's status as a partner reads it.
type CardState struct {
	CardID uuid.UUID
	Status domain.CardStatus
	Reason string
}

func cardStateOf(c *domain.Card) CardState {
	return CardState{CardID: c.ID(), Status: c.Status(), Reason: c.Reason()}
}

// Handle returns the partner's card's state.
func (h *GetCardHandler) Handle(ctx context.Context, q GetCard) (CardState, error) {
	c, err := getCard(ctx, h.Cards, q.PartnerID, q.CardID)
	if err != nil {
		return CardState{}, err
	}
	return cardStateOf(c), nil
}
