package e2e

import (
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
)

// longLoanPayments is how many payments TestALongLoanAnswersQuickly makes on one loan:
// TIYIN_LONG_LOAN_PAYMENTS (make bench-long-loan: 1 800, five years of daily payments), else
// a hundred, so that make test walks the same path quickly.
func longLoanPayments(t *testing.T) int {
	if v := os.Getenv("TIYIN_LONG_LOAN_PAYMENTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("TIYIN_LONG_LOAN_PAYMENTS=%q: want a whole number ≥ 1", v)
		}
		return n
	}
	return 100
}

// longLoanBudget is the server time each of loan info, schedule, check and pay may take at the
// median on a loan with that many payments; make bench-long-loan holds the calls to it
// (TIYIN_LONG_LOAN_BUDGET=1), make test only reports the figures.
const longLoanBudget = 2 * time.Millisecond

// TestALongLoanAnswersQuickly: a loan of 5 000 000 so'm repaid early 1 000 so'm at a time, every
// 20 minutes of the sandbox clock (so every payment falls between the first due dates and
// recomputes the instalments after it), then each of info, schedule, check and pay asked 40
// times: the loan keeps every payment, and the server's own time for each call (the access log's
// latency) is reported, and held to longLoanBudget by make bench-long-loan.
func TestALongLoanAnswersQuickly(t *testing.T) {
	t.Parallel()
	n := longLoanPayments(t)
	s := start(t, store.Postgres)
	app := s.issuedLoan(t, "31234567890123")
	s.must(t, "/sandbox/clock/advance", map[string]any{"duration": "31m"})
	loanID := s.loanID(t, app)
	check := func() map[string]any { return s.must(t, "/repayment/loans/check", map[string]any{"loanId": loanID}) }
	pay := func(c map[string]any) map[string]any {
		return s.must(t, "/repayment/loans/pay", map[string]any{"loanId": loanID, "paymentType": "EARLY",
			"requestId": c["requestId"], "debitId": "DBT-" + uuid.NewString(), "amount": 100_000, "processingType": "HUMO"})
	}
	started := time.Now()
	for range n {
		s.must(t, "/sandbox/clock/advance", map[string]any{"duration": "20m"})
		if r := pay(check()); r["status"] != "SUCCESS" {
			t.Fatalf("pay: %v", r)
		}
	}
	t.Logf("%d payments made in %v", n, time.Since(started).Round(time.Millisecond))
	if got := len(s.must(t, "/microloans/payments", map[string]any{"loanId": loanID})["payments"].([]any)); got != n {
		t.Fatalf("the loan lists %d payments, want %d", got, n)
	}

	const rounds = 40
	asked := map[string][]string{} // endpoint → the envelope ids asked
	ask := func(path string, params map[string]any) map[string]any {
		id := uuid.NewString()
		asked[path] = append(asked[path], id)
		a := s.callWith(t, s.key, id, path, params)
		if a.code() != 0 {
			t.Fatalf("%s: %s", path, a.Raw)
		}
		return a.Result
	}
	for range rounds {
		ask("/microloans/info", map[string]any{"applicationId": app})
		ask("/microloans/schedule", map[string]any{"loanId": loanID})
		c := ask("/repayment/loans/check", map[string]any{"loanId": loanID})
		ask("/repayment/loans/pay", map[string]any{"loanId": loanID, "paymentType": "EARLY", "requestId": c["requestId"],
			"debitId": "DBT-" + uuid.NewString(), "amount": 100_000, "processingType": "HUMO"})
	}
	latencies := s.serverLatencies(t, asked)
	over := false
	for _, path := range []string{"/microloans/info", "/microloans/schedule", "/repayment/loans/check", "/repayment/loans/pay"} {
		l := latencies[path]
		if len(l) != rounds {
			t.Fatalf("%s: %d of %d calls found in the access log", path, len(l), rounds)
		}
		slices.Sort(l)
		median, p90 := l[len(l)/2], l[len(l)*9/10]
		t.Logf("%-24s on a loan of %d payments: median %v, p90 %v of server time", path, n+rounds, median, p90)
		over = over || median > longLoanBudget
	}
	if over && os.Getenv("TIYIN_LONG_LOAN_BUDGET") != "" {
		t.Errorf("a call's median is over its budget of %v (above)", longLoanBudget)
	}
}

// loanID waits for the application's loan to have its contract number, and returns it.
func (s *server) loanID(t *testing.T, app string) string {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if id, ok := s.must(t, "/microloans/info", map[string]any{"applicationId": app})["loanId"].(string); ok {
			return id
		}
		if time.Now().After(deadline) {
			t.Fatal("no contract number 31 minutes after issuance")
		}
	}
}

// serverLatencies reads, from the access log, the server's own time for each request asked (by
// endpoint, the envelope ids), once the log has them all.
func (s *server) serverLatencies(t *testing.T, asked map[string][]string) map[string][]time.Duration {
	t.Helper()
	want := map[string]string{} // request id → endpoint
	for path, ids := range asked {
		for _, id := range ids {
			want[id] = path
		}
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		got := map[string][]time.Duration{}
		found := 0
		for _, raw := range strings.Split(s.out.String(), "\n") {
			var l struct {
				Msg       string
				RequestID string `json:"request_id"`
				Latency   float64
			}
			if json.Unmarshal([]byte(raw), &l) != nil || l.Msg != "request" {
				continue
			}
			if path, ok := want[l.RequestID]; ok {
				got[path] = append(got[path], time.Duration(l.Latency*float64(time.Second)))
				found++
			}
		}
		if found == len(want) || time.Now().After(deadline) {
			return got
		}
	}
}
