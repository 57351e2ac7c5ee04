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
	Clock      ports.Clock
	Transfers  ports.TransferRepository
	Repayments ports.RepaymentRepository
	CardOrders ports.CardOrderRepository
	Cards      ports.CardRepository
	Partners   ports.PartnerRepository
	Proposals  ports.ProposalRepository
	Log        ports.AuditLog
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
		if p.Transfer, err = h.Transfers.Get(ctx, id); err == nil {
			partner = p.Transfer.PartnerID()
		}
	case "repayment":
		if p.Repayment, err = h.Repayments.Get(ctx, id); err == nil {
			partner = p.Repayment.State().PartnerID
		}
	case "card_order":
		if p.CardOrder, err = h.CardOrders.Get(ctx, id); err == nil {
			partner = p.CardOrder.State().PartnerID
		}
	case "card":
		if p.Card, err = h.Cards.Get(ctx, id); err == nil {
			partner = p.Card.State().PartnerID
		}
	default:
		return p, domain.ErrForbidden
	}
	if err != nil {
		return p, err
	}
	p.Now = h.Clock.Now(partner)
	if p.PartnerName, err = partnerName(ctx, h.Partners, partner); err != nil {
		return p, err
	}
	if p.Proposals, err = h.Proposals.List(ctx, id, pageRows); err != nil {
		return p, err
	}
	p.Proposals = asOf(p.Proposals, h.Clock.Now(uuid.Nil))
	p.Audit, err = h.Log.List(ctx, ports.AuditFilter{Object: kind + ":" + id.String(), Limit: pageRows})
	return p, err
}
