package domain

import (
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"time"
)

// ScheduleType is how instalments are shaped.
type ScheduleType struct{ s string }

// The two schedule types: equal instalments (annuity) or equal principal (differentiated).
var (
	ScheduleAnnuity        = ScheduleType{"ANNUITY"}
	ScheduleDifferentiated = ScheduleType{"DIFFERENTIATED"}
)

// ParseScheduleType reads ANNUITY or DIFFERENTIATED.
func ParseScheduleType(s string) (ScheduleType, error) {
	return parseEnum(s, []ScheduleType{ScheduleAnnuity, ScheduleDifferentiated})
}

// String returns the name.
func (t ScheduleType) String() string { return t.s }

// LoanTerms are what a loan's schedule is computed from. They are copied into the loan at
// issuance, so later configuration changes never rewrite an existing loan.
type LoanTerms struct {
	Amount      Amount
	MonthPeriod int
	Rate        Percent // annual interest
	ServiceRate Percent // annual service percent, accrued like interest
	Type        ScheduleType
	// IssuedOn is the issue date (a BusinessDate: midnight UTC of the Tashkent date).
	IssuedOn time.Time
}

// ErrTermsInvalid means terms cannot produce a schedule.
var ErrTermsInvalid = errors.New("loan terms are invalid")

// ScheduleItem is one month of the schedule.
type ScheduleItem struct {
	// PaymentDate is the due date (a BusinessDate); the instalment is due by its end.
	PaymentDate time.Time
	// PeriodDays is the number of days since the previous payment date (or the issue date).
	PeriodDays int
	Principal  int64
	Interest   int64
	Service    int64
	// Residue is the principal remaining after this item.
	Residue int64
}

// Total is the instalment: principal + interest + service.
func (i ScheduleItem) Total() int64 { return i.Principal + i.Interest + i.Service }

// PaymentDates returns the n due dates of a loan issued on issuedOn: the issue day of each
// following month, clipped to the month's end.
func PaymentDates(issuedOn time.Time, n int) []time.Time {
	y, m, d := issuedOn.Date()
	out := make([]time.Time, n)
	for k := 1; k <= n; k++ {
		first := time.Date(y, m+time.Month(k), 1, 0, 0, 0, 0, time.UTC)
		last := first.AddDate(0, 1, -1).Day()
		out[k-1] = time.Date(first.Year(), first.Month(), min(d, last), 0, 0, 0, 0, time.UTC)
	}
	return out
}

// DaysBetween counts calendar days from a to b (dates at midnight UTC).
func DaysBetween(a, b time.Time) int { return int(b.Sub(a).Hours() / 24) }

// Accrue is the interest on principal at an annual rate for days, actual/365, rounded half up
// to whole tiyin. It is exact for any int64 principal.
func Accrue(principal int64, rate Percent, days int) int64 {
	if principal <= 0 || days <= 0 || rate.hundredths == 0 {
		return 0
	}
	const den = 10000 * 365 // hundredths of a percent, days a year
	a, b := uint64(principal), uint64(rate.hundredths)*uint64(days)
	hi, lo := bits.Mul64(a, b)
	if hi == 0 && lo <= (1<<63)-den {
		return int64((lo + den/2) / den)
	}
	n := new(big.Int).Mul(new(big.Int).SetUint64(a), new(big.Int).SetUint64(b))
	n.Add(n, big.NewInt(den/2))
	return n.Quo(n, big.NewInt(den)).Int64()
}

// BuildSchedule computes the schedule: one item per month; interest and service accrue daily
// on the principal residue (actual/365), rounded half up once per item. An annuity's
// instalment is the smallest whole-tiyin amount for which the last instalment, computed the
// same way, is not larger; the last item takes the rest of the principal. A differentiated
// schedule repays equal principal, the last item taking the remainder.
func BuildSchedule(t LoanTerms) ([]ScheduleItem, error) {
	if t.Amount <= 0 || t.MonthPeriod < 1 || t.MonthPeriod > MaxMonthPeriod {
		return nil, ErrTermsInvalid
	}
	dates := PaymentDates(t.IssuedOn, t.MonthPeriod)
	days := make([]int, len(dates))
	prev := t.IssuedOn
	for i, d := range dates {
		days[i], prev = DaysBetween(prev, d), d
	}
	items, _ := layout(t, dates, days, 0)
	return items, nil
}

// layout lays out t.Amount over dates (days[i] days in period i) at the level of the schedule
// type: the annuity's instalment or the differentiated schedule's principal part. A level of 0
// means the fresh one for these terms. It returns the items and the level used.
func layout(t LoanTerms, dates []time.Time, days []int, level int64) ([]ScheduleItem, int64) {
	if t.Type == ScheduleDifferentiated {
		if level == 0 {
			level = int64(t.Amount) / int64(len(dates))
		}
		return differentiated(t, dates, days, level), level
	}
	if level == 0 {
		level = annuityInstalment(t, dates, days)
	}
	return simulate(t, dates, days, level, make([]ScheduleItem, 0, len(dates))), level
}

// simulate lays out the schedule for an instalment a and returns it; the last item takes the
// whole remaining principal.
func simulate(t LoanTerms, dates []time.Time, days []int, a int64, out []ScheduleItem) []ScheduleItem {
	out = out[:0]
	res := int64(t.Amount)
	for i := range dates {
		interest, service := Accrue(res, t.Rate, days[i]), Accrue(res, t.ServiceRate, days[i])
		principal := a - interest - service
		if i == len(dates)-1 || principal > res {
			principal = res
		}
		res -= principal
		out = append(out, ScheduleItem{PaymentDate: dates[i], PeriodDays: days[i], Principal: principal,
			Interest: interest, Service: service, Residue: res})
	}
	return out
}

// annuityInstalment is the smallest instalment whose last item fits within it. How much the
// last item overshoots the instalment falls almost linearly as the instalment grows, so a few
// secant steps land next to the answer, and a search in a bracket around it makes it exact:
// about 8 layouts of the schedule instead of the 30-odd of a bisection over the whole range.
func annuityInstalment(t LoanTerms, dates []time.Time, days []int) int64 {
	n := int64(len(dates))
	p := int64(t.Amount)
	buf := make([]ScheduleItem, 0, len(dates))
	over := func(a int64) int64 { // > 0: the last item does not fit in a
		s := simulate(t, dates, days, a, buf)
		return s[len(s)-1].Total() - a
	}
	// The instalment lies between the interest-free one and one that repays everything with
	// the first payment plus all interest the whole term could accrue.
	lo := (p + n - 1) / n
	total := 0
	for _, d := range days {
		total += d
	}
	hi := p + Accrue(p, t.Rate, total) + Accrue(p, t.ServiceRate, total) + 1
	// Secant steps from the interest-free instalment and one a little above it.
	a0, a1 := lo, min(lo+lo/64+1, hi)
	f0, f1 := over(a0), over(a1)
	for range 4 {
		if f1 == f0 {
			break
		}
		next := a1 - int64(float64(f1)*float64(a1-a0)/float64(f1-f0))
		next = min(max(next, lo), hi)
		if next == a1 {
			break
		}
		a0, f0 = a1, f1
		a1, f1 = next, over(next)
	}
	// Bracket the answer around a1 by doubling steps, then bisect the bracket.
	if f1 <= 0 {
		hi = a1
		for step := int64(1); ; step *= 2 {
			b := a1 - step
			if b <= lo {
				break
			}
			if over(b) > 0 {
				lo = b + 1
				break
			}
			hi = b
		}
	} else {
		lo = a1 + 1
		for step := int64(1); ; step *= 2 {
			b := a1 + step
			if b >= hi {
				break
			}
			if over(b) <= 0 {
				hi = b
				break
			}
			lo = b + 1
		}
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		if over(mid) <= 0 {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// differentiated repays part of the principal with each item (less when less is left), the
// last item taking the remainder.
func differentiated(t LoanTerms, dates []time.Time, days []int, part int64) []ScheduleItem {
	out := make([]ScheduleItem, 0, len(dates))
	res := int64(t.Amount)
	for i := range dates {
		principal := min(part, res)
		if i == len(dates)-1 {
			principal = res
		}
		interest, service := Accrue(res, t.Rate, days[i]), Accrue(res, t.ServiceRate, days[i])
		res -= principal
		out = append(out, ScheduleItem{PaymentDate: dates[i], PeriodDays: days[i], Principal: principal,
			Interest: interest, Service: service, Residue: res})
	}
	return out
}

// CapShare is the Central Bank cap: interest + service + penalty accrued in any 365-day window
// may not exceed half of the loan amount.
const CapShare = 2

// ScheduledChargesWithinCap reports whether the schedule's interest + service accrued in any
// 365-day window stays within half of the amount, counted day by day and exactly: an item's
// charges accrue evenly over its period's days, and an item whose period crosses a window's
// edge counts for its exact share of them (no rounding lets a window pass by a tiyin). The worst
// window starts where a period starts or ends where one ends, so those windows are the ones
// checked (DESIGN.md §8.3).
func ScheduledChargesWithinCap(t LoanTerms, items []ScheduleItem) bool {
	limit := int64(t.Amount) / CapShare
	// Periods as day numbers from the issue date: a window is then integer arithmetic.
	periods := make([]chargePeriod, len(items))
	for i, it := range items {
		end := DaysBetween(t.IssuedOn, it.PaymentDate)
		periods[i] = chargePeriod{from: end - it.PeriodDays, to: end, charges: it.Interest + it.Service}
	}
	for _, p := range periods {
		for _, start := range []int{p.from, p.to - 365} {
			whole, frac := chargesWithin(periods, start, start+365)
			if whole > limit || frac != nil && frac.Add(frac, big.NewRat(whole-limit, 1)).Sign() > 0 {
				return false
			}
		}
	}
	return true
}

// chargePeriod is an item's charges and the days they accrue on: from up to, not including, to.
type chargePeriod struct {
	from, to int
	charges  int64
}

// CheckCapForIssueDates refuses terms whose schedule would break the cap for any issue date
// from first to last (business dates): an offer is checked for every day it may still be
// issued on, and again on the day it is (DESIGN.md §8.3).
func CheckCapForIssueDates(t LoanTerms, first, last time.Time) error {
	for day := first; !day.After(last); day = day.AddDate(0, 0, 1) {
		t.IssuedOn = day
		items, err := BuildSchedule(t)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrOfferOutOfRange, err)
		}
		if !ScheduledChargesWithinCap(t, items) {
			return fmt.Errorf("%w: issued on %s, scheduled interest and service would exceed half of the amount within a year (Central Bank cap)",
				ErrOfferOutOfRange, day.Format(time.DateOnly))
		}
	}
	return nil
}

// chargesWithin is the exact interest + service the periods accrue on the days from start up
// to, not including, end: whole tiyin, and the fraction the periods cut by the window's edges
// add (nil when none). Only those one or two need a fraction, so a window costs no big
// arithmetic otherwise.
func chargesWithin(periods []chargePeriod, start, end int) (whole int64, frac *big.Rat) {
	for _, p := range periods {
		days, span := int64(min(end, p.to)-max(start, p.from)), int64(p.to-p.from)
		if days <= 0 || span <= 0 {
			continue
		}
		n := p.charges * days // ≤ 9e15 × 31: within int64
		whole += n / span
		if r := n % span; r != 0 {
			if frac == nil {
				frac = new(big.Rat)
			}
			frac.Add(frac, big.NewRat(r, span))
		}
	}
	return whole, frac
}
