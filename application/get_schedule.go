package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// GetSchedule reads a loan's schedule by its contract number (endpoint 10).
type GetSchedule struct {
	PartnerID uuid.UUID
	LoanID    string
}

// GetScheduleHandler answers the schedule; it stores nothing.
type GetScheduleHandler struct {
	Clock ports.Clock
	Loans ports.LoanRepository
}

// Handle returns the partner's loan with its schedule.
func (h *GetScheduleHandler) Handle(ctx context.Context, q GetSchedule) (LoanView, error) {
	loan, err := getLoanByContract(ctx, h.Loans, q.PartnerID, q.LoanID)
	if err != nil {
		return LoanView{}, err
	}
	return ViewLoan(loan, h.Clock)
}

// getLoanByContract returns the partner's loan with that contract number (loanId); a foreign
// one is not found.
func getLoanByContract(ctx context.Context, loans ports.LoanRepository, partnerID uuid.UUID, number string) (*domain.Loan, error) {
	loan, err := loans.GetByContract(ctx, number)
	if err != nil {
		return nil, err
	}
	if loan.PartnerID() != partnerID {
		return nil, domain.ErrLoanNotFound
	}
	return loan, nil
}
