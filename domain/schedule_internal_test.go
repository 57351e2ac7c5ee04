package domain

import (
	"math/rand/v2"
	"testing"
	"time"
)

// bisectInstalment is the plain definition: bisect the whole range for the smallest
// instalment whose last item fits. annuityInstalment must find the same one, faster.
func bisectInstalment(t LoanTerms, dates []time.Time, days []int) int64 {
	n, p := int64(len(dates)), int64(t.Amount)
	total := 0
	for _, d := range days {
		total += d
	}
	lo, hi := (p+n-1)/n, p+Accrue(p, t.Rate, total)+Accrue(p, t.ServiceRate, total)+1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if s := simulate(t, dates, days, mid, nil); s[len(s)-1].Total() <= mid {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

func TestAnnuityInstalmentIsTheSmallestThatFits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	issued := time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)
	for i := range 20_000 {
		rate, _ := PercentFromHundredths(rng.Int64N(10_000))
		service, _ := PercentFromHundredths([]int64{0, 0, 150, rng.Int64N(2_000)}[rng.IntN(4)])
		amount := []int64{1, 7, 999, 100_000, rng.Int64N(1e9) + 1, rng.Int64N(1e14) + 1}[rng.IntN(6)]
		terms := LoanTerms{Amount: Amount(amount), MonthPeriod: 1 + rng.IntN(MaxMonthPeriod), Rate: rate, ServiceRate: service,
			IssuedOn: issued.AddDate(0, 0, rng.IntN(400))}
		dates := PaymentDates(terms.IssuedOn, terms.MonthPeriod)
		days := make([]int, len(dates))
		prev := terms.IssuedOn
		for j, d := range dates {
			days[j], prev = DaysBetween(prev, d), d
		}
		if got, want := annuityInstalment(terms, dates, days), bisectInstalment(terms, dates, days); got != want {
			t.Fatalf("case %d %+v: instalment %d, the bisection finds %d", i, terms, got, want)
		}
	}
}
