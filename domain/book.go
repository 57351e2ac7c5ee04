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
	// penaltyAccrued is the penalty accrued up to the day, within the cap.
	penaltyAccrued int64
	// accruedInterest and accruedService of the current item up to the day.
	accruedInterest, accruedService int64
}

// at computes the standing at a business date. An item not fully paid by the end of its
// payment date is overdue; penalty accrues daily on overdue principal and stops where
// interest, service and penalty accrued in the 365 days up to the day reach half the amount.
func (b *book) at(day time.Time) standing {
	s := standing{current: -1}
	var principalDays, charges int64
	yearAgo := day.AddDate(0, 0, -365)
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
		if it.PaymentDate.After(yearAgo) {
			charges += it.Interest + it.Service
		}
		from := it.PaymentDate
		if b.PenaltyTo.After(from) {
			from = b.PenaltyTo
		}
		if d := DaysBetween(from, day); d > 0 {
			principalDays += principal * int64(d)
		}
	}
	if s.current >= 0 {
		it := &b.Items[s.current]
		s.accruedInterest, s.accruedService = b.accrued(it, day)
		s.TermInterest = max(0, s.accruedInterest+s.accruedService-it.PaidCharges)
		charges += s.accruedInterest + s.accruedService
	}
	capRoom := int64(b.terms.Amount)/CapShare - charges
	s.penaltyAccrued = b.PenaltyAccrued + Accrue(principalDays, b.penaltyDaily, 365)
	s.penaltyAccrued = min(s.penaltyAccrued, max(b.PenaltyAccrued, capRoom))
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
