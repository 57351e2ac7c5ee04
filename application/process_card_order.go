package application

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ProcessCardOrderHandler takes one due card order a step: NEW is submitted to the card issuer,
// IN_PROGRESS asks for the result. An issued card replaces the client's previous card from
// this partner, which is CLOSED (and the network told) in the same transaction.
type ProcessCardOrderHandler struct {
	clock      ports.Clock
	uow        ports.UnitOfWork
	processing ports.Processing
	cards      ports.CardRepository
	cardOrders ports.CardOrderRepository
	cardIssuer ports.CardIssuer
	opsLog     ports.OpsLog
}

// NewProcessCardOrderHandler returns the handler on the ports it uses.
func NewProcessCardOrderHandler(clock ports.Clock, uow ports.UnitOfWork, processing ports.Processing,
	cards ports.CardRepository, cardOrders ports.CardOrderRepository, cardIssuer ports.CardIssuer, opsLog ports.OpsLog) *ProcessCardOrderHandler {
	return &ProcessCardOrderHandler{
		clock:      clock,
		uow:        uow,
		processing: processing,
		cards:      cards,
		cardOrders: cardOrders,
		cardIssuer: cardIssuer,
		opsLog:     orNoOpsLog(opsLog),
	}
}

// Handle runs the order's due step.
func (h *ProcessCardOrderHandler) Handle(ctx context.Context, id uuid.UUID) error {
	o, err := h.cardOrders.Get(ctx, id)
	if err != nil {
		return err
	}
	ctx = ports.WithRequestID(ctx, o.RequestID()) // the log names the request that placed it
	switch o.Status() {
	case domain.CardOrderNew:
		ref, err := h.cardIssuer.Order(ctx, ports.CardIssueRequest{IdempotencyKey: o.ID().String() + ":ORDER",
			OrderID: o.ID(), Phone: o.Phone(), ClientData: o.ClientData()})
		return h.update(ctx, id, err, func(o *domain.CardOrder) error { return o.Submitted(ref, h.clock.Now(o.PartnerID())) })
	case domain.CardOrderInProgress:
		answer, err := h.cardIssuer.Result(ctx, o.IssuerRef())
		if err != nil || answer.Status != ports.AnswerApproved {
			return h.update(ctx, id, err, func(o *domain.CardOrder) error {
				if answer.Status == ports.AnswerDeclined {
					return o.Cancel(answer.Reason, h.clock.Now(o.PartnerID()))
				}
				o.Pending(h.clock.Now(o.PartnerID()))
				return nil
			})
		}
		return h.complete(ctx, o, answer.Card)
	}
	return nil
}

// update records a step's outcome. A gateway error instead counts a failed attempt when the
// issuer was never reached or refused for a technical reason, and otherwise (the issuer may
// have made the card) asks again later, never giving up on its account.
func (h *ProcessCardOrderHandler) update(ctx context.Context, id uuid.UUID, gatewayErr error, fn func(o *domain.CardOrder) error) error {
	var gaveUp *ports.Failure
	err := h.uow.Do(ctx, func(ctx context.Context) error {
		return h.cardOrders.Update(ctx, id, func(o *domain.CardOrder) error {
			now := h.clock.Now(o.PartnerID())
			switch {
			case gatewayErr == nil:
				return fn(o)
			case errors.Is(gatewayErr, ports.ErrGatewayNotReached), errors.Is(gatewayErr, ports.ErrGatewayFailed):
				if o.Failed(gatewayErr.Error(), now) {
					gaveUp = &ports.Failure{Event: "card_order.failed", PartnerID: o.PartnerID(), Object: "card_order:" + o.ID().String(),
						Target: "card_issuer", Attempt: domain.MaxStageAttempts, Final: true, Reason: gatewayErr.Error()}
				}
			default:
				o.Unknown(now)
			}
			return nil
		})
	})
	if err == nil && gaveUp != nil {
		h.opsLog.Failure(ctx, *gaveUp)
	}
	return err
}

// complete stores the issued card and closes the client's earlier cards from this partner.
// The network is told of the closes first, outside any transaction (closing a card twice is
// closing it once); one transaction then completes the order, closes the cards in tiyin and
// stores the new one.
func (h *ProcessCardOrderHandler) complete(ctx context.Context, o *domain.CardOrder, issued ports.IssuedCard) error {
	old, err := h.cards.ListIssuedLive(ctx, o.PartnerID(), o.ClientData().PINFL())
	if err != nil {
		return err
	}
	for _, id := range old {
		c, err := h.cards.Get(ctx, id)
		if err != nil {
			return err
		}
		if err := h.processing.SetCardState(ctx, c.Token(), domain.CardClosed); err != nil {
			return err
		}
	}
	err = h.uow.Do(ctx, func(ctx context.Context) error {
		now := h.clock.Now(o.PartnerID())
		card := o.IssuedCard(domain.IssuedCardParams{ID: NewID(), Network: issued.Network, MaskedPAN: issued.MaskedPAN,
			Expiry: issued.Expiry, Token: issued.Token, Now: now})
		err := h.cardOrders.Update(ctx, o.ID(), func(o *domain.CardOrder) error { return o.Complete(card.ID(), now) })
		if err != nil {
			return err
		}
		for _, id := range old {
			err := h.cards.Update(ctx, id, func(c *domain.Card) error {
				_, err := c.ChangeStatus(domain.CardClosed, "replaced by the card of order "+o.ExternalID(), now)
				return err
			})
			if err != nil {
				return err
			}
		}
		return h.cards.Create(ctx, card)
	})
	if errors.Is(err, domain.ErrCardOrderFinished) {
		return nil // another node completed it
	}
	return err
}
