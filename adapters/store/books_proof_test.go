package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// skewedGL is a general ledger that acknowledges each journal with its totals, and with
// extra[key] tiyin more debits than were posted under key: a general ledger apart from tiyin's.
type skewedGL struct{ extra map[string]int64 }

func (g skewedGL) PostJournal(_ context.Context, j ports.GLJournal) (ports.GLAck, error) {
	t := j.Totals()
	return ports.GLAck{Ref: "GL-" + j.IdempotencyKey, Debits: t.Debits + g.extra[j.IdempotencyKey], Credits: t.Credits}, nil
}

// TestTheSubledgerIsReadAgainstItsControlAccountsAtADaysEnd: Subledger gives, for each kind, the
// sum over the loans' accounts (their kept balances taken back to the day's end) and the control
// account (the trial balance's closing balance), equal on untouched books, a day closed later
// included; a loan account's kept balance moved by SQL moves the sum over loans alone.
func TestTheSubledgerIsReadAgainstItsControlAccountsAtADaysEnd(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		books := store.NewBooksRepository(s.db)
		loan := s.fundedLoan(t, 1_000_000_000)
		issued := domain.BusinessDate(t0)
		clock := fixedClock{now: t0.AddDate(0, 0, 5)}
		h := &application.CloseBooksHandler{Clock: clock, UoW: s.uow, Books: books, GL: skewedGL{}, Reconcile: &application.ReconcileDayHandler{Clock: clock, UoW: s.uow, Processing: nil, CoreBanking: nil, Reconciliation: store.NewReconciliationRepository(s.db), Books: books, Settlement: application.TransferSettlement{UoW: s.uow, Transfers: nil, Ledger: nil, Clock: clock}}, Config: application.Config{}}
		for _, d := range []time.Time{issued, issued.AddDate(0, 0, 1)} { // the books start on the issue day
			if _, err := h.Close(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
		// The issue day, with the next day's entries after it: taken back from the kept balances.
		sub := subledger(t, books, issued)
		tb, err := books.TrialBalance(ctx, issued)
		if err != nil {
			t.Fatal(err)
		}
		closing := map[domain.AccountKind]int64{}
		for _, l := range tb {
			closing[l.Kind] = l.Opening + l.Debits - l.Credits
		}
		for _, k := range domain.AccountKinds() {
			if !k.PerLoan() {
				continue
			}
			if b := sub[k]; b.Loans != closing[k] || b.Control != closing[k] {
				t.Errorf("%s on %s: %+v, want the trial balance's %d on both sides", k, issued.Format(domain.DateLayout), b, closing[k])
			}
		}
		if r := sub[domain.AccountInterestReceivable]; r.Loans != 767_123 || sub[domain.AccountLoan].Loans != 1_000_000_000 {
			t.Fatalf("the issue day's interest receivable %+v and loan %+v", r, sub[domain.AccountLoan])
		}
		key := domain.LoanAccount(domain.AccountInterestReceivable, loan.ID()).Key()
		if err := s.db.Gorm.Exec("UPDATE ledger_accounts SET balance = balance + 7 WHERE key = ?", key).Error; err != nil {
			t.Fatal(err)
		}
		if r := subledger(t, books, issued)[domain.AccountInterestReceivable]; r.Loans != 767_123+7 || r.Control != 767_123 {
			t.Fatalf("after 7 tiyin on %s by SQL: %+v", key, r)
		}
	})
}

func subledger(t *testing.T, books *store.BooksRepository, day time.Time) map[domain.AccountKind]domain.SubledgerBalance {
	t.Helper()
	got, err := books.Subledger(context.Background(), day)
	if err != nil {
		t.Fatal(err)
	}
	out := map[domain.AccountKind]domain.SubledgerBalance{}
	for _, b := range got {
		if _, twice := out[b.Kind]; twice {
			t.Fatalf("%s listed twice", b.Kind)
		}
		out[b.Kind] = b
	}
	return out
}

// TestTheBooksProofRecordsWhatWasTamperedOnceAndNothingElse runs each close's daily proof on
// the store: days closed and acknowledged as posted prove clean; 7 tiyin put on a loan's
// interest receivable by SQL are one SUBLEDGER_DIFFERS break with both figures, and a proof of
// the day again records nothing new; a general ledger acknowledging one tiyin more debits than
// a post holds is one GL_ACK_DIFFERS break. Nothing is adjusted: the ledger check still finds
// the tampered balance.
func TestTheBooksProofRecordsWhatWasTamperedOnceAndNothingElse(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		books, rec := store.NewBooksRepository(s.db), store.NewReconciliationRepository(s.db)
		loan := s.fundedLoan(t, 1_000_000_000)
		issued := domain.BusinessDate(t0)
		third := issued.AddDate(0, 0, 2)
		gl := skewedGL{extra: map[string]int64{ports.GLKey(third, 1): 1}}
		clock := fixedClock{now: t0.AddDate(0, 0, 5)}
		reconcile := &application.ReconcileDayHandler{Clock: clock, UoW: s.uow, Processing: nil, CoreBanking: nil, Reconciliation: rec, Books: books, Settlement: application.TransferSettlement{UoW: s.uow, Transfers: nil, Ledger: nil, Clock: clock}}
		h := &application.CloseBooksHandler{Clock: clock, UoW: s.uow, Books: books, GL: gl, Reconcile: reconcile, Config: application.Config{}}
		booksBreaks := func() []ports.BreakRecord {
			t.Helper()
			got, err := rec.Breaks(ctx, ports.BreakQuery{Source: domain.SourceBooks, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			return got
		}

		for _, d := range []time.Time{issued, issued.AddDate(0, 0, 1)} { // the books start on the issue day
			if _, err := h.Close(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
		if got := booksBreaks(); len(got) != 0 {
			t.Fatalf("untouched books: %+v", got)
		}
		if standing, err := rec.Standing(ctx, issued, domain.SourceBooks); err != nil || len(standing) != 0 {
			t.Fatalf("the issue day's standing %v (%v)", standing, err)
		}

		key := domain.LoanAccount(domain.AccountInterestReceivable, loan.ID()).Key()
		if err := s.db.Gorm.Exec("UPDATE ledger_accounts SET balance = balance + 7 WHERE key = ?", key).Error; err != nil {
			t.Fatal(err)
		}
		second := issued.AddDate(0, 0, 1)
		res, err := reconcile.Handle(ctx, application.ReconcileDay{Day: second, Source: domain.SourceBooks})
		if err != nil || res.New != 1 || len(res.NewBreaks) != 1 || res.Matched != res.Ours-1 {
			t.Fatalf("the proof after the tamper: %+v, %v", res, err)
		}
		// Two days' interest: 767 123.29 a day, 1 534 247 through the second.
		b := res.NewBreaks[0]
		if b.Kind != domain.BreakSubledgerDiffers || b.Source != domain.SourceBooks || b.LineID != "INTEREST_RECEIVABLE" ||
			b.Ours == nil || b.Ours.Amount != 1_534_247+7 || b.Theirs == nil || b.Theirs.Amount != 1_534_247 ||
			b.Status != ports.BreakOpen || !b.Day.Equal(second) {
			t.Fatalf("the break %+v, ours %+v, theirs %+v", b, b.Ours, b.Theirs)
		}
		again, err := reconcile.Handle(ctx, application.ReconcileDay{Day: second, Source: domain.SourceBooks})
		if err != nil || again.New != 0 || len(again.Found) != 1 || again.Standing[ports.BreakOpen] != 1 {
			t.Fatalf("the proof again: %+v, %v", again, err)
		}
		if c, err := s.ledger.Check(ctx); err != nil || len(c.Drifted) != 1 || c.Drifted[0] != key {
			t.Fatalf("the ledger check after the tamper: %+v (%v)", c, err)
		}
		if err := s.db.Gorm.Exec("UPDATE ledger_accounts SET balance = balance - 7 WHERE key = ?", key).Error; err != nil {
			t.Fatal(err)
		}

		// The third day's post, acknowledged with one tiyin more debits.
		if _, err := h.Close(ctx, third); err != nil {
			t.Fatal(err)
		}
		posts, err := books.GLPosts(ctx, third)
		if err != nil || len(posts) != 1 {
			t.Fatalf("the third day's posts: %+v (%v)", posts, err)
		}
		posted := posts[0].Journal.Totals()
		got, err := rec.Breaks(ctx, ports.BreakQuery{Source: domain.SourceBooks, Day: third, Limit: 100})
		if err != nil || len(got) != 1 {
			t.Fatalf("the third day's breaks: %+v (%v)", got, err)
		}
		g := got[0]
		if g.Kind != domain.BreakGLAckDiffers || g.LineID != third.Format(domain.DateLayout)+":1:DEBITS" || g.Ours.Amount != posted.Debits ||
			g.Theirs.Amount != posted.Debits+1 || posted.Debits == 0 || g.Ours.Kind != domain.LineGLPost {
			t.Fatalf("the break %+v, ours %+v, theirs %+v; posted %+v", g, g.Ours, g.Theirs, posted)
		}
		if all := booksBreaks(); len(all) != 2 {
			t.Fatalf("every break of the books: %+v", all)
		}
	})
}
