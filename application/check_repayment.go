package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// CheckRepayment snapshots a loan's debt for a repayment (endpoint 12).
type CheckRepayment struct {
	PartnerID uuid.UUID
	LoanID    string
}

// RepaymentQuote is a new repayment request: its id, the loan's contract number, the client's
// name, the demand account's balance and the debt it quotes.
type RepaymentQuote struct {
	RequestID      uuid.UUID
	LoanID         string
	ClientName     string
	AccountBalance int64
	Debt           domain.Position
}

// CheckRepaymentHandler stores a repayment request quoting the debt now, the demand account's
// balance and the loan's repayment count.
type CheckRepaymentHandler struct {
	Clock      ports.Clock
	Loans      ports.LoanRepository
	Repayments ports.RepaymentRepository
	Requests   Requests
}

// Handle returns the new request.
func (h *CheckRepaymentHandler) Handle(ctx context.Context, call Call, cmd CheckRepayment) (Reply[RepaymentQuote], error) {
	return finish(ctx, h.Requests, call, func(ctx context.Context) (RepaymentQuote, error) {
		got, err := h.Loans.GetForRepayment(ctx, cmd.LoanID)
		if err != nil {
			return RepaymentQuote{}, err
		}
		if got.Loan.PartnerID() != cmd.PartnerID {
			return RepaymentQuote{}, domain.ErrLoanNotFound
		}
		r, err := domain.NewRepayment(NewID(), got.Loan, -got.DemandBalance, h.Clock.Now(cmd.PartnerID))
		if err != nil {
			return RepaymentQuote{}, err
		}
		return RepaymentQuote{RequestID: r.ID(), LoanID: r.ContractNumber(), ClientName: got.ClientName,
			AccountBalance: r.AccountBalance(), Debt: r.Quote()}, h.Repayments.Create(ctx, r)
	})
}
