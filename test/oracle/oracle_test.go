package oracle_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
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

// §8.4's example: 10 000 000 over 2 months at 28 %, an annuity issued on 31 January 2026
// (periods of 28 and 31 days). At issue: item 1 is 4 952 618 + 214 795 (10 000 000 × 28 ×
// 0.28 / 365 = 214 794.5 → 214 795) = 5 167 413, item 2 5 047 382 + 120 031.
// EARLY 1 000 000 on 10 February: (1) nothing is overdue; (2) the 10 closed days (31 January to
// 9 February) accrued 10 000 000 × 10 × 0.28 / 365 = 76 712.3 → 76 712; (3) skipped; (4) no
// penalty; (5) 923 288 to principal, leaving 9 076 712, laid out again over 28 February and 31
// March as equal instalments: item 1 asks its whole period's interest, 76 712.3 + 18 days ×
// 9 076 712 × 0.28 / 365 = 202 045.9 → 202 046, less the 76 712 paid, plus its new principal
// p; item 2 asks (9 076 712 − p) × (1 + 31 × 0.28 / 365). The smallest whole X for which item 2
// asks no more than X is 4 655 088: p = 4 655 088 − 125 334 = 4 529 754, item 2 is 4 546 958 +
// 108 130 = 4 655 088. Item 1 shows 923 288 + 4 529 754 = 5 453 042 of principal (early
// principal in the period it was paid), so Σ principal is still the amount.
func TestEarlyBetweenDueDatesRecomputesEveryLaterItem(t *testing.T) {
	t.Parallel()
	l := oracle.New(oracle.Terms{Amount: 10_000_000, Months: 2, Rate: 2800, PenaltyDaily: 5, IssuedOn: date("2026-01-31")})
	if got := l.Schedule()[0]; got.Principal+got.Interest != 5_167_413 {
		t.Fatalf("the issue-time instalment is %d, want 5 167 413", got.Principal+got.Interest)
	}
	l.Advance(date("2026-02-10"))
	split, err := l.Pay(true, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if split != (oracle.Split{Principal: 923_288, Interest: 76_712}) {
		t.Errorf("the EARLY applies %+v, want 923 288 to principal and 76 712 to interest", split)
	}
	want := []oracle.Item{
		{Date: date("2026-02-28"), PeriodDays: 28, Principal: 5_453_042, Interest: 202_046, Residue: 4_546_958},
		{Date: date("2026-03-31"), PeriodDays: 31, Principal: 4_546_958, Interest: 108_130, Residue: 0},
	}
	got := l.Schedule()
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("the schedule after is %+v, want %+v", got, want)
	}
	// What each item still asks: item 1 its principal laid out and its charges less the 76 712
	// paid; item 2 its instalment.
	if asks1, asks2 := got[0].Principal-923_288+got[0].Interest-76_712, got[1].Principal+got[1].Interest; asks1 != 4_655_088 || asks2 != 4_655_088 {
		t.Errorf("the items ask %d and %d, want 4 655 088 each", asks1, asks2)
	}
	if pos := l.Position(); pos != (oracle.Position{NotDuePrincipal: 9_076_712}) {
		t.Errorf("the debt after is %+v", pos)
	}
}

// The issue's second example: 10 000 000 over 3 months at 28 % (0.05 % a day of penalty),
// issued on 1 March 2026 (periods of 31, 30 and 31 days; 20 May gives the same amounts), item 1
// (3 253 581 + 237 808) unpaid. Five days after its date the penalty is 5 × 0.0005 ×
// 3 253 581 = 8 133.95 → 8 134. An EARLY 5 000 000 then pays (1) 3 253 581 + 237 808 overdue,
// (2) the 5 closed days of period 2 on 6 746 419 (25 876.8 → 25 877), (4) the penalty 8 134
// before (5) 1 474 600: principal 3 253 581 + 1 474 600 = 4 728 181.
func TestEarlyPaysThePenaltyBeforePrincipal(t *testing.T) {
	t.Parallel()
	l := oracle.New(oracle.Terms{Amount: 10_000_000, Months: 3, Rate: 2800, PenaltyDaily: 5, IssuedOn: date("2026-03-01")})
	l.Advance(date("2026-04-06"))
	if pos := l.Position(); pos != (oracle.Position{NotDuePrincipal: 6_746_419, OverduePrincipal: 3_253_581, OverdueInterest: 237_808,
		TermInterest: 25_877, Penalty: 8_134}) {
		t.Fatalf("five days after item 1's date the debt is %+v", pos)
	}
	split, err := l.Pay(true, 5_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if split != (oracle.Split{Principal: 4_728_181, Interest: 263_685, Penalty: 8_134}) {
		t.Errorf("the EARLY applies %+v, want principal 4 728 181, interest 237 808 + 25 877, penalty 8 134", split)
	}
	if err := l.Check(); err != nil {
		t.Error(err)
	}
	// Items 2 and 3 are recomputed as equal instalments, smaller than the 3 4xx xxx they were.
	sched := l.Schedule()
	asks2 := sched[1].Principal - 1_474_600 + sched[1].Interest - 25_877
	if asks3 := sched[2].Principal + sched[2].Interest; asks2-asks3 > 1 || asks3 > asks2 || asks2 >= 3_491_389 {
		t.Errorf("items 2 and 3 ask %d and %d after the EARLY: %+v", asks2, asks3, sched)
	}
}

// The review's reproduction: 1 000 000 over 2 months at 60 % with 0.5 % a day of penalty, issued
// on 26 November 2026, nothing paid. Forty days after issue (5 January 2027) the debt is item 1
// overdue (488 379 + 49 315), 10 days of period 2 accrued (511 621 × 10 × 0.6 / 365 = 8 410.2),
// 511 621 not due and a penalty of 24 419. A TERM payment of the payoff less one tiyin
// (1 082 143) pays (1) 537 694, (2) item 2's whole period, 26 072, (3) its principal 511 621 and
// (4) 6 756 of the penalty. Its principal is gone before its date, so the period keeps only the
// 8 410 its days accrued: the 17 662 paid ahead finds no principal and pays the penalty, which
// leaves one tiyin owed. (The old rules left mainDebtAmount −17 662 beside a penalty of 17 663.)
func TestInterestPaidAheadWithNoPrincipalPaysThePenalty(t *testing.T) {
	t.Parallel()
	for _, early := range []bool{false, true} {
		l := oracle.New(oracle.Terms{Amount: 1_000_000, Months: 2, Rate: 6000, PenaltyDaily: 50, IssuedOn: date("2026-11-26")})
		l.Advance(date("2027-01-05"))
		pos := l.Position()
		if pos != (oracle.Position{NotDuePrincipal: 511_621, OverduePrincipal: 488_379, OverdueInterest: 49_315, TermInterest: 8_410, Penalty: 24_419}) {
			t.Fatalf("the debt forty days after issue is %+v", pos)
		}
		split, err := l.Pay(early, pos.Payoff()-1)
		if err != nil {
			t.Fatal(err)
		}
		// EARLY takes in (2) only the 8 410 accrued, so nothing is paid ahead: it pays all the
		// penalty and leaves one tiyin of principal.
		want, left := oracle.Split{Principal: 1_000_000, Interest: 57_725, Penalty: 24_418}, oracle.Position{Penalty: 1}
		if early {
			want, left = oracle.Split{Principal: 999_999, Interest: 57_725, Penalty: 24_419}, oracle.Position{NotDuePrincipal: 1}
		}
		if split != want {
			t.Errorf("early %t: the payment applies %+v, want %+v", early, split, want)
		}
		if got := l.Position(); got != left {
			t.Errorf("early %t: it leaves %+v, want %+v", early, got, left)
		}
		if err := l.Check(); err != nil {
			t.Errorf("early %t: %v", early, err)
		}
		if got := l.Schedule()[1].Interest; got != 8_410 {
			t.Errorf("early %t: item 2's interest is %d, want the 8 410 its days accrued", early, got)
		}
	}
}

// E is rounded in the direction that leaves the item's interest kept equal to its charges as
// reported (§8.4). 2 290 for a month at 72.74 % with 1.44 % of service, issued on 31 January
// 2026 (28 days): the period's charges are 127.8 → 128 of interest and 2.5 → 3 of service,
// 131 in all. A TERM payment of 1 148 on 3 February pays those 131 and 1 017 of principal,
// leaving 1 273 for the 25 open days: kept exactly, (3 × 2 290 + 25 × 1 273) × 0.7418 / 365 =
// 78.64, so 52.36 was paid ahead and E* = 52.36 / (1 − 25 × 0.7418 / 365) = 55.16. Half up, E =
// 55 would leave 1 218, whose charges show 74.37 → 74 and 1.47 → 1, 75, while the item keeps
// 131 − 55 = 76: a tiyin more than it shows, overdue interest −1 once its date passes. E = 56
// leaves 1 217: 74.33 → 74 and 1.47 → 1, 75 = 131 − 56.
func TestERoundingKeepsTheItemsInterestAsShown(t *testing.T) {
	t.Parallel()
	l := oracle.New(oracle.Terms{Amount: 2_290, Months: 1, Rate: 7274, Service: 144, PenaltyDaily: 5, IssuedOn: date("2026-01-31")})
	l.Advance(date("2026-02-03"))
	split, err := l.Pay(false, 1_148)
	if err != nil {
		t.Fatal(err)
	}
	if split != (oracle.Split{Principal: 1_017 + 56, Interest: 75}) {
		t.Errorf("the TERM applies %+v, want E = 56: principal 1 073, interest 75", split)
	}
	if it := l.Schedule()[0]; it.Interest != 74 || it.Service != 1 || it.Residue != 0 {
		t.Errorf("the item is %+v", it)
	}
	l.Advance(date("2026-03-01"))
	if pos := l.Position(); pos.OverdueInterest != 0 || pos.OverduePrincipal != 1_217 {
		t.Errorf("once overdue the item owes %+v, want principal 1 217 and no interest", pos)
	}
	if err := l.Check(); err != nil {
		t.Error(err)
	}
}

// equalPartsByTrial is the differentiated re-layout found by trying every way to lay residue
// out on items that had caps of principal, and keeping the one the rule prefers: no item above
// its cap (it never grows), Σ = residue; among those, the largest common part (the least part
// of an item still below its cap, an item at its cap being as equal as it may be); then the
// latest items largest, as at issue the last item takes what whole parts leave.
func equalPartsByTrial(residue int64, caps []int64) []int64 {
	var best []int64
	level := func(p []int64) int64 {
		least := int64(math.MaxInt64)
		for j := range p {
			if p[j] < caps[j] {
				least = min(least, p[j])
			}
		}
		return least
	}
	better := func(p []int64) bool {
		if best == nil || level(p) != level(best) {
			return best == nil || level(p) > level(best)
		}
		for j := len(p) - 1; j >= 0; j-- {
			if p[j] != best[j] {
				return p[j] > best[j]
			}
		}
		return false
	}
	p := make([]int64, len(caps))
	var try func(j int, left int64)
	try = func(j int, left int64) {
		if j == len(caps) {
			if left == 0 && better(p) {
				best = slices.Clone(p)
			}
			return
		}
		for v := int64(0); v <= min(caps[j], left); v++ {
			p[j] = v
			try(j+1, left-v)
		}
	}
	try(0, residue)
	return best
}

// The closed form of the differentiated re-layout agrees with trying every layout, on random
// small loans: caps drawn as a differentiated schedule's parts after a TERM prepayment (a
// smaller last item), a payment holiday (items of no principal) or at random.
func TestEqualPartsClosedFormAgreesWithTrial(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 26))
	for n := range 3000 {
		caps := make([]int64, 1+rng.IntN(5))
		var total int64
		for j := range caps {
			switch rng.IntN(4) {
			case 0:
				caps[j] = 0
			case 1:
				caps[j] = int64(rng.IntN(3))
			default:
				caps[j] = int64(3 + rng.IntN(9))
			}
			total += caps[j]
		}
		if n%5 == 0 { // a real small loan: equal parts, the last smaller after a TERM prepayment
			amount, months := int64(1+rng.IntN(40)), 1+rng.IntN(5)
			terms := oracle.Terms{Amount: amount, Months: months, Differentiated: true, IssuedOn: date("2026-01-31")}
			total, caps = 0, nil
			for _, it := range oracle.Schedule(terms) {
				caps = append(caps, it.Principal)
				total += it.Principal
			}
			if cut := int64(rng.IntN(int(caps[len(caps)-1]) + 1)); len(caps) > 1 {
				caps[len(caps)-1] -= cut
				total -= cut
			}
		}
		residue := int64(0)
		if total > 0 {
			residue = rng.Int64N(total + 1)
		}
		got, q := oracle.EqualParts(residue, caps)
		want := equalPartsByTrial(residue, caps)
		if !slices.Equal(got, want) {
			t.Fatalf("%d over caps %v: the closed form lays out %v (part %d), trying every layout %v", residue, caps, got, q, want)
		}
	}
	// At issue, with nothing to cap them, the parts are §8.3's: floor(amount/months) each, the
	// last taking the rest.
	if got, _ := oracle.EqualParts(10, []int64{10, 10, 10, 10}); !slices.Equal(got, []int64{2, 2, 2, 4}) {
		t.Errorf("10 over four items: %v, want 2 2 2 4", got)
	}
	// The items had 100 and 40 (a TERM prepayment shortened the loan); 130 is laid out 90 and
	// 40: an equal 65 and 65 would make the last item larger.
	if got, _ := oracle.EqualParts(130, []int64{100, 40}); !slices.Equal(got, []int64{90, 40}) {
		t.Errorf("130 over items of 100 and 40: %v, want 90 40", got)
	}
	// The items had 100, 1 and 100; 150 is laid out 74, 1, 75
	// (the item of 1 cannot grow; the others share the rest equally, the last taking the odd
	// tiyin).
	if got, _ := oracle.EqualParts(150, []int64{100, 1, 100}); !slices.Equal(got, []int64{74, 1, 75}) {
		t.Errorf("150 over items of 100, 1 and 100: %v, want 74 1 75", got)
	}
}

// selfCheck walks a history through the oracle alone and returns the first rule of §8.3–8.4 it
// breaks: a negative debt part or item field, Σ principal off the amount, an item keeping more
// interest than it shows (Check); a payment not taken off the payoff exactly; an EARLY payment
// that makes the loan longer, an item larger or something more overdue; a period's interest
// and service above what was scheduled for it when it began.
func selfCheck(h history) error {
	t := h.Terms
	o := oracle.New(t)
	scheduled := map[time.Time]int64{}
	payments := h.Payments
	for day := 0; day <= h.Days; day++ {
		today := t.IssuedOn.AddDate(0, 0, day)
		o.Advance(today)
		for _, it := range o.Schedule() {
			if start := it.Date.AddDate(0, 0, -it.PeriodDays); start.Equal(today) || day == 0 && !start.After(today) {
				scheduled[it.Date] = it.Interest + it.Service
			}
		}
		for ; len(payments) > 0 && payments[0].Day == day; payments = payments[1:] {
			p := payments[0]
			if o.Closed() {
				continue
			}
			if err := selfCheckStep(o, p); err != nil {
				return fmt.Errorf("day %d, %s (early %t): %w", day, kindNames[p.Kind], p.Early, err)
			}
		}
		if err := o.Check(); err != nil {
			return fmt.Errorf("day %d: %w", day, err)
		}
		for _, it := range o.Schedule() {
			if was, ok := scheduled[it.Date]; ok && it.Interest+it.Service > was {
				return fmt.Errorf("day %d: item %s's charges %d exceed the %d scheduled when its period began", day,
					it.Date.Format(time.DateOnly), it.Interest+it.Service, was)
			}
		}
	}
	return nil
}

func selfCheckStep(o *oracle.Loan, p payment) error {
	switch p.Kind {
	case waivePenalty:
		_, _ = o.WaivePenalty(int64(float64(o.Position().Penalty) * p.Share))
		return o.Check()
	case waiveInterest:
		_, _ = o.WaiveInterest(int64(float64(o.Position().OverdueInterest) * p.Share))
		return o.Check()
	case writeOff:
		o.WriteOff()
		return nil
	case extend, holiday:
		months, rest := 1+int(p.Share*6), 0
		if p.Kind == holiday {
			months = 1 + int(p.Share*3)
			rest = months
		}
		o.Restructure(months, rest)
		return o.Check()
	}
	pos, before := o.Position(), o.Schedule()
	amount := amountOf(p, pos, before, o.Today())
	if p.Kind == over {
		if _, err := o.Pay(p.Early, amount); err == nil {
			return fmt.Errorf("one tiyin over the payoff %d was taken", pos.Payoff())
		}
		return nil
	}
	split, err := o.Pay(p.Early, amount)
	if err != nil {
		return fmt.Errorf("paying %d of %d: %w", amount, pos.Payoff(), err)
	}
	after := o.Position()
	if split.Principal+split.Interest+split.Penalty != amount || after.Payoff() != pos.Payoff()-amount {
		return fmt.Errorf("paying %d applies %+v and takes the payoff from %d to %d", amount, split, pos.Payoff(), after.Payoff())
	}
	if err := o.Check(); err != nil {
		return fmt.Errorf("paying %d of %+v: %w", amount, pos, err)
	}
	if !p.Early || o.Closed() {
		return nil
	}
	now := o.Schedule()
	if now[len(now)-1].Date.After(before[len(before)-1].Date) {
		return fmt.Errorf("paying %d made the loan longer", amount)
	}
	was := map[time.Time]oracle.Item{}
	for _, it := range before {
		was[it.Date] = it
	}
	cur := currentDate(now, o.Today())
	for _, it := range now {
		b := was[it.Date]
		if grew := it.Principal + it.Interest + it.Service - b.Principal - b.Interest - b.Service; it.Date.After(cur) && grew > 0 {
			return fmt.Errorf("paying %d grew the item of %s by %d", amount, it.Date.Format(time.DateOnly), grew)
		}
	}
	if d := after.OverduePrincipal + after.OverdueInterest; d > pos.OverduePrincipal+pos.OverdueInterest {
		return fmt.Errorf("paying %d made %d overdue", amount, d)
	}
	return nil
}

// TestTheOracleKeepsItsOwnRules walks random histories (the lifecycle comparison's) through the
// oracle alone: whatever the domain does, the oracle must keep the design's rules itself.
func TestTheOracleKeepsItsOwnRules(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(*seed+1, 2027))
	n := 150
	if testing.Short() {
		n = 40
	}
	for k := range n {
		h := randomHistory(rng, *years)
		if err := selfCheck(h); err != nil {
			t.Fatalf("loan %d (%s): %v\n%s", k, h.Terms, err, h.goCase())
		}
	}
}

// A differentiated loan's EARLY re-layout never makes an item's principal larger than it was.
// 300 over 3 months (no interest, to keep the amounts plain), issued on 31 January 2026: items
// of 100. A TERM payment of 160 on item 1's date pays its 100 and lays the rest, 140, out again
// at the same part: 100 and 40. An EARLY 10 on 10 March leaves 130 for items 2 and 3: equal
// parts would be 65 and 65, growing item 3 from 40; it keeps 40 and item 2 takes 90 (shown as
// 100 with the 10 paid early in its period).
func TestDifferentiatedEarlyNeverGrowsAnItem(t *testing.T) {
	t.Parallel()
	l := oracle.New(oracle.Terms{Amount: 300, Months: 3, Differentiated: true, PenaltyDaily: 5, IssuedOn: date("2026-01-31")})
	l.Advance(date("2026-02-28"))
	if _, err := l.Pay(false, 160); err != nil {
		t.Fatal(err)
	}
	l.Advance(date("2026-03-10"))
	if _, err := l.Pay(true, 10); err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, it := range l.Schedule() {
		got = append(got, it.Principal)
	}
	if !slices.Equal(got, []int64{160, 100, 40}) {
		t.Errorf("the principal of the items is %v, want 160 100 40", got)
	}
	if err := l.Check(); err != nil {
		t.Error(err)
	}
}
