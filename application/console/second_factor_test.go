package console_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"go.uber.org/mock/gomock"

	"github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
)

// The console's clock stands at t0 in these tests, so an operator's authenticator app has
// three codes tiyin accepts: the steps before, at and after t0's.
var step0 = domain.TOTPStep(t0)

// code is the code of the secret for a time step, as an authenticator app makes it.
func code(t *testing.T, secret string, step int64) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, time.Unix(step*int64(domain.TOTPPeriod/time.Second), 0))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// enrolledOperator is an operator the command line made, who logged in, chose a password and
// enrolled their second factor with the code of the step before t0's.
type enrolledOperator struct {
	console.Actor
	password, secret string
	recovery         []domain.RecoveryCode
}

func (c *fixture) enrolled(t *testing.T, uc console.Console, name string, role domain.Role) enrolledOperator {
	t.Helper()
	ctx := context.Background()
	pw, err := uc.Operators.CreateOperator.Handle(ctx, console.CLIActor, console.CreateOperator{Name: name, Role: role})
	if err != nil {
		t.Fatal(err)
	}
	s, err := uc.Operators.LogIn.Handle(ctx, console.LogIn{Name: name, Password: pw, Address: "10.0.0.1"})
	if err != nil || !s.MustEnrol || !s.MustChangePassword {
		t.Fatalf("%s's first login: %+v, %v", name, s, err)
	}
	o := enrolledOperator{Actor: s.Operator, password: name + "-own-password"}
	if err := uc.Operators.ChangePassword.Handle(ctx, s.Operator, console.ChangePassword{Old: pw, New: o.password, Session: s.Token}); err != nil {
		t.Fatal(err)
	}
	e, err := uc.Operators.BeginEnrolment.Handle(ctx, s.Operator)
	if err != nil || !strings.HasPrefix(e.URL, "otpauth://totp/tiyin:"+name+"?") || !strings.Contains(e.URL, "secret="+e.Secret) {
		t.Fatalf("%s's enrolment: %+v, %v", name, e, err)
	}
	if again, _ := uc.Operators.BeginEnrolment.Handle(ctx, s.Operator); again != e {
		t.Fatalf("the enrolment page shows another secret when reloaded: %+v", again)
	}
	if _, _, err := uc.Operators.EnrolSecondFactor.Handle(ctx, s, console.EnrolSecondFactor{Code: "000000"}); !errors.Is(err, domain.ErrWrongCode) &&
		code(t, e.Secret, step0-1) != "000000" {
		t.Fatalf("a wrong code enrolled: %v", err)
	}
	next, codes, err := uc.Operators.EnrolSecondFactor.Handle(ctx, s, console.EnrolSecondFactor{Code: code(t, e.Secret, step0-1)})
	if err != nil || next.MustEnrol || next.Token == s.Token || len(codes) != domain.RecoveryCodes {
		t.Fatalf("%s's enrolment: %+v, %d codes, %v", name, next, len(codes), err)
	}
	if _, err := uc.Operators.BeginEnrolment.Handle(ctx, s.Operator); !errors.Is(err, domain.ErrSecondFactorEnrolled) {
		t.Fatalf("the secret is shown after the enrolment: %v", err)
	}
	o.secret, o.recovery = e.Secret, codes
	return o
}

// logIn logs name in from address with password and code.
func logIn(uc console.Console, name, password, code, address string) (console.Session, error) {
	return uc.Operators.LogIn.Handle(context.Background(), console.LogIn{Name: name, Password: password, Code: code, Address: address})
}

// auditHas reports whether the audit log has a line of who's action whose detail holds every
// one of details.
func (c *fixture) auditHas(who, action string, details ...string) bool {
	for _, e := range c.audit {
		if e.Operator != who || e.Action != action {
			continue
		}
		all := true
		for _, d := range details {
			all = all && strings.Contains(e.Detail, d)
		}
		if all {
			return true
		}
	}
	return false
}

// TestOneAdminCannotWriteOffALoanAlone is the penetration test's finding 1 (issue 46), as the
// reviewer ran it: adm1 proposes a write-off and may not approve it; adm1 resets off2's
// password, but that password without off2's second factor logs no one in; and even off2,
// logged in after the reset with the password and his own code, may not approve adm1's
// proposal within 24 hours: the refusal says why and is audited. The loan stays as it was, and
// another officer approves it.
func TestOneAdminCannotWriteOffALoanAlone(t *testing.T) {
	t.Parallel()
	c := setupConsole(t)
	uc := c.app()
	ctx := context.Background()
	adm1 := c.enrolled(t, uc, "adm1", domain.RoleAdmin)
	off2 := c.enrolled(t, uc, "off2", domain.RoleOfficer)
	loan, current := c.overdueLoan(t)

	id, err := uc.Actions.ProposeLoanAction.Handle(ctx, adm1.Actor, console.ProposeLoanAction{Kind: domain.ActionWriteOff, LoanID: loan.ID(),
		Reason: "no payment for four months"})
	if err != nil {
		t.Fatal(err)
	}
	if err := uc.Actions.DecideProposal.Handle(ctx, adm1.Actor, console.DecideProposal{ID: id, Approve: true}); !errors.Is(err, domain.ErrSelfApproval) {
		t.Fatalf("adm1 approves his own write-off: %v", err)
	}
	pw, err := uc.Operators.ResetOperatorPassword.Handle(ctx, adm1.Actor, console.ResetOperatorPassword{Name: "off2"})
	if err != nil || len(pw) < 16 {
		t.Fatalf("adm1 resets off2's password: %q, %v", pw, err)
	}
	for _, typed := range []string{"", "123456", code(t, adm1.secret, step0), adm1.recovery[0].String()} {
		if _, err := logIn(uc, "off2", pw, typed, "10.0.0.66"); !errors.Is(err, domain.ErrBadCredentials) {
			t.Fatalf("off2's new password with code %q logs in: %v", typed, err)
		}
	}
	s, err := logIn(uc, "off2", pw, code(t, off2.secret, step0), "10.0.0.2")
	if err != nil || !s.MustChangePassword || s.MustEnrol {
		t.Fatalf("off2 with the reset password and his own code: %+v, %v", s, err)
	}
	if err := uc.Operators.ChangePassword.Handle(ctx, s.Operator, console.ChangePassword{Old: pw, New: "off2-chose-again", Session: s.Token}); err != nil {
		t.Fatal(err)
	}
	err = uc.Actions.DecideProposal.Handle(ctx, s.Operator, console.DecideProposal{ID: id, Approve: true})
	var why domain.CredentialsError
	if !errors.Is(err, domain.ErrApproverCredentials) || !errors.As(err, &why) || why.Credential != "password" || why.Maker != "adm1" {
		t.Fatalf("off2 approves adm1's write-off the day adm1 reset his password: %v", err)
	}
	if current().WrittenOff() || c.props[id].Status != domain.ProposalOpen {
		t.Fatal("the refused approval changed the loan or the proposal")
	}
	if !c.auditHas("off2", "proposal.refused", "WRITE_OFF", "password", "adm1") {
		t.Fatalf("the refusal is not audited: %v", c.actions())
	}

	off3 := c.enrolled(t, uc, "off3", domain.RoleOfficer)
	c.ledger.EXPECT().OpenAccount(gomock.Any(), gomock.Any()).Return(nil).AnyTimes()
	c.ledger.EXPECT().Post(gomock.Any(), gomock.Any()).Return(nil).AnyTimes()
	if err := uc.Actions.DecideProposal.Handle(ctx, off3.Actor, console.DecideProposal{ID: id, Approve: true}); err != nil || !current().WrittenOff() {
		t.Fatalf("another officer's approval: %v", err)
	}
}

// TestOneAdminCannotGrantAdminAlone is finding 1's grant sequence: adm1 creates the admin
// ghost, resets adm2's password, but cannot log in as adm2 without adm2's code; adm2, logged in
// with the reset password and his own code, is refused approving ghost within 24 hours
// (audited), so ghost never logs in; another admin may approve.
func TestOneAdminCannotGrantAdminAlone(t *testing.T) {
	t.Parallel()
	c := setupConsole(t)
	uc := c.app()
	ctx := context.Background()
	adm1 := c.enrolled(t, uc, "adm1", domain.RoleAdmin)
	adm2 := c.enrolled(t, uc, "adm2", domain.RoleAdmin)

	ghostPW, err := uc.Operators.CreateOperator.Handle(ctx, adm1.Actor, console.CreateOperator{Name: "ghost", Role: domain.RoleAdmin})
	if err != nil {
		t.Fatal(err)
	}
	if err := uc.Operators.DecideGrant.Handle(ctx, adm1.Actor, console.DecideOperatorGrant{Name: "ghost", Approve: true}); !errors.Is(err, domain.ErrSelfGrant) {
		t.Fatalf("adm1 approves ghost himself: %v", err)
	}
	pw, err := uc.Operators.ResetOperatorPassword.Handle(ctx, adm1.Actor, console.ResetOperatorPassword{Name: "adm2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := logIn(uc, "adm2", pw, "", "10.0.0.66"); !errors.Is(err, domain.ErrBadCredentials) {
		t.Fatalf("adm2's reset password alone logs in: %v", err)
	}
	s, err := logIn(uc, "adm2", pw, code(t, adm2.secret, step0), "10.0.0.2")
	if err != nil {
		t.Fatalf("adm2 with the reset password and his own code: %v", err)
	}
	err = uc.Operators.DecideGrant.Handle(ctx, s.Operator, console.DecideOperatorGrant{Name: "ghost", Approve: true})
	if !errors.Is(err, domain.ErrApproverCredentials) {
		t.Fatalf("adm2 approves adm1's ghost the day adm1 reset his password: %v", err)
	}
	if !c.auditHas("adm2", "operator.grant_refused", "new operator", "asked by adm1", "password", "adm1") {
		t.Fatalf("the refusal is not audited: %v", c.actions())
	}
	if _, err := logIn(uc, "ghost", ghostPW, "", "10.0.0.66"); !errors.Is(err, domain.ErrBadCredentials) {
		t.Fatalf("ghost logs in: %v", err)
	}
	adm3 := c.enrolled(t, uc, "adm3", domain.RoleAdmin)
	if err := uc.Operators.DecideGrant.Handle(ctx, adm3.Actor, console.DecideOperatorGrant{Name: "ghost", Approve: true}); err != nil {
		t.Fatalf("a third admin's approval: %v", err)
	}
	if s, err := logIn(uc, "ghost", ghostPW, "", "10.0.0.66"); err != nil || !s.MustEnrol {
		t.Fatalf("ghost's first login, once approved: %+v, %v", s, err)
	}
}

// TestARightPasswordAndCodeLogInFromAnAddressThatWaits is finding 6 (issue 46): after 20 wrong
// passwords from one address (an office's NAT), an operator behind it still logs in with the
// right password and code; a wrong or missing code, or an operator who has no second factor
// yet, still waits; five wrong attempts for one name still make that name wait there.
func TestARightPasswordAndCodeLogInFromAnAddressThatWaits(t *testing.T) {
	t.Parallel()
	c := setupConsole(t)
	uc := c.app()
	ctx := context.Background()
	dilnoza := c.enrolled(t, uc, "dilnoza", domain.RoleOfficer)
	newcomerPW, err := uc.Operators.CreateOperator.Handle(ctx, console.CLIActor, console.CreateOperator{Name: "newcomer", Role: domain.RoleViewer})
	if err != nil {
		t.Fatal(err)
	}
	const nat = "198.51.100.4"
	for i := range domain.FreeAddressFailures {
		_, _ = logIn(uc, "guess-"+string(rune('a'+i)), "x", "", nat)
	}
	for _, typed := range []string{"", "000000", dilnoza.recovery[0].Plain() + "X"} {
		if _, err := logIn(uc, "dilnoza", dilnoza.password, typed, nat); !errors.Is(err, domain.ErrBadCredentials) {
			t.Fatalf("the right password with code %q from the waiting address: %v", typed, err)
		}
	}
	if _, err := logIn(uc, "newcomer", newcomerPW, "", nat); !errors.Is(err, domain.ErrBadCredentials) {
		t.Fatalf("a password alone (no second factor yet) from the waiting address: %v", err)
	}
	if _, err := logIn(uc, "dilnoza", dilnoza.password, code(t, dilnoza.secret, step0), nat); err != nil {
		t.Fatalf("the right password and code from the waiting address: %v", err)
	}
	if _, err := logIn(uc, "newcomer", newcomerPW, "", "10.0.0.7"); err != nil {
		t.Fatalf("the newcomer from another address: %v", err)
	}
	for range domain.FreeLoginFailures {
		_, _ = logIn(uc, "dilnoza", "wrong", "", nat)
	}
	if _, err := logIn(uc, "dilnoza", dilnoza.password, code(t, dilnoza.secret, step0+1), nat); !errors.Is(err, domain.ErrBadCredentials) {
		t.Fatalf("five wrong passwords for dilnoza from one address, then the right ones from it: %v", err)
	}
	if !c.auditHas("dilnoza", "login.failed", "waiting after wrong attempts for this name") {
		t.Fatalf("the name's wait is not audited: %v", c.actions())
	}
}

// TestACodeAndARecoveryCodeLogInOnce: a TOTP code is accepted once (a replay, or a code seen
// over a shoulder, refused) and a recovery code too; each login says in the audit log which
// was used.
func TestACodeAndARecoveryCodeLogInOnce(t *testing.T) {
	t.Parallel()
	c := setupConsole(t)
	uc := c.app()
	o := c.enrolled(t, uc, "olga", domain.RoleViewer)
	if _, err := logIn(uc, "olga", o.password, code(t, o.secret, step0-1), "10.0.0.1"); !errors.Is(err, domain.ErrBadCredentials) {
		t.Fatalf("the enrolment's code logs in: %v", err)
	}
	if _, err := logIn(uc, "olga", o.password, code(t, o.secret, step0+1), "10.0.0.1"); err != nil {
		t.Fatalf("the next step's code: %v", err)
	}
	for _, step := range []int64{step0 + 1, step0} {
		if _, err := logIn(uc, "olga", o.password, code(t, o.secret, step), "10.0.0.1"); !errors.Is(err, domain.ErrBadCredentials) {
			t.Fatalf("a code of step %d after step %d's: %v", step, step0+1, err)
		}
	}
	if _, err := logIn(uc, "olga", o.password, strings.ToLower(o.recovery[3].String()), "10.0.0.1"); err != nil {
		t.Fatalf("a recovery code: %v", err)
	}
	if _, err := logIn(uc, "olga", o.password, o.recovery[3].Plain(), "10.0.0.1"); !errors.Is(err, domain.ErrBadCredentials) {
		t.Fatalf("a recovery code twice: %v", err)
	}
	if _, err := logIn(uc, "olga", "wrong password", o.recovery[4].String(), "10.0.0.1"); !errors.Is(err, domain.ErrBadCredentials) || usedCodes(c, o) != 1 {
		t.Fatalf("a recovery code with a wrong password: %v, %d codes used", err, usedCodes(c, o))
	}
	if !c.auditHas("olga", "login", "with a recovery code") || !c.auditHas("olga", "login.failed", "second factor code used already") ||
		!c.auditHas("olga", "login.failed", "wrong or used recovery code") {
		t.Fatalf("the logins are not audited as they went: %v", c.actions())
	}
	if c.secondFactors[o.ID].Secret != o.secret {
		t.Fatal("the secret changed")
	}
}

// usedCodes counts the operator's recovery codes used.
func usedCodes(c *fixture, o enrolledOperator) int {
	n := 0
	for _, used := range c.recovery[o.ID] {
		if used {
			n++
		}
	}
	return n
}

// TestASecondFactorIsResetBySecondAdminOrTheBreakGlass: a password reset leaves the second
// factor as it was; in the console a reset of the second factor waits for another admin, whose
// approval removes it with its recovery codes and ends the operator's sessions, and records
// both admins; the operator then enrols again at the next login, a secret shown to an earlier
// session dropped. The command line resets at once, audited as the break glass.
func TestASecondFactorIsResetBySecondAdminOrTheBreakGlass(t *testing.T) {
	t.Parallel()
	c := setupConsole(t)
	uc := c.app()
	ctx := context.Background()
	adm1, adm2 := c.enrolled(t, uc, "adm1", domain.RoleAdmin), c.enrolled(t, uc, "adm2", domain.RoleAdmin)
	off2 := c.enrolled(t, uc, "off2", domain.RoleOfficer)
	pw, err := uc.Operators.ResetOperatorPassword.Handle(ctx, console.CLIActor, console.ResetOperatorPassword{Name: "off2"})
	if err != nil {
		t.Fatal(err)
	}
	if c.secondFactors[off2.ID].EnrolledAt.IsZero() || len(c.recovery[off2.ID]) != domain.RecoveryCodes {
		t.Fatal("a password reset touched the second factor")
	}
	viewer := console.Actor{Name: "vic", Role: domain.RoleViewer}
	if _, err := uc.Operators.ResetSecondFactor.Handle(ctx, viewer, console.ResetSecondFactor{Name: "off2"}); !errors.Is(err, domain.ErrForbidden) {
		t.Fatalf("a viewer resets a second factor: %v", err)
	}
	pending, err := uc.Operators.ResetSecondFactor.Handle(ctx, adm1.Actor, console.ResetSecondFactor{Name: "off2"})
	if err != nil || !pending || c.secondFactors[off2.ID].EnrolledAt.IsZero() {
		t.Fatalf("adm1 asks for off2's reset: pending %v, %v", pending, err)
	}
	if err := uc.Operators.DecideGrant.Handle(ctx, adm1.Actor, console.DecideOperatorGrant{Name: "off2", Approve: true}); !errors.Is(err, domain.ErrSelfGrant) {
		t.Fatalf("adm1 approves his own reset: %v", err)
	}
	c.ended = nil
	if err := uc.Operators.DecideGrant.Handle(ctx, adm2.Actor, console.DecideOperatorGrant{Name: "off2", Approve: true}); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.secondFactors[off2.ID]; ok || len(c.recovery[off2.ID]) != 0 || len(c.ended) != 1 || c.ended[0] != off2.ID {
		t.Fatalf("after the approval: factor kept %v, %d codes, sessions ended of %v", ok, len(c.recovery[off2.ID]), c.ended)
	}
	if got := c.ops[off2.ID].SecondFactorSet(); got != (domain.CredentialSet{By: "adm1", ApprovedBy: "adm2", At: t0}) {
		t.Fatalf("the reset is recorded as %+v", got)
	}
	if !c.auditHas("adm2", "operator.grant_approve", "second factor reset, asked by adm1") {
		t.Fatalf("the approval is not audited: %v", c.actions())
	}
	if s, err := logIn(uc, "off2", pw, "", "10.0.0.2"); err != nil || !s.MustChangePassword || !s.MustEnrol {
		t.Fatalf("off2's next login: %+v, %v", s, err)
	}

	// The command line's break glass, at once.
	adm3 := c.enrolled(t, uc, "adm3", domain.RoleAdmin)
	if _, err := uc.Operators.ResetSecondFactor.Handle(ctx, adm1.Actor, console.ResetSecondFactor{Name: "adm3"}); err != nil {
		t.Fatal(err)
	}
	pending, err = uc.Operators.ResetSecondFactor.Handle(ctx, console.CLIActor, console.ResetSecondFactor{Name: "adm3"})
	if err != nil || pending {
		t.Fatalf("the break glass: pending %v, %v", pending, err)
	}
	if _, ok := c.secondFactors[adm3.ID]; ok || c.ops[adm3.ID].Grant().Pending() ||
		c.ops[adm3.ID].SecondFactorSet() != (domain.CredentialSet{By: "cli", At: t0}) {
		t.Fatalf("after the break glass: %+v", c.ops[adm3.ID].State())
	}
	if !c.auditHas("cli", "operator.second_factor.break_glass", "break glass") {
		t.Fatalf("the break glass is not audited as such: %v", c.actions())
	}
	if _, err := uc.Operators.ResetSecondFactor.Handle(ctx, console.CLIActor, console.ResetSecondFactor{Name: "adm3"}); !errors.Is(err, domain.ErrNoSecondFactor) {
		t.Fatalf("a reset of no second factor: %v", err)
	}
	s, err := logIn(uc, "adm3", adm3.password, "", "10.0.0.3")
	if err != nil || !s.MustEnrol {
		t.Fatalf("adm3's next login: %+v, %v", s, err)
	}
	first, _ := uc.Operators.BeginEnrolment.Handle(ctx, s.Operator)
	s, err = logIn(uc, "adm3", adm3.password, "", "10.0.0.3")
	if err != nil {
		t.Fatal(err)
	}
	if second, _ := uc.Operators.BeginEnrolment.Handle(ctx, s.Operator); second.Secret == first.Secret || second.Secret == adm3.secret {
		t.Fatal("a login shows the secret an earlier session was shown")
	}
}
