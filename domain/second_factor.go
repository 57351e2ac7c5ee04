package domain

import (
	"encoding/base32"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// An operator's second factor (issue 46): besides the password, something only the operator
// holds, asked at every login, so that whoever resets a password (an admin) cannot log in as
// its owner. TOTP (RFC 6238) from an authenticator app today; the kind leaves room for
// WebAuthn. Single-use recovery codes stand in for it when the device is lost.

// FactorKind is how an operator proves their second factor.
type FactorKind struct{ s string }

// FactorTOTP is a time-based one-time password (RFC 6238): six digits from an authenticator
// app, a new one every TOTPPeriod.
var FactorTOTP = FactorKind{"TOTP"}

// ParseFactorKind reads a factor kind's name.
func ParseFactorKind(s string) (FactorKind, error) {
	if s == FactorTOTP.s {
		return FactorTOTP, nil
	}
	return FactorKind{}, fmt.Errorf("%w: %q", ErrFactorKind, s)
}

// String is the kind's name, as stored.
func (k FactorKind) String() string { return k.s }

// IsZero reports whether the kind is unset.
func (k FactorKind) IsZero() bool { return k.s == "" }

// TOTPPeriod is the length of a TOTP time step: an authenticator app shows one code a step.
const TOTPPeriod = 30 * time.Second

// TOTPStep is the number of the time step t falls in (RFC 6238's T, from the Unix epoch).
func TOTPStep(t time.Time) int64 { return t.Unix() / int64(TOTPPeriod/time.Second) }

// Second factor errors.
var (
	// ErrNoSecondFactor means the operator has no enrolled second factor (none yet, or reset):
	// they enrol one at their next login.
	ErrNoSecondFactor = errors.New("the operator has no second factor yet: they enrol one at their next login")
	// ErrSecondFactorEnrolled refuses enrolling a factor that is enrolled already.
	ErrSecondFactorEnrolled = errors.New("the second factor is enrolled already")
	// ErrWrongCode refuses an enrolment whose code the secret did not make now.
	ErrWrongCode = errors.New("the code does not match: type the one your app shows now")
	// ErrCodeUsed refuses a code of a time step whose code (or a later one's) was accepted
	// already: a code seen over a shoulder, or sent twice, does not log in again.
	ErrCodeUsed = errors.New("this code was used already: wait for the next one")
	// ErrFactorKind refuses a factor kind tiyin does not know.
	ErrFactorKind = errors.New("unknown second factor kind")
	// ErrRecoveryCode refuses text that is not a recovery code.
	ErrRecoveryCode = errors.New("a recovery code is 16 letters and digits")
)

// SecondFactor is one of an operator's second factors. A TOTP factor is a secret shared with
// the operator's authenticator app: shown once while the operator enrols, enrolled when they
// type a code the app made from it, and never shown again. A time step's code is accepted once.
type SecondFactor struct {
	id, operatorID uuid.UUID
	kind           FactorKind
	// secret is the TOTP secret in base32: sealed at rest, never logged.
	secret string
	// lastStep is the last time step whose code was accepted; no code of it or before it is.
	lastStep   int64
	createdAt  time.Time
	enrolledAt time.Time
}

// NewTOTPFactor is a TOTP factor the operator is enrolling, on a secret (base32) made for them.
func NewTOTPFactor(id, operatorID uuid.UUID, secret string, now time.Time) *SecondFactor {
	return &SecondFactor{id: id, operatorID: operatorID, kind: FactorTOTP, secret: secret, createdAt: now}
}

// ID is the factor's id.
func (f *SecondFactor) ID() uuid.UUID { return f.id }

// OperatorID is whose factor it is.
func (f *SecondFactor) OperatorID() uuid.UUID { return f.operatorID }

// Kind is how the factor is proved.
func (f *SecondFactor) Kind() FactorKind { return f.kind }

// Secret is the TOTP secret, base32: for checking a code, and for the enrolment page only.
func (f *SecondFactor) Secret() string { return f.secret }

// Enrolled reports whether the operator confirmed the factor with a code of it.
func (f *SecondFactor) Enrolled() bool { return !f.enrolledAt.IsZero() }

// EnrolledAt is when the operator confirmed it; zero while they enrol.
func (f *SecondFactor) EnrolledAt() time.Time { return f.enrolledAt }

// Enrol completes the enrolment with a code the secret made for time step step.
func (f *SecondFactor) Enrol(step int64, now time.Time) error {
	if f.Enrolled() {
		return ErrSecondFactorEnrolled
	}
	f.lastStep, f.enrolledAt = step, now
	return nil
}

// Use accepts a login's code, made for time step step: each step's code once, and never one
// older than the last accepted (ErrCodeUsed).
func (f *SecondFactor) Use(step int64) error {
	switch {
	case !f.Enrolled():
		return ErrNoSecondFactor
	case step <= f.lastStep:
		return ErrCodeUsed
	}
	f.lastStep = step
	return nil
}

// SecondFactorState is every stored field of a second factor, for repositories only.
type SecondFactorState struct {
	ID, OperatorID        uuid.UUID
	Kind                  FactorKind
	Secret                string
	LastStep              int64
	CreatedAt, EnrolledAt time.Time
}

// RestoreSecondFactor rebuilds a factor from storage. Only repositories call it: it skips
// the constructor.
func RestoreSecondFactor(s SecondFactorState) *SecondFactor {
	return &SecondFactor{id: s.ID, operatorID: s.OperatorID, kind: s.Kind, secret: s.Secret, lastStep: s.LastStep,
		createdAt: s.CreatedAt, enrolledAt: s.EnrolledAt}
}

// State returns every stored field.
func (f *SecondFactor) State() SecondFactorState {
	return SecondFactorState{ID: f.id, OperatorID: f.operatorID, Kind: f.kind, Secret: f.secret, LastStep: f.lastStep,
		CreatedAt: f.createdAt, EnrolledAt: f.enrolledAt}
}

// RecoveryCodes is how many recovery codes an enrolment gives.
const RecoveryCodes = 10

// RecoveryCodeBytes is how many random bytes make a recovery code (80 bits).
const RecoveryCodeBytes = 10

// recoveryAlphabet is base32's (RFC 4648): capitals and the digits 2–7, easy to read out.
var recoveryAlphabet = base32.StdEncoding.WithPadding(base32.NoPadding)

// RecoveryCode is a single-use code that stands in for the second factor at one login: 16
// characters of base32, written in groups of four.
type RecoveryCode struct{ s string }

// NewRecoveryCode makes a recovery code of RecoveryCodeBytes random bytes.
func NewRecoveryCode(random [RecoveryCodeBytes]byte) RecoveryCode {
	return RecoveryCode{recoveryAlphabet.EncodeToString(random[:])}
}

// ParseRecoveryCode reads a recovery code as an operator types it: any case, with or without
// its dashes and spaces.
func ParseRecoveryCode(s string) (RecoveryCode, error) {
	s = strings.ToUpper(strings.NewReplacer("-", "", " ", "").Replace(strings.TrimSpace(s)))
	if b, err := recoveryAlphabet.DecodeString(s); err != nil || len(b) != RecoveryCodeBytes || len(s) != recoveryAlphabet.EncodedLen(RecoveryCodeBytes) {
		return RecoveryCode{}, ErrRecoveryCode
	}
	return RecoveryCode{s}, nil
}

// Plain is the code without its dashes: what is hashed.
func (c RecoveryCode) Plain() string { return c.s }

// String is the code in groups of four: ABCD-EFGH-IJKL-MNOP.
func (c RecoveryCode) String() string {
	var b strings.Builder
	for i, r := range c.s {
		if i > 0 && i%4 == 0 {
			b.WriteByte('-')
		}
		b.WriteRune(r)
	}
	return b.String()
}
