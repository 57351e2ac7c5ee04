package oracle_test

import (
	"testing"
	"time"

	"github.com/tiyin/tiyin/test/oracle"
)

// Issue 32's reproductions that need the oracle to state the expected amounts; the others are
// domain tests (domain/interest_once_test.go).

// The penalty is the exact accrual since the item fell overdue, rounded once: payments made
// while it accrues never restart its rounding. Item 1 of 1e9 (74 923 255) falls overdue;
// 0.05 % of it is 37 461.6275 a day. One-tiyin payments every few days pay overdue principal
// and interest in proportion; the penalty the domain reports each day is the oracle's.
func TestPenaltyRoundingNeverRestarts(t *testing.T) {
	t.Parallel()
	loan := domainLoan(oracle.Terms{Amount: 1_000_000_000, Months: 12, Rate: 2800, PenaltyDaily: 5, IssuedOn: date("2026-01-31")})
	o := oracle.New(oracle.Terms{Amount: 1_000_000_000, Months: 12, Rate: 2800, PenaltyDaily: 5, IssuedOn: date("2026-01-31")})
	for d := date("2026-03-01"); d.Before(date("2026-03-28")); d = d.AddDate(0, 0, 1) {
		o.Advance(d)
		if d.Day()%3 == 0 {
			if _, err := pay(loan, d.Add(5*time.Hour), false, 1); err != nil {
				t.Fatal(err)
			}
			if _, err := o.Pay(false, 1); err != nil {
				t.Fatal(err)
			}
		}
		pos, err := loan.PositionAt(d.Add(5 * time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := pos.Penalty, o.Position().Penalty; got != want {
			t.Fatalf("%s: penalty %d, the oracle's %d", d.Format(time.DateOnly), got, want)
		}
	}
}
