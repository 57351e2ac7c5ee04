package application

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// GetSchedule reads a loan's schedule by its contract number (endpoint 10).
type GetSchedule struct {
	PartnerID uuid.UUID
	LoanID    string
}

// GetScheduleHandler answers the schedule; it stores nothing.
type GetScheduleHandler struct{ d Deps }

// Handle returns the partner's loan with its schedule.
func (h *GetScheduleHandler) Handle(ctx context.Context, q GetSchedule) (LoanView, error) {
	loan, err := getLoanByContract(ctx, h.d, q.PartnerID, q.LoanID)
	if err != nil {
		return LoanView{}, err
	}
	return view(loan, h.d.Clock)
}

// getLoanByContract returns the partner's loan with that contract number (loanId); a foreign
// one is not found.
func getLoanByContract(ctx context.Context, d Deps, partnerID uuid.UUID, number string) (*domain.Loan, error) {
	loan, err := d.Loans.GetByContract(ctx, number)
	if err != nil {
		return nil, err
	}
	if loan.PartnerID() != partnerID {
		return nil, domain.ErrLoanNotFound
	}
	return loan, nil
}
