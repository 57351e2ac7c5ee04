package domain_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

func TestRestructuringLaysThePrincipalNotYetDueOutAgain(t *testing.T) {
	t.Parallel()
	when := at("2026-03-10") // the first item (2026-02-28) is overdue, the second current
	cases := []struct {
		name            string
		loan            func() *domain.Loan
		months, holiday int
		wantErr         error
		items           int
	}{
		{"three months more", goldenLoan, 3, 0, nil, 15},
		{"a two-month holiday", goldenLoan, 2, 2, nil, 14},
		{"beyond 36 months", goldenLoan, 25, 0, domain.ErrRestructure, 12},
		{"a holiday longer than the extension", goldenLoan, 1, 2, domain.ErrRestructure, 12},
		{"over the cap", func() *domain.Loan {
			return domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: 1_000_000_000, MonthPeriod: 3, Rate: pct("99"),
				PenaltyDaily: pct("0.05"), ScheduleType: domain.ScheduleAnnuity, IssuedAt: time.Date(2026, 1, 31, 12, 0, 0, 0, domain.Tashkent)})
		}, 12, 0, domain.ErrRestructure, 3},
		{"written off", func() *domain.Loan {
			l := goldenLoan()
			if _, err := l.WriteOff(uuid.New(), at("2026-03-01")); err != nil {
				panic(err)
			}
			return l
		}, 3, 0, domain.ErrLoanWrittenOff, 12},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			loan := c.loan()
			loan.TakeEvents()
			before := schedule(t, loan)
			pos := position(t, loan, when)
			err := loan.Restructure(when, c.months, c.holiday)
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("restructure: %v, want %v", err, c.wantErr)
			}
			if events := loan.TakeEvents(); (err == nil) != (len(events) == 1) {
				t.Fatalf("events %+v after %v", events, err)
			}
			loan = domain.RestoreLoan(loan.State())
			after := schedule(t, loan)
			if len(after) != c.items || loan.MonthPeriod() != c.items {
				t.Fatalf("%d items, term %d months, want %d", len(after), loan.MonthPeriod(), c.items)
			}
			if got := position(t, loan, when); got != pos {
				t.Fatalf("the debt today moved from %+v to %+v", pos, got)
			}
			if err != nil {
				return
			}
			var sum int64
			for k, it := range after {
				sum += it.Principal
				if it.PaymentDate.Before(domain.BusinessDate(when)) && it != before[k] {
					t.Fatalf("past item %d changed: %+v, was %+v", k, it, before[k])
				}
				if want := domain.PaymentDates(date("2026-01-31"), c.items)[k]; !it.PaymentDate.Equal(want) {
					t.Fatalf("item %d is due %s, want %s", k, it.PaymentDate, want)
				}
				if holiday := k >= 1 && k < 1+c.holiday; holiday != (it.Principal == 0) || it.Interest == 0 {
					t.Fatalf("item %d %+v: a holiday's item asks interest only, no other item does", k, it)
				}
			}
			if sum != 1_000_000_000 {
				t.Fatalf("the principal laid out is %d", sum)
			}
		})
	}
}
