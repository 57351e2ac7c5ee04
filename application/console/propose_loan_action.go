package console

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ProposeLoanAction is an officer's proposal of an action on a loan's money: a manual
// repayment, a penalty or interest waiver, a write-off (docs/loan-actions.md).
type ProposeLoanAction struct {
	Kind   domain.ProposalKind
	LoanID uuid.UUID
	Terms  domain.LoanActionTerms
	// Ref is a manual repayment's receipt or transfer reference; Reason is required.
	Ref, Reason string
}

// ProposeLoanActionHandler records loan action proposals; a second officer approves them
// (DecideProposalHandler), which applies them.
type ProposeLoanActionHandler struct {
	UoW        ports.UnitOfWork
	Clock      ports.Clock
	Loans      ports.LoanRepository
	Proposals  ports.ProposalRepository
	Repayments ports.RepaymentRepository
	Audit      Audit
}

// Handle records the proposal and returns its id. An action the loan refuses now (nothing to
// waive, an amount above the payoff, a closed loan) is refused at once: it is tried on a copy
// of the loan, as the preview does; so is a manual repayment whose receipt paid another
// repayment already (domain.ErrDebitUsed).
func (h *ProposeLoanActionHandler) Handle(ctx context.Context, who Actor, cmd ProposeLoanAction) (uuid.UUID, error) {
	if err := who.may(domain.RoleOfficer); err != nil {
		return uuid.Nil, err
	}
	p, err := domain.NewLoanActionProposal(application.NewID(), cmd.Kind, cmd.LoanID, cmd.Terms, cmd.Ref, cmd.Reason, who.ID, h.Audit.now())
	if err != nil {
		return uuid.Nil, err
	}
	loan, err := h.Loans.Get(ctx, cmd.LoanID)
	if err != nil {
		return uuid.Nil, err
	}
	if _, err := p.ApplyTo(loan, application.NewID(), application.NewID(), h.Clock.Now(loan.PartnerID())); err != nil {
		return uuid.Nil, err
	}
	if err := receiptUnused(ctx, h.Repayments, p); err != nil {
		return uuid.Nil, err
	}
	return p.ID, recordProposal(ctx, h.UoW, h.Proposals, h.Audit, who, loan.PartnerID(), p)
}
