package console_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/mock/gomock"

	"github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/ports/mocks"
	"github.com/tiyin/tiyin/test/testkit"
)

// fixture is the console's ports as mocks over maps, and the audit lines written.
type fixture struct {
	*deps
	operators *mocks.MockOperatorRepository
	factors   *mocks.MockSecondFactorRepository
	proposals *mocks.MockProposalRepository
	audit     []ports.AuditEntry
	ops       map[uuid.UUID]*domain.Operator
	// secondFactors are the operators' factors; recovery their recovery codes' hashes, true
	// once used; ended the operators whose every session was ended.
	secondFactors map[uuid.UUID]domain.SecondFactorState
	recovery      map[uuid.UUID]map[string]bool
	ended         []uuid.UUID
	props         map[uuid.UUID]*domain.Proposal
	xfers         map[uuid.UUID]*domain.Transfer
	// loanEvents are the events of the loans updated (overdueLoan).
	loanEvents []domain.Event
	t          *testing.T
}

func setupConsole(t *testing.T) *fixture {
	t.Helper()
	d := setup(t)
	ctrl := gomock.NewController(t)
	c := &fixture{deps: d, operators: mocks.NewMockOperatorRepository(ctrl), factors: mocks.NewMockSecondFactorRepository(ctrl),
		proposals: mocks.NewMockProposalRepository(ctrl), ops: map[uuid.UUID]*domain.Operator{}, props: map[uuid.UUID]*domain.Proposal{},
		secondFactors: map[uuid.UUID]domain.SecondFactorState{}, recovery: map[uuid.UUID]map[string]bool{},
		xfers: map[uuid.UUID]*domain.Transfer{}, t: t}
	c.operators.EXPECT().Create(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, o *domain.Operator) error {
		c.ops[o.ID()] = o
		return nil
	}).AnyTimes()
	c.operators.EXPECT().ByName(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, name string) (*domain.Operator, error) {
		for _, o := range c.ops {
			if o.Name() == name {
				return domain.RestoreOperator(o.State()), nil
			}
		}
		return nil, domain.ErrOperatorNotFound
	}).AnyTimes()
	c.operators.EXPECT().Update(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, id uuid.UUID, fn func(*domain.Operator) error) error {
		cp := domain.RestoreOperator(c.ops[id].State())
		if err := fn(cp); err != nil {
			return err
		}
		c.ops[id] = cp
		return nil
	}).AnyTimes()
	c.operators.EXPECT().Get(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, id uuid.UUID) (*domain.Operator, error) {
		if o, ok := c.ops[id]; ok {
			return domain.RestoreOperator(o.State()), nil
		}
		return nil, domain.ErrOperatorNotFound
	}).AnyTimes()
	c.operators.EXPECT().CreateSession(gomock.Any(), gomock.Any()).Return(nil).AnyTimes()
	c.operators.EXPECT().DeleteSessions(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, id uuid.UUID, h []byte) error {
		if h == nil {
			c.ended = append(c.ended, id)
		}
		return nil
	}).AnyTimes()
	c.operators.EXPECT().DeleteOtherSessions(gomock.Any(), gomock.Any(), gomock.Any()).Return(nil).AnyTimes()
	c.fakeFactors()
	c.proposals.EXPECT().Create(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, p *domain.Proposal) error {
		c.props[p.ID] = p
		return nil
	}).AnyTimes()
	c.proposals.EXPECT().Get(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, id uuid.UUID) (*domain.Proposal, error) {
		if p, ok := c.props[id]; ok {
			cp := *p
			return &cp, nil
		}
		return nil, domain.ErrProposalNotFound
	}).AnyTimes()
	c.proposals.EXPECT().List(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, object uuid.UUID, _ int) ([]*domain.Proposal, error) {
		var out []*domain.Proposal
		for _, p := range c.props {
			if p.ObjectID == object || slices.Contains(p.Breaks, object) || object == uuid.Nil && p.Status == domain.ProposalOpen {
				cp := *p
				out = append(out, &cp)
			}
		}
		return out, nil
	}).AnyTimes()
	c.proposals.EXPECT().Update(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, id uuid.UUID, fn func(*domain.Proposal) error) error {
		cp := *c.props[id]
		if err := fn(&cp); err != nil {
			return err
		}
		c.props[id] = &cp
		return nil
	}).AnyTimes()
	d.transfers.EXPECT().Get(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, id uuid.UUID) (*domain.Transfer, error) {
		if tr, ok := c.xfers[id]; ok {
			return domain.RestoreTransfer(tr.State()), nil
		}
		return nil, domain.ErrTransferNotFound
	}).AnyTimes()
	d.transfers.EXPECT().Update(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, id uuid.UUID, fn func(*domain.Transfer) error) error {
		cp := domain.RestoreTransfer(c.xfers[id].State())
		if err := fn(cp); err != nil {
			return err
		}
		c.xfers[id] = cp
		return nil
	}).AnyTimes()
	return c
}

// fakeFactors keeps the second factors and recovery codes the mock stores in maps.
func (c *fixture) fakeFactors() {
	f := c.factors.EXPECT()
	f.Factor(gomock.Any(), gomock.Any(), domain.FactorTOTP).DoAndReturn(func(_ context.Context, op uuid.UUID, _ domain.FactorKind) (*domain.SecondFactor, error) {
		s, ok := c.secondFactors[op]
		if !ok {
			return nil, domain.ErrNoSecondFactor
		}
		return domain.RestoreSecondFactor(s), nil
	}).AnyTimes()
	f.CreateFactor(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, x *domain.SecondFactor) (bool, error) {
		if _, ok := c.secondFactors[x.OperatorID()]; ok {
			return false, nil
		}
		c.secondFactors[x.OperatorID()] = x.State()
		return true, nil
	}).AnyTimes()
	f.UpdateFactor(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, id uuid.UUID, fn func(*domain.SecondFactor) error) error {
		if !c.inTx {
			c.t.Error("a second factor was updated outside a transaction")
		}
		for op, s := range c.secondFactors {
			if s.ID == id {
				x := domain.RestoreSecondFactor(s)
				if err := fn(x); err != nil {
					return err
				}
				c.secondFactors[op] = x.State()
				return nil
			}
		}
		return domain.ErrNoSecondFactor
	}).AnyTimes()
	f.RemoveFactors(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, op uuid.UUID) error {
		delete(c.secondFactors, op)
		delete(c.recovery, op)
		return nil
	}).AnyTimes()
	f.Enrolled(gomock.Any()).DoAndReturn(func(context.Context) (map[uuid.UUID]time.Time, error) {
		out := map[uuid.UUID]time.Time{}
		for op, s := range c.secondFactors {
			if !s.EnrolledAt.IsZero() {
				out[op] = s.EnrolledAt
			}
		}
		return out, nil
	}).AnyTimes()
	f.ReplaceRecoveryCodes(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, op uuid.UUID, hashes [][]byte, _ time.Time) error {
		c.recovery[op] = map[string]bool{}
		for _, h := range hashes {
			c.recovery[op][string(h)] = false
		}
		return nil
	}).AnyTimes()
	f.UseRecoveryCode(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, op uuid.UUID, h []byte, _ time.Time) (bool, error) {
		used, ok := c.recovery[op][string(h)]
		if !ok || used {
			return false, nil
		}
		c.recovery[op][string(h)] = true
		return true, nil
	}).AnyTimes()
}

// known stores an operator for each actor, as the command line made them, so that the use
// cases that read the operator behind an actor (an approval) find them.
func (c *fixture) known(actors ...console.Actor) {
	for _, a := range actors {
		c.ops[a.ID] = domain.RestoreOperator(domain.OperatorState{ID: a.ID, Name: a.Name, Role: a.Role, PasswordHash: "hash", CreatedAt: t0})
	}
}

func (c *fixture) app() console.Console { return c.consoleOn(c.clock, nil) }

// consoleOn is the console's use cases as the server's graph builds them, on clock, c's
// doubles and rec, reconciliation's runs and breaks (nil: the store's, which the test never
// reaches).
func (c *fixture) consoleOn(clock ports.Clock, rec ports.ReconciliationRepository) console.Console {
	opts := []testkit.Option{testkit.Swap(clock), testkit.Swap[ports.UnitOfWork](c.uow), testkit.Swap(c.cfg),
		testkit.Swap[ports.ApplicationRepository](c.apps), testkit.Swap[ports.LoanRepository](c.loans),
		testkit.Swap[ports.LedgerRepository](c.ledger), testkit.Swap[ports.TransferRepository](c.transfers),
		testkit.Swap[ports.RepaymentRepository](c.payments), testkit.Swap[ports.PartnerRepository](c.partners),
		testkit.Swap[ports.OperatorRepository](c.operators), testkit.Swap[ports.SecondFactorRepository](c.factors),
		testkit.Swap(c.auditLog()), testkit.Swap[ports.ProposalRepository](c.proposals)}
	if rec != nil {
		opts = append(opts, testkit.Swap(rec))
	}
	return testkit.Console(c.t, opts...)
}

// auditLog is an AuditLog that keeps its lines in c.audit; a line written outside a unit of
// work fails the test (it must commit with its effect).
func (c *fixture) auditLog() ports.AuditLog { return auditAppender{c} }

type auditAppender struct{ c *fixture }

func (a auditAppender) Append(_ context.Context, e ports.AuditEntry) error {
	if !a.c.inTx {
		a.c.t.Errorf("audit line %q written outside a transaction", e.Action)
	}
	a.c.audit = append(a.c.audit, e)
	return nil
}

func (a auditAppender) List(context.Context, ports.AuditFilter) ([]ports.AuditEntry, error) {
	return a.c.audit, nil
}

// The chain is the store's (its contract suite checks it); these tests only append.
func (a auditAppender) Verify(context.Context, *ports.AuditHead) (ports.AuditVerification, error) {
	return ports.AuditVerification{Entries: int64(len(a.c.audit))}, nil
}

func (a auditAppender) SaveVerification(ctx context.Context, _ ports.AuditVerification, by ports.AuditEntry) error {
	return a.Append(ctx, by)
}

func (a auditAppender) LastVerification(context.Context) (*ports.AuditVerification, error) {
	return nil, nil
}

func (a auditAppender) Head(context.Context) (ports.AuditHead, error) {
	return ports.AuditHead{Seq: int64(len(a.c.audit))}, nil
}

func (c *fixture) actions() []string {
	var out []string
	for _, e := range c.audit {
		out = append(out, e.Operator+" "+e.Action)
	}
	return out
}

// TestWrongPasswordsAreThrottledPerNameAndAddressNeverPerAccount (issue 33): five wrong
// passwords for a name from one address make that address wait, with the same answer as a
// wrong password or an unknown name; the operator still logs in from another address (an
// attacker cannot lock an admin out); the wait is in the audit log with every attempt.
func TestWrongPasswordsAreThrottledPerNameAndAddressNeverPerAccount(t *testing.T) {
	t.Parallel()
	c := setupConsole(t)
	uc := c.app()
	ctx := context.Background()
	pw, err := uc.Operators.CreateOperator.Handle(ctx, console.CLIActor, console.CreateOperator{Name: "dilnoza", Role: domain.RoleAdmin})
	if err != nil || len(pw) < 16 {
		t.Fatalf("create: %q, %v", pw, err)
	}
	if _, err := uc.Operators.CreateOperator.Handle(ctx, console.Actor{Name: "olga", Role: domain.RoleOfficer}, console.CreateOperator{Name: "x", Role: domain.RoleAdmin}); !errors.Is(err, domain.ErrForbidden) {
		t.Fatalf("an officer made an operator: %v", err)
	}
	login := func(name, password, address string) error {
		_, err := uc.Operators.LogIn.Handle(ctx, console.LogIn{Name: name, Password: password, Address: address})
		return err
	}
	s, err := uc.Operators.LogIn.Handle(ctx, console.LogIn{Name: "dilnoza", Password: pw, Address: "10.0.0.7"})
	if err != nil || !s.MustChangePassword || s.Token == "" || s.CSRF == "" || s.Operator.Role != domain.RoleAdmin {
		t.Fatalf("first login: %+v, %v", s, err)
	}
	for i := 1; i <= domain.FreeLoginFailures; i++ {
		if err := login("dilnoza", "wrong", "203.0.113.9"); !errors.Is(err, domain.ErrBadCredentials) {
			t.Fatalf("wrong password %d: %v", i, err)
		}
	}
	if err := login("dilnoza", pw, "203.0.113.9"); !errors.Is(err, domain.ErrBadCredentials) {
		t.Fatalf("the right password from the address that must wait: %v", err)
	}
	if err := login("dilnoza", pw, "10.0.0.7"); err != nil {
		t.Fatalf("the admin from their own address, while another waits: %v", err)
	}
	if err := login("nobody", "x", "10.0.0.9"); !errors.Is(err, domain.ErrBadCredentials) {
		t.Fatalf("an unknown name: %v", err)
	}
	failed, throttled := 0, 0
	for _, e := range c.audit {
		switch e.Action {
		case "login.failed":
			failed++
			if e.Address == "" {
				t.Errorf("a failed login without its address: %+v", e)
			}
		case "login.throttled":
			throttled++
			if e.Object != "operator:dilnoza" || e.Address != "203.0.113.9" {
				t.Errorf("the wait is recorded as %+v", e)
			}
		}
	}
	if failed != domain.FreeLoginFailures+2 || throttled != 1 {
		t.Fatalf("%d failed logins and %d waits recorded, want %d and 1: %v", failed, throttled, domain.FreeLoginFailures+2, c.actions())
	}
}

// TestAnAddressSprayingNamesWaits: an address that sends wrong passwords for many names waits
// after FreeAddressFailures of them, whatever the names.
func TestAnAddressSprayingNamesWaits(t *testing.T) {
	t.Parallel()
	c := setupConsole(t)
	uc := c.app()
	ctx := context.Background()
	pw, err := uc.Operators.CreateOperator.Handle(ctx, console.CLIActor, console.CreateOperator{Name: "dilnoza", Role: domain.RoleViewer})
	if err != nil {
		t.Fatal(err)
	}
	for i := range domain.FreeAddressFailures {
		_, _ = uc.Operators.LogIn.Handle(ctx, console.LogIn{Name: fmt.Sprintf("guess-%d", i), Password: "x", Address: "198.51.100.4"})
	}
	if _, err := uc.Operators.LogIn.Handle(ctx, console.LogIn{Name: "dilnoza", Password: pw, Address: "198.51.100.4"}); !errors.Is(err, domain.ErrBadCredentials) {
		t.Fatalf("a good password from a spraying address: %v", err)
	}
	if _, err := uc.Operators.LogIn.Handle(ctx, console.LogIn{Name: "dilnoza", Password: pw, Address: "10.0.0.7"}); err != nil {
		t.Fatalf("from another address: %v", err)
	}
}

// processingTransfer is a transfer whose card credit's outcome is unknown.
func (c *fixture) processingTransfer(t *testing.T) *domain.Transfer {
	t.Helper()
	tr := domain.NewTransfer(domain.NewTransferParams{ID: uuid.New(), PartnerID: c.partner, ApplicationID: uuid.New(), LoanID: uuid.New(),
		ExternalID: uuid.New(), MaskedPAN: "860012******9012", Network: domain.NetworkUzcard, CardHolder: "AZIZ KARIMOV",
		Amount: 250_000, CreditToken: "CT", Now: t0})
	if err := tr.StartProcessing(t0); err != nil {
		t.Fatal(err)
	}
	c.xfers[tr.ID()] = tr
	return tr
}

func TestAResolutionMovesMoneyOnlyWhenAnotherOfficerApprovesIt(t *testing.T) {
	t.Parallel()
	c := setupConsole(t)
	uc := c.app()
	ctx := context.Background()
	maker := console.Actor{ID: uuid.New(), Name: "alice", Role: domain.RoleOfficer, Address: "10.0.0.1"}
	checker := console.Actor{ID: uuid.New(), Name: "bob", Role: domain.RoleOfficer, Address: "10.0.0.2"}
	viewer := console.Actor{ID: uuid.New(), Name: "vic", Role: domain.RoleViewer}
	c.known(maker, checker)
	tr := c.processingTransfer(t)

	propose := console.ProposeResolution{Kind: domain.ResolveTransfer, ObjectID: tr.ID(), Done: true, Note: "UZCARD says credited, ref 77"}
	if _, err := uc.Actions.ProposeResolution.Handle(ctx, viewer, propose); !errors.Is(err, domain.ErrForbidden) {
		t.Fatalf("a viewer's proposal: %v", err)
	}
	id, err := uc.Actions.ProposeResolution.Handle(ctx, maker, propose)
	if err != nil {
		t.Fatal(err)
	}
	// No posting until approved; the maker's own approval is refused and changes nothing.
	if err := uc.Actions.DecideProposal.Handle(ctx, maker, console.DecideProposal{ID: id, Approve: true}); !errors.Is(err, domain.ErrSelfApproval) {
		t.Fatalf("self-approval: %v", err)
	}
	if c.xfers[tr.ID()].Status() != domain.TransferProcessing || c.props[id].Status != domain.ProposalOpen {
		t.Fatal("a refused approval changed something")
	}
	var posted []domain.Posting
	c.ledger.EXPECT().Post(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, p domain.Posting) error {
		if !c.inTx {
			t.Error("the capture was posted outside the approval's transaction")
		}
		posted = append(posted, p)
		return nil
	}).Times(1)
	if err := uc.Actions.DecideProposal.Handle(ctx, checker, console.DecideProposal{ID: id, Approve: true}); err != nil {
		t.Fatal(err)
	}
	if got := c.xfers[tr.ID()]; got.Status() != domain.TransferSuccess {
		t.Fatalf("after the approval the transfer is %s", got.Status())
	}
	if len(posted) != 1 || posted[0].Kind != domain.PostingTransferCapture {
		t.Fatalf("posted %+v, want one capture of the hold", posted)
	}
	if err := uc.Actions.DecideProposal.Handle(ctx, checker, console.DecideProposal{ID: id, Approve: true}); !errors.Is(err, domain.ErrProposalClosed) {
		t.Fatalf("a second approval: %v", err)
	}
	// The transfer's outcome is known now: nothing more to propose.
	if _, err := uc.Actions.ProposeResolution.Handle(ctx, maker, propose); !errors.Is(err, domain.ErrOutcomeKnown) {
		t.Fatalf("a proposal on a settled transfer: %v", err)
	}
	want := []string{"alice proposal.create", "bob proposal.approve"}
	if got := c.actions(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("audit %v, want %v", got, want)
	}
}

// A proposal nobody decided within 24 hours expires: it no longer holds its object's one open
// slot, so an officer can propose again.
func TestAnExpiredProposalMakesRoomForANewOne(t *testing.T) {
	t.Parallel()
	c := setupConsole(t)
	uc := c.app()
	tr := c.processingTransfer(t)
	maker := console.Actor{ID: uuid.New(), Name: "alice", Role: domain.RoleOfficer, Address: "10.0.0.1"}
	stale, err := domain.NewProposal(uuid.New(), domain.ResolveTransfer, tr.ID(), false, "", "asked, no answer", maker.ID, t0.Add(-domain.ProposalTTL-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	c.props[stale.ID] = stale
	id, err := uc.Actions.ProposeResolution.Handle(context.Background(), maker, console.ProposeResolution{Kind: domain.ResolveTransfer,
		ObjectID: tr.ID(), Done: true, Note: "UZCARD says credited"})
	if err != nil {
		t.Fatal(err)
	}
	if c.props[stale.ID].Status != domain.ProposalExpired || c.props[id].Status != domain.ProposalOpen {
		t.Fatalf("stale %s, new %s", c.props[stale.ID].Status, c.props[id].Status)
	}
	checker := console.Actor{ID: uuid.New(), Name: "bob", Role: domain.RoleOfficer}
	c.known(maker, checker)
	if err := uc.Actions.DecideProposal.Handle(context.Background(), checker, console.DecideProposal{ID: stale.ID, Approve: true}); !errors.Is(err, domain.ErrProposalClosed) {
		t.Fatalf("approving the expired one: %v", err)
	}
}

// An operator's console language is theirs to set; a language the console does not speak is
// refused and changes nothing.
func TestAnOperatorChoosesTheConsoleLanguage(t *testing.T) {
	t.Parallel()
	c := setupConsole(t)
	uc := c.app()
	o, err := domain.NewOperator(uuid.New(), "olga", domain.RoleViewer, "hash", t0)
	if err != nil {
		t.Fatal(err)
	}
	c.ops[o.ID()] = o
	who := console.Actor{ID: o.ID(), Name: "olga", Role: domain.RoleViewer}
	if err := uc.Operators.SetLanguage.Handle(context.Background(), who, "ru"); err != nil || c.ops[o.ID()].Language() != "ru" {
		t.Fatalf("set ru: %v, language %q", err, c.ops[o.ID()].Language())
	}
	if err := uc.Operators.SetLanguage.Handle(context.Background(), who, "de"); !errors.Is(err, domain.ErrLanguage) || c.ops[o.ID()].Language() != "ru" {
		t.Fatalf("set de: %v, language %q", err, c.ops[o.ID()].Language())
	}
	if c.committed != 1 {
		t.Fatalf("%d transactions committed, want 1", c.committed)
	}
}
