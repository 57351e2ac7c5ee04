package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// GetCardOrder reads a card order (endpoint 16).
type GetCardOrder struct {
	PartnerID uuid.UUID
	OrderID   uuid.UUID
}

// CardOrderView is an order with its card, nil until COMPLETED.
type CardOrderView struct {
	Order *domain.CardOrder
	Card  *domain.Card
}

// GetCardOrderHandler answers order info; it stores nothing.
type GetCardOrderHandler struct {
	Cards      ports.CardRepository
	CardOrders ports.CardOrderRepository
}

// Handle returns the partner's order; a foreign one is not found.
func (h *GetCardOrderHandler) Handle(ctx context.Context, q GetCardOrder) (CardOrderView, error) {
	o, err := h.CardOrders.Get(ctx, q.OrderID)
	if err != nil {
		return CardOrderView{}, err
	}
	if o.PartnerID() != q.PartnerID {
		return CardOrderView{}, domain.ErrCardOrderNotFound
	}
	v := CardOrderView{Order: o}
	if o.CardID() != uuid.Nil {
		if v.Card, err = h.Cards.Get(ctx, o.CardID()); err != nil {
			return CardOrderView{}, err
		}
	}
	return v, nil
}
