package console

import (
	"context"
	"errors"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// DecideOperatorGrant is a second admin's decision on access another admin asked for: a new
// operator, a higher role, or an operator's second factor reset.
type DecideOperatorGrant struct {
	Name    string
	Approve bool
}

// DecideOperatorGrantHandler approves or rejects access grants.
type DecideOperatorGrantHandler struct {
	UoW       ports.UnitOfWork
	Operators ports.OperatorRepository
	Factors   ports.SecondFactorRepository
	Audit     Audit
}

// Handle applies the decision: an approval by the admin who asked is refused
// (domain.ErrSelfGrant), and so is one by an admin whose password or second factor the one who
// asked set or reset within a day (domain.ErrApproverCredentials, audited as
// operator.grant_refused); a rejected new operator is disabled; an approved second factor's
// reset removes the factor and its recovery codes and ends the operator's sessions, and they
// enrol again at their next login.
func (h *DecideOperatorGrantHandler) Handle(ctx context.Context, who Actor, cmd DecideOperatorGrant) error {
	if err := who.may(domain.RoleAdmin); err != nil {
		return err
	}
	approver, err := h.Operators.Get(ctx, who.ID)
	if err != nil {
		return err
	}
	var asked domain.Grant
	err = h.UoW.Do(ctx, func(ctx context.Context) error {
		var g domain.Grant
		o, err := updateOperator(ctx, h.Operators, cmd.Name, func(o *domain.Operator) error {
			var err error
			asked = o.Grant()
			if cmd.Approve {
				g, err = o.ApproveGrant(approver, h.Audit.now())
			} else {
				g, err = o.RejectGrant()
			}
			return err
		})
		if err != nil {
			return err
		}
		if cmd.Approve && g.ResetSecondFactor {
			if err := h.Factors.RemoveFactors(ctx, o.ID()); err != nil {
				return err
			}
			if err := h.Operators.DeleteSessions(ctx, o.ID(), nil); err != nil {
				return err
			}
		}
		action := "operator.grant_reject"
		if cmd.Approve {
			action = "operator.grant_approve"
		}
		return h.Audit.record(ctx, who, action, "operator:"+o.Name(), describeGrant(g))
	})
	if errors.Is(err, domain.ErrApproverCredentials) {
		return h.Audit.refused(ctx, h.UoW, who, "operator.grant_refused", "operator:"+cmd.Name, describeGrant(asked), err)
	}
	return err
}

// describeGrant says what a grant asked for, and who asked, for the audit line.
func describeGrant(g domain.Grant) string {
	what := "role " + string(g.Role)
	switch {
	case g.ResetSecondFactor:
		what = "second factor reset"
	case g.NewOperator:
		what = "new operator, " + what
	}
	return what + ", asked by " + g.RequestedBy
}
