package store_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// TestTheBooksCloseLoansAndReportTheDay runs a close of two loans through the repository: the
// loans the close must visit, their books and postings saved, the day recorded, and the day's
// trial balance and journal.
func TestTheBooksCloseLoansAndReportTheDay(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		books := store.NewBooksRepository(s.db)
		first := s.fundedLoan(t, 1_000_000_000)
		second := s.fundedLoan(t, 500_000_000)
		gone := s.fundedLoanOf(t, s.partner, 100_000_000, t0) // paid off before its first close: never visited
		issued := domain.BusinessDate(t0)
		through := issued.AddDate(0, 0, 2)
		rules := domain.DefaultBooksRules()

		if _, ok, err := books.Start(ctx); ok || err != nil {
			t.Fatalf("a start before any close (%v)", err)
		}
		var closed []*domain.Loan
		var postings []domain.Posting
		var opened []uuid.UUID
		err := s.uow.Do(ctx, func(ctx context.Context) error {
			loans, err := books.LoansToClose(ctx, ports.Partners{}, through, uuid.Nil, 10)
			if err != nil {
				return err
			}
			for _, l := range loans {
				if l.ID() == gone.ID() {
					t.Error("a loan paid off before its first close is visited")
				}
				ps, err := l.CloseBooks(issued, through, rules)
				if err != nil {
					return err
				}
				postings, opened = append(postings, ps...), append(opened, l.ID())
			}
			closed = loans
			return books.SaveClosed(ctx, loans, opened, postings)
		})
		if err != nil || len(closed) != 2 || len(postings) != 6 {
			t.Fatalf("closed %d loans, %d postings (%v)", len(closed), len(postings), err)
		}
		if err := books.MarkClosed(ctx, "", []time.Time{issued, issued.AddDate(0, 0, 1), through},
			ports.ClosedDay{At: t0, Loans: 2, Postings: 6, Duration: time.Second}); err != nil {
			t.Fatal(err)
		}
		// Closed through the day: nothing left to visit; the books are stored with the loan.
		var left []*domain.Loan
		if err := s.uow.Do(ctx, func(ctx context.Context) error {
			left, err = books.LoansToClose(ctx, ports.Partners{}, through, uuid.Nil, 10)
			return err
		}); err != nil || len(left) != 0 {
			t.Fatalf("%d loans left to close (%v)", len(left), err)
		}
		stored, err := s.loans.Get(ctx, first.ID())
		if err != nil {
			t.Fatal(err)
		}
		st, ok := stored.Books()
		// 3 days of 1 000 000 000 at 28 %: 2 301 369.86 → 2 301 370.
		if !ok || !st.Day.Equal(through) || st.InterestReceivable != 2_301_370 {
			t.Fatalf("stored books %+v", st)
		}
		if got, err := s.ledger.Balance(ctx, domain.LoanAccount(domain.AccountInterestReceivable, first.ID())); err != nil || got != 2_301_370 {
			t.Fatalf("interest receivable %d (%v)", got, err)
		}
		if start, ok, err := books.Start(ctx); !ok || err != nil || !start.Equal(issued) {
			t.Fatalf("start %s (%v)", start, err)
		}
		if last, ok, err := books.LastClosed(ctx, ""); !ok || err != nil || !last.Equal(through) {
			t.Fatalf("last closed %s (%v)", last, err)
		}

		lines, err := books.TrialBalance(ctx, through)
		if err != nil {
			t.Fatal(err)
		}
		by := map[domain.AccountKind]ports.TrialBalanceLine{}
		var debits, credits, closing int64
		for _, l := range lines {
			by[l.Kind] = l
			debits, credits, closing = debits+l.Debits, credits+l.Credits, closing+l.Opening+l.Debits-l.Credits
		}
		// The last day's interest: 1 000 000 000 and 500 000 000 for a day, each the difference
		// of its running total: 767 123 and 383 562.
		if ir := by[domain.AccountInterestReceivable]; ir.Opening != 1_534_247+767_123 || ir.Debits != 767_123+383_562 {
			t.Fatalf("interest receivable line %+v", ir)
		}
		if debits != credits || closing != 0 || by[domain.AccountLoan].Opening != 1_600_000_000 {
			t.Fatalf("debits %d, credits %d, closing %d, loan %+v", debits, credits, closing, by[domain.AccountLoan])
		}
		journal, err := books.Journal(ctx, through)
		if err != nil {
			t.Fatal(err)
		}
		var jd int64
		for _, j := range journal {
			if j.Kind != "CLOSE" || !j.At.Equal(domain.CloseAt(through)) {
				t.Fatalf("journal line %+v", j)
			}
			jd += j.Debit
		}
		if jd != debits {
			t.Fatalf("journal debits %d, trial balance's %d", jd, debits)
		}
		if c, err := s.ledger.Check(ctx); err != nil || !c.OK() {
			t.Fatalf("ledger check %+v (%v)", c, err)
		}
		_ = second
	})
}

// TestTheBooksKeepTheGeneralLedgerPosts: a day's post to the general ledger is recorded once
// per sequence with its lines, stays unacknowledged through failed attempts, and is
// acknowledged with core banking's reference.
func TestTheBooksKeepTheGeneralLedgerPosts(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		books := store.NewBooksRepository(s.db)
		day := domain.BusinessDate(t0)
		post := func(d time.Time, seq int, debit int64) ports.GLPost {
			return ports.GLPost{Journal: ports.GLJournal{IdempotencyKey: ports.GLKey(d, seq), Day: d, Sequence: seq,
				Lines: []ports.GLLine{{GL: "16307", Debits: debit}, {GL: "42001", Credits: debit}}}, CreatedAt: t0}
		}
		add := func(p ports.GLPost) bool {
			t.Helper()
			var added bool
			if err := s.uow.Do(ctx, func(ctx context.Context) (err error) {
				added, err = books.AddGLPost(ctx, p)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return added
		}
		if !add(post(day, 1, 7671)) || !add(post(day.AddDate(0, 0, 1), 1, 5)) {
			t.Fatal("a new post was not recorded")
		}
		if add(post(day, 1, 9999)) {
			t.Fatal("a second post under the same day and sequence was recorded")
		}
		got, err := books.GLPosts(ctx, day)
		if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0].Journal, post(day, 1, 7671).Journal) ||
			got[0].Reference != "" || !got[0].CreatedAt.Equal(t0) {
			t.Fatalf("the day's posts: %+v, %v", got, err)
		}
		err = s.uow.Do(ctx, func(ctx context.Context) error {
			if err := books.FailGLPost(ctx, day, 1, "core banking is down"); err != nil {
				return err
			}
			return books.FailGLPost(ctx, day, 1, "no answer")
		})
		if err != nil {
			t.Fatal(err)
		}
		pending, err := books.UnacknowledgedGLPosts(ctx)
		if err != nil || len(pending) != 2 || !pending[0].Journal.Day.Equal(day) || pending[0].Attempts != 2 ||
			pending[0].Error != "no answer" || !pending[1].Journal.Day.Equal(day.AddDate(0, 0, 1)) {
			t.Fatalf("unacknowledged: %+v, %v", pending, err)
		}
		at := t0.Add(time.Hour)
		if got[0].Acknowledged != nil {
			t.Fatalf("totals of a post not acknowledged: %+v", got[0].Acknowledged)
		}
		ack := ports.GLAck{Ref: "GL-1", Debits: 7671, Credits: 7670}
		if err := s.uow.Do(ctx, func(ctx context.Context) error { return books.AcknowledgeGLPost(ctx, day, 1, ack, at) }); err != nil {
			t.Fatal(err)
		}
		got, err = books.GLPosts(ctx, day)
		if err != nil || len(got) != 1 || got[0].Reference != "GL-1" || !got[0].AcknowledgedAt.Equal(at) || got[0].Error != "" ||
			got[0].Acknowledged == nil || *got[0].Acknowledged != (domain.Turnover{Debits: 7671, Credits: 7670}) {
			t.Fatalf("acknowledged: %+v, %v", got, err)
		}
		if pending, err := books.UnacknowledgedGLPosts(ctx); err != nil || len(pending) != 1 || pending[0].Journal.Sequence != 1 ||
			!pending[0].Journal.Day.Equal(day.AddDate(0, 0, 1)) {
			t.Fatalf("unacknowledged after the acknowledgement: %+v, %v", pending, err)
		}
	})
}
