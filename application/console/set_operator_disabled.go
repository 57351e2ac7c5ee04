package console

import (
	"context"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// SetOperatorDisabled disables an operator (their sessions end at once) or enables them again
// (`tiyin operator disable`, `enable`).
type SetOperatorDisabled struct {
	Name     string
	Disabled bool
}

// SetOperatorDisabledHandler disables and enables operators.
type SetOperatorDisabledHandler struct {
	UoW       ports.UnitOfWork
	Operators ports.OperatorRepository
	Audit     Audit
}

// Handle disables or enables the operator.
func (h *SetOperatorDisabledHandler) Handle(ctx context.Context, who Actor, cmd SetOperatorDisabled) error {
	if err := who.may(domain.RoleAdmin); err != nil {
		return err
	}
	return h.UoW.Do(ctx, func(ctx context.Context) error {
		o, err := updateOperator(ctx, h.Operators, cmd.Name, func(o *domain.Operator) error { o.SetDisabled(cmd.Disabled); return nil })
		if err != nil {
			return err
		}
		action := "operator.enable"
		if cmd.Disabled {
			action = "operator.disable"
			if err := h.Operators.DeleteSessions(ctx, o.ID(), nil); err != nil {
				return err
			}
		}
		return h.Audit.record(ctx, who, action, "operator:"+o.Name(), "")
	})
}
