package store_test

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// fixedClock is the system clock at a moment, no partner ahead.
type fixedClock struct{ now time.Time }

func (c fixedClock) Now(uuid.UUID) time.Time { return c.now }
func (fixedClock) Ahead() []uuid.UUID        { return nil }

// acknowledging is a general ledger that acknowledges every journal.
type acknowledging struct{}

func (acknowledging) PostJournal(_ context.Context, j ports.GLJournal) (ports.GLAck, error) {
	t := j.Totals()
	return ports.GLAck{Ref: "GL-" + j.IdempotencyKey, Debits: t.Debits, Credits: t.Credits}, nil
}

// booksScaleLoans is how many loans TestTheCloseOfManyLoans closes: TIYIN_BOOKS_BENCH_LOANS
// (make bench-books), else a few hundred.
func booksScaleLoans(t *testing.T) int {
	if v := os.Getenv("TIYIN_BOOKS_BENCH_LOANS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("TIYIN_BOOKS_BENCH_LOANS=%q: want a whole number ≥ 1", v)
		}
		return n
	}
	return 300
}

// booksCloseBudget is the slowest a day's close may run, in loans a second, with its general
// ledger post and its proof: 1 000 000 loans in 10 minutes. make bench-books holds every day to
// it (TIYIN_BOOKS_BENCH_BUDGET=1); make test only reports the figures.
const booksCloseBudget = 1_000_000 / 600.0

// TestTheCloseOfManyLoans clones one loan into many on PostgreSQL and closes their books, day
// after day: every loan is closed once a day, and it says how long each day took, whole (with
// the day's general ledger post and proof) and its loans' pass alone.
func TestTheCloseOfManyLoans(t *testing.T) {
	t.Parallel()
	s := setup(t, store.Postgres)
	ctx := context.Background()
	l := s.fundedLoan(t, 1_000_000_000)
	n := booksScaleLoans(t)
	seed := []string{
		`INSERT INTO applications SELECT (jsonb_populate_record(a, jsonb_build_object('id', md5('a' || i)::uuid,
		   'external_id', md5('e' || i)::uuid))).* FROM applications a, generate_series(1, $2::int) i WHERE a.id = $1`,
		`INSERT INTO loans SELECT (jsonb_populate_record(l, jsonb_build_object('id', md5('l' || i)::uuid,
		   'application_id', md5('a' || i)::uuid, 'contract_number', 'BOOKS' || i))).*
		 FROM loans l, generate_series(1, $2::int) i WHERE l.application_id = $1`,
		// Each clone is issued as the loan was: its accounts, with their balances, and its
		// issuance posting (every entry of which is on the loan's own accounts), so that the
		// ledger the close meets holds a posting a loan, as a real book does, and its check
		// stays exact.
		`INSERT INTO ledger_accounts (key, kind, loan_id, balance)
		 SELECT replace(x.key, x.loan_id::text, md5('l' || i)::uuid::text), x.kind, md5('l' || i)::uuid, x.balance
		 FROM ledger_accounts x JOIN loans l ON l.id = x.loan_id, generate_series(1, $2::int) i WHERE l.application_id = $1`,
		`INSERT INTO ledger_postings (id, kind, ref, created_at)
		 SELECT md5(p.id || '/' || i)::uuid, p.kind, md5('l' || i)::uuid, p.created_at
		 FROM ledger_postings p JOIN loans l ON l.id = p.ref, generate_series(1, $2::int) i WHERE l.application_id = $1`,
		`INSERT INTO ledger_entries (posting_id, account_key, debit, credit)
		 SELECT md5(e.posting_id || '/' || i)::uuid, replace(e.account_key, l.id::text, md5('l' || i)::uuid::text), e.debit, e.credit
		 FROM ledger_entries e JOIN ledger_postings p ON p.id = e.posting_id JOIN loans l ON l.id = p.ref,
		 generate_series(1, $2::int) i WHERE l.application_id = $1`,
		`VACUUM ANALYZE`,
	}
	started := time.Now()
	for _, q := range seed {
		args := []any{l.ApplicationID(), n}
		if q == `VACUUM ANALYZE` {
			args = nil
		}
		if err := s.db.Gorm.Exec(q, args...).Error; err != nil {
			t.Fatalf("seed: %v\n%s", err, q)
		}
	}
	t.Logf("seeded %d loans in %v", n+1, time.Since(started).Round(time.Millisecond))
	issued := domain.BusinessDate(t0)
	books := store.NewBooksRepository(s.db)
	clock := fixedClock{now: t0.AddDate(0, 1, 0)}
	reconcile := &application.ReconcileDayHandler{Clock: clock, UoW: s.uow, Processing: nil, CoreBanking: nil, Reconciliation: store.NewReconciliationRepository(s.db), Books: books, Settlement: application.TransferSettlement{UoW: s.uow, Transfers: nil, Ledger: nil, Clock: clock}}
	h := &application.CloseBooksHandler{Clock: clock, UoW: s.uow, Books: books, GL: acknowledging{}, Reconcile: reconcile, Config: application.Config{}}
	slow := false
	for d := range 3 {
		day := issued.AddDate(0, 0, d)
		began := time.Now()
		done, err := h.Close(ctx, day)
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(began)
		// The issue day's close opens each loan's books (its accounts): the later days show the
		// steady cost of a day.
		if len(done) != 1 || done[0].Loans != n+1 || done[0].Postings != n+1 {
			t.Fatalf("close of %s: %+v, want %d loans and postings", day.Format(domain.DateLayout), done, n+1)
		}
		rate := float64(done[0].Loans) / took.Seconds()
		t.Logf("close of %s: %d loans, %d postings in %v (%.0f loans/s), of which the loans' pass %v (%.0f loans/s)",
			day.Format(domain.DateLayout), done[0].Loans, done[0].Postings, took.Round(time.Millisecond), rate,
			done[0].Duration.Round(time.Millisecond), float64(done[0].Loans)/done[0].Duration.Seconds())
		slow = slow || rate < booksCloseBudget
	}
	if slow && os.Getenv("TIYIN_BOOKS_BENCH_BUDGET") != "" {
		t.Errorf("a day's close ran under %.0f loans/s, the rate that closes 1 000 000 loans in 10 minutes (above)", booksCloseBudget)
	}
	if again, err := h.Close(ctx, issued.AddDate(0, 0, 2)); err != nil || len(again) != 0 {
		t.Fatalf("a closed day again: %+v (%v)", again, err)
	}
	// Each close proved its days; the first day proved again (its kept balances taken back over
	// the two days after it) finds nothing either.
	started = time.Now()
	proof, err := reconcile.Handle(ctx, application.ReconcileDay{Day: issued, Source: domain.SourceBooks})
	if err != nil || len(proof.Found) != 0 || proof.Matched != proof.Ours {
		t.Fatalf("the books' proof of %s: %+v (%v)", issued.Format(domain.DateLayout), proof, err)
	}
	t.Logf("the books' proof of %s over %d loans: %v", issued.Format(domain.DateLayout), n+1, time.Since(started).Round(time.Millisecond))
	if open, err := store.NewReconciliationRepository(s.db).CountBreaks(ctx, ports.BreakQuery{Source: domain.SourceBooks}); err != nil || open != 0 {
		t.Fatalf("the closes' proofs recorded %d breaks (%v)", open, err)
	}
	if c, err := s.ledger.Check(ctx); err != nil || !c.OK() {
		t.Fatalf("ledger check: %+v (%v)", c, err)
	}
}
