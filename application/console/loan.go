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
	clock      ports.Clock
	loans      ports.LoanRepository
	partners   ports.PartnerRepository
	repayments ports.RepaymentRepository
	backOffice ports.BackOffice
	proposals  ports.ProposalRepository
}

// NewLoanHandler returns the handler on the ports it uses.
func NewLoanHandler(clock ports.Clock, loans ports.LoanRepository, partners ports.PartnerRepository,
	repayments ports.RepaymentRepository, backOffice ports.BackOffice, proposals ports.ProposalRepository) *LoanHandler {
	return &LoanHandler{clock: clock, loans: loans, partners: partners, repayments: repayments, backOffice: backOffice,
		proposals: proposals}
}

// Handle reads the page of loan id, of any partner, its position on its partner's clock.
func (h *LoanHandler) Handle(ctx context.Context, who Actor, id uuid.UUID) (LoanPage, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return LoanPage{}, err
	}
	loan, err := h.loans.Get(ctx, id)
	if err != nil {
		return LoanPage{}, err
	}
	var p LoanPage
	if p.View, err = application.ViewLoan(loan, h.clock); err != nil {
		return p, err
	}
	if p.Items, err = loan.ItemsAt(h.clock.Now(loan.PartnerID())); err != nil {
		return p, err
	}
	for _, it := range p.Items {
		if it.Overdue {
			p.DaysOverdue = max(p.DaysOverdue, it.DaysOverdue)
		}
	}
	if p.PartnerName, err = partnerName(ctx, h.partners, loan.PartnerID()); err != nil {
		return p, err
	}
	if p.Payments, err = h.repayments.ListPayments(ctx, id); err != nil {
		return p, err
	}
	if p.InterestWaived, p.PenaltyWaived, err = loan.Waived(); err != nil {
		return p, err
	}
	props, err := h.proposals.List(ctx, id, pageRows)
	if err != nil {
		return p, err
	}
	p.Proposals = asOf(props, h.clock.Now(uuid.Nil))
	if p.Accounts, err = h.backOffice.Accounts(ctx, id); err != nil {
		return p, err
	}
	keys := make([]string, len(p.Accounts))
	for i, a := range p.Accounts {
		keys[i] = a.Key
	}
	p.Entries, err = h.backOffice.Entries(ctx, keys, pageRows)
	return p, err
}
