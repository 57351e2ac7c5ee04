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
	cards ports.CardRepository
}

// NewGetCardHandler returns the handler on the ports it uses.
func NewGetCardHandler(cards ports.CardRepository) *GetCardHandler {
	return &GetCardHandler{cards: cards}
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
	c, err := getCard(ctx, h.cards, q.PartnerID, q.CardID)
	if err != nil {
		return CardState{}, err
	}
	return cardStateOf(c), nil
}

// getCard returns the partner's card; a foreign one is not found.
func getCard(ctx context.Context, cards ports.CardRepository, partnerID, id uuid.UUID) (*domain.Card, error) {
	c, err := cards.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if c.PartnerID() != partnerID {
		return nil, domain.ErrCardNotFound
	}
	return c, nil
}

// updateCard changes the partner's card under its row lock.
func updateCard(ctx context.Context, cards ports.CardRepository, partnerID, id uuid.UUID, fn func(c *domain.Card) error) error {
	return cards.Update(ctx, id, func(c *domain.Card) error {
		if c.PartnerID() != partnerID {
			return domain.ErrCardNotFound
		}
		return fn(c)
	})
}
