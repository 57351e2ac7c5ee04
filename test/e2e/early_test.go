package e2e

import (
	"testing"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/test/oracle"
)

// The review's reproductions of issue 45 over HTTP against the built binary, each compared
// with test/oracle at every step (issue, check, pay, schedule) and checked for the property it
// broke: EARLY between due dates lowers every later instalment, pays the penalty before
// principal, and a TERM payment whose interest paid ahead finds no principal pays the penalty,
// leaving no debt part negative.
func TestIssue45ReproductionsOverHTTP(t *testing.T) {
	t.Parallel()
	t.Run("EARLY between due dates lowers every later instalment", func(t *testing.T) {
		t.Parallel()
		l := lifecycle{s: start(t, store.SQLite), t: t, terms: oracle.Terms{Rate: 2800, PenaltyDaily: 5}}
		l.issue(10_000_000, 2)
		before := l.o.Schedule()
		l.advance(10)
		l.check()
		l.pay(true, 1_000_000)
		after := l.o.Schedule()
		if last := len(after) - 1; last != 1 || total(after[1]) >= total(before[1]) {
			t.Fatalf("item 2 is %+v after EARLY, %+v before: it did not fall", after[last], before[1])
		}
	})
	t.Run("EARLY pays the penalty before principal", func(t *testing.T) {
		t.Parallel()
		l := lifecycle{s: start(t, store.SQLite), t: t, terms: oracle.Terms{Rate: 2800, PenaltyDaily: 5}}
		l.issue(10_000_000, 3)
		first := l.o.Schedule()[0]
		l.advance(int(first.Date.Sub(l.issued).Hours()/24) + 5)
		if pos := l.check(); pos.Penalty == 0 || pos.OverduePrincipal == 0 {
			t.Fatalf("five days after item 1's date nothing is overdue: %+v", pos)
		}
		l.pay(true, 5_000_000)
		if pos := l.check(); pos.Penalty != 0 || pos.OverduePrincipal+pos.OverdueInterest != 0 {
			t.Fatalf("after EARLY 5 000 000: %+v, want only principal not yet due", pos)
		}
	})
	t.Run("TERM of the payoff less one with a penalty owed", func(t *testing.T) {
		t.Parallel()
		s := start(t, store.SQLite, "TIYIN_SANDBOX_SCORING_PERCENT=60", "TIYIN_PENALTY_DAILY_PERCENT=0.5")
		l := lifecycle{s: s, t: t, terms: oracle.Terms{Rate: 6000, PenaltyDaily: 50}}
		l.issue(1_000_000, 2)
		l.advance(40)
		pos := l.check()
		l.pay(false, pos.Payoff()-1)
		if left := l.check(); left != (oracle.Position{Penalty: 1}) {
			t.Fatalf("TERM of the payoff less one leaves %+v, want one tiyin of penalty", left)
		}
	})
}

func total(it oracle.Item) int64 { return it.Principal + it.Interest + it.Service }
