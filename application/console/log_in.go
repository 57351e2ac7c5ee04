package console

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// LogIn is an operator's name, password and second factor's code (six digits from their
// authenticator app, or one of their recovery codes), typed into the console's login form.
// Before the operator enrolled a second factor the code is not asked for.
type LogIn struct {
	Name, Password, Code, Address string
}

// Session is a logged-in operator: the session token for their cookie, the CSRF token
// every form carries, and who they are.
type Session struct {
	Token              string
	CSRF               string
	Operator           Actor
	MustChangePassword bool
	// MustEnrol: the operator has no second factor yet, so the session may only change its
	// password and enrol one.
	MustEnrol bool
	// Language is the operator's console language, empty until chosen.
	Language string
}

// LogInHandler logs operators in. Wrong attempts are throttled per name and address and per
// address (domain.LoginThrottle), never per account, so no one can lock an operator out from
// elsewhere; an address that waits still lets in a right password with a right second
// factor's code, so others' wrong attempts behind one address (an office's NAT) never keep
// an operator out (issue 46). Every refusal is the same domain.ErrBadCredentials, so a login
// never tells a name that exists from one that does not, nor which part was wrong. Every
// attempt, and every wait a failure starts, is in the audit log.
type LogInHandler struct {
	UoW       ports.UnitOfWork
	Operators ports.OperatorRepository
	Factors   ports.SecondFactorRepository
	Audit     Audit
	Throttles *LoginThrottles
}

// Handle checks the password (outside any transaction: bcrypt is slow on purpose), then the
// second factor's code, and records the outcome and, on success, a new session in one
// transaction. A wrong name, password or code, a disabled operator and an attempt that must
// wait are all domain.ErrBadCredentials, and all take one bcrypt comparison. An operator with
// no second factor yet gets a session that must enrol one; a secret an earlier session was
// shown for enrolling is dropped, so it enrols nothing.
func (h *LogInHandler) Handle(ctx context.Context, cmd LogIn) (Session, error) {
	who := Actor{Name: truncate(cmd.Name, 64), Address: cmd.Address}
	now := h.Audit.now()
	nameWaits, addressWaits := h.Throttles.waiting(cmd.Name, cmd.Address, now)
	if nameWaits {
		passwordMatches(dummyHash(), cmd.Password)
		return Session{}, h.refuse(ctx, who, "waiting after wrong attempts for this name from this address", time.Time{})
	}
	o, err := h.Operators.ByName(ctx, cmd.Name)
	if errors.Is(err, domain.ErrOperatorNotFound) {
		passwordMatches(dummyHash(), cmd.Password)
		return Session{}, h.refuse(ctx, who, "unknown operator", now)
	}
	if err != nil {
		return Session{}, err
	}
	if !passwordMatches(o.PasswordHash(), cmd.Password) {
		return Session{}, h.refuse(ctx, who, "wrong password", now)
	}
	if !o.MayLogIn() {
		return Session{}, h.refuse(ctx, who, "operator disabled or awaiting a second admin", now)
	}
	f, err := h.Factors.Factor(ctx, o.ID(), domain.FactorTOTP)
	if err != nil && !errors.Is(err, domain.ErrNoSecondFactor) {
		return Session{}, err
	}
	enrolled := err == nil && f.Enrolled()
	if !enrolled && addressWaits {
		return Session{}, h.refuse(ctx, who, "waiting after wrong attempts from this address (no second factor yet)", time.Time{})
	}
	s := Session{Token: application.NewToken(32), CSRF: application.NewToken(20), MustChangePassword: o.MustChangePassword(), MustEnrol: !enrolled,
		Language: o.Language(), Operator: Actor{ID: o.ID(), Name: o.Name(), Role: o.Role(), Address: cmd.Address}}
	var refusal string
	err = h.UoW.Do(ctx, func(ctx context.Context) error {
		var detail string
		switch {
		case enrolled:
			var err error
			if detail, refusal, err = h.secondFactor(ctx, f, cmd.Code, now); err != nil || refusal != "" {
				return err
			}
		case f != nil:
			if err := h.Factors.RemoveFactors(ctx, o.ID()); err != nil {
				return err
			}
		}
		if err := h.Operators.CreateSession(ctx, ports.OperatorSession{TokenHash: application.HashAPIKey(s.Token), OperatorID: o.ID(),
			CSRF: s.CSRF, CreatedAt: now, LastSeenAt: now, SecondFactor: enrolled}); err != nil {
			return err
		}
		return h.Audit.record(ctx, s.Operator, "login", "operator:"+o.Name(), detail)
	})
	if err != nil {
		return Session{}, err
	}
	if refusal != "" {
		return Session{}, h.refuse(ctx, who, refusal, now)
	}
	h.Throttles.succeeded(cmd.Name, cmd.Address)
	return s, nil
}

// secondFactor checks a login's code, in the transaction of ctx: a TOTP code of now (or a step
// either side) whose step is later than the last one accepted, or an unused recovery code,
// which is used up. It returns the audit line's detail, or why it refuses.
func (h *LogInHandler) secondFactor(ctx context.Context, f *domain.SecondFactor, code string, now time.Time) (detail, refusal string, err error) {
	if rc, err := domain.ParseRecoveryCode(code); err == nil {
		used, err := h.Factors.UseRecoveryCode(ctx, f.OperatorID(), recoveryHash(rc), now)
		if err != nil || !used {
			return "", "wrong or used recovery code", err
		}
		return "with a recovery code", "", nil
	}
	step, ok := totpStep(f.Secret(), code, now)
	if !ok {
		return "", "wrong second factor code", nil
	}
	err = h.Factors.UpdateFactor(ctx, f.ID(), func(f *domain.SecondFactor) error { return f.Use(step) })
	switch {
	case errors.Is(err, domain.ErrCodeUsed):
		return "", "second factor code used already", nil
	case errors.Is(err, domain.ErrNoSecondFactor):
		return "", "second factor reset meanwhile", nil
	}
	return "", "", err
}

// refuse records a refused login and answers domain.ErrBadCredentials. A wrong password
// (failedAt set; not an attempt refused while it waits) counts against its name and address,
// and any wait it starts is recorded too, for admins to see in the audit log.
func (h *LogInHandler) refuse(ctx context.Context, who Actor, why string, failedAt time.Time) error {
	var waits []string
	if !failedAt.IsZero() {
		waits = h.Throttles.failed(who.Name, who.Address, failedAt)
	}
	if err := h.UoW.Do(ctx, func(ctx context.Context) error {
		if err := h.Audit.record(ctx, who, "login.failed", "operator:"+who.Name, why); err != nil {
			return err
		}
		for _, w := range waits {
			if err := h.Audit.record(ctx, who, "login.throttled", w, "further attempts wait"); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	return domain.ErrBadCredentials
}

// LoginThrottles keeps the wrong passwords of each name from each address, and of each
// address, for domain.MaxLoginWait after the last one, in memory (each node its own: with n
// nodes an attacker gets n times the attempts, each still a bcrypt comparison).
type LoginThrottles struct {
	mu    sync.Mutex
	byKey *expirable.LRU[string, *domain.LoginThrottle]
}

// NewLoginThrottles returns empty throttles: one per node, shared by the login and the change
// of password, so a wrong password counts against both.
func NewLoginThrottles() *LoginThrottles {
	return &LoginThrottles{byKey: expirable.NewLRU[string, *domain.LoginThrottle](100_000, nil, 2*domain.MaxLoginWait)}
}

func throttleKeys(name, address string) (byName, byAddress string) {
	return "name\x00" + strings.ToLower(strings.TrimSpace(name)) + "\x00" + address, "address\x00" + address
}

// waiting reports whether attempts for name from address, and attempts from address for any
// name, must wait at now.
func (t *LoginThrottles) waiting(name, address string, now time.Time) (byName, byAddress bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n, a := throttleKeys(name, address)
	th, ok := t.byKey.Get(n)
	byName = ok && th.Waiting(now)
	th, ok = t.byKey.Get(a)
	return byName, ok && th.Waiting(now)
}

// failed counts a wrong attempt for name from address and returns the objects whose wait it
// started ("operator:…", "address:…").
func (t *LoginThrottles) failed(name, address string, now time.Time) []string {
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
func (t *LoginThrottles) succeeded(name, address string) {
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
