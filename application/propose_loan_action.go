package application

import (
	"context"

	"github.com/google/uuid"

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
	uow       ports.UnitOfWork
	clock     ports.Clock
	loans     ports.LoanRepository
	proposals ports.ProposalRepository
	audit     audit
}

// NewProposeLoanActionHandler returns the handler on the ports it uses.
func NewProposeLoanActionHandler(clock ports.Clock, uow ports.UnitOfWork, loans ports.LoanRepository,
	proposals ports.ProposalRepository, log ports.AuditLog) *ProposeLoanActionHandler {
	return &ProposeLoanActionHandler{uow: uow, clock: clock, loans: loans, proposals: proposals, audit: audit{clock: clock, log: log}}
}

// Handle records the proposal and returns its id. An action the loan refuses now (nothing to
// waive, an amount above the payoff, a closed loan) is refused at once: it is tried on a copy
// of the loan, as the preview does.
func (h *ProposeLoanActionHandler) Handle(ctx context.Context, who Actor, cmd ProposeLoanAction) (uuid.UUID, error) {
	if err := who.may(domain.RoleOfficer); err != nil {
		return uuid.Nil, err
	}
	p, err := domain.NewLoanActionProposal(newID(), cmd.Kind, cmd.LoanID, cmd.Terms, cmd.Ref, cmd.Reason, who.ID, h.audit.now())
	if err != nil {
		return uuid.Nil, err
	}
	loan, err := h.loans.Get(ctx, cmd.LoanID)
	if err != nil {
		return uuid.Nil, err
	}
	if _, err := p.ApplyTo(loan, newID(), newID(), h.clock.Now(loan.PartnerID())); err != nil {
		return uuid.Nil, err
	}
	err = h.uow.Do(ctx, func(ctx context.Context) error {
		if err := expireStale(ctx, h.proposals, cmd.LoanID, p.ProposedAt); err != nil {
			return err
		}
		if err := h.proposals.Create(ctx, p); err != nil {
			return err
		}
		return h.audit.record(ctx, who, "proposal.create", objectName(p), describe(p))
	})
	return p.ID, err
}
