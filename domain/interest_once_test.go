package domain_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// The reproductions of issue 32 (interest owed once, DESIGN §8.3–8.4 as amended on
// 2026-11-24). Each failed on the book before it; the expected figures are test/oracle's,
// computed from the design with exact rationals.

// loanOn is 1e9 tiyin for 12 months at 28 %, 0.05 % a day of penalty, issued on the date.
func loanOn(issued string) *domain.Loan {
	return domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: 1_000_000_000, MonthPeriod: 12, Rate: pct("28"),
		PenaltyDaily: pct("0.05"), ScheduleType: domain.ScheduleAnnuity, ContractNumber: "1",
		IssuedAt: date(issued).Add(7 * time.Hour).In(domain.Tashkent)})
}

// TERM then EARLY in one period: the period's interest is charged once. TERM pays item 1's
// scheduled interest, 21 479 452, and the rest is principal; the interest its 18 days left
// will not accrue goes to principal too. The next day's EARLY payment finds interest paid
// ahead again (the principal fell) and applies it to principal: its interest is negative.
// Item 1 then shows 17 787 727 (was 30 935 247, about 9.46M charged twice).
func TestTermThenEarlyInOnePeriodChargesTheInterestOnce(t *testing.T) {
	t.Parallel()
	loan := loanOn("2027-01-31")
	term, termPosting := repay(t, loan, at("2027-02-10"), domain.PaymentTerm, 96_402_707)
	if term.Principal != 75_972_297 || term.Interest != 20_430_410 {
		t.Fatalf("TERM applied %+v, want principal 75 972 297, interest 20 430 410", term)
	}
	early, posting := repay(t, loan, at("2027-02-11"), domain.PaymentEarly, 200_000_000)
	if early.Principal != 202_642_683 || early.Interest != -2_642_683 || early.Penalty != 0 {
		t.Fatalf("EARLY applied %+v, want principal 202 642 683, interest −2 642 683", early)
	}
	if s := schedule(t, loan); s[0].Interest != 17_787_727 || s[0].Principal != 278_614_980 {
		t.Fatalf("item 1 is %+v, want principal 278 614 980, interest 17 787 727", s[0])
	}
	// The interest given back is a debit of interest income; the posting balances.
	for _, p := range []domain.Posting{termPosting, posting} {
		var debits, credits int64
		for _, e := range p.Entries {
			debits, credits = debits+e.Debit, credits+e.Credit
		}
		if debits != credits {
			t.Fatalf("posting %+v does not balance", p.Entries)
		}
	}
	if e := posting.Entries; len(e) != 3 || e[2].Account.Kind != domain.AccountInterestIncome || e[2].Debit != 2_642_683 {
		t.Fatalf("EARLY posting %+v, want interest income debited 2 642 683", posting.Entries)
	}
}

// EARLY after a TERM prepayment keeps the loan short: TERM 400 000 000 five days after issue
// leaves 8 items; an EARLY 10 000 000 the next day recomputes to the 8th, and the interest of
// the whole schedule falls (74 603 067 without it, 73 505 920 with it), where it grew by
// 33 329 298 when EARLY stretched the loan back to 12 items.
func TestEarlyAfterTermPrepaymentKeepsTheLoanShort(t *testing.T) {
	t.Parallel()
	interest := func(s []domain.ScheduleItem) (sum int64) {
		for _, it := range s {
			sum += it.Interest + it.Service
		}
		return sum
	}
	loan := loanOn("2027-09-25")
	if p, _ := repay(t, loan, at("2027-09-30"), domain.PaymentTerm, 400_000_000); p.Principal != 384_357_542 || p.Interest != 15_642_458 {
		t.Fatalf("TERM applied %+v", p)
	}
	if s := schedule(t, loan); len(s) != 8 || interest(s) != 74_603_067 {
		t.Fatalf("after TERM: %d items, interest %d; want 8, 74 603 067", len(s), interest(s))
	}
	if p, _ := repay(t, loan, at("2027-10-01"), domain.PaymentEarly, 10_000_000); p.Principal != 10_187_563 || p.Interest != -187_563 {
		t.Fatalf("EARLY applied %+v", p)
	}
	if s := schedule(t, loan); len(s) != 8 || interest(s) != 73_505_920 {
		t.Fatalf("after EARLY: %d items, interest %d; want 8, 73 505 920", len(s), interest(s))
	}
}

// No cliff: the payoff less one tiyin, paid as TERM or EARLY, leaves one tiyin (plus that
// day's accrual at most), not a period's interest.
func TestPayoffLessOneTiyinLeavesOneTiyin(t *testing.T) {
	t.Parallel()
	for _, typ := range []domain.PaymentType{domain.PaymentTerm, domain.PaymentEarly} {
		loan := loanOn("2027-01-31")
		payoff := position(t, loan, at("2027-02-10")).Payoff()
		p, _ := repay(t, loan, at("2027-02-10"), typ, payoff-1)
		if p.Principal != 999_999_999 || p.Interest != 7_671_233 {
			t.Fatalf("%s applied %+v", typ, p)
		}
		if left := position(t, loan, at("2027-02-10")); left != (domain.Position{NotDuePrincipal: 1}) {
			t.Fatalf("%s leaves %+v, want 1 tiyin of principal", typ, left)
		}
	}
}
