package application_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/mock/gomock"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/ports/mocks"
)

// booksLoan is a loan of 1 000 000 000 at 28 % for 12 months issued days before t0.
func booksLoan(days int) *domain.Loan {
	pct, _ := domain.PercentFromHundredths(2800)
	penalty, _ := domain.PercentFromHundredths(5)
	return domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: 1_000_000_000, MonthPeriod: 12, Rate: pct,
		PenaltyDaily: penalty, ScheduleType: domain.ScheduleAnnuity, IssuedAt: t0.AddDate(0, 0, -days)})
}

// closeHandler is the close on the mocks, its daily proof (the day's reconciliation with the
// books, domain.SourceBooks) on the same books and rec.
func closeHandler(d *deps, books *mocks.MockBooksRepository, gl *mocks.MockGeneralLedger,
	rec *mocks.MockReconciliationRepository) *application.CloseBooksHandler {
	reconcile := &application.ReconcileDayHandler{Clock: d.clock, UoW: d.uow, Processing: d.cards, CoreBanking: d.core, Reconciliation: rec, Books: books, Settlement: application.TransferSettlement{UoW: d.uow, Transfers: d.transfers, Ledger: d.ledger, Clock: d.clock}}
	return &application.CloseBooksHandler{Clock: d.clock, UoW: d.uow, Books: books, GL: gl, Reconcile: reconcile, OpsLog: opsRecorder{d}, Config: application.Config{}}
}

// acked is core banking's acknowledgement of j as posted: its totals.
func acked(ref string, j ports.GLJournal) ports.GLAck {
	t := j.Totals()
	return ports.GLAck{Ref: ref, Debits: t.Debits, Credits: t.Credits}
}

// proofOf expects the books' daily proof of day, in order: the sub-ledger and the day's posts
// read, the run recorded (in a transaction) with the breaks want, the day's standing read. The
// books agree with themselves (every per-loan kind at zero on both sides).
func proofOf(t *testing.T, d *deps, books *mocks.MockBooksRepository, rec *mocks.MockReconciliationRepository, day time.Time,
	posts []ports.GLPost, want []domain.Break) []any {
	t.Helper()
	return []any{
		books.EXPECT().Subledger(gomock.Any(), day).Return(nil, nil),
		books.EXPECT().GLPosts(gomock.Any(), day).Return(posts, nil),
		rec.EXPECT().Record(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(
			func(_ context.Context, run ports.ReconciliationRun, breaks []domain.Break) (int, error) {
				if !d.inTx || !run.Day.Equal(day) || run.Source != domain.SourceBooks || !reflect.DeepEqual(breaks, want) {
					t.Errorf("the proof of %s recorded %+v with breaks %+v (in a transaction: %t), want %+v", day.Format(domain.DateLayout),
						run, breaks, d.inTx, want)
				}
				return 0, nil
			}),
		rec.EXPECT().Standing(gomock.Any(), day, domain.SourceBooks).Return(map[string]int{}, nil),
	}
}

func TestTheCloseClosesEachBatchInItsOwnTransactionAndRecordsTheDay(t *testing.T) {
	t.Parallel()
	d := setup(t)
	ctrl := gomock.NewController(t)
	books, gl, rec := mocks.NewMockBooksRepository(ctrl), mocks.NewMockGeneralLedger(ctrl), mocks.NewMockReconciliationRepository(ctrl)
	h := closeHandler(d, books, gl, rec)
	yesterday := domain.BusinessDate(t0).AddDate(0, 0, -1)
	loans := []*domain.Loan{booksLoan(5), booksLoan(3)}
	books.EXPECT().LastClosed(gomock.Any(), "").Return(yesterday.AddDate(0, 0, -1), true, nil)
	books.EXPECT().Start(gomock.Any()).Return(yesterday.AddDate(0, 0, -30), true, nil)
	posted := ports.GLJournal{IdempotencyKey: ports.GLKey(yesterday, 1), Day: yesterday, Sequence: 1,
		Lines: []ports.GLLine{{GL: "16307", Debits: 7671}, {GL: "42001", Credits: 7671}}}
	before := ports.GLPost{Journal: ports.GLJournal{
		Day: yesterday.AddDate(0, 0, -1), Sequence: 1, Lines: []ports.GLLine{{GL: "16307", Debits: 5}, {GL: "42001", Credits: 5}}}}
	calls := []any{
		books.EXPECT().LoansToClose(gomock.Any(), ports.Partners{}, yesterday, uuid.Nil, gomock.Any()).Return(loans, nil),
		books.EXPECT().SaveClosed(gomock.Any(), loans, []uuid.UUID{loans[0].ID(), loans[1].ID()}, gomock.Any()).DoAndReturn(
			func(_ context.Context, ls []*domain.Loan, _ []uuid.UUID, ps []domain.Posting) error {
				if !d.inTx {
					t.Error("a batch saved outside a transaction")
				}
				// Issued 5 and 3 days before today: each day from their issue days through
				// yesterday posts (5 and 3 days).
				if len(ps) != 5+3 {
					t.Errorf("%d postings, want 8", len(ps))
				}
				for _, l := range ls {
					if !l.BooksDay().Equal(yesterday) {
						t.Errorf("loan closed through %s", l.BooksDay())
					}
				}
				return nil
			}),
		// Until a batch finds none.
		books.EXPECT().LoansToClose(gomock.Any(), ports.Partners{}, yesterday, loans[1].ID(), gomock.Any()).Return(nil, nil),
		books.EXPECT().MarkClosed(gomock.Any(), "", []time.Time{yesterday}, gomock.Any()).DoAndReturn(
			func(_ context.Context, _ string, _ []time.Time, c ports.ClosedDay) error {
				if c.Loans != 2 || c.Postings != 8 {
					t.Errorf("recorded %+v", c)
				}
				return nil
			}),
		// Then the general ledger is told of the days closed: the day before them, posted
		// already and unchanged, posts nothing; yesterday is posted.
		books.EXPECT().UnacknowledgedGLPosts(gomock.Any()).Return(nil, nil),
		books.EXPECT().UnpostedClosedDays(gomock.Any()).Return([]time.Time{yesterday}, nil),
		books.EXPECT().GLPosts(gomock.Any(), yesterday.AddDate(0, 0, -1)).Return([]ports.GLPost{before}, nil),
		books.EXPECT().TrialBalance(gomock.Any(), yesterday.AddDate(0, 0, -1)).Return([]ports.TrialBalanceLine{
			{Kind: domain.AccountInterestReceivable, Debits: 5}, {Kind: domain.AccountInterestIncome, Credits: 5}}, nil),
		books.EXPECT().GLPosts(gomock.Any(), yesterday).Return(nil, nil),
		books.EXPECT().TrialBalance(gomock.Any(), yesterday).Return([]ports.TrialBalanceLine{
			{Kind: domain.AccountInterestReceivable, Debits: 7671}, {Kind: domain.AccountInterestIncome, Credits: 7671}}, nil),
		books.EXPECT().AddGLPost(gomock.Any(), gomock.Any()).Return(true, nil),
		gl.EXPECT().PostJournal(gomock.Any(), posted).DoAndReturn(
			func(context.Context, ports.GLJournal) (ports.GLAck, error) {
				if d.inTx {
					t.Error("the general ledger called inside a transaction")
				}
				return acked("GL-1", posted), nil
			}),
		books.EXPECT().AcknowledgeGLPost(gomock.Any(), yesterday, 1, acked("GL-1", posted), gomock.Any()).Return(nil),
	}
	// Last, each day the close posted is proved, in day order, and agrees.
	calls = append(calls, proofOf(t, d, books, rec, yesterday.AddDate(0, 0, -1), []ports.GLPost{before}, nil)...)
	ack := acked("GL-1", posted)
	calls = append(calls, proofOf(t, d, books, rec, yesterday, []ports.GLPost{{Journal: posted, Reference: "GL-1",
		Acknowledged: &domain.Turnover{Debits: ack.Debits, Credits: ack.Credits}}}, nil)...)
	gomock.InOrder(calls...)
	done, err := h.Close(context.Background(), time.Time{})
	if err != nil || len(done) != 1 || done[0].Loans != 2 || !done[0].Through.Equal(yesterday) {
		t.Fatalf("%+v %v", done, err)
	}
}

func TestACloseOfAClosedDayReadsOnly(t *testing.T) {
	t.Parallel()
	d := setup(t)
	ctrl := gomock.NewController(t)
	books, gl, rec := mocks.NewMockBooksRepository(ctrl), mocks.NewMockGeneralLedger(ctrl), mocks.NewMockReconciliationRepository(ctrl)
	h := closeHandler(d, books, gl, rec)
	// A day after today closes only through today.
	books.EXPECT().LastClosed(gomock.Any(), "").Return(domain.BusinessDate(t0), true, nil)
	books.EXPECT().UnacknowledgedGLPosts(gomock.Any()).Return(nil, nil)
	books.EXPECT().UnpostedClosedDays(gomock.Any()).Return(nil, nil)
	done, err := h.Close(context.Background(), domain.BusinessDate(t0).AddDate(0, 0, 5))
	if err != nil || len(done) != 0 {
		t.Fatalf("%+v %v", done, err)
	}
}

func TestAFailedBatchRecordsNoDay(t *testing.T) {
	t.Parallel()
	d := setup(t)
	ctrl := gomock.NewController(t)
	books, gl, rec := mocks.NewMockBooksRepository(ctrl), mocks.NewMockGeneralLedger(ctrl), mocks.NewMockReconciliationRepository(ctrl)
	h := closeHandler(d, books, gl, rec)
	yesterday := domain.BusinessDate(t0).AddDate(0, 0, -1)
	books.EXPECT().LastClosed(gomock.Any(), "").Return(time.Time{}, false, nil)
	books.EXPECT().Start(gomock.Any()).Return(time.Time{}, false, nil)
	books.EXPECT().LoansToClose(gomock.Any(), gomock.Any(), yesterday, uuid.Nil, gomock.Any()).Return([]*domain.Loan{booksLoan(40)}, nil)
	boom := errors.New("boom")
	books.EXPECT().SaveClosed(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(
		func(_ context.Context, _ []*domain.Loan, _ []uuid.UUID, ps []domain.Posting) error {
			// The first close ever: the loan, issued before it, gets one opening entry.
			if len(ps) != 1 || ps[0].Kind != domain.PostingOpening {
				t.Errorf("postings %+v", ps)
			}
			return boom
		})
	if _, err := h.Close(context.Background(), time.Time{}); !errors.Is(err, boom) || d.rollbacks != 1 {
		t.Fatalf("%v, %d rollbacks", err, d.rollbacks)
	}
}

// TestAPostTheGLDidNotAcknowledgeIsSentAgainByTheNextClose: the day stays closed when its post
// fails (and is proved); each next close sends the same journal under the same key, outside
// any transaction, until it is acknowledged, and proves the day again only then; a close after
// that posts nothing again.
func TestAPostTheGLDidNotAcknowledgeIsSentAgainByTheNextClose(t *testing.T) {
	t.Parallel()
	d := setup(t)
	ctrl := gomock.NewController(t)
	books, gl, rec := mocks.NewMockBooksRepository(ctrl), mocks.NewMockGeneralLedger(ctrl), mocks.NewMockReconciliationRepository(ctrl)
	h := closeHandler(d, books, gl, rec)
	yesterday := domain.BusinessDate(t0).AddDate(0, 0, -1)
	loans := []*domain.Loan{booksLoan(2)}
	journal := ports.GLJournal{IdempotencyKey: ports.GLKey(yesterday, 1), Day: yesterday, Sequence: 1,
		Lines: []ports.GLLine{{GL: "12401", Debits: 10}, {GL: "16307", Debits: 7671}, {GL: "20206", Credits: 10}, {GL: "42001", Credits: 7671}}}
	recorded := ports.GLPost{Journal: journal, CreatedAt: t0}
	failed := func(attempts int) ports.GLPost {
		p := recorded
		p.Attempts, p.Error = attempts, "not reached"
		return p
	}
	notInTx := func(ack ports.GLAck, err error) func(context.Context, ports.GLJournal) (ports.GLAck, error) {
		return func(context.Context, ports.GLJournal) (ports.GLAck, error) {
			if d.inTx {
				t.Error("the general ledger called inside a transaction")
			}
			return ack, err
		}
	}
	ack := acked("GL-1", journal)
	acknowledged := recorded
	acknowledged.Reference, acknowledged.Acknowledged = ack.Ref, &domain.Turnover{Debits: ack.Debits, Credits: ack.Credits}
	var calls []any
	calls = append(calls,
		// The first close: the day is closed and recorded, its post fails.
		books.EXPECT().LastClosed(gomock.Any(), "").Return(time.Time{}, false, nil),
		books.EXPECT().Start(gomock.Any()).Return(yesterday.AddDate(0, 0, -5), true, nil),
		books.EXPECT().LoansToClose(gomock.Any(), gomock.Any(), yesterday, uuid.Nil, gomock.Any()).Return(loans, nil),
		books.EXPECT().SaveClosed(gomock.Any(), loans, gomock.Any(), gomock.Any()).Return(nil),
		books.EXPECT().LoansToClose(gomock.Any(), gomock.Any(), yesterday, loans[0].ID(), gomock.Any()).Return(nil, nil),
		books.EXPECT().MarkClosed(gomock.Any(), "", []time.Time{yesterday}, gomock.Any()).Return(nil),
		books.EXPECT().UnacknowledgedGLPosts(gomock.Any()).Return(nil, nil),
		books.EXPECT().UnpostedClosedDays(gomock.Any()).Return([]time.Time{yesterday}, nil),
		books.EXPECT().GLPosts(gomock.Any(), yesterday).Return(nil, nil),
		books.EXPECT().TrialBalance(gomock.Any(), yesterday).Return([]ports.TrialBalanceLine{
			{Kind: domain.AccountInterestIncome, Credits: 7671}, {Kind: domain.AccountInterestReceivable, Debits: 7671},
			{Kind: domain.AccountLoan, Debits: 10}, {Kind: domain.AccountDemand, Credits: 10}}, nil),
		books.EXPECT().AddGLPost(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, p ports.GLPost) (bool, error) {
			if !d.inTx || !reflect.DeepEqual(p.Journal, journal) {
				t.Errorf("recorded %+v (in a transaction: %v), want %+v", p.Journal, d.inTx, journal)
			}
			return true, nil
		}),
		gl.EXPECT().PostJournal(gomock.Any(), journal).DoAndReturn(notInTx(ports.GLAck{}, ports.ErrGatewayTransient)),
		books.EXPECT().FailGLPost(gomock.Any(), yesterday, 1, gomock.Any()).Return(nil),
	)
	// The day is proved all the same: its post, not acknowledged, is not compared yet.
	calls = append(calls, proofOf(t, d, books, rec, yesterday, []ports.GLPost{recorded}, nil)...)
	calls = append(calls,
		// The next close: nothing to close; the post is sent again and fails again: nothing
		// to prove.
		books.EXPECT().LastClosed(gomock.Any(), "").Return(yesterday, true, nil),
		books.EXPECT().UnacknowledgedGLPosts(gomock.Any()).Return([]ports.GLPost{failed(1)}, nil),
		books.EXPECT().UnpostedClosedDays(gomock.Any()).Return(nil, nil),
		gl.EXPECT().PostJournal(gomock.Any(), journal).DoAndReturn(notInTx(ports.GLAck{}, ports.ErrGatewayNotReached)),
		books.EXPECT().FailGLPost(gomock.Any(), yesterday, 1, gomock.Any()).Return(nil),
		// The one after: the post is sent again, the same, and acknowledged.
		books.EXPECT().LastClosed(gomock.Any(), "").Return(yesterday, true, nil),
		books.EXPECT().UnacknowledgedGLPosts(gomock.Any()).Return([]ports.GLPost{failed(2)}, nil),
		books.EXPECT().UnpostedClosedDays(gomock.Any()).Return(nil, nil),
		gl.EXPECT().PostJournal(gomock.Any(), journal).DoAndReturn(notInTx(ack, nil)),
		books.EXPECT().AcknowledgeGLPost(gomock.Any(), yesterday, 1, ack, gomock.Any()).Return(nil),
	)
	// Its day is proved again, the acknowledgement compared.
	calls = append(calls, proofOf(t, d, books, rec, yesterday, []ports.GLPost{acknowledged}, nil)...)
	calls = append(calls,
		// And the one after: nothing left to post, nothing to prove.
		books.EXPECT().LastClosed(gomock.Any(), "").Return(yesterday, true, nil),
		books.EXPECT().UnacknowledgedGLPosts(gomock.Any()).Return(nil, nil),
		books.EXPECT().UnpostedClosedDays(gomock.Any()).Return(nil, nil),
	)
	gomock.InOrder(calls...)
	done, err := h.Close(context.Background(), time.Time{})
	if !errors.Is(err, application.ErrGLNotAcknowledged) || !errors.Is(err, ports.ErrGatewayTransient) || len(done) != 1 {
		t.Fatalf("first close: %+v, %v; want the day closed and ErrGLNotAcknowledged", done, err)
	}
	if done, err := h.Close(context.Background(), time.Time{}); !errors.Is(err, ports.ErrGatewayNotReached) || len(done) != 0 {
		t.Fatalf("the close while the general ledger is down: %+v, %v", done, err)
	}
	// Each failed post is told to the on-call engineer, not final: the next close sends it again.
	day := yesterday.Format(domain.DateLayout)
	if len(d.told) != 2 {
		t.Fatalf("told %+v, want the two failed posts", d.told)
	}
	for i, f := range d.told {
		if f.Event != "books.gl_post_failed" || f.Object != "books_day:"+day || f.Detail != "sequence 1" ||
			f.Target != "general_ledger" || f.Attempt != i+1 || f.Final || f.Reason == "" {
			t.Errorf("told %+v", f)
		}
	}
	if done, err := h.Close(context.Background(), time.Time{}); err != nil || len(done) != 0 {
		t.Fatalf("second close: %+v, %v", done, err)
	}
	if len(d.told) != 2 {
		t.Errorf("told %+v after the post was acknowledged, want nothing more", d.told[2:])
	}
	if done, err := h.Close(context.Background(), time.Time{}); err != nil || len(done) != 0 {
		t.Fatalf("third close: %+v, %v", done, err)
	}
}

// TestEntriesDatedADayPostedAlreadyGoAsItsNextSequence: the difference only, under the next
// sequence; a day recorded by another node meanwhile is not sent by this one.
func TestEntriesDatedADayPostedAlreadyGoAsItsNextSequence(t *testing.T) {
	t.Parallel()
	d := setup(t)
	ctrl := gomock.NewController(t)
	books, gl, rec := mocks.NewMockBooksRepository(ctrl), mocks.NewMockGeneralLedger(ctrl), mocks.NewMockReconciliationRepository(ctrl)
	h := closeHandler(d, books, gl, rec)
	yesterday := domain.BusinessDate(t0).AddDate(0, 0, -1)
	before := yesterday.AddDate(0, 0, -1)
	first := ports.GLPost{Journal: ports.GLJournal{IdempotencyKey: ports.GLKey(before, 1), Day: before, Sequence: 1,
		Lines: []ports.GLLine{{GL: "16307", Debits: 7671}, {GL: "42001", Credits: 7671}}}, Reference: "GL-1"}
	second := ports.GLJournal{IdempotencyKey: ports.GLKey(before, 2), Day: before, Sequence: 2,
		Lines: []ports.GLLine{{GL: "16103", Debits: 500}, {GL: "16307", Credits: 500}}}
	calls := []any{
		books.EXPECT().LastClosed(gomock.Any(), "").Return(before, true, nil),
		books.EXPECT().Start(gomock.Any()).Return(before.AddDate(0, 0, -5), true, nil),
		books.EXPECT().LoansToClose(gomock.Any(), gomock.Any(), yesterday, uuid.Nil, gomock.Any()).Return(nil, nil),
		books.EXPECT().MarkClosed(gomock.Any(), "", []time.Time{yesterday}, gomock.Any()).Return(nil),
		books.EXPECT().UnacknowledgedGLPosts(gomock.Any()).Return(nil, nil),
		books.EXPECT().UnpostedClosedDays(gomock.Any()).Return([]time.Time{yesterday}, nil),
		// A payment of 500 dated the day before, after its post.
		books.EXPECT().GLPosts(gomock.Any(), before).Return([]ports.GLPost{first}, nil),
		books.EXPECT().TrialBalance(gomock.Any(), before).Return([]ports.TrialBalanceLine{
			{Kind: domain.AccountInterestReceivable, Debits: 7671, Credits: 500}, {Kind: domain.AccountInterestIncome, Credits: 7671},
			{Kind: domain.AccountRepaymentClearing, Debits: 500}}, nil),
		books.EXPECT().AddGLPost(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, p ports.GLPost) (bool, error) {
			if !reflect.DeepEqual(p.Journal, second) {
				t.Errorf("recorded %+v, want %+v", p.Journal, second)
			}
			return true, nil
		}),
		gl.EXPECT().PostJournal(gomock.Any(), second).Return(acked("GL-2", second), nil),
		books.EXPECT().AcknowledgeGLPost(gomock.Any(), before, 2, acked("GL-2", second), gomock.Any()).Return(nil),
		// Yesterday: another node recorded its post first, and sends it.
		books.EXPECT().GLPosts(gomock.Any(), yesterday).Return(nil, nil),
		books.EXPECT().TrialBalance(gomock.Any(), yesterday).Return(nil, nil),
		books.EXPECT().AddGLPost(gomock.Any(), gomock.Any()).Return(false, nil),
	}
	// Both days are proved: the day before with its two posts (the first acknowledged before
	// tiyin kept core banking's totals: not compared), yesterday with none of its own yet.
	secondPost := ports.GLPost{Journal: second, Reference: "GL-2", Acknowledged: &domain.Turnover{Debits: 500, Credits: 500}}
	calls = append(calls, proofOf(t, d, books, rec, before, []ports.GLPost{first, secondPost}, nil)...)
	calls = append(calls, proofOf(t, d, books, rec, yesterday, nil, nil)...)
	gomock.InOrder(calls...)
	if _, err := h.Close(context.Background(), time.Time{}); err != nil {
		t.Fatal(err)
	}
}

// glBooks is the books repository of the general ledger's posts, on the mocks: the days closed
// and the posts recorded, as the store keeps them.
type glBooks struct {
	closed map[time.Time]bool
	posts  map[time.Time][]ports.GLPost
}

func (g *glBooks) expect(books *mocks.MockBooksRepository, failAdd func(ports.GLPost) error) {
	books.EXPECT().LastClosed(gomock.Any(), "").DoAndReturn(func(context.Context, string) (time.Time, bool, error) {
		var last time.Time
		for d := range g.closed {
			if d.After(last) {
				last = d
			}
		}
		return last, !last.IsZero(), nil
	}).AnyTimes()
	books.EXPECT().Start(gomock.Any()).Return(t0.AddDate(0, 0, -30), true, nil).AnyTimes()
	books.EXPECT().LoansToClose(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).Return(nil, nil).AnyTimes()
	books.EXPECT().MarkClosed(gomock.Any(), "", gomock.Any(), gomock.Any()).DoAndReturn(
		func(_ context.Context, _ string, days []time.Time, _ ports.ClosedDay) error {
			for _, d := range days {
				g.closed[d] = true
			}
			return nil
		}).AnyTimes()
	books.EXPECT().UnacknowledgedGLPosts(gomock.Any()).DoAndReturn(func(context.Context) ([]ports.GLPost, error) {
		var out []ports.GLPost
		for _, d := range g.days() {
			for _, p := range g.posts[d] {
				if p.Reference == "" {
					out = append(out, p)
				}
			}
		}
		return out, nil
	}).AnyTimes()
	books.EXPECT().UnpostedClosedDays(gomock.Any()).DoAndReturn(func(context.Context) ([]time.Time, error) {
		var out []time.Time
		for _, d := range g.days() {
			if len(g.posts[d]) == 0 {
				out = append(out, d)
			}
		}
		return out, nil
	}).AnyTimes()
	books.EXPECT().GLPosts(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, d time.Time) ([]ports.GLPost, error) {
		return g.posts[d], nil
	}).AnyTimes()
	// Each day's journal: its day of the month as interest accrued.
	books.EXPECT().TrialBalance(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, d time.Time) ([]ports.TrialBalanceLine, error) {
		n := int64(d.Day())
		return []ports.TrialBalanceLine{{Kind: domain.AccountInterestReceivable, Debits: n}, {Kind: domain.AccountInterestIncome, Credits: n}}, nil
	}).AnyTimes()
	books.EXPECT().AddGLPost(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, p ports.GLPost) (bool, error) {
		if err := failAdd(p); err != nil {
			return false, err
		}
		for _, q := range g.posts[p.Journal.Day] {
			if q.Journal.Sequence == p.Journal.Sequence {
				return false, nil
			}
		}
		g.posts[p.Journal.Day] = append(g.posts[p.Journal.Day], p)
		return true, nil
	}).AnyTimes()
	books.EXPECT().AcknowledgeGLPost(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(
		func(_ context.Context, d time.Time, seq int, ack ports.GLAck, _ time.Time) error {
			for i := range g.posts[d] {
				if g.posts[d][i].Journal.Sequence == seq {
					g.posts[d][i].Reference = ack.Ref
					g.posts[d][i].Acknowledged = &domain.Turnover{Debits: ack.Debits, Credits: ack.Credits}
				}
			}
			return nil
		}).AnyTimes()
	books.EXPECT().FailGLPost(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).Return(nil).AnyTimes()
	books.EXPECT().Subledger(gomock.Any(), gomock.Any()).Return(nil, nil).AnyTimes()
}

// days are the days closed or posted, in order.
func (g *glBooks) days() []time.Time {
	var out []time.Time
	for d := range g.closed {
		out = append(out, d)
	}
	for d := range g.posts {
		if !g.closed[d] {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, time.Time.Compare)
	return out
}

// TestEveryClosedDayIsPostedToTheGLInOrder: a close of three days whose post of the second
// fails (the general ledger, or recording it) leaves that day and the next closed, not posted;
// the next close, with nothing to close, posts both, after it, so that the general ledger
// acknowledges each of the three days once, in day order.
func TestEveryClosedDayIsPostedToTheGLInOrder(t *testing.T) {
	t.Parallel()
	yesterday := domain.BusinessDate(t0).AddDate(0, 0, -1)
	d1, d2, d3 := yesterday.AddDate(0, 0, -2), yesterday.AddDate(0, 0, -1), yesterday
	down := errors.New("books_gl_posts: the connection was reset")
	cases := []struct {
		name    string
		glFails bool // else recording day 2's post fails
		want    error
	}{
		{"the general ledger fails day 2", true, application.ErrGLNotAcknowledged},
		{"recording day 2's post fails", false, down},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := setup(t)
			ctrl := gomock.NewController(t)
			books, gl, rec := mocks.NewMockBooksRepository(ctrl), mocks.NewMockGeneralLedger(ctrl), mocks.NewMockReconciliationRepository(ctrl)
			h := closeHandler(d, books, gl, rec)
			rec.EXPECT().Record(gomock.Any(), gomock.Any(), gomock.Any()).Return(0, nil).AnyTimes()
			rec.EXPECT().Standing(gomock.Any(), gomock.Any(), domain.SourceBooks).Return(map[string]int{}, nil).AnyTimes()
			// The day before is closed and posted already.
			before := d1.AddDate(0, 0, -1)
			g := &glBooks{closed: map[time.Time]bool{before: true}, posts: map[time.Time][]ports.GLPost{before: {{
				Journal: ports.GLJournal{IdempotencyKey: ports.GLKey(before, 1), Day: before, Sequence: 1,
					Lines: []ports.GLLine{{GL: "16307", Debits: int64(before.Day())}, {GL: "42001", Credits: int64(before.Day())}}},
				Reference: "GL-0"}}}}
			failing := true
			g.expect(books, func(p ports.GLPost) error {
				if !tc.glFails && failing && p.Journal.Day.Equal(d2) {
					failing = false
					return down
				}
				return nil
			})
			var acknowledged []string
			gl.EXPECT().PostJournal(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, j ports.GLJournal) (ports.GLAck, error) {
				if d.inTx {
					t.Error("the general ledger called inside a transaction")
				}
				if tc.glFails && failing && j.Day.Equal(d2) {
					failing = false
					return ports.GLAck{}, ports.ErrGatewayNotReached
				}
				acknowledged = append(acknowledged, j.IdempotencyKey)
				return acked("GL-"+j.IdempotencyKey, j), nil
			}).AnyTimes()

			done, err := h.Close(context.Background(), time.Time{})
			if !errors.Is(err, tc.want) || len(done) != 1 || !done[0].Through.Equal(d3) {
				t.Fatalf("the close of three days: %+v, %v; want them closed and %v", done, err, tc.want)
			}
			// The next run of the daily job: nothing to close, the days left are posted.
			if done, err := h.Close(context.Background(), time.Time{}); err != nil || len(done) != 0 {
				t.Fatalf("the next close: %+v, %v", done, err)
			}
			want := []string{ports.GLKey(d1, 1), ports.GLKey(d2, 1), ports.GLKey(d3, 1)}
			if !slices.Equal(acknowledged, want) {
				t.Fatalf("the general ledger acknowledged %v, want %v: each day once, in order", acknowledged, want)
			}
			for _, day := range []time.Time{d1, d2, d3} {
				if posts := g.posts[day]; len(posts) != 1 || !ports.GLDayAcknowledged(posts) {
					t.Fatalf("%s: posts %+v", day.Format(domain.DateLayout), posts)
				}
			}
			// And a close after that posts nothing more.
			if _, err := h.Close(context.Background(), time.Time{}); err != nil || len(acknowledged) != 3 {
				t.Fatalf("a third close: %v, %d posts acknowledged", err, len(acknowledged))
			}
		})
	}
}
