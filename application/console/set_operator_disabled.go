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
	uow       ports.UnitOfWork
	operators ports.OperatorRepository
	audit     audit
}

// NewSetOperatorDisabledHandler returns the handler on the ports it uses.
func NewSetOperatorDisabledHandler(clock ports.Clock, uow ports.UnitOfWork, operators ports.OperatorRepository, log ports.AuditLog) *SetOperatorDisabledHandler {
	return &SetOperatorDisabledHandler{uow: uow, operators: operators, audit: audit{clock: clock, log: log}}
}

// Handle disables or enables the operator.
func (h *SetOperatorDisabledHandler) Handle(ctx context.Context, who Actor, cmd SetOperatorDisabled) error {
	if err := who.may(domain.RoleAdmin); err != nil {
		return err
	}
	return h.uow.Do(ctx, func(ctx context.Context) error {
		o, err := updateOperator(ctx, h.operators, cmd.Name, func(o *domain.Operator) error { o.SetDisabled(cmd.Disabled); return nil })
		if err != nil {
			return err
		}
		action := "operator.enable"
		if cmd.Disabled {
			action = "operator.disable"
			if err := h.operators.DeleteSessions(ctx, o.ID(), nil); err != nil {
				return err
			}
		}
		return h.audit.record(ctx, who, action, "operator:"+o.Name(), "")
	})
}
