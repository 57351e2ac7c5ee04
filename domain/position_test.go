package domain_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// TestPositionAtADate checks the loan's position on the golden 1e9/12 m/28 % schedule issued on
// 2026-01-31, with the default 0.05 % daily penalty, against an independent computation.
func TestPositionAtADate(t *testing.T) {
	t.Parallel()
	loan := domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: 1_000_000_000, MonthPeriod: 12, Rate: pct("28"),
		PenaltyDaily: pct("0.05"), ScheduleType: domain.ScheduleAnnuity, IssuedAt: time.Date(2026, 1, 31, 12, 0, 0, 0, domain.Tashkent)})
	tests := []struct {
		name string
		at   string
		want domain.Position
	}{
		{"issue day", "2026-01-31", domain.Position{NotDuePrincipal: 1_000_000_000}},
		{"mid first period", "2026-02-15", domain.Position{NotDuePrincipal: 1_000_000_000, TermInterest: 11_506_849}},
		{"due date is not overdue yet", "2026-02-28", domain.Position{NotDuePrincipal: 1_000_000_000, TermInterest: 21_479_452}},
		{"first day overdue", "2026-03-01", domain.Position{NotDuePrincipal: 925_076_745, OverduePrincipal: 74_923_255,
			OverdueInterest: 21_479_452, TermInterest: 709_648, Penalty: 37_462}},
		{"four items overdue", "2026-06-15", domain.Position{NotDuePrincipal: 695_847_575, OverduePrincipal: 304_152_425,
			OverdueInterest: 81_458_403, TermInterest: 8_007_013, Penalty: 9_187_720}},
		// 0.05 % a day never fills a window's half of the amount: the penalty keeps accruing,
		// Σ over the days of the principal overdue at each day's start × 0.05 %, exact, rounded
		// once (the oracle of test/oracle agrees on both penalties).
		{"years after maturity", "2030-01-01", domain.Position{OverduePrincipal: 1_000_000_000, OverdueInterest: 156_832_479, Penalty: 613_278_830}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			at := date(tt.at).Add(10 * time.Hour).In(domain.Tashkent)
			got, err := loan.PositionAt(at)
			if err != nil || got != tt.want {
				t.Fatalf("got %+v\nwant %+v", got, tt.want)
			}
			if got.Payoff() != got.NotDuePrincipal+got.OverduePrincipal+got.OverdueInterest+got.TermInterest+got.Penalty ||
				got.Fine() != got.OverduePrincipal+got.OverdueInterest+got.Penalty {
				t.Fatal("payoff or fine is not the sum of its parts")
			}
		})
	}
}

// TestPenaltyIsCappedInEachWindow: the cap is on what accrues in each 365-day window, not on
// the loan's lifetime. A 300 000 000 loan at 28 % for 12 months issued 2026-01-15 and never
// paid keeps accruing 0.05 % a day after maturity (54 750 000 in any window, far from the cap),
// past 150 000 000 in all; at 0.5 % a day, every window after maturity fills exactly to the
// cap, and no window ever holds more.
func TestPenaltyIsCappedInEachWindow(t *testing.T) {
	t.Parallel()
	penalty := func(loan *domain.Loan, day string) int64 {
		t.Helper()
		p, err := loan.PositionAt(date(day).Add(10 * time.Hour).In(domain.Tashkent))
		if err != nil {
			t.Fatal(err)
		}
		return p.Penalty
	}
	unpaid := func(daily string) *domain.Loan {
		return domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: 300_000_000, MonthPeriod: 12, Rate: pct("28"),
			PenaltyDaily: pct(daily), ScheduleType: domain.ScheduleAnnuity, IssuedAt: time.Date(2026, 1, 15, 12, 0, 0, 0, domain.Tashkent)})
	}
	loan := unpaid("0.05")
	if w := penalty(loan, "2029-06-01") - penalty(loan, "2028-06-01"); w != 54_750_000 {
		t.Errorf("a window after maturity holds %d of penalty, want 300 000 000 × 0.05 %% × 365 = 54 750 000", w)
	}
	if p := penalty(loan, "2031-01-01"); p <= 150_000_000 {
		t.Errorf("penalty %d by 2031: it stopped at the lifetime's half of the amount", p)
	}
	loan = unpaid("0.5")
	for _, day := range []string{"2028-03-01", "2029-02-28", "2030-12-31"} { // windows wholly after maturity
		end := date(day)
		if w := penalty(loan, day) - penalty(loan, end.AddDate(0, 0, -365).Format(time.DateOnly)); w != 150_000_000 {
			t.Errorf("window to %s holds %d of penalty, want the cap 150 000 000", day, w)
		}
	}
	// In the first year the schedule's interest takes its part of the window. The window that
	// ends on the last due date (day 365) holds the charges of days 1 to 364, all but day 0's
	// share of item 1, and the penalty of days 1 to 365; it is filled to the cap exactly, the
	// reported penalty being rounded half up: |2 × 31 × (penalty + charges − cap) − 2 × item 1's
	// charges| ≤ 31.
	items, err := loan.Schedule()
	if err != nil {
		t.Fatal(err)
	}
	var charges int64
	for _, it := range items {
		charges += it.Interest + it.Service
	}
	w := penalty(loan, "2027-01-15")
	first := items[0].Interest + items[0].Service
	if d := 2*int64(items[0].PeriodDays)*(w+charges-150_000_000) - 2*first; items[0].PeriodDays != 31 || d < -31 || d > 31 {
		t.Errorf("first year: penalty %d + interest %d less day 0's share of %d, want the cap 150 000 000", w, charges, first)
	}
}

func TestAssignContractTakesDigitsOnly(t *testing.T) {
	t.Parallel()
	loan := domain.RestoreLoan(domain.LoanState{ID: uuid.New()})
	if err := loan.AssignContract("12A4", time.Time{}); err == nil {
		t.Fatal("letters accepted")
	}
	if err := loan.AssignContract("0012345678", time.Time{}); err != nil || loan.ContractNumber() != "0012345678" {
		t.Fatalf("%v %q", err, loan.ContractNumber())
	}
}

// benchmarkPosition reads the position on day of a 36-month loan of 5e9 at 28 %, issued
// 2026-01-31 and never paid, with the daily penalty percent.
func benchmarkPosition(b *testing.B, daily, day string) {
	loan := domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: 5_000_000_000, MonthPeriod: 36, Rate: pct("28"),
		PenaltyDaily: pct(daily), ScheduleType: domain.ScheduleAnnuity, IssuedAt: date("2026-01-31")})
	at := date(day)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = loan.PositionAt(at)
	}
}

func BenchmarkPosition36Months(b *testing.B) { benchmarkPosition(b, "0.05", "2027-06-15") }

// BenchmarkPositionThreeYearsUnpaid: every day since issue accrues penalty.
func BenchmarkPositionThreeYearsUnpaid(b *testing.B) { benchmarkPosition(b, "0.05", "2029-01-31") }

// BenchmarkPositionCapBinding reads a loan whose penalty fills the cap: 0.5 % a day unpaid for
// three years, so every day takes the least room of its windows.
func BenchmarkPositionCapBinding(b *testing.B) { benchmarkPosition(b, "0.5", "2029-01-31") }

// TestItemsAtADate: on the golden schedule of TestPositionAtADate, unpaid, an item is overdue
// from the day after its date, by the days since it, and the overdue items owe exactly the
// position's overdue principal and interest.
func TestItemsAtADate(t *testing.T) {
	t.Parallel()
	loan := domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: 1_000_000_000, MonthPeriod: 12, Rate: pct("28"),
		PenaltyDaily: pct("0.05"), ScheduleType: domain.ScheduleAnnuity, IssuedAt: time.Date(2026, 1, 31, 12, 0, 0, 0, domain.Tashkent)})
	for _, tt := range []struct {
		at          string
		overdue     int
		overdueDays []int
	}{
		{"2026-02-28", 0, nil},
		{"2026-03-01", 1, []int{1}},
		{"2026-06-15", 4, []int{107, 76, 46, 15}}, // due 02-28, 03-31, 04-30, 05-31
		{"2030-01-01", 12, nil},
	} {
		t.Run(tt.at, func(t *testing.T) {
			t.Parallel()
			at := date(tt.at).Add(10 * time.Hour).In(domain.Tashkent)
			items, err := loan.ItemsAt(at)
			if err != nil || len(items) != 12 {
				t.Fatalf("%d items, %v", len(items), err)
			}
			pos, _ := loan.PositionAt(at)
			var n int
			var principal, charges int64
			for i, it := range items {
				if it.PaidPrincipal != 0 || it.PaidCharges != 0 {
					t.Fatalf("item %d shows a payment on a loan never paid", i)
				}
				if it.Overdue {
					if tt.overdueDays != nil && it.DaysOverdue != tt.overdueDays[n] {
						t.Errorf("item %d: %d days overdue, want %d", i, it.DaysOverdue, tt.overdueDays[n])
					}
					n++
					principal += it.OutstandingPrincipal()
					charges += it.OutstandingCharges()
				}
			}
			if n != tt.overdue || principal != pos.OverduePrincipal || charges != pos.OverdueInterest {
				t.Fatalf("%d overdue items owing %d and %d; want %d items, the position's %d and %d", n, principal, charges,
					tt.overdue, pos.OverduePrincipal, pos.OverdueInterest)
			}
		})
	}
}
