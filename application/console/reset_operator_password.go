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
	UoW       ports.UnitOfWork
	Operators ports.OperatorRepository
	Audit     Audit
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
	err = h.UoW.Do(ctx, func(ctx context.Context) error {
		o, err := updateOperator(ctx, h.Operators, cmd.Name, func(o *domain.Operator) error {
			o.GivePassword(hash, who.Name, h.Audit.now())
			return nil
		})
		if err != nil {
			return err
		}
		if err := h.Operators.DeleteSessions(ctx, o.ID(), nil); err != nil {
			return err
		}
		return h.Audit.record(ctx, who, "operator.reset_password", "operator:"+o.Name(), "")
	})
	if err != nil {
		return "", err
	}
	return password, nil
}
