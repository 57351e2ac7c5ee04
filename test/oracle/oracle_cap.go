package oracle

import (
	"math/big"
	"time"
)

// The Central Bank cap (§8.3): interest + service + penalty accrued in any 365-day window may
// not exceed half the loan's amount; only the penalty stops at it. "Accrued in a window" is
// day by day: an item counts for its days inside the window, its charges as reported spread
// evenly over its period's days; the penalty counts as it accrued, each day exactly.

// WithinCap says whether the schedule's interest and service, day by day (each item's charges
// spread evenly over its period), stay within half the amount in every 365-day window (§8.3).
func WithinCap(t Terms) bool { return withinCap(Schedule(t), t.Amount) }

// withinCap says whether the items' interest and service, each item's spread evenly over its
// period, stay within floor(amount / 2) in every 365-day window.
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
		i, s := l.charges(k)
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
// holding today, of the cap less the window's interest and service (its days to come
// included, as scheduled) and the penalty of its days before today.
func (l *Loan) capped(p *big.Rat) *big.Rat {
	// Cheap and exact: when all the loan's charges and the last year's penalty leave room for
	// today's, no window can bind.
	all := new(big.Rat)
	for k, it := range l.items {
		if i, s := l.charges(k); !it.gone {
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
