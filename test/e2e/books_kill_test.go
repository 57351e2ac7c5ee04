package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
)

// TestACloseKilledInTheMiddleGoesOnFromWhereItStopped kills `tiyin books close` (SIGKILL) once
// some of its batches have committed and before the last: the loans it closed stay closed
// through the day, the others stay untouched, and the day is not recorded closed. The next close
// goes on from there, and every loan then holds what one uninterrupted close gives it: the same
// interest receivable as the loan it was cloned from, to the tiyin, and a balanced ledger.
func TestACloseKilledInTheMiddleGoesOnFromWhereItStopped(t *testing.T) {
	t.Parallel()
	s := start(t, store.Postgres)
	ctx := context.Background()
	var dbURL string
	for _, kv := range s.env {
		if v, ok := strings.CutPrefix(kv, "TIYIN_DATABASE_URL="); ok {
			dbURL = v
		}
	}
	db, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close(ctx) }()

	id := s.issuedLoan(t, "31234567890123")
	// The loan, cloned: the clones' accounts start empty (no issuance posting), so the ledger
	// stays exact, and each accrues what the loan does.
	const clones = 2_000
	for _, q := range []string{
		`INSERT INTO applications SELECT (jsonb_populate_record(a, jsonb_build_object('id', md5('a' || i)::uuid,
		   'external_id', md5('e' || i)::uuid))).* FROM applications a, generate_series(1, $2::int) i WHERE a.id = $1`,
		`INSERT INTO loans SELECT (jsonb_populate_record(l, jsonb_build_object('id', md5('l' || i)::uuid,
		   'application_id', md5('a' || i)::uuid, 'contract_number', 'KILL' || i))).*
		 FROM loans l, generate_series(1, $2::int) i WHERE l.application_id = $1`,
		`INSERT INTO ledger_accounts (key, kind, loan_id, balance)
		 SELECT replace(x.key, x.loan_id::text, md5('l' || i)::uuid::text), x.kind, md5('l' || i)::uuid, 0
		 FROM ledger_accounts x JOIN loans l ON l.id = x.loan_id, generate_series(1, $2::int) i WHERE l.application_id = $1::uuid`,
	} {
		if _, err := db.Exec(ctx, q, id, clones); err != nil {
			t.Fatalf("clone: %v\n%s", err, q)
		}
	}
	now, err := time.Parse(time.RFC3339Nano, s.must(t, "/sandbox/clock/advance", map[string]any{"duration": "240h"})["now"].(string))
	if err != nil {
		t.Fatal(err)
	}
	day := domain.BusinessDate(now).Format(time.DateOnly)
	// The server closes the books each minute too: only the command closes while it is down.
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	defer func() { // the cleanup stops it again
		s.launch(t)
		s.waitReady(t)
	}()
	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := db.QueryRow(ctx, q, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}

	killed := exec.Command(binary, "books", "close", "--date", day)
	killed.Env = s.env
	if err := killed.Start(); err != nil {
		t.Fatal(err)
	}
	closed := 0
	for deadline := time.Now().Add(time.Minute); closed == 0 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		closed = count(`SELECT count(*) FROM loans WHERE books_day = $1`, day)
	}
	_ = killed.Process.Kill()
	_ = killed.Wait()
	closed = count(`SELECT count(*) FROM loans WHERE books_day = $1`, day)
	if closed == 0 || closed > clones {
		t.Fatalf("the close was not killed in the middle: %d of %d loans closed through %s", closed, clones+1, day)
	}
	if n := count(`SELECT count(*) FROM loans WHERE books_day IS NOT NULL AND books_day <> $1`, day); n != 0 {
		t.Fatalf("%d loans closed part of the way after the kill", n)
	}
	if n := count(`SELECT count(*) FROM books_closed_days WHERE day = $1`, day); n != 0 {
		t.Fatalf("a close killed in the middle recorded %s closed", day)
	}
	t.Logf("killed with %d of %d loans closed through %s", closed, clones+1, day)

	if out := s.tiyin(t, "books", "close", "--date", day); !strings.Contains(out, "closed through "+day) {
		t.Fatalf("the close after the kill: %s", out)
	}
	if n := count(`SELECT count(*) FROM loans WHERE books_day = $1`, day); n != clones+1 {
		t.Fatalf("%d loans closed through %s, want %d", n, day, clones+1)
	}
	// Every loan holds what the loan holds on its own (TestTheBooksCloseOnThePartnersClock: 11
	// days of 500 000 000 at 28 % are 4 219 178).
	if n := count(`SELECT count(DISTINCT balance) FROM ledger_accounts WHERE kind = 'INTEREST_RECEIVABLE'`); n != 1 {
		t.Fatalf("the loans' interest receivable differs between loans: %d different balances", n)
	}
	var tb struct {
		Accounts []struct {
			Kind    string
			Closing int64
		}
		Debits, Credits int64
	}
	raw := s.tiyin(t, "books", "trial-balance", "--date", day, "--json")
	if err := json.Unmarshal([]byte(raw), &tb); err != nil {
		t.Fatalf("trial balance: %v\n%s", err, raw)
	}
	receivable := int64(-1)
	for _, a := range tb.Accounts {
		if a.Kind == "INTEREST_RECEIVABLE" {
			receivable = a.Closing
		}
	}
	if receivable != (clones+1)*4_219_178 {
		t.Fatalf("interest receivable %d, want %d × 4 219 178:\n%s", receivable, clones+1, raw)
	}
	if tb.Debits != tb.Credits || tb.Debits == 0 {
		t.Fatalf("trial balance of %s: debits %d, credits %d", day, tb.Debits, tb.Credits)
	}
	if out := s.tiyin(t, "ledger", "check"); !strings.Contains(out, "ledger consistent") {
		t.Fatalf("ledger check: %s", out)
	}
}
