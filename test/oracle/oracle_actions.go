package oracle

import (
	"math/big"
)

// The bank's operators' actions. DESIGN.md says nothing of them but that interest waived is
// not income (§9.1) and that a write-off credits the principal accounts and a recovery is
// income when paid (§9.1); what they do to the debt is docs/loan-actions.md's, and docs/money.md's readings table
// marks each as a decision.

// WaivePenalty forgives amount of the penalty owed today, all of it for 0, and returns what
// it forgave. The penalty keeps accruing afterwards.
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
	l.bookWaiver()
	return amount, nil
}

// WaiveInterest forgives amount of the overdue interest and service owed today, all of it for
// 0, spread over the overdue items oldest first, as a payment's step (1) would pay them, and
// returns what it forgave.
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
	l.bookWaiver()
	return amount, nil
}

// Waived is the interest and the penalty the bank's operators forgave.
func (l *Loan) Waived() (interest, penalty int64) { return l.intWaived, l.penWaived }

// WriteOff stops the loan's debt where it stands today: nothing accrues any more, and later
// payments (recoveries) are applied as of today. It returns the principal written off: every
// item's principal not yet paid.
func (l *Loan) WriteOff() int64 {
	l.writtenOff = true
	var p int64
	for k := range l.items {
		p += l.unpaid(k)
	}
	l.bookWriteOff(p)
	return p
}

// Restructure lays the principal not yet due out again today over the loan's current end and
// months more, the first holiday of the new items taking no principal (interest only), as an
// annuity (the smallest whole instalment whose last is not larger) or equal principal parts.
// An item due today is settled as it stands and the layout starts after it; the current item
// otherwise takes part, keeping the days of its period already passed; past items do not
// change. It reports false and changes nothing when the restructuring does not fit: the loan
// past its last date, closed or written off, longer than 36 months in all (§8.3's maximum
// term), no principal left, or its schedule, with the penalty already accrued, over the cap in
// some 365-day window.
func (l *Loan) Restructure(months, holiday int) bool {
	c := l.current(l.today)
	if l.closed || l.writtenOff || c < 0 || months < 1 || holiday > months {
		return false
	}
	end := len(l.items) - 1 // the loan's current end: its last item with principal
	for end > 0 && (l.items[end].gone || l.items[end].principal == 0) {
		end--
	}
	last := end + months
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
	dates := Dates(l.t.IssuedOn, last+1)
	for k := len(l.items); k <= last; k++ {
		l.items = append(l.items, &item{date: dates[k], periodDays: days(dates[k-1], dates[k]), accI: new(big.Rat), accS: new(big.Rat)})
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
	var parts []int64
	if l.t.Differentiated {
		caps := make([]int64, n)
		for j := holiday; j < n; j++ {
			caps[j] = residue
		}
		parts, l.level = EqualParts(residue, caps)
	} else {
		slots := make([]slot, n)
		for j := range slots {
			slots[j] = slot{charges: l.asksCharges(from + j), limit: -1, none: j < holiday}
		}
		parts, l.level, _ = annuity(residue, slots)
	}
	for j, p := range parts {
		l.setPrincipal(c, from+j, p)
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
