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
	clock       ports.Clock
	uow         ports.UnitOfWork
	loans       ports.LoanRepository
	collections ports.CollectionsRepository
	operators   ports.OperatorRepository
	audit       audit
}

// NewAssignCollectorHandler returns the handler on the ports it uses.
func NewAssignCollectorHandler(clock ports.Clock, uow ports.UnitOfWork, loans ports.LoanRepository,
	collections ports.CollectionsRepository, operators ports.OperatorRepository, log ports.AuditLog) *AssignCollectorHandler {
	return &AssignCollectorHandler{clock: clock, uow: uow, loans: loans, collections: collections, operators: operators, audit: audit{clock: clock, log: log}}
}

// Handle gives loan to collector (uuid.Nil: nobody).
func (h *AssignCollectorHandler) Handle(ctx context.Context, who Actor, loan, collector uuid.UUID) error {
	if err := who.may(domain.RoleOfficer); err != nil {
		return err
	}
	name := ""
	if collector != uuid.Nil {
		o, err := h.operators.Get(ctx, collector)
		if err != nil {
			return err
		}
		if o.Disabled() || !o.Role().Allows(domain.RoleOfficer) {
			return domain.ErrCollector
		}
		name = o.Name()
	}
	l, err := h.loans.Get(ctx, loan)
	if err != nil {
		return err
	}
	return h.uow.Do(ctx, func(ctx context.Context) error {
		before, had, err := h.collections.Assignment(ctx, loan)
		if err != nil {
			return err
		}
		if err := h.collections.Assign(ctx, ports.Assignment{LoanID: loan, Collector: collector, By: who.ID, At: h.clock.Now(l.PartnerID())}); err != nil {
			return err
		}
		detail := "to " + name
		if name == "" {
			detail = "to the common queue"
		}
		if had && before.Collector != uuid.Nil {
			prev, err := h.operators.Get(ctx, before.Collector)
			if err != nil {
				return err
			}
			detail += ", from " + prev.Name()
		}
		return h.audit.record(ctx, who, "collections.assign", "loan:"+loan.String(), detail)
	})
}
