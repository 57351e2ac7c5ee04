package e2e

import (
	"encoding/json"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
)

// TestTheBooksCloseOnThePartnersClock issues a loan, moves the partner's clock 10 days on,
// closes its books through the partner's date and reads the trial balance: balanced, with
// interest receivable; a second close changes nothing.
func TestTheBooksCloseOnThePartnersClock(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, d store.Dialect) {
		s := start(t, d)
		s.issuedLoan(t, "31234567890123")
		now, err := time.Parse(time.RFC3339Nano, s.must(t, "/sandbox/clock/advance", map[string]any{"duration": "240h"})["now"].(string))
		if err != nil {
			t.Fatal(err)
		}
		day := domain.BusinessDate(now).Format(time.DateOnly)

		closed := s.tiyin(t, "books", "close", "--date", day)
		if !strings.Contains(closed, "closed through "+day) {
			t.Fatalf("close: %s", closed)
		}
		type trial struct {
			Date     string
			Accounts []struct {
				Kind, GL                          string
				Opening, Debits, Credits, Closing int64
			}
			Debits, Credits int64
			GeneralLedger   struct {
				Acknowledged bool
				Posts        []struct {
					Sequence         int
					Debits, Credits  int64
					Reference, Error string
				}
			}
		}
		read := func() (trial, string) {
			raw := s.tiyin(t, "books", "trial-balance", "--date", day, "--json")
			var tb trial
			if err := json.Unmarshal([]byte(raw), &tb); err != nil {
				t.Fatalf("trial balance: %v\n%s", err, raw)
			}
			return tb, raw
		}
		tb, raw := read()
		var receivable, total int64
		for _, a := range tb.Accounts {
			if a.GL == "" {
				t.Fatalf("%s has no general ledger account: %s", a.Kind, raw)
			}
			if a.Kind == "INTEREST_RECEIVABLE" {
				receivable = a.Closing
			}
			if !strings.HasPrefix(a.Kind, "MEMO_") {
				total += a.Closing
			}
		}
		// 11 days (the issue day and 10 more) of 500 000 000 at 28 %: 4 219 178.08 → 4 219 178.
		if tb.Date != day || tb.Debits != tb.Credits || tb.Debits == 0 || total != 0 || receivable != 4_219_178 {
			t.Fatalf("trial balance of %s: debits %d, credits %d, closing balances sum %d, interest receivable %d, want 4 219 178:\n%s",
				day, tb.Debits, tb.Credits, total, receivable, raw)
		}
		// The close posted the day's journal to the sandbox's general ledger, which acknowledged it.
		if gl := tb.GeneralLedger; !gl.Acknowledged || len(gl.Posts) != 1 || gl.Posts[0].Sequence != 1 ||
			!strings.HasPrefix(gl.Posts[0].Reference, "GL-"+strings.ReplaceAll(day, "-", "")+"-1-") ||
			gl.Posts[0].Debits != tb.Debits || gl.Posts[0].Credits != tb.Credits {
			t.Fatalf("the general ledger's acknowledgement of %s: %+v\n%s", day, gl, raw)
		}
		// The loan book's report reads the same balances: its accrued charges are the receivable,
		// its interest income line the income account, and its balance sheet balances.
		var report struct {
			Date  string
			Lines []struct {
				Section, Line string
				Day, Closing  int64
			}
			Assets, Liabilities, ResultDay, ResultToDate int64
		}
		rawReport := s.tiyin(t, "books", "report", "--date", day, "--json")
		if err := json.Unmarshal([]byte(rawReport), &report); err != nil {
			t.Fatalf("report: %v\n%s", err, rawReport)
		}
		lines := map[string]int64{}
		for _, l := range report.Lines {
			lines[l.Line] = l.Closing
		}
		var income int64
		for _, a := range tb.Accounts {
			if a.Kind == "INTEREST_INCOME" {
				income = -a.Closing
			}
		}
		if report.Date != day || report.Assets != report.Liabilities || report.Assets == 0 || lines["ACCRUED_CHARGES"] != receivable ||
			lines["INTEREST_INCOME"] != income || income == 0 {
			t.Fatalf("report of %s: assets %d, liabilities %d, accrued %d (receivable %d), interest income %d (account %d):\n%s",
				day, report.Assets, report.Liabilities, lines["ACCRUED_CHARGES"], receivable, lines["INTEREST_INCOME"], income, rawReport)
		}
		// The day's close: one day's interest, 383 561.64 → 383 562 (the running total's rounding).
		journal := s.tiyin(t, "books", "journal", "--date", day)
		if !strings.Contains(journal, ",CLOSE,") || !strings.Contains(journal, ",INTEREST_RECEIVABLE,") ||
			!strings.Contains(journal, ",16307,383562,0") {
			t.Fatalf("journal:\n%s", journal)
		}

		again := s.tiyin(t, "books", "close", "--date", day)
		if after, raw2 := read(); !strings.Contains(again, "closed already") || after.Debits != tb.Debits || raw2 != raw {
			t.Fatalf("a second close: %s\n%s", again, raw2)
		}
		if out := s.tiyin(t, "ledger", "check"); !strings.Contains(out, "ledger consistent") {
			t.Fatalf("ledger check: %s", out)
		}
		if d != store.Postgres {
			return
		}
		// Two nodes closing the next day at once close each loan once.
		s.must(t, "/sandbox/clock/advance", map[string]any{"duration": "24h"})
		next := domain.BusinessDate(now).AddDate(0, 0, 1).Format(time.DateOnly)
		var wg sync.WaitGroup
		outs := make([]string, 2)
		for i := range outs {
			wg.Add(1)
			go func() { // t.Fatal must not be called off the test's goroutine: errors are kept
				defer wg.Done()
				cmd := exec.Command(binary, "books", "close", "--date", next)
				cmd.Env = s.env
				out, err := cmd.CombinedOutput()
				if outs[i] = string(out); err != nil {
					t.Errorf("a concurrent close: %v\n%s", err, out)
				}
			}()
		}
		wg.Wait()
		postings := map[string]bool{}
		for _, line := range strings.Split(strings.TrimSpace(s.tiyin(t, "books", "journal", "--date", next)), "\n")[1:] {
			postings[strings.Split(line, ",")[0]] = true
		}
		if len(postings) != 1 {
			t.Fatalf("two closes of %s posted %d postings, want 1:\n%s\n%s", next, len(postings), outs[0], outs[1])
		}
		if out := s.tiyin(t, "ledger", "check"); !strings.Contains(out, "ledger consistent") {
			t.Fatalf("ledger check: %s", out)
		}
	})
}
