// Package oracle is a second implementation of tiyin's money rules (DESIGN.md §8.3–8.4 as
// amended on 2026-11-26, and §9), written from the design's text alone to check the domain's
// amounts. It is deliberately plain: exact rationals (math/big), one day at a time, no shortcut
// the design does not state, and no import of the domain. docs/money.md's readings table lists
// every place where the design is silent or had to be read one way, and the reading taken.
//
// The files: oracle.go (the loan, its days and its debt), oracle_pay.go (a payment in the order
// of the law), oracle_layout.go (the schedule's layouts: the annuity and equal principal
// parts), oracle_cap.go (the Central Bank cap) and oracle_actions.go (the operators' waivers,
// write-off and restructurings).
package oracle

import (
	"errors"
	"fmt"
	"math/big"
	"time"
)

// Terms are a loan's terms. Percents are in hundredths (28 % is 2800; the penalty's 0.05 % a
// day is 5).
type Terms struct {
	Amount         int64
	Months         int
	Rate           int64 // interest, hundredths of a percent a year
	Service        int64 // service, hundredths of a percent a year
	PenaltyDaily   int64 // penalty, hundredths of a percent a day
	Differentiated bool
	IssuedOn       time.Time // the issue date, midnight UTC of the business date
}

// Item is one schedule item as reported.
type Item struct {
	Date       time.Time
	PeriodDays int
	Principal  int64
	Interest   int64
	Service    int64
	Residue    int64 // principal left after the item
}

// Position is the debt at a moment, in check's five parts (§8.4): mainDebtAmount,
// overdueDebtAmount, overdueInterestAmount, termInterestAmount, interestFineAmount.
type Position struct {
	NotDuePrincipal, OverduePrincipal, OverdueInterest, TermInterest, Penalty int64
}

// Payoff is everything needed to close the loan today (check's totalResidue).
func (p Position) Payoff() int64 {
	return p.NotDuePrincipal + p.OverduePrincipal + p.OverdueInterest + p.TermInterest + p.Penalty
}

// Split is how one payment was applied. Interest is negative when the payment gave back more
// interest paid ahead (E, §8.4) than it paid.
type Split struct {
	Principal, Interest, Penalty int64
}

// ErrAmount is a payment (or a waiver) that is not positive or above what is owed.
var ErrAmount = errors.New("amount must be positive and not above the payoff")

// item is a schedule item with what was paid on it and the exact accrual of its closed days.
type item struct {
	date       time.Time
	periodDays int
	// principal is the item's principal as shown: what is laid out on it, and the principal
	// paid early in its period (§8.4: "early principal is shown in the item of the period in
	// which it was paid").
	principal  int64
	paidP      int64    // principal paid on it, early principal included
	paidC      int64    // interest and service paid on it (§8.3: allocated together)
	accI, accS *big.Rat // exact interest and service of the period's closed days
	closedDays int      // how many of the period's days are closed
	gone       bool     // past the loan's last principal after a prepayment: not reported
	frozen     bool     // paid off before its due date: its open days accrue nothing

	bk itemBooks // the item's part of the books (oracle_books.go), when they are kept
}

// Loan is a loan walked one day at a time.
type Loan struct {
	t     Terms
	items []*item
	// level is the loan's instalment (annuity) or principal part (differentiated): what a
	// TERM prepayment lays the later items out again at (§8.4 "at the same instalment").
	level int64
	today time.Time // the business date the debt is taken at; the days before it are closed
	// calendar is the date the loan has been walked to: today, or later for a written-off
	// loan, whose debt stands still at the day it was written off.
	calendar   time.Time
	day        int // the calendar's day number, the issue date being 0
	closed     bool
	writtenOff bool
	penalty    *big.Rat // exact penalty accrued since issue
	penPaid    int64    // penalty paid
	// penWaived and intWaived are what the bank's operators forgave.
	penWaived, intWaived int64
	penDay               []*big.Rat // penalty accrued on each day, by its number
	cap                  *big.Rat
	// lastYear is the penalty of the 364 days before today and today's.
	lastYear *big.Rat
	// rate and service are the daily rates, penaltyRate the penalty's.
	rate, service, penaltyRate *big.Rat
	// broken is the first rule the oracle found itself unable to keep; Check reports it.
	broken error
	// bk is the loan's books (§9.1, oracle_books.go), nil unless KeepBooks asked for them.
	bk *books
	// given is what the last payment gave back of interest paid ahead: E, what of it paid the
	// penalty, and what a payoff returned to principal.
	given int64
}

var (
	one     = big.NewRat(1, 1)
	half    = big.NewRat(1, 2)
	year    = big.NewRat(365, 1)
	hundred = big.NewRat(10000, 1) // hundredths of a percent
)

func rat(n int64) *big.Rat { return new(big.Rat).SetInt64(n) }

func mul(a, b *big.Rat) *big.Rat { return new(big.Rat).Mul(a, b) }
func add(a, b *big.Rat) *big.Rat { return new(big.Rat).Add(a, b) }
func sub(a, b *big.Rat) *big.Rat { return new(big.Rat).Sub(a, b) }
func quo(a, b *big.Rat) *big.Rat { return new(big.Rat).Quo(a, b) }

// daily is a yearly rate in hundredths of a percent as a share a day (actual/365).
func daily(hundredths int64) *big.Rat { return quo(quo(rat(hundredths), hundred), year) }

// roundHalfUp is x rounded half up to a whole tiyin (§8.3).
func roundHalfUp(x *big.Rat) int64 { return floor(add(x, half)) }

// floor is the largest integer not above x.
func floor(x *big.Rat) int64 {
	return new(big.Int).Div(x.Num(), x.Denom()).Int64() // Euclidean: the floor, the denominator being positive
}

// Dates are the due dates: the issue day of each month, clipped to the month's end (§8.3).
func Dates(issued time.Time, months int) []time.Time {
	out := make([]time.Time, months)
	for k := 1; k <= months; k++ {
		first := time.Date(issued.Year(), issued.Month()+time.Month(k), 1, 0, 0, 0, 0, time.UTC)
		last := first.AddDate(0, 1, -1).Day()
		out[k-1] = first.AddDate(0, 0, min(issued.Day(), last)-1)
	}
	return out
}

func days(from, to time.Time) int { return int(to.Sub(from).Hours()/24 + 0.5) }

// fresh is the interest and service, rounded half up each, of base held for n days: an item
// whose period has not begun.
func fresh(t Terms, base int64, n int) (int64, int64) {
	held := rat(base * int64(n))
	return roundHalfUp(mul(held, daily(t.Rate))), roundHalfUp(mul(held, daily(t.Service)))
}

// Schedule is the schedule at issue (§8.3): an annuity's smallest whole instalment whose last
// is not larger, or a differentiated loan's equal principal parts (the last item taking what
// the whole parts leave).
func Schedule(t Terms) []Item {
	dates := Dates(t.IssuedOn, t.Months)
	periods := make([]int, len(dates))
	prev := t.IssuedOn
	for k, d := range dates {
		periods[k] = days(prev, d)
		prev = d
	}
	var parts []int64
	if t.Differentiated {
		caps := make([]int64, len(dates))
		for k := range caps {
			caps[k] = t.Amount // no item had principal before: nothing limits the parts
		}
		parts, _ = EqualParts(t.Amount, caps)
	} else {
		slots := make([]slot, len(dates))
		for k := range slots {
			slots[k] = slot{limit: -1, charges: func(residue int64) int64 {
				i, s := fresh(t, residue, periods[k])
				return i + s
			}}
		}
		parts, _, _ = annuity(t.Amount, slots)
	}
	out := make([]Item, len(dates))
	residue := t.Amount
	for k := range dates {
		i, s := fresh(t, residue, periods[k])
		residue -= parts[k]
		out[k] = Item{Date: dates[k], PeriodDays: periods[k], Principal: parts[k], Interest: i, Service: s, Residue: residue}
	}
	return out
}

// New is a loan issued on its terms, on its issue date.
func New(t Terms) *Loan {
	l := &Loan{t: t, today: t.IssuedOn, calendar: t.IssuedOn, penalty: new(big.Rat), penDay: []*big.Rat{new(big.Rat)},
		cap: rat(t.Amount / 2), lastYear: new(big.Rat), rate: daily(t.Rate), service: daily(t.Service), penaltyRate: quo(rat(t.PenaltyDaily), hundred)}
	items := Schedule(t)
	for _, it := range items {
		l.items = append(l.items, &item{date: it.Date, periodDays: it.PeriodDays, principal: it.Principal,
			accI: new(big.Rat), accS: new(big.Rat)})
	}
	l.level = items[0].Principal + items[0].Interest + items[0].Service
	if t.Differentiated {
		l.level = items[0].Principal
	}
	return l
}

// Today is the business date the loan's debt is taken at: the calendar's, or the day it was
// written off.
func (l *Loan) Today() time.Time { return l.today }

// Closed says the loan is paid off.
func (l *Loan) Closed() bool { return l.closed }

// periodOf is the index of the item whose period holds day d (its days run from the previous
// due date up to the day before its own), or -1 after the last.
func (l *Loan) periodOf(d time.Time) int {
	for k, it := range l.items {
		if d.Before(it.date) {
			return k
		}
	}
	return -1
}

// current is the index of the current item on day d: the earliest item not yet overdue (due
// on d or later, §8.4), or -1 after the loan's last date.
func (l *Loan) current(d time.Time) int {
	for k, it := range l.items {
		if !it.date.Before(d) && !it.gone {
			return k
		}
	}
	return -1
}

// unpaid is item k's principal not yet paid.
func (l *Loan) unpaid(k int) int64 { return l.items[k].principal - l.items[k].paidP }

// notDue is the principal of the items from k on not yet paid: during item k's period, the
// principal interest accrues on.
func (l *Loan) notDue(k int) int64 {
	var sum int64
	for j := k; j < len(l.items); j++ {
		sum += l.unpaid(j)
	}
	return sum
}

// overdue is the unpaid principal and charges of the items due before day d.
func (l *Loan) overdue(d time.Time) (p, c int64) {
	for k, it := range l.items {
		if it.date.Before(d) {
			i, s := l.charges(k)
			p += l.unpaid(k)
			c += i + s - it.paidC
		}
	}
	return p, c
}

// overduePrincipal is the unpaid principal of the items due before day d.
func (l *Loan) overduePrincipal(d time.Time) int64 {
	var p int64
	for k, it := range l.items {
		if it.date.Before(d) {
			p += l.unpaid(k)
		}
	}
	return p
}

// projected is item k's interest and service as reported when base is the principal its open
// days accrue on: the exact accrual of its closed days, plus its open days on base, each
// rounded half up once (§8.3, §9.1).
func (l *Loan) projected(k int, base int64) (int64, int64) {
	it := l.items[k]
	if it.frozen {
		return roundHalfUp(it.accI), roundHalfUp(it.accS)
	}
	held := rat(base * int64(it.periodDays-it.closedDays))
	return roundHalfUp(add(it.accI, mul(held, l.rate))), roundHalfUp(add(it.accS, mul(held, l.service)))
}

// charges is item k's interest and service as reported: its closed days as they accrued, its
// open days on the principal not yet due today (§8.4: "the exact daily accrual ... on the
// principal outstanding at the end of each day").
func (l *Loan) charges(k int) (int64, int64) { return l.projected(k, l.notDue(k)) }

// accrued is the interest and service item k has accrued to date: its closed days, each
// rounded half up (§9.1).
func (l *Loan) accrued(k int) int64 {
	it := l.items[k]
	return roundHalfUp(it.accI) + roundHalfUp(it.accS)
}

// Advance walks the loan to day to, one day at a time: each day closed accrues its interest
// and service on the principal not yet due at its end, and each day begun accrues the penalty
// on the principal overdue at its start, within the cap.
func (l *Loan) Advance(to time.Time) {
	for l.calendar.Before(to) {
		if l.writtenOff { // nothing accrues: the days pass with no penalty
			l.closeBooks(l.calendar)
			l.calendar = l.calendar.AddDate(0, 0, 1)
			l.day++
			l.penDay = append(l.penDay, new(big.Rat))
			continue
		}
		if k := l.periodOf(l.today); k >= 0 && !l.closed {
			it := l.items[k]
			base := rat(l.notDue(k))
			it.accI = add(it.accI, mul(base, l.rate))
			it.accS = add(it.accS, mul(base, l.service))
			it.closedDays++
		}
		l.closeBooks(l.today) // the books' close of the day just ended (oracle_books.go)
		l.today = l.today.AddDate(0, 0, 1)
		l.day++
		p := new(big.Rat)
		if !l.closed {
			p = mul(rat(l.overduePrincipal(l.today)), l.penaltyRate)
			if p.Sign() > 0 {
				p = l.capped(p)
			}
		}
		l.penDay = append(l.penDay, p)
		l.penalty = add(l.penalty, p)
		l.lastYear.Add(l.lastYear, p)
		if l.day >= 364 {
			l.lastYear.Sub(l.lastYear, l.penDay[l.day-364])
		}
		l.calendar = l.today
	}
}

// PenaltyOn is the exact penalty accrued on day number d (the issue date is 0).
func (l *Loan) PenaltyOn(d int) *big.Rat { return l.penDay[d] }

// penaltyOwed is the penalty owed today: its exact accrual rounded once, less what was paid
// and waived (§8.3).
func (l *Loan) penaltyOwed() int64 { return roundHalfUp(l.penalty) - l.penPaid - l.penWaived }

// Position is the debt today (§8.4's check). The current item's interest is what it has
// accrued to date and not paid; interest a TERM payment paid ahead of the days it is for is
// a credit, set against the principal not yet due (the rules of E keep it within that
// principal, so no part is negative).
func (l *Loan) Position() Position {
	if l.closed {
		return Position{}
	}
	op, oc := l.overdue(l.today)
	pos := Position{OverduePrincipal: op, OverdueInterest: oc, Penalty: l.penaltyOwed()}
	c := l.current(l.today)
	if c < 0 {
		return pos
	}
	pos.NotDuePrincipal = l.notDue(c)
	if term := l.accrued(c) - l.items[c].paidC; term >= 0 {
		pos.TermInterest = term
	} else {
		pos.NotDuePrincipal += term
	}
	return pos
}

// Schedule is the schedule as it stands: items past the last principal after a prepayment are
// gone (§8.3).
func (l *Loan) Schedule() []Item {
	var out []Item
	residue := l.t.Amount
	for k, it := range l.items {
		if it.gone {
			continue
		}
		i, s := l.charges(k)
		residue -= it.principal
		out = append(out, Item{Date: it.date, PeriodDays: it.periodDays, Principal: it.principal, Interest: i, Service: s, Residue: residue})
	}
	return out
}

// Check says whether the loan keeps the rules the design states for every moment: no debt
// part a partner reads is negative (check's five parts, and so loan info's totals, and every
// schedule item's fields), Σ principal = amount, no item keeps more interest than it shows
// (§8.4's rounding of E), and nothing of a payment was left unexplained. It names the first
// rule broken.
func (l *Loan) Check() error {
	if l.broken != nil {
		return l.broken
	}
	if err := l.CheckBooks(); err != nil {
		return err
	}
	p := l.Position()
	for _, part := range []struct {
		name  string
		value int64
	}{{"mainDebtAmount", p.NotDuePrincipal}, {"overdueDebtAmount", p.OverduePrincipal},
		{"overdueInterestAmount", p.OverdueInterest}, {"termInterestAmount", p.TermInterest}, {"interestFineAmount", p.Penalty}} {
		if part.value < 0 {
			return fmt.Errorf("%s is %d on %s", part.name, part.value, l.today.Format(time.DateOnly))
		}
	}
	var sum int64
	for k, it := range l.Schedule() {
		sum += it.Principal
		if it.Principal < 0 || it.Interest < 0 || it.Service < 0 || it.Residue < 0 || it.PeriodDays <= 0 {
			return fmt.Errorf("item %d (%s) has a negative field: %+v", k+1, it.Date.Format(time.DateOnly), it)
		}
	}
	if sum != l.t.Amount {
		return fmt.Errorf("the items' principal adds up to %d, not the amount %d", sum, l.t.Amount)
	}
	for k, it := range l.items {
		i, s := l.charges(k)
		if it.paidC > i+s {
			return fmt.Errorf("item %d (%s) keeps %d of interest and service, more than the %d it shows", k+1,
				it.date.Format(time.DateOnly), it.paidC, i+s)
		}
		if it.paidP > it.principal || it.paidP < 0 || it.paidC < 0 {
			return fmt.Errorf("item %d (%s) was paid %d of its principal %d and %d of its charges", k+1,
				it.date.Format(time.DateOnly), it.paidP, it.principal, it.paidC)
		}
	}
	return nil
}

// fail records the first rule the oracle could not keep.
func (l *Loan) fail(format string, args ...any) {
	if l.broken == nil {
		l.broken = fmt.Errorf("%s: %s", l.today.Format(time.DateOnly), fmt.Sprintf(format, args...))
	}
}

// String is the terms, for messages.
func (t Terms) String() string {
	kind := "annuity"
	if t.Differentiated {
		kind = "differentiated"
	}
	return fmt.Sprintf("amount %d, %d months at %d.%02d %% (service %d.%02d %%, penalty %d.%02d %% a day), %s, issued %s",
		t.Amount, t.Months, t.Rate/100, t.Rate%100, t.Service/100, t.Service%100, t.PenaltyDaily/100, t.PenaltyDaily%100,
		kind, t.IssuedOn.Format(time.DateOnly))
}
