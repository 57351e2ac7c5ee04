package domain_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tiyin/tiyin/domain"
)

func date(s string) time.Time {
	t, err := time.Parse(domain.DateLayout, s)
	if err != nil {
		panic(err)
	}
	return t
}

func pct(s string) domain.Percent {
	p, err := domain.ParsePercent(s)
	if err != nil {
		panic(err)
	}
	return p
}

// TestScheduleGoldenTables compares with tables computed by an independent implementation
// (exact rationals, a float estimate walked to the exact instalment) and checked by hand for
// the first items: 1 000 000 000 × 0.28 × 28/365 = 21 479 452.05 → 21 479 452.
func TestScheduleGoldenTables(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/schedules.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden map[string][]struct {
		Date                                  string
		Days                                  int
		Principal, Interest, Service, Residue int64
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	cases := map[string]domain.LoanTerms{
		"1e9_12m_28pct_issued_31st":         {Amount: 1_000_000_000, MonthPeriod: 12, Rate: pct("28"), Type: domain.ScheduleAnnuity, IssuedOn: date("2026-01-31")},
		"5e6_1m_28pct":                      {Amount: 5_000_000, MonthPeriod: 1, Rate: pct("28"), Type: domain.ScheduleAnnuity, IssuedOn: date("2026-03-15")},
		"zero_rate_6m":                      {Amount: 100_000_001, MonthPeriod: 6, Type: domain.ScheduleAnnuity, IssuedOn: date("2026-05-10")},
		"differentiated_1e9_12m_28pct_31st": {Amount: 1_000_000_000, MonthPeriod: 12, Rate: pct("28"), Type: domain.ScheduleDifferentiated, IssuedOn: date("2026-01-31")},
		"service_5e8_6m_24.5pct_1.2svc":     {Amount: 500_000_000, MonthPeriod: 6, Rate: pct("24.5"), ServiceRate: pct("1.2"), Type: domain.ScheduleAnnuity, IssuedOn: date("2026-11-29")},
	}
	if len(golden) != len(cases) {
		t.Fatalf("%d golden tables, %d cases", len(golden), len(cases))
	}
	for name, terms := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := domain.BuildSchedule(terms)
			if err != nil {
				t.Fatal(err)
			}
			want := golden[name]
			if len(got) != len(want) {
				t.Fatalf("%d items, want %d", len(got), len(want))
			}
			for i, w := range want {
				g := got[i]
				if g.PaymentDate.Format(domain.DateLayout) != w.Date || g.PeriodDays != w.Days || g.Principal != w.Principal ||
					g.Interest != w.Interest || g.Service != w.Service || g.Residue != w.Residue {
					t.Errorf("item %d: got %s %d %d %d %d %d, want %+v", i+1, g.PaymentDate.Format(domain.DateLayout),
						g.PeriodDays, g.Principal, g.Interest, g.Service, g.Residue, w)
				}
			}
		})
	}
}

func TestPaymentDatesClipToMonthEnd(t *testing.T) {
	t.Parallel()
	got := domain.PaymentDates(date("2027-01-31"), 4)
	want := []string{"2027-02-28", "2027-03-31", "2027-04-30", "2027-05-31"}
	for i := range want {
		if got[i].Format(domain.DateLayout) != want[i] {
			t.Fatalf("got %v", got)
		}
	}
	if leap := domain.PaymentDates(date("2028-01-30"), 1)[0]; leap.Format(domain.DateLayout) != "2028-02-29" {
		t.Fatalf("leap February: %v", leap)
	}
}

func TestAccrueRoundsHalfUpAndNeverOverflows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		principal int64
		rate      string
		days      int
		want      int64
	}{
		{1_000_000_000, "28", 28, 21_479_452}, // 21 479 452.05
		{365, "10", 5, 1},                     // 0.5 rounds up
		{364, "10", 5, 0},                     // 0.4986… rounds down
		{0, "28", 31, 0},
		{1000, "0", 31, 0},
		{9_000_000_000_000_000_000, "99.99", 31, 764_307_123_287_671_233}, // beyond 64-bit intermediates
	}
	for _, tt := range tests {
		if got := domain.Accrue(tt.principal, pct(tt.rate), tt.days); got != tt.want {
			t.Errorf("Accrue(%d, %s, %d) = %d, want %d", tt.principal, tt.rate, tt.days, got, tt.want)
		}
	}
}

// TestSchedulePropertiesOverRandomLoans checks the invariants of DESIGN.md §8.3 on thousands of
// random loans: any amount, 1–36 months, rate 0–99.99, any issue day including 29–31.
func TestSchedulePropertiesOverRandomLoans(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 5000 {
		terms := domain.LoanTerms{
			Amount:      domain.Amount(1 + rng.Int64N(10_000_000_000)),
			MonthPeriod: 1 + rng.IntN(36),
			Rate:        must(domain.PercentFromHundredths(rng.Int64N(10000))),
			ServiceRate: must(domain.PercentFromHundredths(rng.Int64N(500))),
			Type:        domain.ScheduleAnnuity,
			IssuedOn:    date("2024-01-01").AddDate(0, 0, rng.IntN(1500)),
		}
		if i%4 == 0 {
			terms.Type = domain.ScheduleDifferentiated
		}
		items, err := domain.BuildSchedule(terms)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkSchedule(terms, items); err != nil {
			t.Fatalf("loan %+v: %v", terms, err)
		}
	}
}

func checkSchedule(terms domain.LoanTerms, items []domain.ScheduleItem) error {
	if len(items) != terms.MonthPeriod {
		return fmt.Errorf("%d items for %d months", len(items), terms.MonthPeriod)
	}
	var sum int64
	prevResidue, prevDate := int64(terms.Amount), terms.IssuedOn
	for i, it := range items {
		sum += it.Principal
		if it.Principal < 0 || it.Interest < 0 || it.Service < 0 {
			return fmt.Errorf("item %d negative: %+v", i+1, it)
		}
		if it.Residue != prevResidue-it.Principal || it.Residue > prevResidue {
			return fmt.Errorf("item %d residue %d after %d", i+1, it.Residue, prevResidue)
		}
		if it.PeriodDays != domain.DaysBetween(prevDate, it.PaymentDate) || it.PeriodDays < 28 || it.PeriodDays > 31 {
			return fmt.Errorf("item %d period %d days", i+1, it.PeriodDays)
		}
		if want := domain.Accrue(prevResidue, terms.Rate, it.PeriodDays); it.Interest != want {
			return fmt.Errorf("item %d interest %d, want %d", i+1, it.Interest, want)
		}
		if terms.Type == domain.ScheduleAnnuity && i < len(items)-1 && it.Residue > 0 && it.Total() != items[0].Total() {
			return fmt.Errorf("item %d instalment %d differs from %d", i+1, it.Total(), items[0].Total())
		}
		prevResidue, prevDate = it.Residue, it.PaymentDate
	}
	if sum != int64(terms.Amount) || prevResidue != 0 {
		return fmt.Errorf("principal sums to %d, residue %d", sum, prevResidue)
	}
	if terms.Type == domain.ScheduleAnnuity {
		a, last := items[0].Total(), items[len(items)-1].Total()
		if len(items) > 1 && last > a {
			return fmt.Errorf("last instalment %d above %d", last, a)
		}
	}
	return nil
}

func TestAnnuityInstalmentIsTheSmallestThatWorks(t *testing.T) {
	t.Parallel()
	// The golden tables prove minimality (the reference walks down to the smallest instalment);
	// here: the last instalment fits and is within one tiyin per item of the others.
	terms := domain.LoanTerms{Amount: 1_000_000_000, MonthPeriod: 12, Rate: pct("28"), Type: domain.ScheduleAnnuity, IssuedOn: date("2026-01-31")}
	items, _ := domain.BuildSchedule(terms)
	a, last := items[0].Total(), items[11].Total()
	if last > a || a-last > 12 {
		t.Fatalf("instalment %d, last %d", a, last)
	}
}

func TestScheduleRefusesImpossibleTerms(t *testing.T) {
	t.Parallel()
	for _, months := range []int{0, 37} {
		if _, err := domain.BuildSchedule(domain.LoanTerms{Amount: 1000, MonthPeriod: months, IssuedOn: date("2026-01-01")}); err == nil {
			t.Errorf("%d months accepted", months)
		}
	}
}

func TestCapOnScheduledCharges(t *testing.T) {
	t.Parallel()
	ok := domain.LoanTerms{Amount: 1_000_000_000, MonthPeriod: 12, Rate: pct("28"), Type: domain.ScheduleAnnuity, IssuedOn: date("2026-01-31")}
	items, _ := domain.BuildSchedule(ok)
	if !domain.ScheduledChargesWithinCap(ok, items) {
		t.Fatal("28% for a year is within the cap")
	}
	high := ok
	high.Rate, high.MonthPeriod = pct("99.99"), 36
	items, _ = domain.BuildSchedule(high)
	if domain.ScheduledChargesWithinCap(high, items) {
		t.Fatal("99.99% over 36 months accrues more than half the amount in its first year")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func BenchmarkSchedule36Months(b *testing.B) {
	terms := domain.LoanTerms{Amount: 5_000_000_000, MonthPeriod: 36, Rate: pct("28"), ServiceRate: pct("1"), Type: domain.ScheduleAnnuity, IssuedOn: date("2026-01-31")}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := domain.BuildSchedule(terms); err != nil {
			b.Fatal(err)
		}
	}
}

func ExampleBuildSchedule() {
	rate, _ := domain.ParsePercent("28")
	issued, _ := time.Parse(domain.DateLayout, "2026-01-31")
	items, _ := domain.BuildSchedule(domain.LoanTerms{Amount: 300_000_000, MonthPeriod: 3, Rate: rate,
		Type: domain.ScheduleAnnuity, IssuedOn: issued})
	for _, it := range items {
		fmt.Println(it.PaymentDate.Format(domain.DateLayout), it.PeriodDays, it.Total(), it.Principal, it.Interest, it.Residue)
	}
	// Output:
	// 2026-02-28 28 104532339 98088503 6443836 201911497
	// 2026-03-31 31 104532339 99730718 4801621 102180779
	// 2026-04-30 30 104532337 102180779 2351558 0
}

// chargesInWorstWindow is an independent count, one day at a time, of the most interest and
// service any 365-day window holds: each item's charges spread evenly over its period's days.
func chargesInWorstWindow(items []domain.ScheduleItem) *big.Rat {
	var first, last time.Time
	for i, it := range items {
		from := it.PaymentDate.AddDate(0, 0, -it.PeriodDays)
		if i == 0 {
			first = from
		}
		last = it.PaymentDate
	}
	worst := new(big.Rat)
	for s := first.AddDate(0, 0, -365); !s.After(last); s = s.AddDate(0, 0, 1) {
		e := s.AddDate(0, 0, 365)
		sum := new(big.Rat)
		for _, it := range items {
			from := it.PaymentDate.AddDate(0, 0, -it.PeriodDays)
			in := int64(0)
			for d := from; d.Before(it.PaymentDate); d = d.AddDate(0, 0, 1) {
				if !d.Before(s) && d.Before(e) {
					in++
				}
			}
			sum.Add(sum, big.NewRat((it.Interest+it.Service)*in, int64(it.PeriodDays)))
		}
		if sum.Cmp(worst) > 0 {
			worst = sum
		}
	}
	return worst
}

// TestCapCountsChargesDayByDay: an item whose period crosses a window's end counts for its
// days inside it (DESIGN §8.3). 1e9 tiyin for 12 months issued 2027-03-01 spans 366 days
// (2028 is a leap year): at 83.06 % its first 365 days accrue more than half the amount.
func TestCapCountsChargesDayByDay(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		rate   string
		months int
		issued string
	}{
		{"83.06", 12, "2027-03-01"},
		{"80", 12, "2027-03-01"},
		{"70", 12, "2027-03-01"},
		{"45", 24, "2026-01-31"},
		{"48", 36, "2028-02-29"},
		{"28", 12, "2026-01-31"},
	} {
		terms := domain.LoanTerms{Amount: 1_000_000_000, MonthPeriod: tt.months, Rate: pct(tt.rate), Type: domain.ScheduleAnnuity,
			IssuedOn: date(tt.issued)}
		items, err := domain.BuildSchedule(terms)
		if err != nil {
			t.Fatal(err)
		}
		want := chargesInWorstWindow(items).Cmp(big.NewRat(int64(terms.Amount)/domain.CapShare, 1)) <= 0
		if got := domain.ScheduledChargesWithinCap(terms, items); got != want {
			t.Errorf("%s%% %d months from %s: within cap %v, want %v (worst window %s)", tt.rate, tt.months, tt.issued, got, want,
				chargesInWorstWindow(items).FloatString(2))
		}
	}
}

// TestTheCapIsCheckedForEveryIssueDate: 83.06 % for 12 months fits the cap issued on 28
// February 2027 but not on 1 March, so an offer verified on the 28th with a 72-hour lifetime is
// refused, naming the first date that breaks it (DESIGN §8.3).
func TestTheCapIsCheckedForEveryIssueDate(t *testing.T) {
	t.Parallel()
	terms := domain.LoanTerms{Amount: 1_000_000_000, MonthPeriod: 12, Rate: pct("83.06"), Type: domain.ScheduleAnnuity}
	for _, tt := range []struct {
		first, last string
		refused     string // the date named, or empty
	}{
		{"2027-02-27", "2027-02-28", ""},
		{"2027-02-28", "2027-03-03", "2027-03-01"},
		{"2027-03-01", "2027-03-01", "2027-03-01"},
		{"2027-03-02", "2027-03-02", "2027-03-02"},
	} {
		err := domain.CheckCapForIssueDates(terms, date(tt.first), date(tt.last))
		switch {
		case tt.refused == "" && err != nil:
			t.Errorf("%s to %s: %v", tt.first, tt.last, err)
		case tt.refused != "" && (!errors.Is(err, domain.ErrOfferOutOfRange) || !strings.Contains(fmt.Sprint(err), tt.refused)):
			t.Errorf("%s to %s: %v, want a refusal naming %s", tt.first, tt.last, err, tt.refused)
		}
	}
}

// BenchmarkCheckCapForOfferLifetime is verify's cap check: four issue dates (72 hours) of a
// 36-month offer, each schedule built and its windows summed exactly.
func BenchmarkCheckCapForOfferLifetime(b *testing.B) {
	terms := domain.LoanTerms{Amount: 5_000_000_000, MonthPeriod: 36, Rate: pct("28"), ServiceRate: pct("1"), Type: domain.ScheduleAnnuity}
	b.ReportAllocs()
	for b.Loop() {
		if err := domain.CheckCapForIssueDates(terms, date("2026-01-28"), date("2026-01-31")); err != nil {
			b.Fatal(err)
		}
	}
}
