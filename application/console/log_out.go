package console

import (
	"context"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/ports"
)

// LogOutHandler ends a console session.
type LogOutHandler struct {
	UoW       ports.UnitOfWork
	Operators ports.OperatorRepository
	Audit     Audit
}

// Handle ends the session and records it.
func (h *LogOutHandler) Handle(ctx context.Context, s Session) error {
	return h.UoW.Do(ctx, func(ctx context.Context) error {
		if err := h.Operators.DeleteSessions(ctx, s.Operator.ID, application.HashAPIKey(s.Token)); err != nil {
			return err
		}
		return h.Audit.record(ctx, s.Operator, "logout", "operator:"+s.Operator.Name, "")
	})
}
