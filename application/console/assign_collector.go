package console

import (
	"context"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// AssignCollectorHandler gives an overdue loan to a collector (an officer), or takes it back to
// the common queue, at the loan's partner's time, in one transaction with its audit line; a
// reassignment names who had it.
type AssignCollectorHandler struct {
	Clock       ports.Clock
	UoW         ports.UnitOfWork
	Loans       ports.LoanRepository
	Collections ports.CollectionsRepository
	Operators   ports.OperatorRepository
	Audit       Audit
}

// Handle gives loan to collector (uuid.Nil: nobody).
func (h *AssignCollectorHandler) Handle(ctx context.Context, who Actor, loan, collector uuid.UUID) error {
	if err := who.may(domain.RoleOfficer); err != nil {
		return err
	}
	name := ""
	if collector != uuid.Nil {
		o, err := h.Operators.Get(ctx, collector)
		if err != nil {
			return err
		}
		if o.Disabled() || !o.Role().Allows(domain.RoleOfficer) {
			return domain.ErrCollector
		}
		name = o.Name()
	}
	l, err := h.Loans.Get(ctx, loan)
	if err != nil {
		return err
	}
	return h.UoW.Do(ctx, func(ctx context.Context) error {
		before, had, err := h.Collections.Assignment(ctx, loan)
		if err != nil {
			return err
		}
		if err := h.Collections.Assign(ctx, ports.Assignment{LoanID: loan, Collector: collector, By: who.ID, At: h.Clock.Now(l.PartnerID())}); err != nil {
			return err
		}
		detail := "to " + name
		if name == "" {
			detail = "to the common queue"
		}
		if had && before.Collector != uuid.Nil {
			prev, err := h.Operators.Get(ctx, before.Collector)
			if err != nil {
				return err
			}
			detail += ", from " + prev.Name()
		}
		return h.Audit.record(ctx, who, "collections.assign", "loan:"+loan.String(), detail)
	})
}
