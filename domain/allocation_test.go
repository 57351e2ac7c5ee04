package domain_test

import (
	"math/rand/v2"
	"testing"

	"github.com/tiyin/tiyin/domain"
)

func TestAllocateFollowsTheLegalOrder(t *testing.T) {
	t.Parallel()
	due := domain.Due{OverduePrincipal: 700, OverdueInterest: 300, CurrentInterest: 50, CurrentPrincipal: 400, Penalty: 20, RemainingPrincipal: 5000}
	tests := []struct {
		name   string
		amount int64
		want   domain.Allocation
	}{
		{"part of the overdue, proportionally", 100, domain.Allocation{OverduePrincipal: 70, OverdueInterest: 30}},
		{"proportional share floors principal", 101, domain.Allocation{OverduePrincipal: 70, OverdueInterest: 31}},
		{"overdue, then current interest", 1030, domain.Allocation{OverduePrincipal: 700, OverdueInterest: 300, CurrentInterest: 30}},
		{"then current principal", 1250, domain.Allocation{OverduePrincipal: 700, OverdueInterest: 300, CurrentInterest: 50, CurrentPrincipal: 200}},
		{"then penalty", 1460, domain.Allocation{OverduePrincipal: 700, OverdueInterest: 300, CurrentInterest: 50, CurrentPrincipal: 400, Penalty: 10}},
		{"then remaining principal", 2770, domain.Allocation{OverduePrincipal: 700, OverdueInterest: 300, CurrentInterest: 50, CurrentPrincipal: 400, Penalty: 20, Prepaid: 1300}},
		{"everything, nothing left over", 6470, domain.Allocation{OverduePrincipal: 700, OverdueInterest: 300, CurrentInterest: 50, CurrentPrincipal: 400, Penalty: 20, Prepaid: 5000}},
		{"more than the debt is left unapplied", 6471, domain.Allocation{OverduePrincipal: 700, OverdueInterest: 300, CurrentInterest: 50, CurrentPrincipal: 400, Penalty: 20, Prepaid: 5000, Unapplied: 1}},
	}
	for _, tt := range tests {
		if got := domain.Allocate(due, tt.amount); got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
	if got := domain.Allocate(domain.Due{CurrentInterest: 10, CurrentPrincipal: 90}, 60); got != (domain.Allocation{CurrentInterest: 10, CurrentPrincipal: 50}) {
		t.Errorf("nothing overdue: %+v", got)
	}
}

func TestAllocationNeverLosesATiyin(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for range 10000 {
		d := domain.Due{OverduePrincipal: rng.Int64N(1e9), OverdueInterest: rng.Int64N(1e8), CurrentInterest: rng.Int64N(1e8),
			CurrentPrincipal: rng.Int64N(1e9), Penalty: rng.Int64N(1e7), RemainingPrincipal: rng.Int64N(1e10)}
		amount := 1 + rng.Int64N(2e10)
		a := domain.Allocate(d, amount)
		if a.Principal()+a.Interest()+a.Penalty+a.Unapplied != amount {
			t.Fatalf("%+v of %d does not add up: %+v", d, amount, a)
		}
		if a.OverduePrincipal > d.OverduePrincipal || a.OverdueInterest > d.OverdueInterest || a.CurrentInterest > d.CurrentInterest ||
			a.CurrentPrincipal > d.CurrentPrincipal || a.Penalty > d.Penalty || a.Prepaid > d.RemainingPrincipal {
			t.Fatalf("paid more than owed: %+v %+v", d, a)
		}
		// A later step is reached only when every earlier one is fully paid.
		if a.CurrentInterest > 0 && a.OverduePrincipal+a.OverdueInterest != d.OverduePrincipal+d.OverdueInterest {
			t.Fatalf("current interest before the overdue debt: %+v %+v", d, a)
		}
		if a.Prepaid > 0 && a.Penalty != d.Penalty {
			t.Fatalf("prepaid before the penalty: %+v %+v", d, a)
		}
	}
}
