package console_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/mock/gomock"

	"github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/ports/mocks"
)

// A credit the network never made (its statement does not list it) is reversed only when a
// second officer approves the first one's proposal: the transfer turns FAILED (its partner is
// told), the amount goes back to the demand account, the break is RESOLVED, all in the
// approval's transaction with its audit line. A balance's break cannot be accepted.
func TestAcceptingABreakAdjustsTheBooksOnlyWhenAnotherOfficerApprovesIt(t *testing.T) {
	t.Parallel()
	c := setupConsole(t)
	rec := mocks.NewMockReconciliationRepository(gomock.NewController(t))
	uc := c.consoleOn(c.clock, rec)
	ctx := context.Background()
	maker := console.Actor{ID: uuid.New(), Name: "alice", Role: domain.RoleOfficer}
	checker := console.Actor{ID: uuid.New(), Name: "bob", Role: domain.RoleOfficer}
	viewer := console.Actor{ID: uuid.New(), Name: "vic", Role: domain.RoleViewer}
	c.known(maker, checker)
	tr := c.processingTransfer(t)
	if err := c.xfers[tr.ID()].Settle(true, "", t0); err != nil {
		t.Fatal(err)
	}
	c.xfers[tr.ID()].TakeEvents()
	lost := ports.BreakRecord{ID: uuid.New(), Day: domain.BusinessDate(t0), Source: "UZCARD", Status: ports.BreakOpen,
		Break: domain.Break{Kind: domain.BreakMissingAtNetwork, LineID: domain.CreditLineID(tr.ID()),
			Ours: &domain.StatementLine{ID: domain.CreditLineID(tr.ID()), Kind: domain.LineCredit, Amount: 250_000, At: t0, Status: domain.LineDone}}}
	balance := ports.BreakRecord{ID: uuid.New(), Day: domain.BusinessDate(t0), Source: domain.SourceCoreBanking, Status: ports.BreakOpen,
		Break: domain.Break{Kind: domain.BreakBalanceDiffers, LineID: "A:DEMAND",
			Ours:   &domain.StatementLine{ID: "A:DEMAND", Kind: domain.LineDemand, Amount: 0, At: t0, Status: domain.LineDone},
			Theirs: &domain.StatementLine{ID: "A:DEMAND", Kind: domain.LineDemand, Amount: 250_000, At: t0, Status: domain.LineDone}}}
	breaks := map[uuid.UUID]*ports.BreakRecord{lost.ID: &lost, balance.ID: &balance}
	rec.EXPECT().Trace(gomock.Any(), gomock.Any()).Return(map[uuid.UUID]ports.LineObject{}, nil).AnyTimes()
	rec.EXPECT().Break(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, id uuid.UUID) (ports.BreakRecord, error) {
		return *breaks[id], nil
	}).AnyTimes()
	rec.EXPECT().Close(gomock.Any(), lost.ID, ports.BreakResolved, gomock.Any(), "bob", gomock.Any()).DoAndReturn(
		func(_ context.Context, id uuid.UUID, status, _, _ string, _ time.Time) error {
			if !c.inTx {
				t.Error("the break was closed outside the approval's transaction")
			}
			breaks[id].Status = status
			return nil
		}).Times(1)

	if _, err := uc.Actions.ProposeBreakAcceptance.Handle(ctx, viewer, work("UZCARD's file has no such credit", lost.ID)); !errors.Is(err, domain.ErrForbidden) {
		t.Fatalf("a viewer's proposal: %v", err)
	}
	if _, err := uc.Actions.ProposeBreakAcceptance.Handle(ctx, maker, work("core banking says so", balance.ID)); !errors.Is(err, domain.ErrWrongState) {
		t.Fatalf("accepting a balance: %v", err)
	}
	id, err := uc.Actions.ProposeBreakAcceptance.Handle(ctx, maker, work("UZCARD's file has no such credit", lost.ID))
	if err != nil {
		t.Fatal(err)
	}
	if c.xfers[tr.ID()].Status() != domain.TransferSuccess {
		t.Fatal("a proposal changed the transfer")
	}
	if err := uc.Actions.DecideProposal.Handle(ctx, maker, console.DecideProposal{ID: id, Approve: true}); !errors.Is(err, domain.ErrSelfApproval) {
		t.Fatalf("self-approval: %v", err)
	}
	var posted []domain.Posting
	c.ledger.EXPECT().Post(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, p domain.Posting) error {
		if !c.inTx {
			t.Error("the reversal was posted outside the approval's transaction")
		}
		posted = append(posted, p)
		return nil
	}).Times(1)
	if err := uc.Actions.DecideProposal.Handle(ctx, checker, console.DecideProposal{ID: id, Approve: true}); err != nil {
		t.Fatal(err)
	}
	got := c.xfers[tr.ID()]
	if got.Status() != domain.TransferFailed || len(got.TakeEvents()) != 1 {
		t.Fatalf("the transfer is %s", got.Status())
	}
	e := posted[0].Entries
	if len(posted) != 1 || posted[0].Kind != domain.PostingTransferReversal || e[0].Account.Key() != "CARD_SETTLEMENT" ||
		e[1].Account != domain.LoanAccount(domain.AccountDemand, tr.LoanID()) || e[1].Credit != 250_000 {
		t.Fatalf("posted %+v", posted)
	}
	if breaks[lost.ID].Status != ports.BreakResolved {
		t.Fatalf("the break is %s", breaks[lost.ID].Status)
	}
	// Resolved, it can be neither proposed nor approved again.
	if _, err := uc.Actions.ProposeBreakAcceptance.Handle(ctx, maker, work("again", lost.ID)); !errors.Is(err, domain.ErrWrongState) {
		t.Fatalf("proposing a resolved break: %v", err)
	}
	want := []string{"alice proposal.create", "bob proposal.approve"}
	if got := c.actions(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("audit %v, want %v", got, want)
	}
}

// Explaining a break whose acceptance waits for approval closes the proposal with the break
// (issue 47, 6): in the explanation's transaction, audited, so no approver is left with a
// proposal whose break is no longer open.
func TestExplainingABreakClosesItsAcceptanceWaitingForApproval(t *testing.T) {
	t.Parallel()
	c := setupConsole(t)
	rec := mocks.NewMockReconciliationRepository(gomock.NewController(t))
	uc := c.consoleOn(c.clock, rec)
	ctx := context.Background()
	maker := console.Actor{ID: uuid.New(), Name: "alice", Role: domain.RoleOfficer}
	checker := console.Actor{ID: uuid.New(), Name: "bob", Role: domain.RoleOfficer}
	c.known(maker, checker)
	extra := ports.BreakRecord{ID: uuid.New(), Day: domain.BusinessDate(t0), Source: "UZCARD", Status: ports.BreakOpen,
		Break: domain.Break{Kind: domain.BreakMissingInTiyin, LineID: "D-9",
			Theirs: &domain.StatementLine{ID: "D-9", Kind: domain.LineDebit, Amount: 300, At: t0, Status: domain.LineDone}}}
	rec.EXPECT().Break(gomock.Any(), extra.ID).DoAndReturn(func(context.Context, uuid.UUID) (ports.BreakRecord, error) {
		return extra, nil
	}).AnyTimes()
	rec.EXPECT().Trace(gomock.Any(), gomock.Any()).Return(map[uuid.UUID]ports.LineObject{}, nil).AnyTimes()
	id, err := uc.Actions.ProposeBreakAcceptance.Handle(ctx, maker, work("HUMO's file lists the debit", extra.ID))
	if err != nil {
		t.Fatal(err)
	}
	// The money differs (a debit tiyin never booked): the explanation is a proposal of its own,
	// which replaces the acceptance.
	explained, err := uc.Actions.ExplainBreak.Handle(ctx, checker, work("the debit was refunded at the desk", extra.ID))
	if err != nil || explained == uuid.Nil {
		t.Fatalf("explaining: %s, %v", explained, err)
	}
	if p := c.props[id]; p.Status != domain.ProposalRejected || p.DecidedBy != checker.ID {
		t.Fatalf("the proposal is %s, decided by %s", p.Status, p.DecidedBy)
	}
	want := []string{"alice proposal.create", "bob proposal.supersede", "bob proposal.create"}
	if got := c.actions(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("audit %v, want %v", got, want)
	}
	if err := uc.Actions.DecideProposal.Handle(ctx, checker, console.DecideProposal{ID: id, Approve: true}); !errors.Is(err, domain.ErrProposalClosed) {
		t.Fatalf("approving the closed proposal: %v", err)
	}
	if extra.Status != ports.BreakOpen {
		t.Fatal("a proposed explanation closed the break")
	}
	rec.EXPECT().Close(gomock.Any(), extra.ID, ports.BreakExplained, "the debit was refunded at the desk", "alice", gomock.Any()).DoAndReturn(
		func(_ context.Context, _ uuid.UUID, status, _, _ string, _ time.Time) error {
			extra.Status = status
			return nil
		})
	if err := uc.Actions.DecideProposal.Handle(ctx, maker, console.DecideProposal{ID: explained, Approve: true}); err != nil {
		t.Fatal(err)
	}
	if extra.Status != ports.BreakExplained {
		t.Fatalf("the break is %s", extra.Status)
	}
}

// work is officers' work on breaks with a note.
func work(note string, ids ...uuid.UUID) console.BreakWork {
	return console.BreakWork{Breaks: ids, Note: note}
}

// TestADebitsAdjustmentIsPostedOnItsPartnersClock (issue 47, 1): a card debit the network made
// and tiyin booked short is adjusted at the time of the clock of the partner whose repayment
// request the line is of (a sandbox partner's clock may be ahead), not at the system's.
func TestADebitsAdjustmentIsPostedOnItsPartnersClock(t *testing.T) {
	t.Parallel()
	c := setupConsole(t)
	partner, ahead := uuid.New(), t0.AddDate(0, 3, 0)
	clock := mocks.NewMockClock(gomock.NewController(t))
	clock.EXPECT().Ahead().Return([]uuid.UUID{partner}).AnyTimes()
	clock.EXPECT().Now(gomock.Any()).DoAndReturn(func(p uuid.UUID) time.Time {
		if p == partner {
			return ahead
		}
		return t0
	}).AnyTimes()
	rec := mocks.NewMockReconciliationRepository(gomock.NewController(t))
	uc := c.consoleOn(clock, rec)
	ctx := context.Background()
	maker := console.Actor{ID: uuid.New(), Name: "alice", Role: domain.RoleOfficer}
	checker := console.Actor{ID: uuid.New(), Name: "bob", Role: domain.RoleOfficer}
	c.known(maker, checker)
	short := ports.BreakRecord{ID: uuid.New(), Day: domain.BusinessDate(ahead), Source: "UZCARD", Status: ports.BreakOpen,
		Break: domain.Break{Kind: domain.BreakAmountDiffers, LineID: "D-7",
			Ours:   &domain.StatementLine{ID: "D-7", Kind: domain.LineDebit, Amount: 300, At: ahead, Status: domain.LineDone},
			Theirs: &domain.StatementLine{ID: "D-7", Kind: domain.LineDebit, Amount: 500, At: ahead, Status: domain.LineDone}}}
	rec.EXPECT().Break(gomock.Any(), short.ID).Return(short, nil).AnyTimes()
	rec.EXPECT().Trace(gomock.Any(), gomock.Any()).Return(map[uuid.UUID]ports.LineObject{
		short.ID: {Kind: "repayment", ID: uuid.New(), PartnerID: partner, LoanID: uuid.New()}}, nil).AnyTimes()
	rec.EXPECT().Close(gomock.Any(), short.ID, ports.BreakResolved, gomock.Any(), "bob", gomock.Any()).Return(nil).Times(1)
	var posted []domain.Posting
	c.ledger.EXPECT().Post(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, p domain.Posting) error {
		posted = append(posted, p)
		return nil
	}).Times(1)
	id, err := uc.Actions.ProposeBreakAcceptance.Handle(ctx, maker, work("UZCARD's file has 500", short.ID))
	if err != nil {
		t.Fatal(err)
	}
	if err := uc.Actions.DecideProposal.Handle(ctx, checker, console.DecideProposal{ID: id, Approve: true}); err != nil {
		t.Fatal(err)
	}
	if len(posted) != 1 || !posted[0].At.Equal(ahead) || posted[0].Entries[0].Debit != 200 {
		t.Fatalf("posted %+v, want 200 tiyin at the partner's %s", posted, ahead)
	}
	for _, e := range c.audit {
		if !e.At.Equal(ahead) {
			t.Errorf("the audit line %s %s is at %s, not the partner's %s", e.Action, e.Object, e.At, ahead)
		}
	}
}
