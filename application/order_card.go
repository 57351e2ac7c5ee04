package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// OrderCard orders a card for a client, or a new card replacing the client's (endpoint 15).
type OrderCard struct {
	PartnerID  uuid.UUID
	ExternalID string
	Phone      domain.Phone
	ClientData domain.ClientData
}

// OrderCardHandler stores the order; the reconciler takes it to the card issuer.
type OrderCardHandler struct {
	Clock      ports.Clock
	CardOrders ports.CardOrderRepository
	Requests   Requests
}

// OrderedCard is a new card order: its id and the partner's external id.
type OrderedCard struct {
	OrderID    uuid.UUID
	ExternalID string
}

// Handle returns the new order.
func (h *OrderCardHandler) Handle(ctx context.Context, call Call, cmd OrderCard) (Reply[OrderedCard], error) {
	return finish(ctx, h.Requests, call, func(ctx context.Context) (OrderedCard, error) {
		o, err := domain.NewCardOrder(domain.NewCardOrderParams{ID: NewID(), PartnerID: cmd.PartnerID, ExternalID: cmd.ExternalID,
			Phone: cmd.Phone, ClientData: cmd.ClientData, Now: h.Clock.Now(cmd.PartnerID)})
		if err != nil {
			return OrderedCard{}, err
		}
		o.Correlate(ports.RequestID(ctx))
		return OrderedCard{OrderID: o.ID(), ExternalID: o.ExternalID()}, h.CardOrders.Create(ctx, o)
	})
}
