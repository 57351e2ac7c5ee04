package console

import (
	"context"
	"errors"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// PreviewBulkRepaymentsHandler reads a file of manual repayments (cash desk receipts, bank
// transfers) and says of each line whether it may be posted, or why not: a line that does not
// read, an unknown contract, a reference that paid another repayment already or repeats one
// above it, an amount the loan refuses (above its payoff, a closed loan). Each line is tried on
// a copy of its loan after the lines above it, as the approval will post them.
type PreviewBulkRepaymentsHandler struct {
	Clock      ports.Clock
	Loans      ports.LoanRepository
	Repayments ports.RepaymentRepository
}

// Handle previews the file, line by line.
func (h *PreviewBulkRepaymentsHandler) Handle(ctx context.Context, who Actor, file []byte) ([]domain.BulkLine, error) {
	if err := who.may(domain.RoleOfficer); err != nil {
		return nil, err
	}
	lines, err := domain.ParseBulkRepayments(file)
	if err != nil {
		return nil, err
	}
	copies := map[string]*domain.Loan{}
	for i := range lines {
		l := &lines[i]
		if !l.OK() {
			continue
		}
		loan, ok := copies[l.Contract]
		if !ok {
			loan, err = h.Loans.GetByContract(ctx, l.Contract)
			if errors.Is(err, domain.ErrLoanNotFound) {
				l.Refusal = "no loan has this contract number"
				continue
			}
			if err != nil {
				return nil, err
			}
			copies[l.Contract] = loan
		}
		l.LoanID = loan.ID()
		p, err := l.Proposal("preview", who.ID, h.Clock.Now(loan.PartnerID()))
		if err != nil {
			l.Refusal = err.Error()
			continue
		}
		if err := receiptUnused(ctx, h.Repayments, p); errors.Is(err, domain.ErrDebitUsed) {
			l.Refusal = "the reference paid another repayment already"
			continue
		} else if err != nil {
			return nil, err
		}
		if _, err := p.ApplyTo(loan, application.NewID(), application.NewID(), h.Clock.Now(loan.PartnerID())); err != nil {
			l.Refusal = err.Error()
		}
	}
	return lines, nil
}
