package console

import (
	"context"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ChangePassword is an operator choosing a new password (at the first login, a must), from
// the session of token Session: the operator's other sessions end with the change.
type ChangePassword struct {
	Old, New string
	Session  string
}

// ChangePasswordHandler changes operators' passwords.
type ChangePasswordHandler struct {
	UoW       ports.UnitOfWork
	Operators ports.OperatorRepository
	Audit     Audit
	Throttles *LoginThrottles
}

// Handle checks the old password and sets the new one. A wrong old password counts as a
// wrong password of a login from the operator's address (it waits the same way); others'
// wrong attempts from that address do not stop the change.
func (h *ChangePasswordHandler) Handle(ctx context.Context, who Actor, cmd ChangePassword) error {
	if len(cmd.New) < domain.MinPasswordLength || cmd.New == cmd.Old {
		return domain.ErrWeakPassword
	}
	if waits, _ := h.Throttles.waiting(who.Name, who.Address, h.Audit.now()); waits {
		return domain.ErrBadCredentials
	}
	o, err := h.Operators.Get(ctx, who.ID)
	if err != nil {
		return err
	}
	good := passwordMatches(o.PasswordHash(), cmd.Old)
	hash, err := hashPassword(cmd.New)
	if err != nil {
		return err
	}
	var refusal error
	err = h.UoW.Do(ctx, func(ctx context.Context) error {
		err := h.Operators.Update(ctx, who.ID, func(o *domain.Operator) error {
			if !good {
				refusal = domain.ErrBadCredentials
				return nil
			}
			o.ChoosePassword(hash)
			return nil
		})
		if err != nil {
			return err
		}
		if refusal != nil {
			return h.Audit.record(ctx, who, "password.change_failed", "operator:"+who.Name, "wrong current password")
		}
		if err := h.Operators.DeleteOtherSessions(ctx, who.ID, application.HashAPIKey(cmd.Session)); err != nil {
			return err
		}
		return h.Audit.record(ctx, who, "password.change", "operator:"+who.Name, "other sessions ended")
	})
	if err != nil {
		return err
	}
	if refusal != nil {
		h.Throttles.failed(who.Name, who.Address, h.Audit.now())
	}
	return refusal
}
