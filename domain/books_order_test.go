package domain_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// The cases the lifecycle comparison with the oracle found (docs/accounting.md, Decisions): what a payment or
// a waiver settles first, interest and service as one charge, and the write-off's day.

func cashCredit(k domain.AccountKind, amount int64) domain.Entry {
	return domain.Entry{Account: domain.BankAccount(k), Credit: amount}
}

func TestPaymentsAndWaiversSettleTheOldestAccrualFirst(t *testing.T) {
	t.Parallel()
	id := uuid.New()
	type balances struct{ memoI, memoS, memoP, recI, recS, recP, advI, advS int64 }
	of := func(s domain.BooksState) balances {
		return balances{s.MemoInterest, s.MemoService, s.MemoPenalty, s.InterestReceivable, s.ServiceReceivable, s.PenaltyReceivable,
			s.InterestAdvance, s.ServiceAdvance}
	}
	cases := []struct {
		name                       string
		before                     balances
		payI, payS, payP           int64 // a payment's split (0: none)
		waiveI, waiveS, waiveP     int64 // or a waiver's
		want                       balances
		income, memoBack, incomeDr int64 // income credited, memo pair reversed, income debited (a waiver)
	}{
		// A cured loan with penalty in the memo (from its non-accrual) and on balance (since the
		// cure): the memo is older, paid first (seed 1, loan 50 of the comparison).
		{name: "penalty: the memo before the receivable", before: balances{memoP: 100, recP: 20}, payP: 110,
			want: balances{recP: 10}, income: 100, memoBack: 100},
		// Interest and service are one charge: a payment whose split gives interest one tiyin
		// more than its memo settles service's memo with it, not interest's advance (loan 189).
		{name: "interest and service settle together", before: balances{memoI: 10, memoS: 5, recI: 3}, payI: 16,
			want: balances{recI: 2}, income: 15, memoBack: 15},
		{name: "receivables before the advance", before: balances{recI: 4, recS: 2}, payI: 3, payS: 5,
			want: balances{advS: 2}},
		{name: "a waiver: the memo before the receivable", before: balances{memoI: 10, recI: 5, recS: 1}, waiveI: 12,
			want: balances{recI: 3, recS: 1}, memoBack: 10, incomeDr: 2},
		{name: "a penalty waiver: the memo before the receivable", before: balances{memoP: 7, recP: 9}, waiveP: 8,
			want: balances{recP: 8}, memoBack: 7, incomeDr: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := c.before
			s := domain.BooksState{MemoInterest: b.memoI, MemoService: b.memoS, MemoPenalty: b.memoP, InterestReceivable: b.recI,
				ServiceReceivable: b.recS, PenaltyReceivable: b.recP, InterestAdvance: b.advI, ServiceAdvance: b.advS}
			var es []domain.Entry
			if c.payI+c.payS+c.payP > 0 {
				s, es = s.Repayment(id, []domain.Entry{cashCredit(domain.AccountInterestIncome, c.payI),
					cashCredit(domain.AccountServiceIncome, c.payS), cashCredit(domain.AccountPenaltyIncome, c.payP)})
			} else {
				s, es = s.Waive(id, c.waiveI, c.waiveS, c.waiveP)
			}
			if got := of(s); got != c.want {
				t.Errorf("after: %+v, want %+v", got, c.want)
			}
			var income, memoBack, incomeDr int64
			for _, e := range es {
				switch e.Account.Kind {
				case domain.AccountInterestIncome, domain.AccountServiceIncome, domain.AccountPenaltyIncome:
					income += e.Credit
					incomeDr += e.Debit
				case domain.AccountMemoNonAccruedContra:
					memoBack += e.Debit
				}
			}
			if income != c.income || memoBack != c.memoBack || incomeDr != c.incomeDr {
				t.Errorf("income credited %d, memo reversed %d, income debited %d; want %d, %d, %d", income, memoBack, incomeDr,
					c.income, c.memoBack, c.incomeDr)
			}
		})
	}
}

func TestAWriteOffHasNoClassAndPutsItsDaysPenaltyInTheMemo(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                 string
		taken, rec, penalty  int64
		wantMemo, wantIncome int64 // the memo after, and the penalty income reversed
	}{
		// The write-off's day: its penalty is owed from the day's start, and no close will accrue
		// it on a written-off loan (seed 1, loan 26 of the comparison).
		{name: "the day's penalty not yet accrued", taken: 100, rec: 30, penalty: 130, wantMemo: 60, wantIncome: 30},
		{name: "nothing more accrued", taken: 100, rec: 30, penalty: 100, wantMemo: 30, wantIncome: 30},
		{name: "paid ahead today", taken: 140, rec: 0, penalty: 130, wantMemo: 0, wantIncome: 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := domain.BooksState{TakenPenalty: c.taken, PenaltyReceivable: c.rec, DaysOverdue: 40, Class: "UNSATISFACTORY", Provision: 5}
			s, es := s.WriteOff(uuid.New(), 0, c.penalty)
			var reversed int64
			for _, e := range es {
				if e.Account.Kind == domain.AccountPenaltyIncome {
					reversed += e.Debit
				}
			}
			if s.MemoPenalty != c.wantMemo || reversed != c.wantIncome || s.PenaltyReceivable != 0 {
				t.Errorf("memo %d, income reversed %d, receivable %d; want %d, %d, 0", s.MemoPenalty, reversed, s.PenaltyReceivable,
					c.wantMemo, c.wantIncome)
			}
			if s.Class != "" || s.DaysOverdue != 0 || !s.NonAccrual {
				t.Errorf("a written-off loan: class %q, %d days overdue, non-accrual %t", s.Class, s.DaysOverdue, s.NonAccrual)
			}
		})
	}
}

// A loan that owes only penalty, written off: no principal to write off, but its penalty
// receivable leaves income for the memo and it is out of the portfolio (seed 1, loan 1424 of
// the comparison, where the domain posted nothing and kept classifying it).
func TestAWriteOffOfOnlyPenaltyMovesItToTheMemo(t *testing.T) {
	t.Parallel()
	loan := domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: 1_000_000, MonthPeriod: 1, Rate: pct("28"),
		PenaltyDaily: pct("0.05"), ScheduleType: domain.ScheduleAnnuity, ContractNumber: "1",
		IssuedAt: time.Date(2026, 1, 10, 12, 0, 0, 0, domain.Tashkent)})
	rules := domain.DefaultBooksRules()
	if _, err := loan.CloseBooks(date("2026-01-10"), date("2026-02-19"), rules); err != nil {
		t.Fatal(err)
	}
	pos, err := loan.PositionAt(at("2026-02-20"))
	if err != nil {
		t.Fatal(err)
	}
	repay(t, loan, at("2026-02-20"), domain.PaymentTerm, pos.OverduePrincipal+pos.OverdueInterest)
	if _, err := loan.CloseBooks(date("2026-01-10"), date("2026-02-20"), rules); err != nil {
		t.Fatal(err)
	}
	before, _ := loan.Books()
	if before.PenaltyReceivable <= 0 || before.OverduePrincipal != 0 || loan.Closed() {
		t.Fatalf("the loan should owe only penalty: %+v", before)
	}
	p, err := loan.WriteOff(uuid.New(), at("2026-02-21"))
	if err != nil || p == nil {
		t.Fatalf("write-off: %v, %v", p, err)
	}
	var reversed int64
	for _, e := range p.Entries {
		if e.Account.Kind == domain.AccountPenaltyIncome {
			reversed += e.Debit
		}
	}
	after, _ := loan.Books()
	if reversed != before.PenaltyReceivable || after.PenaltyReceivable != 0 || after.MemoPenalty < before.PenaltyReceivable ||
		after.Class != "" || !after.NonAccrual {
		t.Errorf("after the write-off: %+v, income reversed %d (receivable was %d)", after, reversed, before.PenaltyReceivable)
	}
}
