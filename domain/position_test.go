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
		{"penalty stops at the cap", "2030-01-01", domain.Position{OverduePrincipal: 1_000_000_000, OverdueInterest: 156_832_479, Penalty: 500_000_000}},
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

func BenchmarkPosition36Months(b *testing.B) {
	loan := domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: 5_000_000_000, MonthPeriod: 36, Rate: pct("28"),
		PenaltyDaily: pct("0.05"), ScheduleType: domain.ScheduleAnnuity, IssuedAt: date("2026-01-31")})
	at := date("2027-06-15")
	b.ReportAllocs()
	for b.Loop() {
		_, _ = loan.PositionAt(at)
	}
}
