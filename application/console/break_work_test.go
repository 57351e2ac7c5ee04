package console_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/mock/gomock"

	"github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/ports/mocks"
)

// breakBook is a reconciliation repository of breaks in memory, for the use cases that work
// them.
type breakBook struct {
	rec    *mocks.MockReconciliationRepository
	breaks map[uuid.UUID]*ports.BreakRecord
}

func newBreakBook(t *testing.T, c *fixture) *breakBook {
	b := &breakBook{rec: mocks.NewMockReconciliationRepository(gomock.NewController(t)), breaks: map[uuid.UUID]*ports.BreakRecord{}}
	// Lines of no object tiyin keeps: the audit lines are dated on the server's clock.
	b.rec.EXPECT().Trace(gomock.Any(), gomock.Any()).Return(map[uuid.UUID]ports.LineObject{}, nil).AnyTimes()
	b.rec.EXPECT().Break(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, id uuid.UUID) (ports.BreakRecord, error) {
		if r, ok := b.breaks[id]; ok {
			return *r, nil
		}
		return ports.BreakRecord{}, ports.ErrBreakNotFound
	}).AnyTimes()
	b.rec.EXPECT().Close(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(
		func(_ context.Context, id uuid.UUID, status, note, by string, _ time.Time) error {
			if !c.inTx {
				t.Error("a break was closed outside a transaction")
			}
			if b.breaks[id].Status != ports.BreakOpen {
				return domain.ErrWrongState
			}
			b.breaks[id].Status, b.breaks[id].Note, b.breaks[id].WorkedBy = status, note, by
			return nil
		}).AnyTimes()
	b.rec.EXPECT().Reopen(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(
		func(_ context.Context, id uuid.UUID, note, by string, _ time.Time) error {
			if !c.inTx {
				t.Error("a break was reopened outside a transaction")
			}
			if b.breaks[id].Status != ports.BreakExplained {
				return domain.ErrWrongState
			}
			b.breaks[id].Status, b.breaks[id].Note, b.breaks[id].WorkedBy = ports.BreakOpen, note, by
			return nil
		}).AnyTimes()
	return b
}

// lostCredit is a break of a credit the network never made, of a transfer tiyin took as made.
func (b *breakBook) lostCredit(t *testing.T, c *fixture) (*ports.BreakRecord, *domain.Transfer) {
	tr := c.processingTransfer(t)
	if err := c.xfers[tr.ID()].Settle(true, "", t0); err != nil {
		t.Fatal(err)
	}
	c.xfers[tr.ID()].TakeEvents()
	line := domain.CreditLineID(tr.ID())
	r := &ports.BreakRecord{ID: uuid.New(), Day: domain.BusinessDate(t0), Source: "UZCARD", Status: ports.BreakOpen,
		Break: domain.Break{Kind: domain.BreakMissingAtNetwork, LineID: line,
			Ours: &domain.StatementLine{ID: line, Kind: domain.LineCredit, Amount: 250_000, At: t0, Status: domain.LineDone}}}
	b.breaks[r.ID] = r
	return r, tr
}

// reversedUnknownDebit is a break whose money agrees: a debit the network lists as reversed,
// which tiyin never had.
func (b *breakBook) reversedUnknownDebit() *ports.BreakRecord {
	id := "D-" + uuid.NewString()[:8]
	r := &ports.BreakRecord{ID: uuid.New(), Day: domain.BusinessDate(t0), Source: "HUMO", Status: ports.BreakOpen,
		Break: domain.Break{Kind: domain.BreakMissingInTiyin, LineID: id,
			Theirs: &domain.StatementLine{ID: id, Kind: domain.LineDebit, Amount: 300, At: t0, Status: domain.LineReversed}}}
	b.breaks[r.ID] = r
	return r
}

func (c *fixture) withBreaks(b *breakBook) console.Console {
	return c.consoleOn(c.clock, b.rec)
}

// Issue 47, 4 and 5: a lost credit explained as made closes only when a second officer
// approves the explanation; a second officer's approval reopens it, and the money is then
// fixed as for any open break: its acceptance reverses the transfer.
func TestExplainingALostCreditTakesASecondOfficerAndReopeningItLetsTheMoneyBeFixed(t *testing.T) {
	t.Parallel()
	c := setupConsole(t)
	b := newBreakBook(t, c)
	uc := c.withBreaks(b)
	ctx := context.Background()
	alice := console.Actor{ID: uuid.New(), Name: "alice", Role: domain.RoleOfficer}
	bob := console.Actor{ID: uuid.New(), Name: "bob", Role: domain.RoleOfficer}
	viewer := console.Actor{ID: uuid.New(), Name: "vic", Role: domain.RoleViewer}
	c.known(alice, bob)
	lost, tr := b.lostCredit(t, c)
	approve := func(who console.Actor, id uuid.UUID) error {
		return uc.Actions.DecideProposal.Handle(ctx, who, console.DecideProposal{ID: id, Approve: true})
	}

	explained, err := uc.Actions.ExplainBreak.Handle(ctx, alice, work("UZCARD says it was made", lost.ID))
	if err != nil || explained == uuid.Nil {
		t.Fatalf("explaining a lost credit: proposal %s, %v", explained, err)
	}
	if lost.Status != ports.BreakOpen {
		t.Fatal("one officer closed a break whose money differs")
	}
	if err := approve(alice, explained); !errors.Is(err, domain.ErrSelfApproval) {
		t.Fatalf("the maker's approval: %v", err)
	}
	if err := approve(bob, explained); err != nil {
		t.Fatal(err)
	}
	if lost.Status != ports.BreakExplained || lost.Note != "UZCARD says it was made" {
		t.Fatalf("approved, the break is %s: %s", lost.Status, lost.Note)
	}

	if _, err := uc.Actions.ProposeBreakReopening.Handle(ctx, viewer, work("it was lost", lost.ID)); !errors.Is(err, domain.ErrForbidden) {
		t.Fatalf("a viewer's reopening: %v", err)
	}
	reopen, err := uc.Actions.ProposeBreakReopening.Handle(ctx, alice, work("UZCARD's dispute desk: it was never made", lost.ID))
	if err != nil {
		t.Fatal(err)
	}
	if lost.Status != ports.BreakExplained {
		t.Fatal("a proposed reopening reopened the break")
	}
	if err := approve(alice, reopen); !errors.Is(err, domain.ErrSelfApproval) {
		t.Fatalf("the maker's approval: %v", err)
	}
	if err := approve(bob, reopen); err != nil {
		t.Fatal(err)
	}
	if lost.Status != ports.BreakOpen {
		t.Fatalf("reopened, the break is %s", lost.Status)
	}
	if _, err := uc.Actions.ProposeBreakReopening.Handle(ctx, alice, work("again", lost.ID)); !errors.Is(err, domain.ErrWrongState) {
		t.Fatalf("reopening an open break: %v", err)
	}

	accept, err := uc.Actions.ProposeBreakAcceptance.Handle(ctx, alice, work("UZCARD never credited the card", lost.ID))
	if err != nil {
		t.Fatal(err)
	}
	c.ledger.EXPECT().Post(gomock.Any(), gomock.Any()).Return(nil).Times(1)
	if err := approve(bob, accept); err != nil {
		t.Fatal(err)
	}
	if lost.Status != ports.BreakResolved || c.xfers[tr.ID()].Status() != domain.TransferFailed {
		t.Fatalf("accepted: the break is %s, the transfer %s", lost.Status, c.xfers[tr.ID()].Status())
	}
	want := []string{"alice proposal.create", "bob break.explain", "bob proposal.approve", "alice proposal.create", "bob break.reopen",
		"bob proposal.approve", "alice proposal.create", "bob proposal.approve"}
	if got := c.actions(); !slices.Equal(got, want) {
		t.Fatalf("audit %v, want %v", got, want)
	}
}

// Issue 47, 3: breaks are worked several at once, four-eyed where one is: one proposal accepts
// two lost credits, approved whole by a second officer; breaks whose money agrees are explained
// at once together; an explanation of several among which one's money differs is a proposal.
func TestWorkingSeveralBreaksAtOnce(t *testing.T) {
	t.Parallel()
	c := setupConsole(t)
	b := newBreakBook(t, c)
	uc := c.withBreaks(b)
	ctx := context.Background()
	alice := console.Actor{ID: uuid.New(), Name: "alice", Role: domain.RoleOfficer}
	bob := console.Actor{ID: uuid.New(), Name: "bob", Role: domain.RoleOfficer}
	c.known(alice, bob)
	one, t1 := b.lostCredit(t, c)
	two, t2 := b.lostCredit(t, c)

	id, err := uc.Actions.ProposeBreakAcceptance.Handle(ctx, alice, work("UZCARD's file lists neither", one.ID, two.ID, one.ID))
	if err != nil {
		t.Fatal(err)
	}
	if p := c.props[id]; len(p.Breaks) != 2 || p.ObjectID == one.ID || p.ObjectID == two.ID {
		t.Fatalf("the proposal covers %v, its object %s", p.Breaks, p.ObjectID)
	}
	if _, err := uc.Actions.ProposeBreakAcceptance.Handle(ctx, bob, work("again", two.ID)); !errors.Is(err, domain.ErrProposalOpen) {
		t.Fatalf("a second proposal for a break already proposed: %v", err)
	}
	if err := uc.Actions.DecideProposal.Handle(ctx, alice, console.DecideProposal{ID: id, Approve: true}); !errors.Is(err, domain.ErrSelfApproval) {
		t.Fatalf("the maker's approval: %v", err)
	}
	c.ledger.EXPECT().Post(gomock.Any(), gomock.Any()).Return(nil).Times(2)
	if err := uc.Actions.DecideProposal.Handle(ctx, bob, console.DecideProposal{ID: id, Approve: true}); err != nil {
		t.Fatal(err)
	}
	if one.Status != ports.BreakResolved || two.Status != ports.BreakResolved ||
		c.xfers[t1.ID()].Status() != domain.TransferFailed || c.xfers[t2.ID()].Status() != domain.TransferFailed {
		t.Fatalf("approved: the breaks are %s and %s", one.Status, two.Status)
	}

	x, y := b.reversedUnknownDebit(), b.reversedUnknownDebit()
	if p, err := uc.Actions.ExplainBreak.Handle(ctx, alice, work("HUMO reversed debits of another bank's client", x.ID, y.ID)); err != nil || p != uuid.Nil {
		t.Fatalf("explaining breaks whose money agrees: proposal %s, %v", p, err)
	}
	if x.Status != ports.BreakExplained || y.Status != ports.BreakExplained {
		t.Fatalf("the breaks are %s and %s", x.Status, y.Status)
	}
	z := b.reversedUnknownDebit()
	lost, _ := b.lostCredit(t, c)
	p, err := uc.Actions.ExplainBreak.Handle(ctx, alice, work("both as the network says", z.ID, lost.ID))
	if err != nil || p == uuid.Nil || z.Status != ports.BreakOpen {
		t.Fatalf("explaining with a break whose money differs: proposal %s, %v, the first break %s", p, err, z.Status)
	}
	want := []string{"alice proposal.create", "bob proposal.approve", "alice break.explain", "alice break.explain", "alice proposal.create"}
	if got := c.actions(); !slices.Equal(got, want) {
		t.Fatalf("audit %v, want %v", got, want)
	}
}
