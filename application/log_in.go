package application

import (
	"context"
	"errors"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// LogIn is an operator's name and password, typed into the console's login form.
type LogIn struct {
	Name, Password, Address string
}

// ConsoleSession is a logged-in operator: the session token for their cookie, the CSRF token
// every form carries, and who they are.
type ConsoleSession struct {
	Token              string
	CSRF               string
	Operator           Actor
	MustChangePassword bool
}

// LogInHandler logs operators in: domain.MaxFailedLogins wrong passwords in a row lock the
// account for domain.LockoutFor. Every attempt is in the audit log.
type LogInHandler struct {
	uow       ports.UnitOfWork
	operators ports.OperatorRepository
	audit     audit
}

// NewLogInHandler returns the handler on the ports it uses.
func NewLogInHandler(clock ports.Clock, uow ports.UnitOfWork, operators ports.OperatorRepository, log ports.AuditLog) *LogInHandler {
	return &LogInHandler{uow: uow, operators: operators, audit: audit{clock: clock, log: log}}
}

// Handle checks the password (outside any transaction: bcrypt is slow on purpose) and records
// the outcome and, on success, a new session in one transaction. A wrong name, a wrong
// password and a disabled operator are all domain.ErrBadCredentials.
func (h *LogInHandler) Handle(ctx context.Context, cmd LogIn) (ConsoleSession, error) {
	who := Actor{Name: truncate(cmd.Name, 64), Address: cmd.Address}
	o, err := h.operators.ByName(ctx, cmd.Name)
	if errors.Is(err, domain.ErrOperatorNotFound) {
		passwordMatches(dummyHash(), cmd.Password)
		return ConsoleSession{}, h.refuse(ctx, who, "unknown operator", domain.ErrBadCredentials)
	}
	if err != nil {
		return ConsoleSession{}, err
	}
	good := passwordMatches(o.PasswordHash(), cmd.Password)
	s := ConsoleSession{Token: newToken(32), CSRF: newToken(20), MustChangePassword: o.MustChangePassword(),
		Operator: Actor{ID: o.ID(), Name: o.Name(), Role: o.Role(), Address: cmd.Address}}
	var refusal error
	err = h.uow.Do(ctx, func(ctx context.Context) error {
		now := h.audit.now()
		err := h.operators.Update(ctx, o.ID(), func(o *domain.Operator) error {
			switch {
			case o.Locked(now):
				refusal = domain.ErrOperatorLocked
			case o.Disabled():
				refusal = domain.ErrBadCredentials
			case !good:
				refusal = domain.ErrBadCredentials
				o.LoginFailed(now)
				if o.Locked(now) {
					refusal = domain.ErrOperatorLocked
				}
			default:
				o.LoggedIn()
			}
			return nil
		})
		if err != nil {
			return err
		}
		if refusal != nil {
			return h.audit.record(ctx, s.Operator, "login.failed", "operator:"+o.Name(), refusal.Error())
		}
		if err := h.operators.CreateSession(ctx, ports.OperatorSession{TokenHash: HashAPIKey(s.Token), OperatorID: o.ID(),
			CSRF: s.CSRF, CreatedAt: now, LastSeenAt: now}); err != nil {
			return err
		}
		return h.audit.record(ctx, s.Operator, "login", "operator:"+o.Name(), "")
	})
	if err != nil {
		return ConsoleSession{}, err
	}
	if refusal != nil {
		return ConsoleSession{}, refusal
	}
	return s, nil
}

// refuse records a refused login and answers the refusal.
func (h *LogInHandler) refuse(ctx context.Context, who Actor, why string, refusal error) error {
	if err := h.uow.Do(ctx, func(ctx context.Context) error {
		return h.audit.record(ctx, who, "login.failed", "operator:"+who.Name, why)
	}); err != nil {
		return err
	}
	return refusal
}

// truncate cuts s to at most n bytes, for what a stranger typed.
func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
