package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// A day of 100 000 card credits reconciles within a minute on PostgreSQL: tiyin's lines, the
// network's journal, the matching and the breaks (one in a hundred lines) recorded, and a
// second run adds nothing; then the day's closing balances over the 400 000 ledger entries of
// those transfers (docs/reconciliation.md quotes the times).
func TestReconcileADayOf100000LinesWithinAMinute(t *testing.T) {
	t.Parallel()
	s := setup(t, store.Postgres)
	ctx := context.Background()
	l := s.fundedLoan(t, 1_000_000)
	day := domain.BusinessDate(t0)
	start := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 1, 0, domain.Tashkent).UTC()
	const lines = 100_000
	// tiyin's transfers, SUCCESS, half a second apart; the journal lists the same, one in a
	// hundred with one tiyin more.
	err := s.db.Gorm.Exec(`INSERT INTO transfers (id, partner_id, application_id, loan_id, external_id, masked_pan, network, card_holder,
  amount, credit_token, status, created_at, finished_at, updated_at)
SELECT gen_random_uuid(), ?, ?, ?, gen_random_uuid(), '860012******9012', 'UZCARD', 'AZIZ KARIMOV', 1000 + i % 5000, 'CT', 'SUCCESS',
  ?::timestamptz + i * interval '500 milliseconds', ?::timestamptz + i * interval '500 milliseconds', ?::timestamptz + i * interval '500 milliseconds'
FROM generate_series(0, ? - 1) AS i`, s.partner.ID, l.ApplicationID(), l.ID(), start, start, start, lines).Error
	if err != nil {
		t.Fatal(err)
	}
	err = s.db.Gorm.Exec(`INSERT INTO sandbox_network_journal (kind, line_id, copy, network, amount, at, status)
SELECT 'CREDIT', id::text || ':CREDIT', 0, network, amount + CASE WHEN (EXTRACT(EPOCH FROM created_at - ?::timestamptz) * 2)::bigint % 100 = 7 THEN 1 ELSE 0 END,
  created_at, 'DONE' FROM transfers WHERE loan_id = ?`, start, l.ID()).Error
	if err != nil {
		t.Fatal(err)
	}
	rec, journal := store.NewReconciliationRepository(s.db), store.NewNetworkJournal(s.db)
	q := ports.StatementQuery{Network: domain.NetworkUzcard, Day: day}
	run := func() (time.Duration, int, int, int) {
		began := time.Now()
		ours := must(rec.Lines(ctx, q))
		theirs := must(journal.Lines(ctx, q))
		matched, breaks := domain.Reconcile(ours, theirs)
		var added int
		err := s.uow.Do(ctx, func(ctx context.Context) error {
			var err error
			added, err = rec.Record(ctx, ports.ReconciliationRun{ID: uuid.New(), Day: day, Source: q.Network.String(), At: t0, Matched: matched,
				Breaks: len(breaks)}, breaks)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return time.Since(began), matched, len(breaks), added
	}
	took, matched, breaks, added := run()
	if matched != lines-lines/100 || breaks != lines/100 || added != breaks {
		t.Fatalf("matched %d, breaks %d (%d new), want %d and %d", matched, breaks, added, lines-lines/100, lines/100)
	}
	if took > time.Minute {
		t.Fatalf("a day of %d lines took %s, over a minute", lines, took)
	}
	again, _, _, addedAgain := run()
	if addedAgain != 0 {
		t.Fatalf("the second run added %d breaks", addedAgain)
	}
	t.Logf("a day of %d lines on each side: %s; run again: %s", lines, took.Round(time.Millisecond), again.Round(time.Millisecond))

	// The day's closing balances read every ledger entry of the loans' accounts up to the day's
	// end: each transfer's hold and capture, 400 000 entries.
	for _, kind := range []string{domain.PostingTransferHold.String(), domain.PostingTransferCapture.String()} {
		err = s.db.Gorm.Exec(`INSERT INTO ledger_postings (id, kind, ref, created_at)
SELECT gen_random_uuid(), ?, id, created_at FROM transfers WHERE loan_id = ?`, kind, l.ID()).Error
		if err != nil {
			t.Fatal(err)
		}
	}
	err = s.db.Gorm.Exec(`INSERT INTO ledger_entries (posting_id, account_key, debit, credit)
SELECT p.id, CASE WHEN p.kind = ? THEN 'DEMAND:' ELSE 'HOLD:' END || t.loan_id::text, t.amount, 0
FROM ledger_postings p JOIN transfers t ON t.id = p.ref WHERE t.loan_id = ?
UNION ALL
SELECT p.id, CASE WHEN p.kind = ? THEN 'HOLD:' || t.loan_id::text ELSE 'CARD_SETTLEMENT' END, 0, t.amount
FROM ledger_postings p JOIN transfers t ON t.id = p.ref WHERE t.loan_id = ?`,
		domain.PostingTransferHold.String(), l.ID(), domain.PostingTransferHold.String(), l.ID()).Error
	if err != nil {
		t.Fatal(err)
	}
	var sent int64
	for i := range int64(lines) {
		sent += 1000 + i%5000
	}
	began := time.Now()
	balances := must(rec.Balances(ctx, day))
	tookBalances := time.Since(began)
	if len(balances) != 2 || balances[0].Kind != domain.LineDemand || balances[0].Balance != 1_000_000-sent || balances[1].Balance != 1_000_000 {
		t.Fatalf("balances %+v, want the demand account at %d", balances, 1_000_000-sent)
	}
	if tookBalances > time.Minute {
		t.Fatalf("the balances over %d entries took %s, over a minute", 4*lines+2, tookBalances)
	}
	t.Logf("the closing balances over %d ledger entries: %s", 4*lines+2, tookBalances.Round(time.Millisecond))
}
