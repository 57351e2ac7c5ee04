package application

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"

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
	// Language is the operator's console language, empty until chosen.
	Language string
}

// LogInHandler logs operators in. Wrong passwords are throttled per name and address and per
// address (domain.LoginThrottle), never per account, so no one can lock an operator out from
// elsewhere; every refusal is the same domain.ErrBadCredentials, so a login never tells a name
// that exists from one that does not. Every attempt, and every wait a failure starts, is in
// the audit log.
type LogInHandler struct {
	uow       ports.UnitOfWork
	operators ports.OperatorRepository
	audit     audit
	throttles *loginThrottles
}

// NewLogInHandler returns the handler on the ports it uses.
func NewLogInHandler(clock ports.Clock, uow ports.UnitOfWork, operators ports.OperatorRepository, log ports.AuditLog, throttles *loginThrottles) *LogInHandler {
	return &LogInHandler{uow: uow, operators: operators, audit: audit{clock: clock, log: log}, throttles: throttles}
}

// Handle checks the password (outside any transaction: bcrypt is slow on purpose) and records
// the outcome and, on success, a new session in one transaction. A wrong name, a wrong
// password, a disabled operator and an attempt that must wait are all
// domain.ErrBadCredentials, and all take one bcrypt comparison.
func (h *LogInHandler) Handle(ctx context.Context, cmd LogIn) (ConsoleSession, error) {
	who := Actor{Name: truncate(cmd.Name, 64), Address: cmd.Address}
	now := h.audit.now()
	if h.throttles.waiting(cmd.Name, cmd.Address, now) {
		passwordMatches(dummyHash(), cmd.Password)
		return ConsoleSession{}, h.refuse(ctx, who, "waiting after wrong passwords from this address", time.Time{})
	}
	o, err := h.operators.ByName(ctx, cmd.Name)
	if errors.Is(err, domain.ErrOperatorNotFound) {
		passwordMatches(dummyHash(), cmd.Password)
		return ConsoleSession{}, h.refuse(ctx, who, "unknown operator", now)
	}
	if err != nil {
		return ConsoleSession{}, err
	}
	if !passwordMatches(o.PasswordHash(), cmd.Password) {
		return ConsoleSession{}, h.refuse(ctx, who, "wrong password", now)
	}
	if !o.MayLogIn() {
		return ConsoleSession{}, h.refuse(ctx, who, "operator disabled or awaiting a second admin", now)
	}
	s := ConsoleSession{Token: newToken(32), CSRF: newToken(20), MustChangePassword: o.MustChangePassword(),
		Operator: Actor{ID: o.ID(), Name: o.Name(), Role: o.Role(), Address: cmd.Address}}
	err = h.uow.Do(ctx, func(ctx context.Context) error {
		if err := h.operators.CreateSession(ctx, ports.OperatorSession{TokenHash: HashAPIKey(s.Token), OperatorID: o.ID(),
			CSRF: s.CSRF, CreatedAt: now, LastSeenAt: now}); err != nil {
			return err
		}
		return h.audit.record(ctx, s.Operator, "login", "operator:"+o.Name(), "")
	})
	if err != nil {
		return ConsoleSession{}, err
	}
	h.throttles.succeeded(cmd.Name, cmd.Address)
	return s, nil
}

// refuse records a refused login and answers domain.ErrBadCredentials. A wrong password
// (failedAt set; not an attempt refused while it waits) counts against its name and address,
// and any wait it starts is recorded too, for admins to see in the audit log.
func (h *LogInHandler) refuse(ctx context.Context, who Actor, why string, failedAt time.Time) error {
	var waits []string
	if !failedAt.IsZero() {
		waits = h.throttles.failed(who.Name, who.Address, failedAt)
	}
	if err := h.uow.Do(ctx, func(ctx context.Context) error {
		if err := h.audit.record(ctx, who, "login.failed", "operator:"+who.Name, why); err != nil {
			return err
		}
		for _, w := range waits {
			if err := h.audit.record(ctx, who, "login.throttled", w, "further attempts wait"); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	return domain.ErrBadCredentials
}

// loginThrottles keeps the wrong passwords of each name from each address, and of each
// address, for domain.MaxLoginWait after the last one, in memory (each node its own: with n
// nodes an attacker gets n times the attempts, each still a bcrypt comparison).
type loginThrottles struct {
	mu    sync.Mutex
	byKey *expirable.LRU[string, *domain.LoginThrottle]
}

func newLoginThrottles() *loginThrottles {
	return &loginThrottles{byKey: expirable.NewLRU[string, *domain.LoginThrottle](100_000, nil, 2*domain.MaxLoginWait)}
}

func throttleKeys(name, address string) (byName, byAddress string) {
	return "name\x00" + strings.ToLower(strings.TrimSpace(name)) + "\x00" + address, "address\x00" + address
}

// waiting reports whether an attempt for name from address must wait at now.
func (t *loginThrottles) waiting(name, address string, now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	n, a := throttleKeys(name, address)
	for _, k := range []string{n, a} {
		if th, ok := t.byKey.Get(k); ok && th.Waiting(now) {
			return true
		}
	}
	return false
}

// failed counts a wrong password for name from address and returns the objects whose wait it
// started ("operator:…", "address:…").
func (t *loginThrottles) failed(name, address string, now time.Time) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	n, a := throttleKeys(name, address)
	var waits []string
	for _, c := range []struct {
		key, object string
		free        int
	}{{n, "operator:" + truncate(name, 64), domain.FreeLoginFailures}, {a, "address:" + address, domain.FreeAddressFailures}} {
		th, ok := t.byKey.Get(c.key)
		if !ok {
			th = &domain.LoginThrottle{}
		}
		if th.Failed(now, c.free) {
			waits = append(waits, c.object)
		}
		t.byKey.Add(c.key, th)
	}
	return waits
}

// succeeded clears the wrong passwords of name from address.
func (t *loginThrottles) succeeded(name, address string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n, _ := throttleKeys(name, address)
	t.byKey.Remove(n)
}

// truncate cuts s to at most n bytes, for what a stranger typed.
func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
