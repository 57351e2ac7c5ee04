package domain

import (
	"errors"
	"time"
)

// ErrRepaymentAmount means a repayment amount is not positive or above the payoff.
var ErrRepaymentAmount = errors.New("amount must be positive and not above maxAmount")

// BookItem is a schedule item with what has been paid on it and how its interest accrues.
type BookItem struct {
	ScheduleItem
	PaidPrincipal int64
	// PaidCharges is interest and service paid on the item.
	PaidCharges int64
	// The item's interest and service accrue from AccrualFrom on Base; FixedInterest and
	// FixedService accrued before AccrualFrom (an early repayment fixes them and restarts the
	// accrual on the reduced principal).
	AccrualFrom                 time.Time
	Base                        int64
	FixedInterest, FixedService int64
}

// BookState is a loan's repayment book as stored; repositories only.
type BookState struct {
	Items []BookItem
	// Level is the annuity instalment, or the differentiated schedule's principal part, that a
	// TERM prepayment keeps.
	Level int64
	// PenaltyTo is the business date up to which PenaltyAccrued is fixed.
	PenaltyTo      time.Time
	PenaltyAccrued int64
	PenaltyPaid    int64
	// PenaltyLog is the penalty accrued on the 365 days up to PenaltyTo, as spans; days it
	// does not cover accrued none. The cap is kept in every 365-day window with it.
	PenaltyLog []PenaltySpan
}

// PenaltySpan is penalty accrued over Days days from From (a business date, the first of
// them): Total in all, spread evenly, the last days taking the remainder's tiyin. Its days'
// penalties differ by a tiyin at most, so any run of its last days holds no less than it
// really accrued: a window, which always holds the last days of a span, never finds more room
// than there was.
type PenaltySpan struct {
	From  time.Time
	Days  int
	Total int64
}

// Book is the loan's schedule with its repayments applied: the loan's state at any moment is a
// function of it and the moment, and it is itself the fold of the repayments over the original
// schedule.
type book struct {
	BookState
	terms        LoanTerms
	penaltyDaily Percent
}

func newBook(t LoanTerms, penaltyDaily Percent) (*book, error) {
	items, err := BuildSchedule(t)
	if err != nil {
		return nil, err
	}
	b := &book{terms: t, penaltyDaily: penaltyDaily}
	b.Items = make([]BookItem, len(items))
	start := t.IssuedOn
	for i, it := range items {
		b.Items[i] = BookItem{ScheduleItem: it, AccrualFrom: start, Base: it.Principal + it.Residue}
		start = it.PaymentDate
	}
	b.Level = items[0].Total()
	if t.Type == ScheduleDifferentiated {
		b.Level = int64(t.Amount) / int64(t.MonthPeriod)
	}
	b.PenaltyTo = t.IssuedOn
	return b, nil
}

// accrued returns the item's interest and service accrued up to day.
func (b *book) accrued(it *BookItem, day time.Time) (interest, service int64) {
	days := DaysBetween(it.AccrualFrom, day)
	return it.FixedInterest + Accrue(it.Base, b.terms.Rate, days), it.FixedService + Accrue(it.Base, b.terms.ServiceRate, days)
}

// standing is the position at a day with what allocation and recomputation need.
type standing struct {
	Position
	current int // index of the current item (the earliest not yet overdue), -1 when none
	// penaltyAccrued is the penalty accrued up to the day, within the cap; penaltyDays the
	// penalty of each day after PenaltyTo up to the day.
	penaltyAccrued int64
	penaltyDays    []int64
	// accruedInterest and accruedService of the current item up to the day.
	accruedInterest, accruedService int64
}

// at computes the standing at a business date. An item not fully paid by the end of its
// payment date is overdue; penalty accrues daily on overdue principal, within the cap
// (penaltyDays).
func (b *book) at(day time.Time) standing {
	s := standing{current: -1}
	for i := range b.Items {
		it := &b.Items[i]
		principal := it.Principal - it.PaidPrincipal
		if !it.PaymentDate.Before(day) {
			if s.current < 0 {
				s.current = i
			}
			s.NotDuePrincipal += principal
			continue
		}
		s.OverduePrincipal += principal
		s.OverdueInterest += max(0, it.Interest+it.Service-it.PaidCharges)
	}
	if s.current >= 0 {
		it := &b.Items[s.current]
		s.accruedInterest, s.accruedService = b.accrued(it, day)
		s.TermInterest = max(0, s.accruedInterest+s.accruedService-it.PaidCharges)
	}
	s.penaltyAccrued = b.PenaltyAccrued
	if s.OverduePrincipal > 0 {
		s.penaltyDays = b.penaltyDays(day)
		for _, p := range s.penaltyDays {
			s.penaltyAccrued += p
		}
	}
	s.penaltyAccrued = max(s.penaltyAccrued, b.PenaltyPaid)
	s.Penalty = s.penaltyAccrued - b.PenaltyPaid
	return s
}

// RepaymentSplit is how a posted repayment divides between the ledger's accounts.
type RepaymentSplit struct {
	Allocation
	// InterestIncome and ServiceIncome split the allocation's interest (interest first).
	InterestIncome, ServiceIncome int64
	// Closed reports that the repayment paid the loan off.
	Closed bool
}

// apply applies a repayment made on day in the legal order and recomputes the schedule as its
// type requires. A payment equal to the payoff is a full early repayment whatever its type.
func (b *book) apply(day time.Time, typ PaymentType, amount int64) (RepaymentSplit, error) {
	s := b.at(day)
	payoff := s.Payoff()
	if amount <= 0 || amount > payoff {
		return RepaymentSplit{}, ErrRepaymentAmount
	}
	if amount == payoff {
		typ = PaymentEarly
	}
	due := Due{OverduePrincipal: s.OverduePrincipal, OverdueInterest: s.OverdueInterest, Penalty: s.Penalty,
		RemainingPrincipal: s.NotDuePrincipal}
	var cur *BookItem
	// An EARLY payment on the current item's due date settles that item first, as TERM
	// would; only the items after it are recomputed (DESIGN §8.4).
	onDueDate := false
	if s.current >= 0 {
		cur = &b.Items[s.current]
		onDueDate = typ == PaymentEarly && !cur.PaymentDate.After(day)
		due.CurrentPrincipal = cur.Principal - cur.PaidPrincipal
		due.RemainingPrincipal -= due.CurrentPrincipal
		due.CurrentInterest = s.TermInterest
		if typ == PaymentTerm || onDueDate {
			due.CurrentInterest = max(0, cur.Interest+cur.Service-cur.PaidCharges)
		}
	}
	a := Allocate(due, amount)
	split := RepaymentSplit{Allocation: a}
	b.logPenalty(day, s.penaltyDays)
	b.PenaltyTo, b.PenaltyAccrued = day, s.penaltyAccrued
	b.PenaltyPaid += a.Penalty
	principal, interest := a.OverduePrincipal, a.OverdueInterest
	for i := range b.Items {
		it := &b.Items[i]
		if !it.PaymentDate.Before(day) {
			break
		}
		p := min(principal, it.Principal-it.PaidPrincipal)
		c := min(interest, max(0, it.Interest+it.Service-it.PaidCharges))
		split.InterestIncome += min(c, max(0, it.Interest-it.PaidCharges))
		it.PaidPrincipal += p
		it.PaidCharges += c
		principal, interest = principal-p, interest-c
	}
	if cur != nil {
		var interestOwed int64
		if typ == PaymentTerm || onDueDate {
			interestOwed = max(0, cur.Interest-cur.PaidCharges)
		} else {
			interestOwed = max(0, s.accruedInterest-cur.PaidCharges)
		}
		split.InterestIncome += min(a.CurrentInterest, interestOwed)
		cur.PaidCharges += a.CurrentInterest
		cur.PaidPrincipal += a.CurrentPrincipal + a.Prepaid
		switch {
		case onDueDate && a.Prepaid > 0:
			b.recomputeLater(s.current, 0) // lower instalments, the same end date
		case typ == PaymentEarly && !onDueDate && a.CurrentPrincipal+a.Prepaid > 0:
			b.recomputeEarly(s, day)
		case typ == PaymentTerm && a.Prepaid > 0:
			b.recomputeLater(s.current, b.Level) // the same instalment, an earlier end
		}
	}
	split.ServiceIncome = a.Interest() - split.InterestIncome
	split.Closed = b.at(day).Payoff() == 0
	return split, nil
}

// recomputeEarly lays the current and later items out again from day to the same end date on
// the principal left, keeping their payment dates. The current item keeps the interest accrued
// to day (or paid, if more) and shows all principal paid in its period.
func (b *book) recomputeEarly(s standing, day time.Time) {
	c := s.current
	items := b.Items[c:]
	var left int64
	for i := range items {
		left += items[i].Principal - items[i].PaidPrincipal
	}
	dates, days := periods(items, day)
	cur := &items[0]
	left = max(0, left)
	t := b.terms
	t.Amount = Amount(left)
	fresh, level := layout(t, dates, days, 0)
	if left > 0 {
		b.Level = level
	}
	fixedI, fixedS := s.accruedInterest, s.accruedService
	if extra := cur.PaidCharges - fixedI - fixedS; extra > 0 {
		fixedI += extra
	}
	cur.FixedInterest, cur.FixedService, cur.AccrualFrom, cur.Base = fixedI, fixedS, day, left
	cur.Principal = cur.PaidPrincipal + fresh[0].Principal
	cur.Interest, cur.Service = fixedI+fresh[0].Interest, fixedS+fresh[0].Service
	cur.Residue = fresh[0].Residue
	for i := 1; i < len(items); i++ {
		items[i] = BookItem{ScheduleItem: fresh[i], AccrualFrom: dates[i-1], Base: fresh[i].Principal + fresh[i].Residue}
		items[i].PeriodDays = DaysBetween(dates[i-1], dates[i])
	}
}

// recomputeLater lays the items after the current one out again on the principal a
// prepayment left, keeping their payment dates: at level (the same instalment, so the loan
// ends earlier), or, with level 0, at a new level found for the same end date. The prepaid
// principal shows in the current item.
func (b *book) recomputeLater(c int, level int64) {
	cur := &b.Items[c]
	prepaid := cur.PaidPrincipal - cur.Principal
	cur.Principal = cur.PaidPrincipal
	cur.Residue -= prepaid
	later := b.Items[c+1:]
	if len(later) == 0 {
		return
	}
	dates, days := periods(later, cur.PaymentDate)
	t := b.terms
	t.Amount = Amount(cur.Residue)
	fresh, newLevel := layout(t, dates, days, level)
	if level == 0 && t.Amount > 0 {
		b.Level = newLevel
	}
	for i := range later {
		later[i] = BookItem{ScheduleItem: fresh[i], AccrualFrom: cur.PaymentDate, Base: fresh[i].Principal + fresh[i].Residue}
		if i > 0 {
			later[i].AccrualFrom = dates[i-1]
		}
	}
}

// periods returns the items' payment dates and the days of each period, the first counted
// from `from`.
func periods(items []BookItem, from time.Time) ([]time.Time, []int) {
	dates := make([]time.Time, len(items))
	days := make([]int, len(items))
	for i := range items {
		dates[i], days[i], from = items[i].PaymentDate, DaysBetween(from, items[i].PaymentDate), items[i].PaymentDate
	}
	return dates, days
}

// penaltyDays returns the penalty of each day after PenaltyTo up to day. A day's penalty
// accrues on the principal overdue that day at the daily percent (rounded so that a run of
// days with the same principal sums to the run's exact penalty, rounded once), and within the
// Central Bank cap: in every 365-day window that holds the day, the penalty accrued in it and
// the schedule's interest and service, day by day, stay within half of the amount. Interest and
// service are fixed by the schedule, so a day takes only the room that every window through it
// leaves after them; penalty accrued before a window never uses its room (DESIGN §8.3).
func (b *book) penaltyDays(day time.Time) []int64 {
	n := DaysBetween(b.PenaltyTo, day)
	if n <= 0 || b.penaltyDaily.hundredths == 0 {
		return nil
	}
	limit := int64(b.terms.Amount) / CapShare
	// Days are indexed from PenaltyTo-364 (0); pref[i%ring] is the penalty of the days
	// before i. Only the last year's are ever read, so pref and room are rings.
	const ring = 366
	first := b.PenaltyTo.AddDate(0, 0, -364)
	var pref, room [ring]int64
	for i, v := range b.penaltyHistory(first) {
		pref[i+1] = pref[i] + v
	}
	w := newChargeWindow(b.Items, first)
	due := w.due
	lastDue := due[len(due)-1]
	// The room a day x leaves in the window ending on day e is room[e] - pref[x], where
	// room[e] = limit - charges(e) + pref[e-364] is fixed once pref reaches e-364. A day's
	// allowance is the least over the windows through it that end on or before the last due
	// date (after it, the window ending on the day itself leaves the least: no charge is ahead
	// of it). windows is a deque of window ends, their rooms increasing.
	windows := make([]int, 0, ring)
	added := 364 // the last window end considered
	out := make([]int64, n)
	var principal, overdue, runPenalty int64
	next := 0 // the first item not overdue yet; items are in due-date order
	run := 0  // days of the current run of equal overdue principal, runPenalty their penalty
	for j := range n {
		xi := 365 + j
		for ; next < len(b.Items) && due[next] < xi; next++ {
			overdue += b.Items[next].Principal - b.Items[next].PaidPrincipal
		}
		if overdue != principal {
			principal, run, runPenalty = overdue, 0, 0
		}
		run++
		cumulative := Accrue(principal, b.penaltyDaily, 365*run)
		p := cumulative - runPenalty
		runPenalty = cumulative
		for last := max(xi, min(xi+364, lastDue)); added < last; {
			added++
			room[added%ring] = limit - w.charges(added) + pref[(added-364)%ring]
			for len(windows) > 0 && room[windows[len(windows)-1]%ring] >= room[added%ring] {
				windows = windows[:len(windows)-1]
			}
			windows = append(windows, added)
		}
		for windows[0] < xi {
			windows = windows[1:]
		}
		p = max(0, min(p, room[windows[0]%ring]-pref[xi%ring]))
		out[j] = p
		pref[(xi+1)%ring] = pref[xi%ring] + p
	}
	return out
}

// chargeWindow sums the interest and service the items accrue in a 365-day window that only
// moves forward, each item's spread evenly over its period: the items wholly inside from
// running sums, the one or two at its edges in part.
type chargeWindow struct {
	items []BookItem
	due   []int   // the items' payment days, counted from the window's first day
	sums  []int64 // sums[i] is the charges of the items before i
	a, c  int     // the items whose periods meet the window are a..c-1
}

func newChargeWindow(items []BookItem, first time.Time) *chargeWindow {
	w := &chargeWindow{items: items, due: make([]int, len(items)), sums: make([]int64, len(items)+1)}
	for i := range items {
		w.due[i] = DaysBetween(first, items[i].PaymentDate)
		w.sums[i+1] = w.sums[i] + items[i].Interest + items[i].Service
	}
	return w
}

// charges is what accrues on the 365 days ending on day end (never less than the last asked).
func (w *chargeWindow) charges(end int) int64 {
	start := end - 365
	for w.a < len(w.items) && w.due[w.a] <= start {
		w.a++
	}
	for w.c < len(w.items) && w.due[w.c]-w.items[w.c].PeriodDays < end {
		w.c++
	}
	if w.a >= w.c {
		return 0
	}
	sum := w.sums[w.c] - w.sums[w.a] - w.cut(w.a, start, end)
	if w.c-1 > w.a {
		sum -= w.cut(w.c-1, start, end)
	}
	return sum
}

// cut is the part of item i's charges that accrues outside the window (start, end].
func (w *chargeWindow) cut(i, start, end int) int64 {
	it := &w.items[i]
	full := it.Interest + it.Service
	lo, hi := max(w.due[i]-it.PeriodDays, start), min(w.due[i], end)
	if it.PeriodDays <= 0 || hi <= lo {
		return full
	}
	if hi-lo == it.PeriodDays {
		return 0
	}
	return full - full*int64(hi-lo)/int64(it.PeriodDays)
}

// penaltyHistory expands PenaltyLog into the penalty of each of the 365 days from first.
func (b *book) penaltyHistory(first time.Time) []int64 {
	out := make([]int64, 365)
	for _, sp := range b.PenaltyLog {
		if sp.Days <= 0 {
			continue
		}
		per, extra := sp.Total/int64(sp.Days), sp.Total%int64(sp.Days)
		start := DaysBetween(first, sp.From)
		for k := range sp.Days {
			if i := start + k; i >= 0 && i < len(out) {
				out[i] = per
				if int64(sp.Days-k) <= extra {
					out[i]++
				}
			}
		}
	}
	return out
}

// logPenalty keeps the penalty of the 365 days up to day (the history up to PenaltyTo, then
// days, the penalty of each day after it) as PenaltyLog: consecutive days of v or v+1 tiyin
// share a span; days without penalty are left out.
func (b *book) logPenalty(day time.Time, days []int64) {
	if len(days) == 0 && day.Equal(b.PenaltyTo) {
		return // the same day again: the log is the same
	}
	first := day.AddDate(0, 0, -364)
	all := append(b.penaltyHistory(b.PenaltyTo.AddDate(0, 0, -364)), days...)
	all = all[max(0, len(all)-365):]
	var log []PenaltySpan
	low, end := int64(0), -1 // the least penalty of a day of the last span, and its last day
	for i, p := range all {
		if p == 0 {
			continue
		}
		if n := len(log); n > 0 && end == i-1 && (p == low || p == low+1) {
			log[n-1].Days++
			log[n-1].Total += p
			end = i
			continue
		}
		log = append(log, PenaltySpan{From: first.AddDate(0, 0, i), Days: 1, Total: p})
		low, end = p, i
	}
	b.PenaltyLog = log
}
