package application

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// GetLoan reads a loan by its application (endpoint 9).
type GetLoan struct {
	PartnerID     uuid.UUID
	ApplicationID uuid.UUID
}

// LoanView is a loan with its schedule and its position now.
type LoanView struct {
	Loan     *domain.Loan
	Schedule []domain.ScheduleItem
	Position domain.Position
}

// GetLoanHandler answers loan info; it stores nothing.
type GetLoanHandler struct {
	Clock        ports.Clock
	Applications ports.ApplicationRepository
	Loans        ports.LoanRepository
}

// Handle returns the partner's loan issued on the application.
func (h *GetLoanHandler) Handle(ctx context.Context, q GetLoan) (LoanView, error) {
	a, err := getOwned(ctx, h.Applications, q.PartnerID, q.ApplicationID)
	if errors.Is(err, domain.ErrApplicationNotFound) {
		return LoanView{}, domain.ErrLoanNotFound
	}
	if err != nil {
		return LoanView{}, err
	}
	if a.Status() != domain.StatusCompleted {
		return LoanView{}, fmt.Errorf("%w: application status is %s", domain.ErrLoanNotIssued, a.Status())
	}
	loan, err := h.Loans.GetByApplication(ctx, a.ID())
	if err != nil {
		return LoanView{}, err
	}
	return ViewLoan(loan, h.Clock)
}

// ViewLoan is the loan with its schedule as repayments left it and its position now.
func ViewLoan(loan *domain.Loan, clock ports.Clock) (LoanView, error) {
	schedule, err := loan.Schedule()
	if err != nil {
		return LoanView{}, err
	}
	pos, err := loan.PositionAt(clock.Now(loan.PartnerID()))
	if err != nil {
		return LoanView{}, err
	}
	return LoanView{Loan: loan, Schedule: schedule, Position: pos}, nil
}
