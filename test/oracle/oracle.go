// Package oracle is a second implementation of tiyin's money rules (DESIGN.md §8.3–8.4), written
// from the design alone to check the domain's amounts. It is deliberately plain: exact rationals
// (math/big), one day at a time, no shortcut that the design does not state, and no import of
// the domain. docs/money.md states the reading of the design it implements, rule by rule.
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

// Position is the debt at a moment, in check's five parts.
type Position struct {
	NotDuePrincipal, OverduePrincipal, OverdueInterest, TermInterest, Penalty int64
}

// Payoff is everything needed to close the loan.
func (p Position) Payoff() int64 {
	return p.NotDuePrincipal + p.OverduePrincipal + p.OverdueInterest + p.TermInterest + p.Penalty
}

// Split is how one payment was applied.
type Split struct {
	Principal, Interest, Penalty int64
}

// ErrAmount is a payment that is not positive or above the payoff.
var ErrAmount = errors.New("amount must be positive and not above the payoff")

// item is an item with what was paid on it and its exact accrual so far.
type item struct {
	date       time.Time
	periodDays int
	principal  int64 // the item's principal, early principal paid in its period included
	paidP      int64
	paidC      int64    // interest and service paid
	accI, accS *big.Rat // exact interest and service of the period's days already closed
	closedDays int      // how many of the period's days are closed
	gone       bool     // laid out to nothing by a prepayment: not reported
	frozen     bool     // paid off before its due date: its open days accrue nothing
}

// Loan is a loan walked one day at a time.
type Loan struct {
	t     Terms
	items []*item
	level int64     // the annuity instalment, or the differentiated principal part
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
	// lastYear is the penalty of the 364 days before today.
	lastYear *big.Rat
	// rate and service are the daily rates, penaltyRate the penalty's.
	rate, service, penaltyRate *big.Rat
}

var (
	one     = big.NewRat(1, 1)
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

// roundHalfUp is x rounded half up to a whole tiyin.
func roundHalfUp(x *big.Rat) int64 {
	y := add(x, big.NewRat(1, 2))
	return floor(y)
}

// floor is the largest integer not above x.
func floor(x *big.Rat) int64 {
	return new(big.Int).Div(x.Num(), x.Denom()).Int64() // Euclidean: the floor, the denominator being positive
}

// Dates are the due dates: the issue day of each month, clipped to the month's end.
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

// charges is the interest and service, rounded half up each, of base held for n days.
func charges(t Terms, base int64, n int) (int64, int64) {
	i := mul(mul(rat(base), rat(int64(n))), daily(t.Rate))
	s := mul(mul(rat(base), rat(int64(n))), daily(t.Service))
	return roundHalfUp(i), roundHalfUp(s)
}

// Schedule is the schedule at issue (§8.3).
func Schedule(t Terms) []Item {
	dates := Dates(t.IssuedOn, t.Months)
	periods := make([]int, len(dates))
	prev := t.IssuedOn
	for k, d := range dates {
		periods[k] = days(prev, d)
		prev = d
	}
	fresh := func(k int, residue int64) (int64, int64) { return charges(t, residue, periods[k]) }
	if t.Differentiated {
		return layout(t.Amount, dates, periods, fresh, func(int, int64) int64 { return t.Amount / int64(t.Months) })
	}
	items, _ := annuity(t.Amount, dates, periods, fresh, nil)
	return items
}

// chargesFn is the interest and service item k counts when residue is left before it.
type chargesFn func(k int, residue int64) (int64, int64)

// layout lays residue out over the dates: part says each item's principal before the last
// (given the item's charges), the last takes the rest.
func layout(residue int64, dates []time.Time, periods []int, due chargesFn, part func(k int, charges int64) int64) []Item {
	out := make([]Item, len(dates))
	for k := range dates {
		i, s := due(k, residue)
		p := residue
		if k < len(dates)-1 {
			p = min(residue, max(0, part(k, i+s)))
		}
		residue -= p
		out[k] = Item{Date: dates[k], PeriodDays: periods[k], Principal: p, Interest: i, Service: s, Residue: residue}
	}
	return out
}

// annuity is the annuity layout: the smallest whole instalment X for which the last item is
// not larger than X (nor, with limits, than its limit), each item before it due X or its
// limit, whichever is smaller. It returns the items and X.
func annuity(residue int64, dates []time.Time, periods []int, due chargesFn, limits []int64) ([]Item, int64) {
	try := func(x int64) []Item {
		return layout(residue, dates, periods, due, func(k int, c int64) int64 {
			if limits != nil {
				return min(x, limits[k]) - c
			}
			return x - c
		})
	}
	fits := func(x int64) bool {
		items := try(x)
		last := items[len(items)-1]
		total := last.Principal + last.Interest + last.Service
		return total <= x && (limits == nil || total <= limits[len(limits)-1])
	}
	lo, hi := int64(0), int64(1)
	for !fits(hi) {
		if hi > 1<<62 { // no instalment meets the limits: the standard layout
			return annuity(residue, dates, periods, due, nil)
		}
		lo, hi = hi, hi*2
	}
	for lo < hi {
		m := lo + (hi-lo)/2
		if fits(m) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return try(hi), hi
}

// WithinCap says whether the schedule's interest and service, day by day (each item's charges
// spread evenly over its period), stay within half the amount in every 365-day window (§8.3).
func WithinCap(t Terms) bool { return withinCap(Schedule(t), t.Amount) }

// withinCap says whether the items' interest and service, each item's spread evenly over its
// period, stay within half of amount in every 365-day window.
func withinCap(items []Item, amount int64) bool {
	var perDay []*big.Rat
	for _, it := range items {
		d := quo(rat(it.Interest+it.Service), rat(int64(it.PeriodDays)))
		for range it.PeriodDays {
			perDay = append(perDay, d)
		}
	}
	sum := []*big.Rat{new(big.Rat)}
	for _, d := range perDay {
		sum = append(sum, add(sum[len(sum)-1], d))
	}
	limit := rat(amount / 2)
	for end := 1; end < len(sum); end++ {
		if sub(sum[end], sum[max(0, end-365)]).Cmp(limit) > 0 {
			return false
		}
	}
	return true
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
		l.level = t.Amount / int64(t.Months)
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

// current is the index of the earliest item not yet overdue on day d (due on d or later), or
// -1 after maturity.
func (l *Loan) current(d time.Time) int {
	for k, it := range l.items {
		if !it.date.Before(d) {
			return k
		}
	}
	return -1
}

// notDue is the principal of the items from k on not yet paid: the base interest accrues on in
// item k's period.
func (l *Loan) notDue(k int) int64 {
	var sum int64
	for _, it := range l.items[k:] {
		sum += it.principal - it.paidP
	}
	return sum
}

// overdue is the unpaid principal and charges of the items due before day d.
func (l *Loan) overdue(d time.Time) (p, c int64) {
	for k, it := range l.items {
		if it.date.Before(d) {
			i, s := l.itemCharges(k)
			p += it.principal - it.paidP
			c += i + s - it.paidC
		}
	}
	return p, c
}

// exactCharges is the exact interest and service of item k's period: its closed days as they
// accrued, its open days on the principal not yet due today.
func (l *Loan) exactCharges(k int) (*big.Rat, *big.Rat) {
	it := l.items[k]
	if it.frozen {
		return it.accI, it.accS
	}
	open := rat(int64(it.periodDays - it.closedDays))
	base := rat(l.notDue(k))
	return add(it.accI, mul(mul(base, open), l.rate)), add(it.accS, mul(mul(base, open), l.service))
}

// itemCharges is item k's interest and service as reported: its exact charges rounded half up.
func (l *Loan) itemCharges(k int) (int64, int64) {
	i, s := l.exactCharges(k)
	return roundHalfUp(i), roundHalfUp(s)
}

// termOwed is what the current item c owes of its charges today: on its due date all of them,
// before it what accrued to date (its closed days). Negative when interest was paid ahead.
func (l *Loan) termOwed(c int) int64 {
	it := l.items[c]
	if it.date.Equal(l.today) {
		i, s := l.itemCharges(c)
		return i + s - it.paidC
	}
	return roundHalfUp(it.accI) + roundHalfUp(it.accS) - it.paidC
}

// Advance walks the loan to day to, one day at a time: each day closed accrues its interest
// and service on the principal not yet due at its end, and each day begun accrues the penalty
// on the principal overdue at its start, within the cap.
func (l *Loan) Advance(to time.Time) {
	for l.calendar.Before(to) {
		if l.writtenOff { // nothing accrues: the days pass with no penalty
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
		l.today = l.today.AddDate(0, 0, 1)
		l.day++
		p := new(big.Rat)
		if !l.closed {
			op, _ := l.overdue(l.today)
			p = mul(rat(op), l.penaltyRate)
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

// WindowCharges is the interest and service of the days from first to last, as the cap counts
// them: each item's reported charges spread evenly over its period, for its days in the window.
func (l *Loan) WindowCharges(first, last time.Time) *big.Rat {
	sum := new(big.Rat)
	perDay := l.perDay()
	for k, it := range l.items {
		start := it.date.AddDate(0, 0, -it.periodDays)
		from, to := maxTime(start, first, l.t.IssuedOn), minTime(it.date.AddDate(0, 0, -1), last)
		if it.gone || to.Before(from) {
			continue
		}
		sum.Add(sum, mul(perDay[k], rat(int64(days(from, to)+1))))
	}
	return sum
}

func maxTime(a time.Time, more ...time.Time) time.Time {
	for _, b := range more {
		if b.After(a) {
			a = b
		}
	}
	return a
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// perDay is each item's reported charges spread evenly over its period: a day's share.
func (l *Loan) perDay() []*big.Rat {
	out := make([]*big.Rat, len(l.items))
	for k, it := range l.items {
		i, s := l.itemCharges(k)
		out[k] = quo(rat(i+s), rat(int64(it.periodDays)))
	}
	return out
}

// chargeOn is day d's share of its item's charges (perDay), nothing outside the schedule.
func (l *Loan) chargeOn(d time.Time, perDay []*big.Rat) *big.Rat {
	k := l.periodOf(d)
	if k < 0 || l.items[k].gone || d.Before(l.t.IssuedOn) {
		return new(big.Rat)
	}
	return perDay[k]
}

// capped is today's penalty p within the cap: at most the least, over every 365-day window
// holding today, of the cap less the window's interest and service and the penalty of its days
// before today.
func (l *Loan) capped(p *big.Rat) *big.Rat {
	// Cheap and exact: when all the loan's charges and the last year's penalty leave room for
	// today's, no window can bind.
	all := new(big.Rat)
	for k, it := range l.items {
		if i, s := l.itemCharges(k); !it.gone {
			all.Add(all, rat(i+s))
		}
	}
	all.Add(all, l.lastYear)
	if add(all, p).Cmp(l.cap) <= 0 {
		return p
	}
	perDay := l.perDay()
	// sum[i] is the charges of the days from today-364 up to, not including, today-364+i.
	sum := make([]*big.Rat, 730)
	sum[0] = new(big.Rat)
	for i := 1; i < len(sum); i++ {
		sum[i] = add(sum[i-1], l.chargeOn(l.today.AddDate(0, 0, i-1-364), perDay))
	}
	var least *big.Rat
	before := new(big.Rat)                       // the penalty of the window's days before today
	for w := 0; w >= -364 && l.day+w >= 0; w-- { // the window's first day, from today
		if w < 0 {
			before.Add(before, l.penDay[l.day+w])
		}
		used := add(sub(sum[w+364+365], sum[w+364]), before)
		if left := sub(l.cap, used); least == nil || left.Cmp(least) < 0 {
			least = left
		}
	}
	if least.Sign() < 0 {
		return new(big.Rat)
	}
	if p.Cmp(least) < 0 {
		return p
	}
	return least
}

// PenaltyOn is the exact penalty accrued on day number d (the issue date is 0).
func (l *Loan) PenaltyOn(d int) *big.Rat { return l.penDay[d] }

// Position is the debt today (§8.4's check). Interest paid ahead of the days it is for is
// credited against the principal not yet due.
func (l *Loan) Position() Position {
	if l.closed {
		return Position{}
	}
	op, oc := l.overdue(l.today)
	pos := Position{OverduePrincipal: op, OverdueInterest: oc, Penalty: roundHalfUp(l.penalty) - l.penPaid - l.penWaived}
	c := l.current(l.today)
	if c < 0 {
		return pos
	}
	pos.NotDuePrincipal = l.notDue(c)
	if term := l.termOwed(c); term >= 0 {
		pos.TermInterest = term
	} else {
		pos.NotDuePrincipal += term
	}
	return pos
}

// Schedule is the schedule as it stands: items laid out to nothing by a prepayment are gone.
func (l *Loan) Schedule() []Item {
	var out []Item
	residue := l.t.Amount
	for k, it := range l.items {
		if it.gone {
			continue
		}
		i, s := l.itemCharges(k)
		residue -= it.principal
		out = append(out, Item{Date: it.date, PeriodDays: it.periodDays, Principal: it.principal, Interest: i, Service: s, Residue: residue})
	}
	return out
}

// Pay applies a payment of amount, EARLY or TERM, today (§8.4).
func (l *Loan) Pay(early bool, amount int64) (Split, error) {
	pos := l.Position()
	if l.closed || amount <= 0 || amount > pos.Payoff() {
		return Split{}, ErrAmount
	}
	if amount == pos.Payoff() {
		return l.payOff(pos), nil
	}
	var split Split
	x := amount
	// (1) overdue principal and interest, in proportion, oldest items first.
	op, oc := l.overdue(l.today)
	if x >= op+oc {
		split.Principal, split.Interest = op, oc
	} else {
		pp := new(big.Int).Mul(big.NewInt(x), big.NewInt(op))
		pp.Quo(pp, big.NewInt(op+oc))
		split.Principal, split.Interest = pp.Int64(), x-pp.Int64()
	}
	x -= split.Principal + split.Interest
	l.spreadOverdue(split.Principal, split.Interest)
	c := l.current(l.today)
	if c < 0 { // after maturity only the penalty is left
		split.Penalty = min(x, pos.Penalty)
		l.penPaid += split.Penalty
		return split, nil
	}
	cur := l.items[c]
	onDue := cur.date.Equal(l.today)
	// (2) the current item's interest: all of it for TERM (and on its due date), what accrued
	// to date for EARLY.
	i, s := l.itemCharges(c)
	owed := i + s - cur.paidC
	if early {
		owed = l.termOwed(c)
	}
	ci := min(x, max(0, owed))
	cur.paidC += ci
	split.Interest += ci
	x -= ci
	// (3) its principal.
	cp := min(x, cur.principal-cur.paidP)
	cur.paidP += cp
	split.Principal += cp
	x -= cp
	// (4) the penalty.
	split.Penalty = min(x, pos.Penalty)
	l.penPaid += split.Penalty
	x -= split.Penalty
	var before []int64
	if early {
		before = l.dueTotals(c) // what each item has due before (5): an EARLY recompute raises none
	}
	// (5) the rest reduces the principal not yet due; when principal fell before the due
	// date, interest paid ahead beyond the period's accrual on the new residue goes the same way.
	later := l.notDue(c + 1)
	split.Principal += x
	rest := x
	if !onDue && cp+x > 0 {
		e := l.advanceInterest(c, x)
		rest += e
		split.Principal += e
		split.Interest -= e
		cur.paidC -= e
	}
	toLater := min(rest, later)
	cur.principal += toLater
	cur.paidP += rest
	if early {
		l.recompute(c, onDue, before, later-toLater)
	} else if toLater > 0 {
		l.relayout(c, later-toLater)
	}
	return split, nil
}

// spreadOverdue spreads overdue principal rp and charges rc, paid or waived, over the overdue
// items, oldest first: an item's credit (a tiyin of E's rounding it kept over its charges) is
// taken first, then what each owes.
func (l *Loan) spreadOverdue(rp, rc int64) {
	for k, it := range l.items {
		if i, s := l.itemCharges(k); it.date.Before(l.today) && i+s-it.paidC < 0 {
			rc -= i + s - it.paidC
			it.paidC = i + s
		}
	}
	for k, it := range l.items {
		if !it.date.Before(l.today) {
			break
		}
		i, s := l.itemCharges(k)
		dp, dc := min(rp, it.principal-it.paidP), min(rc, max(0, i+s-it.paidC))
		it.paidP += dp
		it.paidC += dc
		rp -= dp
		rc -= dc
	}
}

// WaivePenalty forgives amount of the penalty owed today, all of it for 0, and returns what
// it forgave.
func (l *Loan) WaivePenalty(amount int64) (int64, error) {
	owed := l.Position().Penalty
	if l.closed || owed <= 0 || amount < 0 || amount > owed {
		return 0, ErrAmount
	}
	if amount == 0 {
		amount = owed
	}
	l.penWaived += amount
	l.closed = l.Position().Payoff() == 0 // nothing left to pay: the loan is settled
	return amount, nil
}

// WaiveInterest forgives amount of the overdue interest and service owed today, all of it for
// 0, spread over the overdue items as a payment's would be, and returns what it forgave.
func (l *Loan) WaiveInterest(amount int64) (int64, error) {
	owed := l.Position().OverdueInterest
	if l.closed || owed <= 0 || amount < 0 || amount > owed {
		return 0, ErrAmount
	}
	if amount == 0 {
		amount = owed
	}
	l.spreadOverdue(0, amount)
	l.intWaived += amount
	l.closed = l.Position().Payoff() == 0
	return amount, nil
}

// Waived is the interest and the penalty the bank's operators forgave.
func (l *Loan) Waived() (interest, penalty int64) { return l.intWaived, l.penWaived }

// WriteOff stops the loan's debt where it stands today: nothing accrues any more, and later
// payments are applied as of today. It returns the principal written off: every item's
// principal not yet paid.
func (l *Loan) WriteOff() int64 {
	l.writtenOff = true
	var p int64
	for _, it := range l.items {
		p += it.principal - it.paidP
	}
	return p
}

// Restructure lays the principal not yet due out again today over the loan's current end and
// months more, the first holiday of the new instalments taking no principal (interest only),
// as an annuity (the smallest whole instalment whose last is not larger) or equal parts. An
// item due today is settled as it stands and the layout starts after it; past items do not
// change. It reports false and changes nothing when the restructuring does not fit: the loan
// past its last date, closed or written off, longer than 36 months, no principal left, or its
// schedule over the cap in some 365-day window.
func (l *Loan) Restructure(months, holiday int) bool {
	c := l.current(l.today)
	if l.closed || l.writtenOff || c < 0 || months < 1 || holiday > months {
		return false
	}
	last := l.end() + months
	if last >= 36 {
		return false
	}
	saved, savedLevel, savedMonths := make([]item, len(l.items)), l.level, l.t.Months
	for k, it := range l.items {
		saved[k] = *it
	}
	undo := func() bool {
		l.items = l.items[:len(saved)]
		for k := range saved {
			*l.items[k] = saved[k]
		}
		l.level, l.t.Months = savedLevel, savedMonths
		return false
	}
	all := Dates(l.t.IssuedOn, last+1)
	for k := len(l.items); k <= last; k++ {
		l.items = append(l.items, &item{date: all[k], periodDays: days(all[k-1], all[k]), accI: new(big.Rat), accS: new(big.Rat)})
	}
	from := c
	if l.items[c].date.Equal(l.today) {
		from = c + 1
	}
	residue := l.notDue(from)
	if residue == 0 {
		return undo()
	}
	n := last - from + 1
	dates, periods := make([]time.Time, n), make([]int, n)
	for j := range n {
		dates[j], periods[j] = l.items[from+j].date, l.items[from+j].periodDays
	}
	due := l.relayDue(c, from, periods)
	withX := func(x int64) []Item {
		return layout(residue, dates, periods, due, func(j int, c int64) int64 {
			if j < holiday {
				return 0
			}
			if l.t.Differentiated {
				return x
			}
			return x - c
		})
	}
	var laid []Item
	if l.t.Differentiated {
		l.level = residue / int64(n-holiday)
		laid = withX(l.level)
	} else {
		fits := func(x int64) bool {
			last := withX(x)[n-1]
			return last.Principal+last.Interest+last.Service <= x
		}
		lo, hi := int64(0), int64(1)
		for !fits(hi) {
			lo, hi = hi, hi*2
		}
		for lo < hi {
			if m := lo + (hi-lo)/2; fits(m) {
				hi = m
			} else {
				lo = m + 1
			}
		}
		l.level, laid = hi, withX(hi)
	}
	for j, it := range laid {
		x := l.items[from+j]
		if from+j == c {
			x.principal = x.paidP + it.Principal
			continue
		}
		x.principal, x.paidP, x.gone = it.Principal, 0, false
	}
	for _, it := range l.items[last+1:] {
		it.principal, it.paidP, it.gone = 0, 0, true
	}
	l.t.Months = last + 1
	if !withinCap(l.Schedule(), l.t.Amount) {
		return undo()
	}
	// The penalty already accrued uses its windows' room: every window holding today keeps the
	// new schedule's charges and that penalty within the cap.
	limit := rat(l.t.Amount / 2)
	for s := max(0, l.day-363); s <= l.day; s++ {
		used := l.WindowCharges(l.t.IssuedOn.AddDate(0, 0, s), l.t.IssuedOn.AddDate(0, 0, s+364))
		for d := s; d <= l.day; d++ {
			used.Add(used, l.penDay[d])
		}
		if used.Cmp(limit) > 0 {
			return undo()
		}
	}
	return true
}

// advanceInterest is E: interest paid on item c beyond what its period accrues on the residue
// the payment leaves (x being what the payment takes off it in (5)), applied to principal: the
// unique amount for which the interest kept equals the accrual on the residue E leaves,
// E = surplus / (1 − open days × rate / 365), rounded half up once.
func (l *Loan) advanceInterest(c int, x int64) int64 {
	it := l.items[c]
	open := rat(int64(it.periodDays - it.closedDays))
	rate := add(l.rate, l.service)
	base := rat(l.notDue(c) - x)
	kept := add(add(it.accI, it.accS), mul(mul(base, open), rate))
	surplus := sub(rat(it.paidC), kept)
	if surplus.Sign() <= 0 {
		return 0
	}
	return min(roundHalfUp(quo(surplus, sub(one, mul(open, rate)))), l.notDue(c)-x)
}

// dueTotals is what each item from c on has still due (principal and charges).
func (l *Loan) dueTotals(c int) []int64 {
	out := make([]int64, len(l.items))
	for k := c; k < len(l.items); k++ {
		i, s := l.itemCharges(k)
		it := l.items[k]
		out[k] = it.principal - it.paidP + i + s - it.paidC
	}
	return out
}

// end is the index of the loan's last item that still has principal.
func (l *Loan) end() int {
	for k := len(l.items) - 1; k >= 0; k-- {
		if !l.items[k].gone && l.items[k].principal > 0 {
			return k
		}
	}
	return len(l.items) - 1
}

// relayout lays residue, the principal after item c, out again at the same instalment (TERM's
// rest): the loan ends earlier, the items past its principal gone.
func (l *Loan) relayout(c int, residue int64) {
	for k := c + 1; k < len(l.items); k++ {
		it := l.items[k]
		i, s := charges(l.t, residue, it.periodDays)
		p := residue
		if k < len(l.items)-1 {
			if l.t.Differentiated {
				p = min(residue, l.level)
			} else {
				p = min(residue, max(0, l.level-i-s))
			}
		}
		residue -= p
		it.principal, it.paidP, it.gone = p, 0, p == 0 && residue == 0 // a holiday's item is not gone
	}
}

// recompute lays the principal not yet due out again after an EARLY payment, from the payment
// date to the loan's current end on the same dates, no item due more than before (before is
// each item's due amount before the payment's (5)). The current item takes part unless it is
// due today; later is the principal after it.
func (l *Loan) recompute(c int, onDue bool, before []int64, later int64) {
	last := l.end()
	from, residue := c, later+l.items[c].principal-l.items[c].paidP
	if onDue {
		from, residue = c+1, later
	}
	if from > last || residue == 0 {
		for k := from; k < len(l.items); k++ {
			if k > c {
				l.items[k].principal, l.items[k].paidP, l.items[k].gone = 0, 0, true
			}
		}
		if from == c {
			l.items[c].principal = l.items[c].paidP
		}
		return
	}
	n := last - from + 1
	dates, periods, limits := make([]time.Time, n), make([]int, n), make([]int64, n)
	for j := range n {
		it := l.items[from+j]
		dates[j], periods[j], limits[j] = it.date, it.periodDays, before[from+j]
	}
	due := l.relayDue(c, from, periods)
	var laid []Item
	if l.t.Differentiated {
		// Equal parts from an equal share, no item taking more principal than it had: the
		// smallest such part that leaves the last item no more than it had either.
		unpaid := func(j int) int64 { return l.items[from+j].principal - l.items[from+j].paidP }
		lastOf := func(part int64) int64 {
			r := residue
			for j := range n - 1 {
				r -= min(r, part, unpaid(j))
			}
			return r
		}
		part, hi := residue/int64(n), residue
		for lastOf(part) > unpaid(n-1) && part < hi {
			if m := part + (hi-part)/2; lastOf(m) > unpaid(n-1) {
				part = m + 1
			} else {
				hi = m
			}
		}
		laid = layout(residue, dates, periods, due, func(j int, _ int64) int64 { return min(part, unpaid(j)) })
		l.level = part
	} else {
		laid, l.level = annuity(residue, dates, periods, due, limits)
	}
	for j, it := range laid {
		x := l.items[from+j]
		if from+j == c {
			x.principal = x.paidP + it.Principal
			continue
		}
		// Gone only once nothing is left to lay out: an item with no principal before the
		// loan's last principal is a payment holiday's, and asks its interest.
		x.principal, x.paidP, x.gone = it.Principal, 0, it.Principal == 0 && it.Residue == 0
	}
	for k := last + 1; k < len(l.items); k++ {
		l.items[k].principal, l.items[k].paidP, l.items[k].gone = 0, 0, true
	}
}

// relayDue is the charges of the items laid out again from item from (periods being theirs),
// the current item c being from or before it. When the current item takes part, its closed
// days keep what they accrued: it is due its whole period's charges on the residue, less what
// it has paid.
func (l *Loan) relayDue(c, from int, periods []int) chargesFn {
	due := func(j int, residue int64) (int64, int64) { return charges(l.t, residue, periods[j]) }
	if from != c {
		return due
	}
	it := l.items[c]
	open := rat(int64(it.periodDays - it.closedDays))
	return func(j int, residue int64) (int64, int64) {
		if j > 0 {
			return due(j, residue)
		}
		i := roundHalfUp(add(it.accI, mul(mul(rat(residue), open), l.rate)))
		s := roundHalfUp(add(it.accS, mul(mul(rat(residue), open), l.service)))
		return i, s - it.paidC
	}
}

// payOff closes the loan with a payment of its whole payoff: the current item keeps the charges
// accrued to date, and what was paid beyond them counts as principal.
func (l *Loan) payOff(pos Position) Split {
	split := Split{Principal: pos.OverduePrincipal, Interest: pos.OverdueInterest, Penalty: pos.Penalty}
	c := l.current(l.today)
	for k, it := range l.items {
		if c >= 0 && k >= c {
			break
		}
		i, s := l.itemCharges(k)
		it.paidP, it.paidC = it.principal, i+s
	}
	l.penPaid += pos.Penalty
	l.closed = true
	if c < 0 {
		return split
	}
	cur := l.items[c]
	term := l.termOwed(c)
	rest := l.notDue(c)
	split.Principal += rest
	split.Interest += term
	// On its payment date too: the later items' periods have not begun, so nothing is owed
	// for them and they are gone.
	cur.frozen = true
	cur.principal += l.notDue(c + 1)
	for _, later := range l.items[c+1:] {
		later.principal, later.paidP, later.gone = 0, 0, true
	}
	i, s := l.itemCharges(c)
	cur.paidP, cur.paidC = cur.principal, i+s
	return split
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
