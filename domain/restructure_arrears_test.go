package domain_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// TestRestructuringCapitalisesTheArrears: the overdue principal, interest, service and penalty
// join the principal laid out again; afterwards nothing is overdue, the principal outstanding
// grew by exactly the charges capitalised, and one balanced posting books them as income.
func TestRestructuringCapitalisesTheArrears(t *testing.T) {
	t.Parallel()
	withService := func() *domain.Loan {
		return domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: 1_000_000_000, MonthPeriod: 12, Rate: pct("20"),
			ServiceRate: pct("8"), PenaltyDaily: pct("0.05"), ScheduleType: domain.ScheduleDifferentiated, ContractNumber: "1234567891",
			IssuedAt: time.Date(2026, 1, 31, 12, 0, 0, 0, domain.Tashkent)})
	}
	cases := []struct {
		name    string
		loan    func() *domain.Loan
		when    string
		months  int
		wantErr error
		want    domain.Capitalised
		items   int
	}{
		// 10 days of 0.05 % a day on 74 923 255: 374 616.3.
		{"one item overdue 10 days, three months more", goldenLoan, "2026-03-10", 3, nil,
			domain.Capitalised{Principal: 74_923_255, Interest: 21_479_452, Penalty: 374_616}, 15},
		{"two items overdue, six months more", goldenLoan, "2026-04-05", 6, nil,
			domain.Capitalised{Principal: 149_326_877, Interest: 43_478_537, Penalty: 1_534_628}, 18},
		// 28 days on 1 000 000 000 at 20 % and 8 % a year: 15 342 465.75 and 6 136 986.30; 10
		// days of 0.05 % a day on 83 333 333: 416 666.67.
		{"interest and service overdue, differentiated", withService, "2026-03-10", 2, nil,
			domain.Capitalised{Principal: 83_333_333, Interest: 15_342_466, Service: 6_136_986, Penalty: 416_667}, 14},
		{"nothing overdue yet", goldenLoan, "2026-02-20", 3, domain.ErrActionAmount, domain.Capitalised{}, 12},
		{"beyond 36 months", goldenLoan, "2026-03-10", 25, domain.ErrRestructure, domain.Capitalised{}, 12},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			loan := c.loan()
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

// TestWaivedInterestIsShownApartFromPaid: an interest waiver settles the overdue items' charges
// as waived, not paid; a payment after it is paid, and the two stay apart item by item.
func TestWaivedInterestIsShownApartFromPaid(t *testing.T) {
	t.Parallel()
	loan := goldenLoan()
	when := at("2026-04-05") // two items overdue
	if _, err := loan.WaiveInterest(when, 30_000_000); err != nil {
		t.Fatal(err)
	}
	loan = domain.RestoreLoan(loan.State())
	if _, _, err := domain.PostManually(uuid.New(), loan, domain.Payment{Type: domain.PaymentTerm, Amount: 20_000_000,
		Channel: domain.ChannelCashDesk, DebitID: "KASSA-1", At: when}); err != nil {
		t.Fatal(err)
	}
	items, err := loan.ItemsAt(when)
	if err != nil {
		t.Fatal(err)
	}
	// The first item's 21 479 452 of interest waived whole, the second's 8 520 548 of its
	// 21 999 085 waived; the payment's (1) splits 20 000 000 between the overdue principal
	// 149 326 877 and interest 13 478 537 in proportion: 1 655 785 to the second's interest.
	for k, want := range []struct{ waived, paid int64 }{{21_479_452, 0}, {8_520_548, 1_655_785}, {0, 0}} {
		if it := items[k]; it.WaivedCharges != want.waived || it.PaidOnlyCharges() != want.paid {
			t.Errorf("item %d: waived %d, paid %d; want %d, %d", k, it.WaivedCharges, it.PaidOnlyCharges(), want.waived, want.paid)
		}
	}
}

// TestACapitalisationOnAccrualBooksSettlesTheReceivables: on a loan that keeps accrual books,
// the arrears' charges were income as they accrued, so capitalising them credits their
// receivables, not income again, and the overdue principal goes back to LOAN.
func TestACapitalisationOnAccrualBooksSettlesTheReceivables(t *testing.T) {
	t.Parallel()
	loan := goldenLoan()
	if _, err := loan.CloseBooks(date("2026-01-31"), date("2026-03-09"), domain.DefaultBooksRules()); err != nil {
		t.Fatal(err)
	}
	before, _ := loan.Books()
	if before.OverduePrincipal != 74_923_255 || before.InterestReceivable < 21_479_452 {
		t.Fatalf("books before: %+v", before)
	}
	got, posting, err := loan.RestructureArrears(uuid.New(), at("2026-03-10"), 3)
	if err != nil || posting == nil {
		t.Fatalf("restructure: %v (posting %v)", err, posting)
	}
	sides := map[string]int64{}
	for _, e := range posting.Entries {
		sides[e.Account.Kind.String()] += e.Debit - e.Credit
	}
	want := map[string]int64{
		"LOAN":                got.Principal + got.Charges(),
		"OVERDUE_PRINCIPAL":   -got.Principal,
		"INTEREST_RECEIVABLE": -got.Interest,
	}
	for k, v := range want {
		if sides[k] != v {
			t.Errorf("%s: %d, want %d (posting %+v)", k, sides[k], v, posting.Entries)
		}
	}
	if sides["INTEREST_INCOME"] != 0 {
		t.Errorf("interest income credited again: %d", sides["INTEREST_INCOME"])
	}
	// The penalty: its receivable through the last close, the day's own is income at once.
	if sides["PENALTY_RECEIVABLE"]+sides["PENALTY_INCOME"] != -got.Penalty || sides["PENALTY_RECEIVABLE"] != -before.PenaltyReceivable {
		t.Errorf("penalty: receivable %d, income %d; capitalised %d, receivable before %d",
			sides["PENALTY_RECEIVABLE"], sides["PENALTY_INCOME"], got.Penalty, before.PenaltyReceivable)
	}
	after, _ := loan.Books()
	if after.OverduePrincipal != 0 || after.InterestReceivable != before.InterestReceivable-got.Interest || after.PenaltyReceivable != 0 {
		t.Errorf("books after: %+v", after)
	}
}
