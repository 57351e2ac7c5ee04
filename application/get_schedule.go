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
	loan, err := h.d.Loans.GetByContract(ctx, q.LoanID)
	if err != nil {
		return LoanView{}, err
	}
	if loan.PartnerID() != q.PartnerID {
		return LoanView{}, domain.ErrLoanNotFound
	}
	return view(loan, h.d.Clock)
}
