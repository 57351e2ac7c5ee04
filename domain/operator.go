package domain

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// The operator console's rules: who may log in, for how long, and what each role may do.
const (
	// SessionIdle is how long a console session lives without a request.
	SessionIdle = 30 * time.Minute
	// SessionLifetime is how long a console session lives at most, however busy.
	SessionLifetime = 12 * time.Hour
	// ProposalTTL is how long a maker-checker proposal waits for its approval.
	ProposalTTL = 24 * time.Hour
	// MinPasswordLength is the shortest password an operator may choose.
	MinPasswordLength = 12
	// CredentialWindow is how long after handing out an operator's password or second factor
	// an admin's proposals and grants may not be approved by that operator (MayApprove).
	CredentialWindow = 24 * time.Hour
)

// Errors of the operator console.
var (
	// ErrOperatorNotFound means no operator has that id or name.
	ErrOperatorNotFound = errors.New("operator not found")
	// ErrOperatorExists means an operator with that name exists already.
	ErrOperatorExists = errors.New("operator with this name exists")
	// ErrBadCredentials means the name, the password or the second factor's code is wrong, the
	// operator is disabled, or too many wrong attempts came from this address lately: a login
	// is never told which.
	ErrBadCredentials = errors.New("wrong name, password or code, or too many attempts from this address: check them and try again in a few minutes")
	// ErrForbidden means the operator's role may not do that.
	ErrForbidden = errors.New("your role may not do this")
	// ErrWeakPassword means a new password is too short or the same as the old one.
	ErrWeakPassword = fmt.Errorf("a new password needs at least %d characters and must differ from the old one", MinPasswordLength)
	// ErrProposalNotFound means no proposal has that id.
	ErrProposalNotFound = errors.New("proposal not found")
	// ErrProposalOpen means the object has an open proposal already: approve or reject it.
	ErrProposalOpen = errors.New("this object has an open proposal already: approve or reject that one")
	// ErrSelfApproval means an officer tried to approve their own proposal.
	ErrSelfApproval = errors.New("a proposal is approved by another officer than the one who made it")
	// ErrProposalClosed means the proposal was approved, rejected or expired already.
	ErrProposalClosed = errors.New("the proposal is no longer open")
	// ErrProposalIncomplete means a proposal lacks what its approver decides on.
	ErrProposalIncomplete = errors.New("the proposal is incomplete")
	// ErrOutcomeKnown means the object's gateway outcome is not unknown (any more): there is
	// nothing to resolve.
	ErrOutcomeKnown = errors.New("the outcome is not unknown: nothing to resolve")
	// ErrApproverCredentials refuses an approval by an operator whose password or second
	// factor the maker of the proposal (the admin who asked for the grant) set or reset less
	// than CredentialWindow before: the maker may have kept a way into the approver's account
	// and approve as them (issue 46). CredentialsError says which credential, and when.
	ErrApproverCredentials = errors.New("the maker set or reset the approver's password or second factor less than 24 hours ago")
)

// CredentialsError is an approval refused by MayApprove: the approver's Credential
// ("password" or "second factor") was set or reset by Maker at At. It matches
// ErrApproverCredentials under errors.Is.
type CredentialsError struct {
	Credential, Maker string
	At                time.Time
}

func (e CredentialsError) Error() string {
	return fmt.Sprintf("the approver's %s was set or reset by %s at %s, less than 24 hours ago: another approves",
		e.Credential, e.Maker, e.At.UTC().Format(time.RFC3339))
}

// Is makes CredentialsError match ErrApproverCredentials.
func (e CredentialsError) Is(target error) bool { return target == ErrApproverCredentials }

// Role is what an operator may do in the console.
type Role string

// The roles, each allowed what the one before it is.
const (
	// RoleViewer reads every page, personal data masked.
	RoleViewer Role = "viewer"
	// RoleOfficer also acts: retries, resends, reveals personal data, proposes and approves.
	RoleOfficer Role = "officer"
	// RoleAdmin also manages partners (enable, disable, rotate a key).
	RoleAdmin Role = "admin"
)

var roleRank = map[Role]int{RoleViewer: 1, RoleOfficer: 2, RoleAdmin: 3}

// ParseRole reads a role's name.
func ParseRole(s string) (Role, error) {
	r := Role(strings.ToLower(strings.TrimSpace(s)))
	if roleRank[r] == 0 {
		return "", fmt.Errorf("%w: role %q", ErrRole, s)
	}
	return r, nil
}

// Operator input errors.
var (
	// ErrRole refuses a role that is none of viewer, officer and admin.
	ErrRole = errors.New("want role viewer, officer or admin")
	// ErrOperatorName refuses a login name outside ParseOperatorName's rule.
	ErrOperatorName = fmt.Errorf("an operator's name is %d to %d characters, each a lower-case letter a-z, a digit, '.', '_' or '-'; %s and %s are reserved",
		minOperatorName, maxOperatorName, OperatorNameCLI, OperatorNameSystem)
)

// Names no operator may take: the audit log gives them to who acts without a console login.
const (
	// OperatorNameCLI is who acts from tiyin's command line.
	OperatorNameCLI = "cli"
	// OperatorNameSystem is kept for tiyin acting on its own.
	OperatorNameSystem = "system"
)

const minOperatorName, maxOperatorName = 3, 32

// ParseOperatorName accepts a login name that reads the same wherever it is shown (the audit
// log, its CSV, `tiyin operator list`): 3 to 32 lower-case ASCII letters, digits, '.', '_' and
// '-', so no zero-width, right-to-left, line-breaking or lookalike character lets one name pass
// for another; and not a reserved name. Spaces around it are dropped. Operators named before
// this rule keep their names and log in; `tiyin migrate` lists those that break it.
func ParseOperatorName(s string) (string, error) {
	s = strings.TrimSpace(s)
	ok := len(s) >= minOperatorName && len(s) <= maxOperatorName && s != OperatorNameCLI && s != OperatorNameSystem &&
		!strings.ContainsFunc(s, func(r rune) bool {
			return (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '.' && r != '_' && r != '-'
		})
	if !ok {
		return "", ErrOperatorName
	}
	return s, nil
}

// Allows reports whether the role may do what needs at least role need.
func (r Role) Allows(need Role) bool { return roleRank[r] >= roleRank[need] && roleRank[r] > 0 }

// Operator is a member of the bank's staff who uses the console.
type Operator struct {
	id           uuid.UUID
	name         string
	role         Role
	passwordHash string
	mustChange   bool
	disabled     bool
	createdAt    time.Time
	grant        Grant
	language     string
	// passwordSet and secondFactorSet are who last handed the operator their password or
	// second factor, and when (MayApprove).
	passwordSet     CredentialSet
	secondFactorSet CredentialSet
}

// CredentialSet is who last set or reset one of an operator's credentials for them, and when:
// the admin (or "cli") who gave them a one-time password, at creation or a reset; or the admin
// who asked for their second factor's reset and the one who approved it. The operator's own
// change (a new password, a new enrolment) leaves it as it is, since whoever handed a
// credential out may have used it first. The zero CredentialSet is none.
type CredentialSet struct {
	By, ApprovedBy string
	At             time.Time
}

// setBy reports whether name set (or approved setting) the credential less than
// CredentialWindow before now.
func (c CredentialSet) setBy(name string, now time.Time) bool {
	return name != "" && (c.By == name || c.ApprovedBy == name) && now.Sub(c.At) < CredentialWindow
}

// ConsoleLanguages are the languages the console speaks, the default first: English, Russian,
// Uzbek (Latin).
var ConsoleLanguages = []string{"en", "ru", "uz"}

// ErrLanguage refuses a language the console does not speak.
var ErrLanguage = errors.New("the console speaks en, ru and uz")

// Language is the operator's console language; empty until chosen (the browser's then).
func (o *Operator) Language() string { return o.language }

// SetLanguage chooses the operator's console language.
func (o *Operator) SetLanguage(lang string) error {
	if !slices.Contains(ConsoleLanguages, lang) {
		return ErrLanguage
	}
	o.language = lang
	return nil
}

// Grant is access an admin asked for in the console and a second admin has not yet approved
// (maker-checker): a new operator, who may not log in before it, a higher role, or the reset
// of the operator's second factor. Access taken away (a lower role, disabling) needs no second
// admin. The zero Grant is none.
type Grant struct {
	// Role is the role asked for: the new operator's, or the higher one; empty for a second
	// factor's reset.
	Role Role
	// NewOperator: the operator was made by the grant, and logs in only once it is approved.
	NewOperator bool
	// ResetSecondFactor: once approved the operator's second factor is removed, and they
	// enrol a new one at their next login.
	ResetSecondFactor bool
	RequestedBy       string
	At                time.Time
}

// Pending reports whether the grant awaits a second admin.
func (g Grant) Pending() bool { return g.Role != "" || g.ResetSecondFactor }

// Grant errors.
var (
	// ErrNoGrant refuses approving or rejecting when no grant awaits.
	ErrNoGrant = errors.New("no access grant awaits approval")
	// ErrSelfGrant refuses an admin approving access they asked for.
	ErrSelfGrant = errors.New("access is granted by another admin than the one who asked for it")
	// ErrGrantPending refuses asking for access while another grant awaits.
	ErrGrantPending = errors.New("an access grant already awaits approval: approve or reject it first")
)

// NewOperator makes an operator whose password (given as its hash) must be changed at the
// first login.
func NewOperator(id uuid.UUID, name string, role Role, passwordHash string, now time.Time) (*Operator, error) {
	name, err := ParseOperatorName(name)
	if err != nil {
		return nil, err
	}
	if roleRank[role] == 0 {
		return nil, fmt.Errorf("%w: role %q", ErrRole, role)
	}
	return &Operator{id: id, name: name, role: role, passwordHash: passwordHash, mustChange: true, createdAt: now}, nil
}

// ID is the operator's id.
func (o *Operator) ID() uuid.UUID { return o.id }

// Name is the operator's login name.
func (o *Operator) Name() string { return o.name }

// Role is what the operator may do.
func (o *Operator) Role() Role { return o.role }

// PasswordHash is the stored hash of the operator's password.
func (o *Operator) PasswordHash() string { return o.passwordHash }

// MustChangePassword reports whether the operator still has a one-time password.
func (o *Operator) MustChangePassword() bool { return o.mustChange }

// Disabled reports whether the operator may no longer log in.
func (o *Operator) Disabled() bool { return o.disabled }

// GivePassword gives the operator a one-time password (its hash), to be changed at their next
// login: by is the admin, or "cli", who made the operator or reset their password, at now.
func (o *Operator) GivePassword(hash, by string, now time.Time) {
	o.passwordHash, o.mustChange, o.passwordSet = hash, true, CredentialSet{By: by, At: now}
}

// ChoosePassword sets the password the operator chose; who gave them the one before stays
// recorded (PasswordSet).
func (o *Operator) ChoosePassword(hash string) { o.passwordHash, o.mustChange = hash, false }

// PasswordSet is who last gave the operator a one-time password, and when.
func (o *Operator) PasswordSet() CredentialSet { return o.passwordSet }

// SecondFactorSet is who last reset the operator's second factor (and who approved it), and
// when.
func (o *Operator) SecondFactorSet() CredentialSet { return o.secondFactorSet }

// MayApprove refuses (a CredentialsError) when maker, the maker of a proposal or the admin who
// asked for a grant, set or reset the operator's password or second factor less than
// CredentialWindow before now: an admin who resets an officer's password must not approve
// their own proposal as that officer.
func (o *Operator) MayApprove(maker string, now time.Time) error {
	for _, c := range []struct {
		what string
		set  CredentialSet
	}{{"password", o.passwordSet}, {"second factor", o.secondFactorSet}} {
		if c.set.setBy(maker, now) {
			return CredentialsError{Credential: c.what, Maker: maker, At: c.set.At}
		}
	}
	return nil
}

// AskSecondFactorReset asks a second admin to approve removing the operator's second factor (a
// lost device); by is the admin who asks.
func (o *Operator) AskSecondFactorReset(by string, now time.Time) error {
	if o.grant.Pending() {
		return ErrGrantPending
	}
	o.grant = Grant{ResetSecondFactor: true, RequestedBy: by, At: now}
	return nil
}

// BreakGlassSecondFactor records the second factor's reset at once by by, the command line run
// on the host (break glass); a reset awaiting a second admin is dropped.
func (o *Operator) BreakGlassSecondFactor(by string, now time.Time) {
	o.secondFactorSet = CredentialSet{By: by, At: now}
	if o.grant.ResetSecondFactor {
		o.grant = Grant{}
	}
}

// SetDisabled disables or enables the operator.
func (o *Operator) SetDisabled(disabled bool) { o.disabled = disabled }

// Grant is the access grant that awaits a second admin; the zero Grant when none does.
func (o *Operator) Grant() Grant { return o.grant }

// MayLogIn reports whether the operator may log in: not disabled, and not a new operator whose
// grant awaits approval.
func (o *Operator) MayLogIn() bool { return !o.disabled && !o.grant.NewOperator }

// AwaitApproval makes a new operator wait for a second admin before logging in; by is the
// admin who made them.
func (o *Operator) AwaitApproval(by string, now time.Time) {
	o.grant = Grant{Role: o.role, NewOperator: true, RequestedBy: by, At: now}
}

// ChangeRole sets a lower (or the same) role at once. With approval a higher role waits for a
// second admin and ChangeRole reports that it does; without (the command line) it is set at once.
func (o *Operator) ChangeRole(r Role, by string, approval bool, now time.Time) (pending bool, err error) {
	if roleRank[r] == 0 {
		return false, fmt.Errorf("%w: role %q", ErrRole, r)
	}
	if o.grant.Pending() {
		return false, ErrGrantPending
	}
	if roleRank[r] <= roleRank[o.role] || !approval {
		o.role = r
		return false, nil
	}
	o.grant = Grant{Role: r, RequestedBy: by, At: now}
	return true, nil
}

// ApproveGrant applies the grant that awaits approval. The approving admin may not be the one
// who asked (ErrSelfGrant), nor one whose password or second factor that admin set or reset
// lately (MayApprove). An approved second factor's reset records who asked and who approved.
func (o *Operator) ApproveGrant(approver *Operator, now time.Time) (Grant, error) {
	g := o.grant
	switch {
	case !g.Pending():
		return Grant{}, ErrNoGrant
	case g.RequestedBy == approver.name:
		return Grant{}, ErrSelfGrant
	}
	if err := approver.MayApprove(g.RequestedBy, now); err != nil {
		return Grant{}, err
	}
	if g.Role != "" {
		o.role = g.Role
	}
	if g.ResetSecondFactor {
		o.secondFactorSet = CredentialSet{By: g.RequestedBy, ApprovedBy: approver.name, At: now}
	}
	o.grant = Grant{}
	return g, nil
}

// RejectGrant drops the grant that awaits approval; a new operator it made is disabled, so
// never logs in. Any other admin, or the one who asked, may reject.
func (o *Operator) RejectGrant() (Grant, error) {
	g := o.grant
	if !g.Pending() {
		return Grant{}, ErrNoGrant
	}
	if g.NewOperator {
		o.disabled = true
	}
	o.grant = Grant{}
	return g, nil
}

// OperatorState is every stored field of an operator, for repositories only.
type OperatorState struct {
	ID           uuid.UUID
	Name         string
	Role         Role
	PasswordHash string
	MustChange   bool
	Disabled     bool
	CreatedAt    time.Time
	Grant        Grant
	Language     string
	// PasswordSet and SecondFactorSet are who last handed out each credential, and when.
	PasswordSet, SecondFactorSet CredentialSet
}

// RestoreOperator rebuilds an operator from storage.
func RestoreOperator(s OperatorState) *Operator {
	return &Operator{id: s.ID, name: s.Name, role: s.Role, passwordHash: s.PasswordHash, mustChange: s.MustChange,
		disabled: s.Disabled, createdAt: s.CreatedAt, grant: s.Grant, language: s.Language, passwordSet: s.PasswordSet,
		secondFactorSet: s.SecondFactorSet}
}

// State returns every stored field.
func (o *Operator) State() OperatorState {
	return OperatorState{ID: o.id, Name: o.name, Role: o.role, PasswordHash: o.passwordHash, MustChange: o.mustChange,
		Disabled: o.disabled, CreatedAt: o.createdAt, Grant: o.grant, Language: o.language, PasswordSet: o.passwordSet,
		SecondFactorSet: o.secondFactorSet}
}

// ErrActionIncomplete refuses an operator's action that does not say what it must: its
// outcome, or a note (none, or one longer than MaxNote).
var ErrActionIncomplete = errors.New("action incomplete")

// MaxNote is the longest note an operator gives an action, in characters.
const MaxNote = 500

// ParseNote is an operator's note on an action (what was found, and from whom), trimmed.
func ParseNote(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" || utf8.RuneCountInString(s) > MaxNote {
		return "", fmt.Errorf("%w: say in a note (up to %d characters) what was found, and from whom", ErrActionIncomplete, MaxNote)
	}
	return s, nil
}
