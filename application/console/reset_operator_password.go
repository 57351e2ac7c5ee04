package console

import (
	"context"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ResetOperatorPassword gives an operator a new one-time password (`tiyin operator
// reset-password`, the console's operators page); it ends their sessions. Their second factor
// stays: a password alone no longer logs anyone in as them.
type ResetOperatorPassword struct {
	Name string
}

// ResetOperatorPasswordHandler resets passwords.
type ResetOperatorPasswordHandler struct {
	uow       ports.UnitOfWork
	operators ports.OperatorRepository
	audit     audit
}

// NewResetOperatorPasswordHandler returns the handler on the ports it uses.
func NewResetOperatorPasswordHandler(clock ports.Clock, uow ports.UnitOfWork, operators ports.OperatorRepository, log ports.AuditLog) *ResetOperatorPasswordHandler {
	return &ResetOperatorPasswordHandler{uow: uow, operators: operators, audit: audit{clock: clock, log: log}}
}

// Handle sets and returns the one-time password, and records who gave it: for a day the
// operator may not approve that admin's proposals and grants (domain.Operator.MayApprove).
func (h *ResetOperatorPasswordHandler) Handle(ctx context.Context, who Actor, cmd ResetOperatorPassword) (string, error) {
	if err := who.may(domain.RoleAdmin); err != nil {
		return "", err
	}
	password, hash, err := oneTimePassword()
	if err != nil {
		return "", err
	}
	err = h.uow.Do(ctx, func(ctx context.Context) error {
		o, err := updateOperator(ctx, h.operators, cmd.Name, func(o *domain.Operator) error {
			o.GivePassword(hash, who.Name, h.audit.now())
			return nil
		})
		if err != nil {
			return err
		}
		if err := h.operators.DeleteSessions(ctx, o.ID(), nil); err != nil {
			return err
		}
		return h.audit.record(ctx, who, "operator.reset_password", "operator:"+o.Name(), "")
	})
	if err != nil {
		return "", err
	}
	return password, nil
}
