package domain_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

func TestRolesAllowWhatTheRankBelowThemDoes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		role, need domain.Role
		want       bool
	}{
		{domain.RoleViewer, domain.RoleViewer, true},
		{domain.RoleViewer, domain.RoleOfficer, false},
		{domain.RoleOfficer, domain.RoleOfficer, true},
		{domain.RoleOfficer, domain.RoleAdmin, false},
		{domain.RoleAdmin, domain.RoleOfficer, true},
		{domain.Role(""), domain.RoleViewer, false},
		{domain.Role("root"), domain.RoleViewer, false},
	}
	for _, c := range cases {
		if got := c.role.Allows(c.need); got != c.want {
			t.Errorf("%q allows %q: %v, want %v", c.role, c.need, got, c.want)
		}
	}
	for in, want := range map[string]domain.Role{"viewer": domain.RoleViewer, " Officer ": domain.RoleOfficer, "ADMIN": domain.RoleAdmin} {
		if got, err := domain.ParseRole(in); err != nil || got != want {
			t.Errorf("ParseRole(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := domain.ParseRole("root"); err == nil {
		t.Error("ParseRole(root) accepted")
	}
}

func TestANewOperatorHasAOneTimePassword(t *testing.T) {
	t.Parallel()
	o, err := domain.NewOperator(uuid.New(), "dilnoza", domain.RoleOfficer, "hash", t0)
	if err != nil {
		t.Fatal(err)
	}
	if !o.MustChangePassword() {
		t.Fatal("a new operator's password is one-time")
	}
	o.ChoosePassword("new")
	if o.MustChangePassword() || o.PasswordHash() != "new" {
		t.Fatal("ChoosePassword did not take")
	}
	if _, err := domain.NewOperator(uuid.New(), " ", domain.RoleViewer, "h", t0); err == nil {
		t.Fatal("an empty name was accepted")
	}
}

// TestWrongPasswordsWaitLongerEachTime: the first free failures cost nothing; each one past
// them makes the next attempt wait 1, 2, 4, 8 minutes, then 15 at most.
func TestWrongPasswordsWaitLongerEachTime(t *testing.T) {
	t.Parallel()
	var th domain.LoginThrottle
	for i := 1; i < domain.FreeLoginFailures; i++ {
		if th.Failed(t0, domain.FreeLoginFailures) || th.Waiting(t0) {
			t.Fatalf("failure %d already waits", i)
		}
	}
	for _, want := range []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 15 * time.Minute, 15 * time.Minute, 15 * time.Minute} {
		if !th.Failed(t0, domain.FreeLoginFailures) {
			t.Fatal("a failure past the free ones starts no wait")
		}
		if !th.Waiting(t0.Add(want-time.Second)) || th.Waiting(t0.Add(want)) {
			t.Fatalf("after %d failures the wait is %s, want %s", th.Failures, th.Until.Sub(t0), want)
		}
	}
}

func TestAProposalIsDecidedByAnotherOfficerWithinADay(t *testing.T) {
	t.Parallel()
	maker, checker := uuid.New(), uuid.New()
	open := func(t *testing.T) *domain.Proposal {
		t.Helper()
		p, err := domain.NewProposal(uuid.New(), domain.ResolveTransfer, uuid.New(), true, "", "the bank's processing says credited", maker, t0)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name    string
		by      uuid.UUID
		at      time.Time
		approve bool
		err     error
		status  domain.ProposalStatus
	}{
		{"approved by another", checker, t0.Add(time.Hour), true, nil, domain.ProposalApproved},
		{"rejected by another", checker, t0.Add(time.Hour), false, nil, domain.ProposalRejected},
		{"self-approval", maker, t0.Add(time.Hour), true, domain.ErrSelfApproval, domain.ProposalOpen},
		{"self-rejection", maker, t0.Add(time.Hour), false, domain.ErrSelfApproval, domain.ProposalOpen},
		{"last second", checker, t0.Add(domain.ProposalTTL - time.Second), true, nil, domain.ProposalApproved},
		{"expired", checker, t0.Add(domain.ProposalTTL), true, domain.ErrProposalClosed, domain.ProposalExpired},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := open(t)
			if err := p.Decide(c.approve, c.by, c.at); !errors.Is(err, c.err) {
				t.Fatalf("Decide: %v, want %v", err, c.err)
			}
			if p.Status != c.status {
				t.Fatalf("status %s, want %s", p.Status, c.status)
			}
			if c.err == nil {
				if err := p.Decide(true, uuid.New(), c.at); !errors.Is(err, domain.ErrProposalClosed) {
					t.Fatalf("a second decision: %v, want ErrProposalClosed", err)
				}
			}
		})
	}
	if _, err := domain.NewProposal(uuid.New(), domain.ResolveTransfer, uuid.New(), true, "", "  ", maker, t0); err == nil {
		t.Fatal("a proposal without a note was accepted")
	}
}

func TestAnUnknownOutcomeIsResolvedAsTheBankFoundIt(t *testing.T) {
	t.Parallel()
	unknownAt := func(t *testing.T, name string, stageName domain.StageName) *domain.Application {
		t.Helper()
		a := stage(t, name)
		if err := a.BeginStage(stageName, t0); err != nil {
			t.Fatal(err)
		}
		if _, err := a.CompleteStage(stageName, domain.StageResult{Outcome: domain.OutcomeUnknown}, domain.LoanProduct{}, t0); err != nil {
			t.Fatal(err)
		}
		return a
	}
	later := t0.Add(time.Hour)

	a := unknownAt(t, "opening account", domain.StageOpenAccount)
	if steps := a.TakeStageRecords(); len(steps) == 0 || steps[len(steps)-1].Outcome != domain.OutcomeUnknown {
		t.Fatalf("the unanswered call is not in the attempts: %+v", steps)
	}
	if _, err := a.ResolveUnknown(true, "", domain.LoanProduct{}, later); err == nil {
		t.Fatal("done without the account number was accepted")
	}
	if _, err := a.ResolveUnknown(true, "20208000000000000009", domain.LoanProduct{}, later); err != nil {
		t.Fatal(err)
	}
	if a.Stage().Name != domain.StageOpenLoanApplication || a.AccountNumber() != "20208000000000000009" || !a.State().UnknownSince.IsZero() {
		t.Fatalf("done: %+v, account %q", a.Stage(), a.AccountNumber())
	}
	if steps := a.TakeStageRecords(); len(steps) != 1 || steps[0].Outcome != domain.OutcomeDone ||
		steps[0].Ref != "20208000000000000009" || !strings.Contains(steps[0].Message, "operators") {
		t.Fatalf("the attempts of the resolved stage: %+v", steps)
	}
	if _, err := a.ResolveUnknown(true, "x", domain.LoanProduct{}, later); !errors.Is(err, domain.ErrOutcomeKnown) {
		t.Fatalf("a known outcome resolved again: %v", err)
	}

	a = unknownAt(t, "loan issuance", domain.StageLoanIssuance)
	if _, err := a.ResolveUnknown(false, "", domain.LoanProduct{}, later); err != nil {
		t.Fatal(err)
	}
	if a.Status() != domain.StatusFailed || a.Stage().Error != domain.StageErrorTechnicalFailure {
		t.Fatalf("not done: %s %+v", a.Status(), a.Stage())
	}

	a = stage(t, "loan issuance")
	step := func(stageName domain.StageName, r domain.StageResult) {
		t.Helper()
		if err := a.BeginStage(stageName, t0); err != nil {
			t.Fatal(err)
		}
		if _, err := a.CompleteStage(stageName, r, domain.LoanProduct{}, t0); err != nil {
			t.Fatal(err)
		}
	}
	step(domain.StageLoanIssuance, domain.StageResult{Outcome: domain.OutcomeDone, Ref: "ISS1"})
	step(domain.StageGetLoanIssuanceResult, domain.StageResult{Outcome: domain.OutcomeUnknown})
	loan, err := a.ResolveUnknown(true, "", domain.LoanProduct{LoanID: uuid.New()}, later)
	if err != nil || loan == nil || a.Status() != domain.StatusCompleted {
		t.Fatalf("the last stage done must issue the loan: %v, loan %v, %s", err, loan, a.Status())
	}

	if _, err := stage(t, "opening account").ResolveUnknown(true, "x", domain.LoanProduct{}, later); !errors.Is(err, domain.ErrOutcomeKnown) {
		t.Fatalf("an application with no unknown outcome: %v", err)
	}
	if _, err := unknownAt(t, "polling", domain.StagePreScoringInfo).ResolveUnknown(true, "", domain.LoanProduct{}, later); err == nil {
		t.Fatal("pre-scoring was resolved by hand")
	}
}

// TestAccessWaitsForASecondAdmin: a new operator or a higher role asked for with approval waits
// for another admin than the one who asked; a lower role, or any change without approval (the
// command line), is at once; a rejected new operator is disabled.
func TestAccessWaitsForASecondAdmin(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	newOp := func(role domain.Role) *domain.Operator {
		o, err := domain.NewOperator(uuid.New(), "nina", role, "hash", now)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	o := newOp(domain.RoleOfficer)
	o.AwaitApproval("adam", now)
	if o.MayLogIn() || !o.Grant().NewOperator {
		t.Fatal("a new operator awaiting approval may log in")
	}
	adam, bea := admin(t, "adam"), admin(t, "bea")
	if _, err := o.ApproveGrant(adam, now); !errors.Is(err, domain.ErrSelfGrant) {
		t.Fatalf("self-approval: %v", err)
	}
	if g, err := o.ApproveGrant(bea, now); err != nil || g.Role != domain.RoleOfficer || !o.MayLogIn() || o.Grant().Pending() {
		t.Fatalf("approval: %+v %v", g, err)
	}
	if _, err := o.ApproveGrant(bea, now); !errors.Is(err, domain.ErrNoGrant) {
		t.Fatalf("approving nothing: %v", err)
	}
	for _, tt := range []struct {
		name        string
		from, to    domain.Role
		approval    bool
		wantPending bool
	}{
		{"a higher role waits", domain.RoleViewer, domain.RoleAdmin, true, true},
		{"a lower role is at once", domain.RoleAdmin, domain.RoleViewer, true, false},
		{"the same role is at once", domain.RoleOfficer, domain.RoleOfficer, true, false},
		{"without approval a higher role is at once", domain.RoleViewer, domain.RoleAdmin, false, false},
	} {
		o := newOp(tt.from)
		pending, err := o.ChangeRole(tt.to, "adam", tt.approval, now)
		want := tt.to
		if tt.wantPending {
			want = tt.from
		}
		if err != nil || pending != tt.wantPending || o.Role() != want {
			t.Errorf("%s: pending %v, role %s, %v", tt.name, pending, o.Role(), err)
		}
		if tt.wantPending {
			if _, err := o.ChangeRole(domain.RoleViewer, "adam", true, now); !errors.Is(err, domain.ErrGrantPending) {
				t.Errorf("%s: a change while a grant waits: %v", tt.name, err)
			}
		}
	}
	r := newOp(domain.RoleAdmin)
	r.AwaitApproval("adam", now)
	if _, err := r.RejectGrant(); err != nil || !r.Disabled() || r.MayLogIn() || r.Grant().Pending() {
		t.Fatalf("a rejected new operator: disabled %v, %v", r.Disabled(), err)
	}
	if _, err := newOp(domain.RoleViewer).ChangeRole("root", "adam", true, now); !errors.Is(err, domain.ErrRole) {
		t.Fatalf("an unknown role: %v", err)
	}
}

// TestOperatorNamesReadTheSameEverywhere (issue 46, finding 5): a new operator's name is 3 to
// 32 lower-case ASCII letters, digits, '.', '_' and '-', so it cannot pass for another in the
// audit log, a CSV or `tiyin operator list` (zero-width, right-to-left and line-breaking
// characters, capitals, other scripts' lookalikes); cli and system, the command line's and
// tiyin's own names in the audit log, are reserved.
func TestOperatorNamesReadTheSameEverywhere(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, in string
		ok       bool
	}{
		{"a plain name", "dilnoza", true},
		{"digits, dot, underscore and hyphen", "off1.night_shift-2", true},
		{"three characters", "bob", true},
		{"32 characters", strings.Repeat("a", 32), true},
		{"spaces around are dropped", " dilnoza ", true},
		{"a zero-width space", "off1\u200b", false},
		{"a right-to-left override", "\u202eadm1", false},
		{"a newline", "adm1\nforged", false},
		{"a tab", "adm1\tforged", false},
		{"a space inside", "dil noza", false},
		{"a capital", "Dilnoza", false},
		{"a Cyrillic lookalike", "аdm1", false},
		{"two characters", "ab", false},
		{"33 characters", strings.Repeat("a", 33), false},
		{"empty", "", false},
		{"the command line's name", "cli", false},
		{"tiyin's own name", "system", false},
		{"a punctuation mark", "adm1!", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := domain.NewOperator(uuid.New(), tt.in, domain.RoleViewer, "hash", t0)
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, domain.ErrOperatorName)) {
				t.Fatalf("NewOperator(%q): %v, want accepted %t", tt.in, err, tt.ok)
			}
		})
	}
}
