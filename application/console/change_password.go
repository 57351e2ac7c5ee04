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
	uow       ports.UnitOfWork
	operators ports.OperatorRepository
	audit     audit
	throttles *LoginThrottles
}

// NewChangePasswordHandler returns the handler on the ports it uses.
func NewChangePasswordHandler(clock ports.Clock, uow ports.UnitOfWork, operators ports.OperatorRepository, log ports.AuditLog,
	throttles *LoginThrottles) *ChangePasswordHandler {
	return &ChangePasswordHandler{uow: uow, operators: operators, audit: audit{clock: clock, log: log}, throttles: throttles}
}

// Handle checks the old password and sets the new one. A wrong old password counts as a
// wrong password of a login from the operator's address (it waits the same way); others'
// wrong attempts from that address do not stop the change.
func (h *ChangePasswordHandler) Handle(ctx context.Context, who Actor, cmd ChangePassword) error {
	if len(cmd.New) < domain.MinPasswordLength || cmd.New == cmd.Old {
		return domain.ErrWeakPassword
	}
	if waits, _ := h.throttles.waiting(who.Name, who.Address, h.audit.now()); waits {
		return domain.ErrBadCredentials
	}
	o, err := h.operators.Get(ctx, who.ID)
	if err != nil {
		return err
	}
	good := passwordMatches(o.PasswordHash(), cmd.Old)
	hash, err := hashPassword(cmd.New)
	if err != nil {
		return err
	}
	var refusal error
	err = h.uow.Do(ctx, func(ctx context.Context) error {
		err := h.operators.Update(ctx, who.ID, func(o *domain.Operator) error {
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
			return h.audit.record(ctx, who, "password.change_failed", "operator:"+who.Name, "wrong current password")
		}
		if err := h.operators.DeleteOtherSessions(ctx, who.ID, application.HashAPIKey(cmd.Session)); err != nil {
			return err
		}
		return h.audit.record(ctx, who, "password.change", "operator:"+who.Name, "other sessions ended")
	})
	if err != nil {
		return err
	}
	if refusal != nil {
		h.throttles.failed(who.Name, who.Address, h.audit.now())
	}
	return refusal
}
