package e2e

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/test/oracle"
)

// TestLifecyclesOverHTTPAgreeWithTheOracle drives a sample of loans through random histories
// over HTTP against the built binary, moving the sandbox clock, and compares every amount the
// API answers (the schedule's items, check's five parts, info's totals, each payment's split)
// with test/oracle, exactly. The service percent and a high offered percent make service,
// rounding and the cap's window all count.
func TestLifecyclesOverHTTPAgreeWithTheOracle(t *testing.T) {
	t.Parallel()
	s := start(t, store.SQLite, "TIYIN_SERVICE_PERCENT=2.5", "TIYIN_PENALTY_DAILY_PERCENT=0.1", "TIYIN_SANDBOX_SCORING_PERCENT=45.5")
	rng := rand.New(rand.NewPCG(32, 2026))
	var payments, amounts int
	for n := range 4 {
		months := []int{12, 7, 3, 12}[n]
		amount := []int64{1_000_000_000, 123_456_789, 5_000_001, 300_000_000}[n]
		l := lifecycle{s: s, t: t, n: n, terms: oracle.Terms{Rate: 4550, Service: 250, PenaltyDaily: 10}}
		l.issue(amount, months)
		for !l.o.Closed() {
			days := rng.IntN(20)
			if rng.IntN(5) == 0 {
				days = 30 + rng.IntN(90) // an overdue spell
			}
			l.advance(days)
			pos := l.check()
			amount := pos.Payoff()
			switch rng.IntN(5) {
			case 0, 1:
				amount = max(1, int64(float64(pos.Payoff())*rng.Float64()/3))
			case 2:
				amount = pos.Payoff() - 1
			case 3:
				amount = max(1, pos.OverduePrincipal+pos.OverdueInterest+pos.TermInterest+pos.Penalty)
			}
			if l.payments == 8 || l.o.Today().After(l.issued.AddDate(2, 0, 0)) {
				amount = pos.Payoff()
			}
			l.pay(rng.IntN(2) == 0, max(1, amount))
		}
		payments, amounts = payments+l.payments, amounts+l.amounts
	}
	if payments == 0 || amounts == 0 {
		t.Fatal("nothing was compared")
	}
	t.Logf("over HTTP: 4 loans, %d payments, %d amounts compared with the oracle, 0 differences", payments, amounts)
}

// lifecycle is one loan walked over HTTP beside the oracle.
type lifecycle struct {
	s        *server
	t        *testing.T
	n        int
	terms    oracle.Terms // the server's product: rate, service, penalty
	app      string
	loanID   string
	issued   time.Time
	o        *oracle.Loan
	payments int
	amounts  int // compared with the oracle
}

func (l *lifecycle) fail(format string, args ...any) {
	l.t.Helper()
	l.t.Fatalf("loan %d, %s: %s", l.n, l.o.Today().Format(time.DateOnly), fmt.Sprintf(format, args...))
}

// businessDate is the Tashkent date of an RFC 3339 moment, as the oracle's UTC midnight.
func businessDate(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	y, m, d := at.In(time.FixedZone("Tashkent", 5*3600)).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func (l *lifecycle) issue(amount int64, months int) {
	t, s := l.t, l.s
	l.app = s.register(t, "31234567890123")
	s.waitFor(t, l.app, "PENDING", nil)
	s.must(t, "/microloans/applications/verify", map[string]any{"applicationId": l.app, "amount": amount, "percent": float64(l.terms.Rate) / 100,
		"monthPeriod": months, "backupPhone": "998911112233"})
	s.must(t, "/microloans/applications/issue", map[string]any{"applicationId": l.app, "clientData": clientData("31234567890123")})
	s.waitFor(t, l.app, "COMPLETED", nil)
	s.must(t, "/sandbox/clock/advance", map[string]any{"duration": "31m"})
	for deadline := time.Now().Add(20 * time.Second); l.loanID == ""; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no contract number 31 minutes after issuance")
		}
		l.loanID, _ = s.must(t, "/microloans/info", map[string]any{"applicationId": l.app})["loanId"].(string)
	}
	sched := l.schedule()
	first := sched[0].(map[string]any)
	l.issued = businessDate(t, first["paymentDate"].(string)).AddDate(0, 0, -int(first["periodDays"].(float64)))
	terms := l.terms
	terms.Amount, terms.Months, terms.IssuedOn = amount, months, l.issued
	l.o = oracle.New(terms)
	l.compareSchedule(sched)
}

func (l *lifecycle) schedule() []any {
	return l.s.must(l.t, "/microloans/schedule", map[string]any{"loanId": l.loanID})["schedule"].([]any)
}

func (l *lifecycle) advance(days int) {
	now := l.s.must(l.t, "/sandbox/clock/advance", map[string]any{"duration": fmt.Sprintf("%dh", 24*days)})["now"].(string)
	l.o.Advance(businessDate(l.t, now))
}

func (l *lifecycle) compareSchedule(got []any) {
	l.t.Helper()
	want := l.o.Schedule()
	l.amounts += 6 * len(want)
	if len(got) != len(want) {
		l.fail("the schedule has %d items, the oracle's %d", len(got), len(want))
	}
	for k, g := range got {
		it, o := g.(map[string]any), want[k]
		if businessDate(l.t, it["paymentDate"].(string)) != o.Date || int(it["periodDays"].(float64)) != o.PeriodDays ||
			num(it["loanRepaymentAmount"]) != o.Principal || num(it["accruedInterestAmount"]) != o.Interest ||
			num(it["servicePercentageAmount"]) != o.Service || num(it["totalResidue"]) != o.Residue ||
			num(it["totalRepaymentAmount"]) != o.Principal+o.Interest+o.Service {
			l.fail("schedule item %d is %v, the oracle's %+v", k+1, it, o)
		}
	}
}

func num(v any) int64 { f, _ := v.(float64); return int64(f) }

// check compares check's five parts and info's totals with the oracle's position.
func (l *lifecycle) check() oracle.Position {
	l.t.Helper()
	c := l.s.must(l.t, "/repayment/loans/check", map[string]any{"loanId": l.loanID})
	want := l.o.Position()
	l.amounts += 9
	got := oracle.Position{NotDuePrincipal: num(c["mainDebtAmount"]), OverduePrincipal: num(c["overdueDebtAmount"]),
		OverdueInterest: num(c["overdueInterestAmount"]), TermInterest: num(c["termInterestAmount"]), Penalty: num(c["interestFineAmount"])}
	if got != want || num(c["totalResidue"]) != want.Payoff() || num(c["maxAmount"]) != want.Payoff() {
		l.fail("check answers %v, the oracle %+v (payoff %d)", c, want, want.Payoff())
	}
	info := l.s.must(l.t, "/microloans/info", map[string]any{"applicationId": l.app})
	if num(info["totalResidue"]) != want.Payoff() || num(info["totalFine"]) != want.OverduePrincipal+want.OverdueInterest+want.Penalty {
		l.fail("info answers %v, the oracle %+v", info, want)
	}
	return want
}

// pay checks again, pays amount, and compares the payment's split and the schedule after it.
func (l *lifecycle) pay(early bool, amount int64) {
	l.t.Helper()
	typ := "TERM"
	if early {
		typ = "EARLY"
	}
	c := l.s.must(l.t, "/repayment/loans/check", map[string]any{"loanId": l.loanID})
	r := l.s.must(l.t, "/repayment/loans/pay", map[string]any{"loanId": l.loanID, "paymentType": typ, "requestId": c["requestId"],
		"debitId": "DBT-" + uuid.NewString(), "amount": amount, "processingType": "UZCARD"})
	if r["status"] != "SUCCESS" {
		l.fail("pay %d %s: %v", amount, typ, r)
	}
	want, err := l.o.Pay(early, amount)
	if err != nil {
		l.fail("the oracle refuses %d: %v", amount, err)
	}
	l.payments++
	list := l.s.must(l.t, "/microloans/payments", map[string]any{"loanId": l.loanID})["payments"].([]any)
	if len(list) != l.payments {
		l.fail("%d payments listed, %d made", len(list), l.payments)
	}
	p := list[len(list)-1].(map[string]any)
	l.amounts += 3
	if num(p["totalRepaymentAmount"]) != amount || num(p["loanRepaymentAmount"]) != want.Principal || num(p["accruedInterestAmount"]) != want.Interest {
		l.fail("paying %d %s is listed as %v, the oracle splits it %+v", amount, typ, p, want)
	}
	l.compareSchedule(l.schedule())
	if l.o.Closed() {
		if a := l.s.call(l.t, "/repayment/loans/check", map[string]any{"loanId": l.loanID}); a.code() != 1013 {
			l.fail("check after the payoff: %s", a.Raw)
		}
		return
	}
	l.check()
}
