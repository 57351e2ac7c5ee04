package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// GetCard reads a card's status (endpoint 17).
type GetCard struct {
	PartnerID uuid.UUID
	CardID    uuid.UUID
}

// GetCardHandler answers card status; it stores nothing.
type GetCardHandler struct{ d Deps }

// Handle returns the partner's card.
func (h *GetCardHandler) Handle(ctx context.Context, q GetCard) (*domain.Card, error) {
	return getCard(ctx, h.d, q.PartnerID, q.CardID)
}

// getCard returns the partner's card; a foreign one is not found.
func getCard(ctx context.Context, d Deps, partnerID, id uuid.UUID) (*domain.Card, error) {
	c, err := d.Cards.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if c.PartnerID() != partnerID {
		return nil, domain.ErrCardNotFound
	}
	return c, nil
}

// updateCard changes the partner's card under its row lock.
func updateCard(ctx context.Context, d Deps, partnerID, id uuid.UUID, fn func(c *domain.Card) error) error {
	return d.Cards.Update(ctx, id, func(c *domain.Card) error {
		if c.PartnerID() != partnerID {
			return domain.ErrCardNotFound
		}
		return fn(c)
	})
}
