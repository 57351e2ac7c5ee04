package console

import (
	"context"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ChangeOperatorRole gives an operator another role (`tiyin operator set-role`, the console's
// operators page).
type ChangeOperatorRole struct {
	Name string
	Role domain.Role
}

// ChangeOperatorRoleHandler changes roles: a lower one at once, a higher one asked for in the
// console once a second admin approves it (DecideOperatorGrant).
type ChangeOperatorRoleHandler struct {
	UoW       ports.UnitOfWork
	Operators ports.OperatorRepository
	Audit     Audit
}

// Handle changes the role, or asks for it; pending reports that a second admin must approve.
func (h *ChangeOperatorRoleHandler) Handle(ctx context.Context, who Actor, cmd ChangeOperatorRole) (pending bool, err error) {
	if err := who.may(domain.RoleAdmin); err != nil {
		return false, err
	}
	err = h.UoW.Do(ctx, func(ctx context.Context) error {
		before, err := updateOperator(ctx, h.Operators, cmd.Name, func(o *domain.Operator) error {
			var changeErr error
			pending, changeErr = o.ChangeRole(cmd.Role, who.Name, !who.local(), h.Audit.now())
			return changeErr
		})
		if err != nil {
			return err
		}
		detail := string(before.Role()) + " to " + string(cmd.Role)
		if pending {
			detail += ", awaiting a second admin"
		}
		return h.Audit.record(ctx, who, "operator.role", "operator:"+before.Name(), detail)
	})
	return pending, err
}
