package console

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// LoanPage is a loan as operators see it: its schedule, its position today (the five debt
// parts), its payments, and its accounts with their postings.
type LoanPage struct {
	View application.LoanView
	// Items is the schedule item by item at the loan's partner's today: paid, outstanding,
	// overdue (with its days).
	Items       []domain.ItemStanding
	DaysOverdue int // of the earliest overdue item; 0 when none is
	PartnerName string
	Payments    []domain.Payment
	Accounts    []ports.AccountBalance
	Entries     []ports.EntryRecord
	// Proposals are the loan's actions proposed, newest first, as of now.
	Proposals []*domain.Proposal
	// InterestWaived and PenaltyWaived are what operators forgave.
	InterestWaived, PenaltyWaived int64
}

// LoanHandler reads a loan's page.
type LoanHandler struct {
	Clock      ports.Clock
	Loans      ports.LoanRepository
	Partners   ports.PartnerRepository
	Repayments ports.RepaymentRepository
	BackOffice ports.BackOffice
	Proposals  ports.ProposalRepository
}

// Handle reads the page of loan id, of any partner, its position on its partner's clock.
func (h *LoanHandler) Handle(ctx context.Context, who Actor, id uuid.UUID) (LoanPage, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return LoanPage{}, err
	}
	loan, err := h.Loans.Get(ctx, id)
	if err != nil {
		return LoanPage{}, err
	}
	var p LoanPage
	if p.View, err = application.ViewLoan(loan, h.Clock); err != nil {
		return p, err
	}
	if p.Items, err = loan.ItemsAt(h.Clock.Now(loan.PartnerID())); err != nil {
		return p, err
	}
	for _, it := range p.Items {
		if it.Overdue {
			p.DaysOverdue = max(p.DaysOverdue, it.DaysOverdue)
		}
	}
	if p.PartnerName, err = partnerName(ctx, h.Partners, loan.PartnerID()); err != nil {
		return p, err
	}
	if p.Payments, err = h.Repayments.ListPayments(ctx, id); err != nil {
		return p, err
	}
	if p.InterestWaived, p.PenaltyWaived, err = loan.Waived(); err != nil {
		return p, err
	}
	props, err := h.Proposals.List(ctx, id, pageRows)
	if err != nil {
		return p, err
	}
	p.Proposals = asOf(props, h.Clock.Now(uuid.Nil))
	if p.Accounts, err = h.BackOffice.Accounts(ctx, id); err != nil {
		return p, err
	}
	keys := make([]string, len(p.Accounts))
	for i, a := range p.Accounts {
		keys[i] = a.Key
	}
	p.Entries, err = h.BackOffice.Entries(ctx, keys, pageRows)
	return p, err
}
