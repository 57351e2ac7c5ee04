package console

import (
	"context"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/ports"
)

// LogOutHandler ends a console session.
type LogOutHandler struct {
	uow       ports.UnitOfWork
	operators ports.OperatorRepository
	audit     audit
}

// NewLogOutHandler returns the handler on the ports it uses.
func NewLogOutHandler(clock ports.Clock, uow ports.UnitOfWork, operators ports.OperatorRepository, log ports.AuditLog) *LogOutHandler {
	return &LogOutHandler{uow: uow, operators: operators, audit: audit{clock: clock, log: log}}
}

// Handle ends the session and records it.
func (h *LogOutHandler) Handle(ctx context.Context, s Session) error {
	return h.uow.Do(ctx, func(ctx context.Context) error {
		if err := h.operators.DeleteSessions(ctx, s.Operator.ID, application.HashAPIKey(s.Token)); err != nil {
			return err
		}
		return h.audit.record(ctx, s.Operator, "logout", "operator:"+s.Operator.Name, "")
	})
}
