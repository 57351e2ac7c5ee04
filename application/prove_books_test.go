package application_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/mock/gomock"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/ports/mocks"
)

// recordsOnce is a reconciliation repository's Record that keeps each break once by its day,
// kind and line, as the store's unique index does, and checks it is called in a transaction.
func recordsOnce(t *testing.T, d *deps, runs *[][]domain.Break) func(context.Context, ports.ReconciliationRun, []domain.Break) (int, error) {
	seen := map[string]bool{}
	return func(_ context.Context, run ports.ReconciliationRun, breaks []domain.Break) (int, error) {
		if !d.inTx {
			t.Error("a proof recorded outside a transaction")
		}
		if run.Source != domain.SourceBooks || run.Breaks != len(breaks) {
			t.Errorf("the run %+v with %d breaks", run, len(breaks))
		}
		*runs = append(*runs, breaks)
		added := 0
		for _, b := range breaks {
			k := run.Day.Format(domain.DateLayout) + string(b.Kind) + b.LineID
			if !seen[k] {
				seen[k], added = true, added+1
			}
		}
		return added, nil
	}
}

// TestTheBooksProofFindsASubledgerApartFromItsControlAccountOnce: the day's sub-ledger agrees
// with its control accounts but for the interest receivable, 7 tiyin more over the loans than
// in the trial balance: exactly one SUBLEDGER_DIFFERS break, with both figures; a proof of the
// day again records nothing new; agreeing figures record none.
func TestTheBooksProofFindsASubledgerApartFromItsControlAccountOnce(t *testing.T) {
	t.Parallel()
	d := setup(t)
	ctrl := gomock.NewController(t)
	books, rec := mocks.NewMockBooksRepository(ctrl), mocks.NewMockReconciliationRepository(ctrl)
	h := &application.ReconcileDayHandler{Clock: d.clock, UoW: d.uow, Processing: d.cards, CoreBanking: d.core, Reconciliation: rec, Books: books, Settlement: application.TransferSettlement{UoW: d.uow, Transfers: d.transfers, Ledger: d.ledger, Clock: d.clock}}
	day := domain.BusinessDate(t0).AddDate(0, 0, -1)
	_, end := domain.BusinessDay(day)
	agree := []domain.SubledgerBalance{{Kind: domain.AccountLoan, Loans: 1_000_000_000, Control: 1_000_000_000},
		{Kind: domain.AccountDemand, Loans: -1_000_000_000, Control: -1_000_000_000},
		{Kind: domain.AccountInterestReceivable, Loans: 7671, Control: 7671}, {Kind: domain.AccountInterestIncome, Control: -7671}}
	apart := []domain.SubledgerBalance{agree[0], agree[1], {Kind: domain.AccountInterestReceivable, Loans: 7678, Control: 7671}, agree[3]}
	journal := ports.GLJournal{IdempotencyKey: ports.GLKey(day, 1), Day: day, Sequence: 1,
		Lines: []ports.GLLine{{GL: "16307", Debits: 7671}, {GL: "42001", Credits: 7671}}}
	post := ports.GLPost{Journal: journal, Reference: "GL-1", Acknowledged: &domain.Turnover{Debits: 7671, Credits: 7671}}
	var runs [][]domain.Break
	rec.EXPECT().Record(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(recordsOnce(t, d, &runs)).Times(3)
	books.EXPECT().GLPosts(gomock.Any(), day).Return([]ports.GLPost{post}, nil).Times(3)
	newBreak := ports.BreakRecord{ID: uuid.New(), Day: day, Source: domain.SourceBooks, Status: ports.BreakOpen}
	gomock.InOrder(
		books.EXPECT().Subledger(gomock.Any(), day).Return(apart, nil),
		rec.EXPECT().Breaks(gomock.Any(), gomock.Any()).Return([]ports.BreakRecord{newBreak}, nil),
		rec.EXPECT().Standing(gomock.Any(), day, domain.SourceBooks).Return(map[string]int{ports.BreakOpen: 1}, nil),
		books.EXPECT().Subledger(gomock.Any(), day).Return(apart, nil),
		rec.EXPECT().Standing(gomock.Any(), day, domain.SourceBooks).Return(map[string]int{ports.BreakOpen: 1}, nil),
		books.EXPECT().Subledger(gomock.Any(), day).Return(agree, nil),
		rec.EXPECT().Standing(gomock.Any(), day, domain.SourceBooks).Return(map[string]int{ports.BreakOpen: 1}, nil),
	)
	prove := func() application.ReconcileResult {
		t.Helper()
		res, err := h.Handle(context.Background(), application.ReconcileDay{Day: day, Source: domain.SourceBooks})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// 17 per-loan kinds and one acknowledged post are the proof's lines.
	first := prove()
	want := domain.Break{Kind: domain.BreakSubledgerDiffers, LineID: "INTEREST_RECEIVABLE",
		Ours:   &domain.StatementLine{ID: "INTEREST_RECEIVABLE", Kind: domain.LineControl, Amount: 7678, At: end, Status: domain.LineDone},
		Theirs: &domain.StatementLine{ID: "INTEREST_RECEIVABLE", Kind: domain.LineControl, Amount: 7671, At: end, Status: domain.LineDone}}
	if first.New != 1 || first.Ours != 18 || first.Matched != 17 || first.Breaks[domain.BreakSubledgerDiffers] != 1 ||
		len(first.Found) != 1 || first.Found[0] != "SUBLEDGER_DIFFERS INTEREST_RECEIVABLE" || len(first.NewBreaks) != 1 {
		t.Fatalf("the first proof: %+v", first)
	}
	if len(runs[0]) != 1 || !reflect.DeepEqual(runs[0][0], want) {
		t.Fatalf("recorded %+v, want exactly %+v", runs[0], want)
	}
	if again := prove(); again.New != 0 || len(again.Found) != 1 || len(again.NewBreaks) != 0 {
		t.Fatalf("the proof again: %+v", again)
	}
	if clean := prove(); clean.New != 0 || len(clean.Found) != 0 || clean.Matched != clean.Ours || len(runs[2]) != 0 {
		t.Fatalf("agreeing books: %+v, recorded %+v", clean, runs[2])
	}
}

// TestAPostCoreBankingAcknowledgedOtherwiseIsOneBreak: the close sends a day's post again and
// core banking acknowledges it with 100 tiyin more debits than the journal holds; the
// acknowledgement is recorded as given (nothing adjusted), and the day's proof records exactly
// one GL_ACK_DIFFERS break with the journal's debits and core banking's; the day proved again
// records nothing new.
func TestAPostCoreBankingAcknowledgedOtherwiseIsOneBreak(t *testing.T) {
	t.Parallel()
	d := setup(t)
	ctrl := gomock.NewController(t)
	books, gl, rec := mocks.NewMockBooksRepository(ctrl), mocks.NewMockGeneralLedger(ctrl), mocks.NewMockReconciliationRepository(ctrl)
	reconcile := &application.ReconcileDayHandler{Clock: d.clock, UoW: d.uow, Processing: d.cards, CoreBanking: d.core, Reconciliation: rec, Books: books, Settlement: application.TransferSettlement{UoW: d.uow, Transfers: d.transfers, Ledger: d.ledger, Clock: d.clock}}
	h := &application.CloseBooksHandler{Clock: d.clock, UoW: d.uow, Books: books, GL: gl, Reconcile: reconcile, Config: application.Config{}}
	yesterday := domain.BusinessDate(t0).AddDate(0, 0, -1)
	_, end := domain.BusinessDay(yesterday)
	journal := ports.GLJournal{IdempotencyKey: ports.GLKey(yesterday, 1), Day: yesterday, Sequence: 1,
		Lines: []ports.GLLine{{GL: "12401", Debits: 10}, {GL: "16307", Debits: 7671}, {GL: "20206", Credits: 10}, {GL: "42001", Credits: 7671}}}
	pending := ports.GLPost{Journal: journal, CreatedAt: t0, Attempts: 1}
	skewed := ports.GLAck{Ref: "GL-1", Debits: 7681 + 100, Credits: 7681}
	var recorded ports.GLAck
	var runs [][]domain.Break
	rec.EXPECT().Record(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(recordsOnce(t, d, &runs)).Times(2)
	rec.EXPECT().Standing(gomock.Any(), yesterday, domain.SourceBooks).Return(map[string]int{ports.BreakOpen: 1}, nil).Times(2)
	books.EXPECT().Subledger(gomock.Any(), yesterday).Return(nil, nil).Times(2)
	books.EXPECT().GLPosts(gomock.Any(), yesterday).DoAndReturn(func(context.Context, time.Time) ([]ports.GLPost, error) {
		p := pending
		p.Reference, p.Acknowledged = recorded.Ref, &domain.Turnover{Debits: recorded.Debits, Credits: recorded.Credits}
		return []ports.GLPost{p}, nil
	}).Times(2)
	gomock.InOrder(
		books.EXPECT().LastClosed(gomock.Any(), "").Return(yesterday, true, nil),
		books.EXPECT().UnacknowledgedGLPosts(gomock.Any()).Return([]ports.GLPost{pending}, nil),
		books.EXPECT().UnpostedClosedDays(gomock.Any()).Return(nil, nil),
		gl.EXPECT().PostJournal(gomock.Any(), journal).Return(skewed, nil),
		books.EXPECT().AcknowledgeGLPost(gomock.Any(), yesterday, 1, gomock.Any(), gomock.Any()).DoAndReturn(
			func(_ context.Context, _ time.Time, _ int, ack ports.GLAck, _ time.Time) error {
				recorded = ack
				return nil
			}),
		rec.EXPECT().Breaks(gomock.Any(), gomock.Any()).Return([]ports.BreakRecord{{ID: uuid.New()}}, nil),
	)
	// The close reports the day's proof: one break, new.
	closed, err := h.CloseAndProve(context.Background(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if p := closed.Proofs; len(p) != 1 || !p[0].Day.Equal(yesterday) || p[0].Pending || p[0].Found() != 1 || p[0].New != 1 ||
		p[0].Breaks[domain.BreakGLAckDiffers] != 1 {
		t.Fatalf("the close reported the proofs %+v", p)
	}
	if recorded != skewed {
		t.Fatalf("recorded the acknowledgement %+v, want it as given, %+v", recorded, skewed)
	}
	id := ports.GLKey(yesterday, 1) + ":DEBITS"
	want := domain.Break{Kind: domain.BreakGLAckDiffers, LineID: id,
		Ours:   &domain.StatementLine{ID: id, Kind: domain.LineGLPost, Amount: 7681, At: end, Status: domain.LineDone},
		Theirs: &domain.StatementLine{ID: id, Kind: domain.LineGLPost, Amount: 7781, At: end, Status: domain.LineDone}}
	if len(runs) != 1 || len(runs[0]) != 1 || !reflect.DeepEqual(runs[0][0], want) {
		t.Fatalf("the proof recorded %+v, want exactly %+v", runs, want)
	}
	again, err := reconcile.Handle(context.Background(), application.ReconcileDay{Day: yesterday, Source: domain.SourceBooks})
	if err != nil || again.New != 0 || len(again.Found) != 1 || again.Found[0] != "GL_ACK_DIFFERS "+id || !reflect.DeepEqual(runs[1], runs[0]) {
		t.Fatalf("the day proved again: %+v, %v", again, err)
	}
}
