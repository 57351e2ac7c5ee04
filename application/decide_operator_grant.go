package application

import (
	"context"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// DecideOperatorGrant is a second admin's decision on access another admin asked for: a new
// operator or a higher role.
type DecideOperatorGrant struct {
	Name    string
	Approve bool
}

// DecideOperatorGrantHandler approves or rejects access grants.
type DecideOperatorGrantHandler struct {
	uow       ports.UnitOfWork
	operators ports.OperatorRepository
	audit     audit
}

// NewDecideOperatorGrantHandler returns the handler on the ports it uses.
func NewDecideOperatorGrantHandler(clock ports.Clock, uow ports.UnitOfWork, operators ports.OperatorRepository, log ports.AuditLog) *DecideOperatorGrantHandler {
	return &DecideOperatorGrantHandler{uow: uow, operators: operators, audit: audit{clock: clock, log: log}}
}

// Handle applies the decision: an approval by the admin who asked is refused
// (domain.ErrSelfGrant); a rejected new operator is disabled.
func (h *DecideOperatorGrantHandler) Handle(ctx context.Context, who Actor, cmd DecideOperatorGrant) error {
	if err := who.may(domain.RoleAdmin); err != nil {
		return err
	}
	return h.uow.Do(ctx, func(ctx context.Context) error {
		var g domain.Grant
		o, err := updateOperator(ctx, h.operators, cmd.Name, func(o *domain.Operator) error {
			var err error
			if cmd.Approve {
				g, err = o.ApproveGrant(who.Name)
			} else {
				g, err = o.RejectGrant()
			}
			return err
		})
		if err != nil {
			return err
		}
		action, what := "operator.grant_reject", "role "+string(g.Role)
		if cmd.Approve {
			action = "operator.grant_approve"
		}
		if g.NewOperator {
			what = "new operator, " + what
		}
		return h.audit.record(ctx, who, action, "operator:"+o.Name(), what+", asked by "+g.RequestedBy)
	})
}
