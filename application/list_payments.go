package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ListPayments reads a loan's posted repayments by its contract number (endpoint 11).
type ListPayments struct {
	PartnerID uuid.UUID
	LoanID    string
}

// ListPaymentsHandler answers the payments list; it stores nothing.
type ListPaymentsHandler struct {
	Loans      ports.LoanRepository
	Repayments ports.RepaymentRepository
}

// Handle returns one item per posted repayment, in date order.
func (h *ListPaymentsHandler) Handle(ctx context.Context, q ListPayments) ([]domain.Payment, error) {
	loan, err := getLoanByContract(ctx, h.Loans, q.PartnerID, q.LoanID)
	if err != nil {
		return nil, err
	}
	return h.Repayments.ListPayments(ctx, loan.ID())
}
