package console

import (
	"context"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// MakePromiseToPay records a borrower's promise to pay Amount (tiyin) on the loan by Due (a
// date in Tashkent).
type MakePromiseToPay struct {
	Loan   uuid.UUID
	Amount int64
	Due    time.Time
}

// MakePromiseToPayHandler records a promise to pay, made at the loan's partner's time, with its
// audit line. Payments from then on count towards it (SettlePromises).
type MakePromiseToPayHandler struct {
	Clock       ports.Clock
	UoW         ports.UnitOfWork
	Loans       ports.LoanRepository
	Collections ports.CollectionsRepository
	Audit       Audit
}

// Handle records the promise; a closed or written-off loan refuses it.
func (h *MakePromiseToPayHandler) Handle(ctx context.Context, who Actor, cmd MakePromiseToPay) (*domain.PromiseToPay, error) {
	if err := who.may(domain.RoleOfficer); err != nil {
		return nil, err
	}
	loan, err := h.Loans.Get(ctx, cmd.Loan)
	if err != nil {
		return nil, err
	}
	switch loan.Status() {
	case domain.LoanClosed:
		return nil, domain.ErrLoanClosed
	case domain.LoanWrittenOff:
		return nil, domain.ErrLoanWrittenOff
	}
	p, err := domain.NewPromiseToPay(application.NewID(), loan.ID(), loan.PartnerID(), cmd.Amount, cmd.Due, who.ID, h.Clock.Now(loan.PartnerID()))
	if err != nil {
		return nil, err
	}
	err = h.UoW.Do(ctx, func(ctx context.Context) error {
		if err := h.Collections.AddPromise(ctx, p); err != nil {
			return err
		}
		return h.Audit.record(ctx, who, "collections.promise", "loan:"+cmd.Loan.String(),
			strconv.FormatInt(cmd.Amount, 10)+" by "+p.Due().Format(time.DateOnly))
	})
	return p, err
}
