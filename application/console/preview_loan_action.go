package console

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// LoanActionPreview is what a loan action would do if applied now: the loan before and after,
// side by side, and the postings it would make. Refusal says why it cannot be applied now (an
// approver sees it and rejects the proposal); After is then empty.
type LoanActionPreview struct {
	Proposal      *domain.Proposal // the action; a stored proposal's status is as of now
	Stored        bool             // the proposal waits for approval (not a maker's draft)
	PartnerName   string
	Before, After LoanPicture
	Outcome       domain.ActionOutcome
	Refusal       string
}

// LoanPicture is a loan at a moment, as a preview shows it.
type LoanPicture struct {
	Status   domain.LoanStatus
	Position domain.Position
	Items    []domain.ItemStanding
	Cost     domain.LoanCost
}

// PreviewLoanActionHandler previews loan actions: a maker's, before it is proposed, and a
// stored proposal, for its approver. It changes nothing: the action is applied to a copy of the
// loan.
type PreviewLoanActionHandler struct {
	Clock      ports.Clock
	Loans      ports.LoanRepository
	Partners   ports.PartnerRepository
	Proposals  ports.ProposalRepository
	Repayments ports.RepaymentRepository
}

// Handle previews a maker's action before it is proposed: a terms error (a missing reason, a
// bad amount) is the answer, as proposing would give it.
func (h *PreviewLoanActionHandler) Handle(ctx context.Context, who Actor, cmd ProposeLoanAction) (LoanActionPreview, error) {
	if err := who.may(domain.RoleOfficer); err != nil {
		return LoanActionPreview{}, err
	}
	now := h.Clock.Now(uuid.Nil)
	p, err := domain.NewLoanActionProposal(uuid.Nil, cmd.Kind, cmd.LoanID, cmd.Terms, cmd.Ref, cmd.Reason, who.ID, now)
	if err != nil {
		return LoanActionPreview{}, err
	}
	return h.preview(ctx, p)
}

// Proposal previews a stored loan action proposal, as its approval would apply it now.
func (h *PreviewLoanActionHandler) Proposal(ctx context.Context, who Actor, id uuid.UUID) (LoanActionPreview, error) {
	if err := who.may(domain.RoleOfficer); err != nil {
		return LoanActionPreview{}, err
	}
	p, err := h.Proposals.Get(ctx, id)
	if err != nil {
		return LoanActionPreview{}, err
	}
	if !p.Kind.IsLoanAction() {
		return LoanActionPreview{}, domain.ErrProposalNotFound
	}
	p.Status = p.StatusAt(h.Clock.Now(uuid.Nil))
	v, err := h.preview(ctx, p)
	v.Stored = true
	return v, err
}

func (h *PreviewLoanActionHandler) preview(ctx context.Context, p *domain.Proposal) (LoanActionPreview, error) {
	loan, err := h.Loans.Get(ctx, p.ObjectID)
	if err != nil {
		return LoanActionPreview{}, err
	}
	v := LoanActionPreview{Proposal: p}
	if v.PartnerName, err = partnerName(ctx, h.Partners, loan.PartnerID()); err != nil {
		return v, err
	}
	now := h.Clock.Now(loan.PartnerID())
	if v.Before, err = picture(loan, now); err != nil {
		return v, err
	}
	// ApplyTo reads and writes nothing but the copy: whatever it refuses is the loan's refusal.
	if v.Outcome, err = p.ApplyTo(loan, application.NewID(), application.NewID(), now); err != nil {
		v.Refusal = err.Error()
		return v, nil
	}
	// A used receipt is refused by the store when the approval creates the repayment (an
	// approved proposal's receipt is its own repayment's).
	if p.Status == domain.ProposalOpen {
		if err := receiptUnused(ctx, h.Repayments, p); errors.Is(err, domain.ErrDebitUsed) {
			v.Refusal = err.Error()
			return v, nil
		} else if err != nil {
			return v, err
		}
	}
	v.After, err = picture(loan, now)
	return v, err
}

// picture is the loan at now.
func picture(loan *domain.Loan, now time.Time) (LoanPicture, error) {
	p := LoanPicture{Status: loan.Status()}
	var err error
	if p.Position, err = loan.PositionAt(now); err != nil {
		return p, err
	}
	if p.Items, err = loan.ItemsAt(now); err != nil {
		return p, err
	}
	p.Cost, err = loan.CostAt(now)
	return p, err
}

// ScheduleRow is one payment date of a preview: its item before and after the action, nil
// where the loan has none on that date (a prepayment laid an item out to nothing).
type ScheduleRow struct {
	Date          time.Time
	Before, After *domain.ItemStanding
}

// Rows lays the schedules before and after side by side, by payment date.
func (v LoanActionPreview) Rows() []ScheduleRow {
	var out []ScheduleRow
	b, a := v.Before.Items, v.After.Items
	for len(b) > 0 || len(a) > 0 {
		var row ScheduleRow
		switch {
		case len(a) == 0 || len(b) > 0 && b[0].PaymentDate.Before(a[0].PaymentDate):
			row = ScheduleRow{Date: b[0].PaymentDate, Before: &b[0]}
			b = b[1:]
		case len(b) == 0 || a[0].PaymentDate.Before(b[0].PaymentDate):
			row = ScheduleRow{Date: a[0].PaymentDate, After: &a[0]}
			a = a[1:]
		default:
			row = ScheduleRow{Date: b[0].PaymentDate, Before: &b[0], After: &a[0]}
			a, b = a[1:], b[1:]
		}
		out = append(out, row)
	}
	return out
}
