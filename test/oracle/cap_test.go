package oracle_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/test/oracle"
)

// TestCapRefusalsAgreeWithTheOracle: verify refuses an offer whose schedule breaks the cap for
// any issue date within the offer's lifetime (the application's TTL, 72 h by default), and
// issue refuses one whose schedule breaks it on its own date (DESIGN §8.3). Random offers near
// the cap, asked at random moments (the last seconds before midnight Tashkent among them), are
// refused by the domain's check exactly when the oracle finds a date in that range whose
// schedule breaks the cap.
func TestCapRefusalsAgreeWithTheOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(*seed, 45))
	const ttl = 72 * time.Hour
	var verifyRefused, issueRefused, asked, later int
	for range 300 {
		rate := 6000 + rng.Int64N(4000)
		months := 10 + rng.IntN(27)
		terms := oracle.Terms{Amount: max(2, int64(math.Pow(10, 1+rng.Float64()*14))), Months: months, Rate: rate,
			Differentiated: rng.IntN(3) == 0}
		if rng.IntN(3) == 0 {
			terms.Service = rng.Int64N(300)
		}
		day := time.Date(2026+rng.IntN(4), time.Month(1+rng.IntN(12)), 1+rng.IntN(31), 0, 0, 0, 0, time.UTC)
		now := time.Date(day.Year(), day.Month(), day.Day(), 12, 0, 0, 0, domain.Tashkent)
		switch rng.IntN(3) {
		case 0:
			now = now.Add(12*time.Hour - time.Duration(1+rng.IntN(300))*time.Second) // the last minutes of the day
		case 1:
			now = now.Add(-12 * time.Hour) // its first second
		}
		first, last := businessDate(now), businessDate(now.Add(ttl))
		if rng.IntN(2) == 0 { // the highest rate that fits on the first date: a later one may not
			terms.IssuedOn = first
			lo, hi := int64(0), int64(9999)
			for lo < hi {
				if terms.Rate = (lo + hi + 1) / 2; oracle.WithinCap(terms) {
					lo = terms.Rate
				} else {
					hi = terms.Rate - 1
				}
			}
			terms.Rate = lo
		}
		anyBreaks := false
		for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
			terms.IssuedOn = d
			anyBreaks = anyBreaks || !oracle.WithinCap(terms)
		}
		dt := domainTerms(terms)
		verify := domain.CheckCapForIssueDates(dt, domain.BusinessDate(now), domain.BusinessDate(now.Add(ttl)))
		if (verify != nil) != anyBreaks {
			t.Fatalf("verify at %s of %s: the domain says %v, the oracle that a date in %s..%s breaks the cap: %t",
				now, terms, verify, first.Format(time.DateOnly), last.Format(time.DateOnly), anyBreaks)
		}
		terms.IssuedOn = first
		issue := domain.CheckCapForIssueDates(domainTerms(terms), domain.BusinessDate(now), domain.BusinessDate(now))
		if (issue != nil) != !oracle.WithinCap(terms) {
			t.Fatalf("issue on %s of %s: the domain says %v, the oracle within the cap: %t", first.Format(time.DateOnly), terms,
				issue, oracle.WithinCap(terms))
		}
		asked++
		if verify != nil {
			verifyRefused++
		}
		if issue != nil {
			issueRefused++
		}
		if verify != nil && issue == nil {
			later++ // refused for a later date of the offer's life only
		}
	}
	if verifyRefused == 0 || verifyRefused == asked || issueRefused == 0 || later == 0 {
		t.Fatalf("%d offers: verify refused %d, issue %d: the sample does not reach both sides of the cap", asked, verifyRefused, issueRefused)
	}
	t.Logf("cap: %d offers, verify refused %d (%d for a later date only), issue refused %d, as the oracle says", asked, verifyRefused,
		later, issueRefused)
}

// businessDate is the Tashkent date of a moment, as midnight UTC.
func businessDate(at time.Time) time.Time {
	y, m, d := at.In(time.FixedZone("Tashkent", 5*3600)).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func domainTerms(t oracle.Terms) domain.LoanTerms {
	rate, _ := domain.PercentFromHundredths(t.Rate)
	service, _ := domain.PercentFromHundredths(t.Service)
	typ := domain.ScheduleAnnuity
	if t.Differentiated {
		typ = domain.ScheduleDifferentiated
	}
	return domain.LoanTerms{Amount: domain.Amount(t.Amount), MonthPeriod: t.Months, Rate: rate, ServiceRate: service, Type: typ,
		IssuedOn: t.IssuedOn}
}
