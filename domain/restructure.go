package domain

import (
	"errors"
	"fmt"
	"time"
)

// ErrRestructure means a restructuring does not fit the loan: past its last payment date, a
// term beyond 36 months, or a schedule over the Central Bank cap.
var ErrRestructure = errors.New("the restructuring does not fit the loan")

// Restructure lays the loan's principal not yet due out again at now, over its current end and
// months more (a longer term), the first holiday of the new instalments asking interest only (a
// payment holiday: the principal rests, the interest keeps accruing and is due on each date).
// Past items, overdue ones included, do not change; an item due today is settled as it stands,
// and the layout starts after it; the current item keeps the days of its period already
// passed. The new schedule is an annuity (the smallest instalment whose last is not larger) or
// equal principal parts, as the loan's; it must end within 36 months of issue and keep its
// interest and service within the cap in every 365-day window (DESIGN §8.3).
func (l *Loan) Restructure(now time.Time, months, holiday int) error {
	b, err := l.openBook()
	if err != nil {
		return err
	}
	if !l.writtenOffAt.IsZero() {
		return ErrLoanWrittenOff
	}
	if months < 1 || holiday < 0 || holiday > months {
		return fmt.Errorf("%w: extend by 1 month or more, the holiday not longer than the extension", ErrRestructure)
	}
	// On a copy of the book: a restructuring that does not fit leaves the loan as it was.
	trial := &book{BookState: *b.clone(), terms: b.terms, penaltyDaily: b.penaltyDaily}
	if err := trial.restructure(BusinessDate(now), months, holiday); err != nil {
		return err
	}
	trial.terms.MonthPeriod = len(trial.Items)
	if !ScheduledChargesWithinCap(trial.terms, trial.schedule()) || !trial.capKept(BusinessDate(now)) {
		return fmt.Errorf("%w: its interest and service would exceed half of the amount within a year (Central Bank cap)", ErrRestructure)
	}
	l.book, l.monthPeriod, b = trial, len(trial.Items), trial
	what := LoanChanged{Action: ActionExtendTerm, Months: months}
	if holiday > 0 {
		what = LoanChanged{Action: ActionPaymentHoliday, Months: holiday}
	}
	l.changed(now, what, b)
	return nil
}

// restructure lays the principal not yet due out again on day over the items from the current
// one to the current end and months more, the first holiday asking no principal.
func (b *book) restructure(day time.Time, months, holiday int) error {
	s := b.at(day)
	c := s.current
	if c < 0 {
		return fmt.Errorf("%w: the loan is past its last payment date", ErrRestructure)
	}
	last := b.end() + months
	if last >= MaxMonthPeriod {
		return fmt.Errorf("%w: the loan would run %d months, more than %d", ErrRestructure, last+1, MaxMonthPeriod)
	}
	b.keepPenalty(day, s)
	b.fold(day)
	dates := PaymentDates(b.terms.IssuedOn, last+1)
	for k := len(b.Items); k <= last; k++ {
		b.Items = append(b.Items, BookItem{PaymentDate: dates[k], PeriodDays: DaysBetween(dates[k-1], dates[k]), AccrualFrom: dates[k-1]})
	}
	cur := &b.Items[c]
	from, residue := c, b.notDue()[c]
	if cur.PaymentDate.Equal(day) {
		from, residue = c+1, b.notDue()[c+1]
	}
	if residue == 0 {
		return fmt.Errorf("%w: no principal is left to lay out", ErrRestructure)
	}
	r := relay{b: b, items: b.Items[from : last+1], principals: make([]int64, last-from+1), holiday: holiday}
	if from == c {
		r.current = cur
	}
	if b.terms.Type == ScheduleDifferentiated {
		part := residue / int64(len(r.items)-holiday)
		r.layout(residue, func(int, int64) int64 { return part })
		b.Level = part
	} else {
		b.Level = r.annuity(residue, false)
	}
	for j, p := range r.principals {
		it := &r.items[j]
		if from+j == c {
			it.Principal = it.PaidPrincipal + p
			continue
		}
		it.Principal, it.PaidPrincipal, it.Gone = p, 0, false
	}
	for k := last + 1; k < len(b.Items); k++ {
		b.Items[k].Principal, b.Items[k].PaidPrincipal, b.Items[k].Gone = 0, 0, true
	}
	return nil
}

// capKept reports whether every 365-day window that holds day and days before it keeps the
// schedule's interest and service and the penalty accrued to day within the cap: penalty
// already accrued uses a window's room, so a new schedule may not take it (DESIGN §8.3).
// Windows wholly after day hold no penalty yet (ScheduledChargesWithinCap checks them); those
// ending before day do not change. PenaltyLog holds the penalty of the 364 days to day.
func (b *book) capKept(day time.Time) bool {
	limit := exact{whole: int64(b.terms.Amount) / CapShare}
	line := b.chargeLine(b.notDue())
	today := b.dayNumber(day)
	// suffix[i] is the penalty of the days from today-363+i to today.
	suffix := make([]exact, 365)
	daily := make([]exact, 364)
	for _, sp := range b.PenaltyLog {
		first := b.dayNumber(sp.From) - (today - 363)
		for d := max(0, first); d < min(364, first+sp.Days); d++ {
			daily[d] = exact{whole: sp.Daily, frac: sp.DailyFrac}
		}
	}
	for i := 363; i >= 0; i-- {
		suffix[i] = suffix[i+1].add(daily[i])
	}
	var from, to int
	for i := range 364 {
		s := today - 363 + i
		used := line.at(s+365, &to).sub(line.at(s, &from)).add(suffix[i])
		if limit.less(used) {
			return false
		}
	}
	return true
}
