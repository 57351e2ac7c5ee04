package console

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
	"golang.org/x/crypto/bcrypt"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// The operator console's shared pieces: who acts, what they may do, and the audit log every
// action, login and reveal of personal data is written to in the transaction of its effect.

// Actor is the operator a console use case acts for, and the address their request came from.
type Actor struct {
	ID      uuid.UUID
	Name    string
	Role    domain.Role
	Address string
}

// may refuses what the actor's role does not allow.
func (a Actor) may(need domain.Role) error {
	if !a.Role.Allows(need) {
		return domain.ErrForbidden
	}
	return nil
}

// CLIActor is who acts when an operator is managed from tiyin's command line.
var CLIActor = Actor{Name: domain.OperatorNameCLI, Role: domain.RoleAdmin, Address: "local"}

// local reports whether the actor is the command line: whoever runs it has the host and the
// database already, so access it grants needs no second admin (it is audited all the same).
func (a Actor) local() bool { return a == CLIActor }

// audit writes the audit log's lines.
type Audit struct {
	Clock ports.Clock
	Log   ports.AuditLog
}

// now is the system time: the console works across partners, on no partner's clock.
func (x Audit) now() time.Time { return x.Clock.Now(uuid.Nil) }

// record appends one line, in the transaction of ctx.
func (x Audit) record(ctx context.Context, who Actor, action, object, detail string) error {
	return x.Log.Append(ctx, x.entry(who, action, object, detail))
}

// recordOn appends the line of an act on one of partner's objects, at partner's time: in the
// sandbox a partner's clock may be ahead, and the line then sits among the object's own events
// and postings (uuid.Nil: the system time).
func (x Audit) recordOn(ctx context.Context, who Actor, partner uuid.UUID, action, object, detail string) error {
	e := x.entry(who, action, object, detail)
	e.At = x.Clock.Now(partner)
	return x.Log.Append(ctx, e)
}

// entry is the line of who doing action on object, now.
func (x Audit) entry(who Actor, action, object, detail string) ports.AuditEntry {
	return ports.AuditEntry{At: x.now(), Operator: who.Name, Address: who.Address, Action: action, Object: object, Detail: detail}
}

// refused records a refusal that rolled its use case's transaction back (an approval refused
// by domain.ErrApproverCredentials), in a transaction of its own, what was refused (what)
// and why, and returns the refusal.
func (x Audit) refused(ctx context.Context, uow ports.UnitOfWork, who Actor, action, object, what string, refusal error) error {
	if err := uow.Do(ctx, func(ctx context.Context) error {
		return x.record(ctx, who, action, object, what+": "+refusal.Error())
	}); err != nil {
		return err
	}
	return refusal
}

// updateOperator applies fn to the operator named name under its row lock, in the unit of
// work of ctx, and returns the operator as it was before fn.
func updateOperator(ctx context.Context, operators ports.OperatorRepository, name string, fn func(o *domain.Operator) error) (*domain.Operator, error) {
	o, err := operators.ByName(ctx, name)
	if err != nil {
		return nil, err
	}
	return o, operators.Update(ctx, o.ID(), fn)
}

// passwordCost is bcrypt's cost for operators' passwords.
var passwordCost = bcrypt.DefaultCost

// hashPassword hashes an operator's password with bcrypt.
func hashPassword(password string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(password), passwordCost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(h), nil
}

// passwordMatches compares in constant time (bcrypt does).
func passwordMatches(hash, password string) bool {
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
}

// dummyHash is compared against when the name is unknown, so a login takes as long whether
// or not the operator exists.
var dummyHash = sync.OnceValue(func() string {
	h, _ := hashPassword("not the password of anyone")
	return h
})

// oneTimePassword is a fresh password to be changed at the first login, and its hash: 20
// characters of base32 (capitals and digits, easy to read out and type).
func oneTimePassword() (password, hash string, err error) {
	b := make([]byte, 12)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	password = base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b)[:20]
	hash, err = hashPassword(password)
	return password, hash, err
}
