package domain_test

import (
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// TestRestructuringCapitalisesTheArrears: the overdue principal, interest, service and penalty
// join the principal laid out again; afterwards nothing is overdue, the principal outstanding
// grew by exactly the charges capitalised, and one balanced posting books them as income.
func TestRestructuringCapitalisesTheArrears(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		when    string
		months  int
		wantErr error
		want    domain.Capitalised
		items   int
	}{
		// 10 days of 0.05 % a day on 74 923 255: 374 616.3.
		{"one item overdue 10 days, three months more", "2026-03-10", 3, nil,
			domain.Capitalised{Principal: 74_923_255, Interest: 21_479_452, Penalty: 374_616}, 15},
		{"two items overdue, six months more", "2026-04-05", 6, nil,
			domain.Capitalised{Principal: 149_326_877, Interest: 43_478_537, Penalty: 1_534_628}, 18},
		{"nothing overdue yet", "2026-02-20", 3, domain.ErrActionAmount, domain.Capitalised{}, 12},
		{"beyond 36 months", "2026-03-10", 25, domain.ErrRestructure, domain.Capitalised{}, 12},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			loan := goldenLoan()
			loan.TakeEvents()
			when := at(c.when)
			before := position(t, loan, when)
			got, posting, err := loan.RestructureArrears(uuid.New(), when, c.months)
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("restructure: %v, want %v", err, c.wantErr)
			}
			if events := loan.TakeEvents(); (err == nil) != (len(events) == 1) {
				t.Fatalf("events %+v after %v", events, err)
			}
			loan = domain.RestoreLoan(loan.State())
			after := position(t, loan, when)
			if loan.MonthPeriod() != c.items {
				t.Fatalf("term %d months, want %d", loan.MonthPeriod(), c.items)
			}
			if err != nil {
				if after != before || posting != nil {
					t.Fatalf("a refused restructuring changed the loan: %+v to %+v, posted %+v", before, after, posting)
				}
				return
			}
			if got != c.want {
				t.Errorf("capitalised %+v, want %+v", got, c.want)
			}
			if after.OverduePrincipal != 0 || after.OverdueInterest != 0 || after.Penalty != 0 {
				t.Errorf("still overdue after: %+v", after)
			}
			if after.NotDuePrincipal != before.NotDuePrincipal+before.OverduePrincipal+before.OverdueInterest+before.Penalty {
				t.Errorf("the principal not due is %d, want %d + %d + %d + %d", after.NotDuePrincipal, before.NotDuePrincipal,
					before.OverduePrincipal, before.OverdueInterest, before.Penalty)
			}
			if got.Principal != before.OverduePrincipal || got.Interest+got.Service != before.OverdueInterest || got.Penalty != before.Penalty {
				t.Errorf("capitalised %+v of the position %+v", got, before)
			}
			var debit, credit int64
			for _, e := range posting.Entries {
				debit, credit = debit+e.Debit, credit+e.Credit
			}
			if posting.Kind != domain.PostingArrearsCapitalisation || debit != got.Charges() || credit != debit ||
				posting.Entries[0].Account != domain.LoanAccount(domain.AccountLoan, loan.ID()) {
				t.Errorf("the posting %+v", posting)
			}
			items, err := loan.ItemsAt(when)
			if err != nil {
				t.Fatal(err)
			}
			for k, it := range items {
				if it.Overdue {
					t.Errorf("item %d is overdue after: %+v", k, it)
				}
			}
		})
	}
}
