package domain_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// admin is an operator of role admin named name, as a second admin approving.
func admin(t *testing.T, name string) *domain.Operator {
	t.Helper()
	o, err := domain.NewOperator(uuid.New(), name, domain.RoleAdmin, "hash", t0)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestAnApprovalIsRefusedToWhomTheMakerHandedACredential (issue 46, finding 1): an operator
// whose password the maker gave them, or whose second factor's reset the maker asked for or
// approved, may not approve the maker's proposals or grants for 24 hours; anyone else's
// hand-outs, the operator's own changes and older ones do not stand in the way.
func TestAnApprovalIsRefusedToWhomTheMakerHandedACredential(t *testing.T) {
	t.Parallel()
	hash := "$2a$10$x"
	for _, tt := range []struct {
		name  string
		setUp func(o *domain.Operator)
		at    time.Duration // after t0, when the approval comes
		want  string        // the credential refused, "" for allowed
	}{
		{"nothing handed out", func(*domain.Operator) {}, 0, ""},
		{"the maker reset the password an hour ago", func(o *domain.Operator) { o.GivePassword(hash, "adm1", t0) }, time.Hour, "password"},
		{"the maker made the operator (the first password)", func(o *domain.Operator) { o.GivePassword(hash, "adm1", t0) }, 0, "password"},
		{"changing it oneself keeps who gave it", func(o *domain.Operator) { o.GivePassword(hash, "adm1", t0); o.ChoosePassword("mine") }, time.Hour, "password"},
		{"23 h 59 min later still", func(o *domain.Operator) { o.GivePassword(hash, "adm1", t0) }, domain.CredentialWindow - time.Minute, "password"},
		{"24 hours later it may", func(o *domain.Operator) { o.GivePassword(hash, "adm1", t0) }, domain.CredentialWindow, ""},
		{"another admin reset the password", func(o *domain.Operator) { o.GivePassword(hash, "adm2", t0) }, time.Hour, ""},
		{"the command line reset the password", func(o *domain.Operator) { o.GivePassword(hash, "cli", t0) }, time.Hour, ""},
		{"the maker asked for the second factor's reset", func(o *domain.Operator) {
			ok(t, o.AskSecondFactorReset("adm1", t0))
			must(o.ApproveGrant(admin(t, "adm2"), t0))
		}, time.Hour, "second factor"},
		{"the maker approved the second factor's reset", func(o *domain.Operator) {
			ok(t, o.AskSecondFactorReset("adm2", t0))
			must(o.ApproveGrant(admin(t, "adm1"), t0))
		}, time.Hour, "second factor"},
		{"others reset the second factor", func(o *domain.Operator) {
			ok(t, o.AskSecondFactorReset("adm2", t0))
			must(o.ApproveGrant(admin(t, "adm3"), t0))
		}, time.Hour, ""},
		{"a second factor reset a day ago", func(o *domain.Operator) {
			ok(t, o.AskSecondFactorReset("adm1", t0))
			must(o.ApproveGrant(admin(t, "adm2"), t0))
		}, domain.CredentialWindow + time.Second, ""},
		{"the command line's break glass", func(o *domain.Operator) { o.BreakGlassSecondFactor("cli", t0) }, time.Hour, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o, err := domain.NewOperator(uuid.New(), "off2", domain.RoleOfficer, hash, t0)
			if err != nil {
				t.Fatal(err)
			}
			tt.setUp(o)
			err = o.MayApprove("adm1", t0.Add(tt.at))
			var refused domain.CredentialsError
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && (!errors.Is(err, domain.ErrApproverCredentials) || !errors.As(err, &refused) || refused.Credential != tt.want || refused.Maker != "adm1"):
				t.Fatalf("got %v, want the %s refused", err, tt.want)
			}
			// The same rule holds for an access grant that adm1 asked for.
			g := admin(t, "ghost")
			g.AwaitApproval("adm1", t0)
			if _, err := g.ApproveGrant(o, t0.Add(tt.at)); (tt.want == "") != (err == nil) {
				t.Fatalf("approving adm1's grant: %v", err)
			}
		})
	}
}

func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestASecondFactorResetWaitsForASecondAdmin: a reset of the second factor is a grant like a
// higher role: one at a time, approved by another admin, recorded with both of them; the
// command line's break glass is at once and drops a reset that waits.
func TestASecondFactorResetWaitsForASecondAdmin(t *testing.T) {
	t.Parallel()
	o, _ := domain.NewOperator(uuid.New(), "off2", domain.RoleOfficer, "h", t0)
	if err := o.AskSecondFactorReset("adm1", t0); err != nil || !o.Grant().Pending() || !o.Grant().ResetSecondFactor {
		t.Fatalf("asked: %v %+v", err, o.Grant())
	}
	if err := o.AskSecondFactorReset("adm2", t0); !errors.Is(err, domain.ErrGrantPending) {
		t.Fatalf("a second reset while one waits: %v", err)
	}
	if _, err := o.ChangeRole(domain.RoleAdmin, "adm2", true, t0); !errors.Is(err, domain.ErrGrantPending) {
		t.Fatalf("a higher role while a reset waits: %v", err)
	}
	if _, err := o.ApproveGrant(admin(t, "adm1"), t0); !errors.Is(err, domain.ErrSelfGrant) {
		t.Fatalf("approved by who asked: %v", err)
	}
	g, err := o.ApproveGrant(admin(t, "adm2"), t0.Add(time.Minute))
	if err != nil || !g.ResetSecondFactor || o.Role() != domain.RoleOfficer || o.Grant().Pending() {
		t.Fatalf("approved: %+v %v, role %s", g, err, o.Role())
	}
	if got := o.SecondFactorSet(); got != (domain.CredentialSet{By: "adm1", ApprovedBy: "adm2", At: t0.Add(time.Minute)}) {
		t.Fatalf("recorded %+v", got)
	}
	ok(t, o.AskSecondFactorReset("adm1", t0))
	if _, err := o.RejectGrant(); err != nil || !o.MayLogIn() {
		t.Fatalf("a rejected reset: %v, may log in %v", err, o.MayLogIn())
	}
	ok(t, o.AskSecondFactorReset("adm1", t0))
	o.BreakGlassSecondFactor("cli", t0.Add(time.Hour))
	if o.Grant().Pending() || o.SecondFactorSet() != (domain.CredentialSet{By: "cli", At: t0.Add(time.Hour)}) {
		t.Fatalf("after the break glass: %+v %+v", o.Grant(), o.SecondFactorSet())
	}
}

// TestATOTPCodeIsAcceptedOnce: a factor is enrolled with a code of the secret; at a login each
// time step's code is accepted once, and never one older than the last (a replay, or a code
// seen over a shoulder, refused).
func TestATOTPCodeIsAcceptedOnce(t *testing.T) {
	t.Parallel()
	f := domain.NewTOTPFactor(uuid.New(), uuid.New(), "JBSWY3DPEHPK3PXP", t0)
	step := domain.TOTPStep(t0)
	if err := f.Use(step); !errors.Is(err, domain.ErrNoSecondFactor) {
		t.Fatalf("a code of a factor not enrolled: %v", err)
	}
	if err := f.Enrol(step, t0); err != nil || !f.Enrolled() {
		t.Fatalf("enrol: %v", err)
	}
	if err := f.Enrol(step+1, t0); !errors.Is(err, domain.ErrSecondFactorEnrolled) {
		t.Fatalf("enrolled twice: %v", err)
	}
	for _, tt := range []struct {
		name string
		step int64
		want error
	}{
		{"the enrolment's code again", step, domain.ErrCodeUsed},
		{"the next step's", step + 1, nil},
		{"the same again", step + 1, domain.ErrCodeUsed},
		{"an older one", step, domain.ErrCodeUsed},
		{"a later one", step + 3, nil},
	} {
		if err := f.Use(tt.step); !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
	}
	if got := domain.TOTPStep(time.Unix(59, 0)); got != 1 {
		t.Fatalf("step of 59 s: %d", got)
	}
}

// TestRecoveryCodesReadAsTyped: a recovery code is read in any case, with or without its
// dashes and spaces; anything else is refused.
func TestRecoveryCodesReadAsTyped(t *testing.T) {
	t.Parallel()
	c := domain.NewRecoveryCode([domain.RecoveryCodeBytes]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	if len(c.Plain()) != 16 || len(c.String()) != 19 {
		t.Fatalf("code %q (%q)", c, c.Plain())
	}
	for _, typed := range []string{c.String(), c.Plain(), " " + c.String() + " ", toLower(c.String()), c.Plain()[:8] + " " + c.Plain()[8:]} {
		if got, err := domain.ParseRecoveryCode(typed); err != nil || got != c {
			t.Errorf("%q read as %q, %v", typed, got, err)
		}
	}
	for _, bad := range []string{"", "123456", c.Plain()[:15], c.Plain() + "A", "ABCD-EFGH-IJKL-MNO1", "ÄBCD-EFGH-IJKL-MNOP"} {
		if _, err := domain.ParseRecoveryCode(bad); !errors.Is(err, domain.ErrRecoveryCode) {
			t.Errorf("%q accepted: %v", bad, err)
		}
	}
	if k, err := domain.ParseFactorKind("TOTP"); err != nil || k != domain.FactorTOTP {
		t.Fatalf("TOTP: %v", err)
	}
	if _, err := domain.ParseFactorKind("SMS"); !errors.Is(err, domain.ErrFactorKind) {
		t.Fatalf("SMS: %v", err)
	}
}

func toLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
