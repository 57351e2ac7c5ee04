package oracle_test

import (
	"testing"
	"time"

	"github.com/tiyin/tiyin/test/oracle"
)

func date(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// loan28 is the docs' worked example: 1 000 000 000 for 12 months at 28 %.
func loan28(issued string) oracle.Terms {
	return oracle.Terms{Amount: 1_000_000_000, Months: 12, Rate: 2800, PenaltyDaily: 5, IssuedOn: date(issued)}
}

func TestTheScheduleIsTheDocsWorkedExample(t *testing.T) {
	t.Parallel()
	items := oracle.Schedule(loan28("2026-01-31"))
	want := []oracle.Item{
		{Date: date("2026-02-28"), PeriodDays: 28, Principal: 74_923_255, Interest: 21_479_452, Residue: 925_076_745},
		{Date: date("2026-03-31"), PeriodDays: 31, Principal: 74_403_622, Interest: 21_999_085, Residue: 850_673_123},
		{Date: date("2026-04-30"), PeriodDays: 30, Principal: 76_825_572, Interest: 19_577_135, Residue: 773_847_551},
	}
	for k, w := range want {
		if items[k] != w {
			t.Errorf("item %d is %+v, want %+v", k+1, items[k], w)
		}
	}
	last := items[11]
	if last.Principal != 94_163_419 || last.Interest != 2_239_283 || last.Residue != 0 {
		t.Errorf("the last item is %+v, want principal 94 163 419 and interest 2 239 283", last)
	}
}

// The issue's first reproduction: TERM then EARLY in one period. Item 1's interest is the
// accrual on the principal actually held: 10 days on 1e9, a day on what the TERM left, 17 on
// what the EARLY left; never the 30 935 247 the domain charged, nor above the 21 479 452
// scheduled.
func TestTermThenEarlyOwesThePeriodsInterestOnce(t *testing.T) {
	t.Parallel()
	l := oracle.New(loan28("2027-01-31"))
	l.Advance(date("2027-02-10"))
	term, err := l.Pay(false, 96_402_707)
	if err != nil {
		t.Fatal(err)
	}
	// The TERM paid the period's 21 479 452 in advance; 18 days of it are for principal it
	// repaid, so E = 1 049 042 goes to principal: 10 days on 1e9 and 18 on 924 027 703
	// accrue 20 430 410.
	if term != (oracle.Split{Principal: 75_972_297, Interest: 20_430_410}) {
		t.Errorf("the TERM applies %+v", term)
	}
	l.Advance(date("2027-02-11"))
	early, err := l.Pay(true, 200_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if early.Principal+early.Interest != 200_000_000 || early.Interest >= 0 {
		t.Errorf("the EARLY applies %+v: interest paid ahead by the TERM should return to principal", early)
	}
	if got := l.Schedule()[0].Interest; got != 17_787_727 {
		t.Errorf("item 1's interest is %d, want 17 787 727", got)
	}
}

// The second reproduction: an EARLY payment after a TERM prepayment keeps the loan short.
func TestEarlyAfterATermPrepaymentKeepsTheLoanShort(t *testing.T) {
	t.Parallel()
	l := oracle.New(loan28("2027-09-25"))
	l.Advance(date("2027-09-30"))
	if _, err := l.Pay(false, 400_000_000); err != nil {
		t.Fatal(err)
	}
	before := l.Schedule()
	l.Advance(date("2027-10-01"))
	if _, err := l.Pay(true, 10_000_000); err != nil {
		t.Fatal(err)
	}
	after := l.Schedule()
	if len(after) != len(before) || len(after) != 8 {
		t.Fatalf("%d items before the EARLY payment, %d after; want 8 and 8", len(before), len(after))
	}
	for k := 1; k < len(after); k++ {
		if a, b := after[k].Principal+after[k].Interest, before[k].Principal+before[k].Interest; a > b {
			t.Errorf("item %d grew from %d to %d", k+1, b, a)
		}
	}
}

// The third: 83.06 % for 12 months fits the cap issued on 28 February 2027, not on 1 March,
// whose first 365 days accrue 507 503 893.
func TestTheCapDependsOnTheIssueDate(t *testing.T) {
	t.Parallel()
	terms := oracle.Terms{Amount: 1_000_000_000, Months: 12, Rate: 8306, PenaltyDaily: 5}
	for issued, want := range map[string]bool{"2027-02-27": true, "2027-02-28": true, "2027-03-01": false} {
		terms.IssuedOn = date(issued)
		if got := oracle.WithinCap(terms); got != want {
			t.Errorf("issued %s: within the cap %t, want %t", issued, got, want)
		}
	}
}

// The fourth: the payoff less one tiyin leaves one tiyin and that day's accrual at most.
func TestThePayoffLessOneTiyinLeavesAboutOneTiyin(t *testing.T) {
	t.Parallel()
	for _, early := range []bool{false, true} {
		l := oracle.New(loan28("2027-01-31"))
		l.Advance(date("2027-02-10"))
		payoff := l.Position().Payoff()
		if _, err := l.Pay(early, payoff-1); err != nil {
			t.Fatal(err)
		}
		if left := l.Position().Payoff(); left < 1 || left > 2 {
			t.Errorf("early %t: the payoff less one tiyin leaves %d", early, left)
		}
	}
}

// The penalty is the exact accrual since the items fell overdue, rounded once.
func TestThePenaltyIsRoundedOnce(t *testing.T) {
	t.Parallel()
	// 3 tiyin overdue at 0.05 % a day accrue 0.0015 on the first day, then the 2 left 0.001
	// a day: by 1 July 2028 0.5025 in all, reported as 1 though no run of days reaches half a
	// tiyin alone.
	l := oracle.New(oracle.Terms{Amount: 3, Months: 1, Rate: 0, PenaltyDaily: 5, IssuedOn: date("2027-01-15")})
	l.Advance(date("2027-02-16"))
	if _, err := l.Pay(false, 1); err != nil {
		t.Fatal(err)
	}
	l.Advance(date("2028-07-01"))
	if got := l.Position().Penalty; got != 1 {
		t.Errorf("penalty %d, want 1", got)
	}
}
