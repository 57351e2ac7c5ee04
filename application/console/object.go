package console

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ObjectPage is a transfer, repayment request, card order or card as operators see it, with the
// proposals and console actions about it.
type ObjectPage struct {
	Transfer    *domain.Transfer
	Repayment   *domain.Repayment
	CardOrder   *domain.CardOrder
	Card        *domain.Card
	PartnerName string
	Now         time.Time
	Proposals   []*domain.Proposal
	Audit       []ports.AuditEntry
}

// ObjectHandler reads the pages of transfers, repayment requests, card orders and cards.
type ObjectHandler struct {
	clock      ports.Clock
	transfers  ports.TransferRepository
	repayments ports.RepaymentRepository
	cardOrders ports.CardOrderRepository
	cards      ports.CardRepository
	partners   ports.PartnerRepository
	proposals  ports.ProposalRepository
	log        ports.AuditLog
}

// NewObjectHandler returns the handler on the ports it uses.
func NewObjectHandler(clock ports.Clock, transfers ports.TransferRepository, repayments ports.RepaymentRepository,
	cardOrders ports.CardOrderRepository, cards ports.CardRepository, partners ports.PartnerRepository,
	proposals ports.ProposalRepository, log ports.AuditLog) *ObjectHandler {
	return &ObjectHandler{clock: clock, transfers: transfers, repayments: repayments, cardOrders: cardOrders, cards: cards,
		partners: partners, proposals: proposals, log: log}
}

// Handle reads the page of the object of kind (transfer, repayment, card_order, card) and id.
func (h *ObjectHandler) Handle(ctx context.Context, who Actor, kind string, id uuid.UUID) (ObjectPage, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return ObjectPage{}, err
	}
	var (
		p       ObjectPage
		partner uuid.UUID
		err     error
	)
	switch kind {
	case "transfer":
		if p.Transfer, err = h.transfers.Get(ctx, id); err == nil {
			partner = p.Transfer.PartnerID()
		}
	case "repayment":
		if p.Repayment, err = h.repayments.Get(ctx, id); err == nil {
			partner = p.Repayment.State().PartnerID
		}
	case "card_order":
		if p.CardOrder, err = h.cardOrders.Get(ctx, id); err == nil {
			partner = p.CardOrder.State().PartnerID
		}
	case "card":
		if p.Card, err = h.cards.Get(ctx, id); err == nil {
			partner = p.Card.State().PartnerID
		}
	default:
		return p, domain.ErrForbidden
	}
	if err != nil {
		return p, err
	}
	p.Now = h.clock.Now(partner)
	if p.PartnerName, err = partnerName(ctx, h.partners, partner); err != nil {
		return p, err
	}
	if p.Proposals, err = h.proposals.List(ctx, id, pageRows); err != nil {
		return p, err
	}
	p.Proposals = asOf(p.Proposals, h.clock.Now(uuid.Nil))
	p.Audit, err = h.log.List(ctx, ports.AuditFilter{Object: kind + ":" + id.String(), Limit: pageRows})
	return p, err
}
