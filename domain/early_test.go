package domain_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// The defects of issue 45 (DESIGN §8.3–8.4 as amended on 2026-11-26), each with the amounts of
// the design's example or the review's reproduction. Each failed on the book before the fix.

func annuityLoan(amount int64, months int, rate, service, penalty, issued string) *domain.Loan {
	return domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: domain.Amount(amount), MonthPeriod: months,
		Rate: pct(rate), ServiceRate: pct(service), PenaltyDaily: pct(penalty), ScheduleType: domain.ScheduleAnnuity,
		ContractNumber: "1", IssuedAt: date(issued).Add(7 * time.Hour).In(domain.Tashkent)})
}

// still is what each item still asks: its principal and charges less what was paid on it.
func still(t *testing.T, loan *domain.Loan, when time.Time) []int64 {
	t.Helper()
	items, err := loan.ItemsAt(when)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int64, len(items))
	for k, it := range items {
		out[k] = it.OutstandingPrincipal() + it.OutstandingCharges()
	}
	return out
}

// nonNegative fails on any debt part a partner reads that is below zero: check's five parts
// and every schedule item.
func nonNegative(t *testing.T, loan *domain.Loan, when time.Time) {
	t.Helper()
	p := position(t, loan, when)
	if p.NotDuePrincipal < 0 || p.OverduePrincipal < 0 || p.OverdueInterest < 0 || p.TermInterest < 0 || p.Penalty < 0 {
		t.Fatalf("%s: a negative debt part: %+v", when.Format(time.DateOnly), p)
	}
	for k, it := range schedule(t, loan) {
		if it.Principal < 0 || it.Interest < 0 || it.Service < 0 || it.Residue < 0 {
			t.Fatalf("%s: item %d has a negative part: %+v", when.Format(time.DateOnly), k+1, it)
		}
	}
}

func TestEarlyBetweenDueDates(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		loan   *domain.Loan
		on     string
		amount int64
		// want is the payment's split; items what each item still asks after it.
		want  domain.Payment
		items []int64
		after domain.Position
	}{{
		// DESIGN's example: 10 000 000 over 2 months at 28 % (issued 31 January: 28 and 31 days,
		// instalment 5 167 413), EARLY 1 000 000 ten days after issue. (2) takes the 76 712
		// accrued, (3) is skipped, 923 288 reduces principal, and both items are laid out again
		// as equal instalments of 4 655 088 (item 2 stayed 5 167 413 before the fix).
		name: "the design's example", loan: annuityLoan(10_000_000, 2, "28", "0", "0.05", "2026-01-31"), on: "2026-02-10",
		amount: 1_000_000, want: domain.Payment{Principal: 923_288, Interest: 76_712},
		items: []int64{4_655_088, 4_655_088}, after: domain.Position{NotDuePrincipal: 9_076_712},
	}, {
		// Item 1 unpaid, five days after its date the penalty is 8 134: an EARLY 5 000 000 pays
		// the overdue item (1), the interest accrued since (2) and the penalty (4) before (5),
		// so principal gets 4 728 181 and nothing is left owed but principal (the penalty stayed
		// 8 134 before the fix).
		name: "the penalty before the principal", loan: annuityLoan(10_000_000, 3, "28", "0", "0.05", "2026-03-01"), on: "2026-04-06",
		amount: 5_000_000, want: domain.Payment{Principal: 4_728_181, Interest: 263_685, Penalty: 8_134},
		items: []int64{0, 2_718_029, 2_718_029}, after: domain.Position{NotDuePrincipal: 5_271_819},
	}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			before := still(t, c.loan, at(c.on))
			p, posting := repay(t, c.loan, at(c.on), domain.PaymentEarly, c.amount)
			if p.Principal != c.want.Principal || p.Interest != c.want.Interest || p.Penalty != c.want.Penalty {
				t.Fatalf("applied principal %d interest %d penalty %d, want %d %d %d", p.Principal, p.Interest, p.Penalty,
					c.want.Principal, c.want.Interest, c.want.Penalty)
			}
			got := still(t, c.loan, at(c.on))
			if !slices.Equal(got, c.items) {
				t.Fatalf("the items still ask %v, want %v", got, c.items)
			}
			// Every later instalment falls, none grows, the loan is no longer.
			for k := range got {
				if k > 0 && got[k] >= before[k] {
					t.Fatalf("item %d asks %d, before the payment %d: it did not fall", k+1, got[k], before[k])
				}
			}
			if left := position(t, c.loan, at(c.on)); left != c.after {
				t.Fatalf("leaves %+v, want %+v", left, c.after)
			}
			balanced(t, posting)
			nonNegative(t, c.loan, at(c.on))
		})
	}
}

func balanced(t *testing.T, p domain.Posting) {
	t.Helper()
	var debits, credits int64
	for _, e := range p.Entries {
		debits, credits = debits+e.Debit, credits+e.Credit
	}
	if debits != credits {
		t.Fatalf("posting %+v does not balance", p.Entries)
	}
}

// The review's reproduction: 1 000 000 over 2 months at 60 %, 0.5 % a day, nothing paid; forty
// days after issue, TERM of the payoff less one. TERM pays item 2's whole scheduled interest
// and all principal, so interest paid ahead finds no principal left: it pays the penalty.
// Before the fix check showed mainDebtAmount −17 662 and a penalty of 17 663 still owed.
func TestInterestPaidAheadWithNoPrincipalLeftPaysThePenalty(t *testing.T) {
	t.Parallel()
	loan := annuityLoan(1_000_000, 2, "60", "0", "0.5", "2026-03-31")
	when := at("2026-05-10")
	payoff := position(t, loan, when).Payoff()
	p, posting := repay(t, loan, when, domain.PaymentTerm, payoff-1)
	if p.Principal != 1_000_000 || p.Principal+p.Interest+p.Penalty != payoff-1 {
		t.Fatalf("applied %+v of %d", p, payoff-1)
	}
	if left := position(t, loan, when); left != (domain.Position{Penalty: 1}) {
		t.Fatalf("leaves %+v, want one tiyin of penalty", left)
	}
	balanced(t, posting)
	nonNegative(t, loan, when)
	for d := 1; d <= 40; d++ { // and on every later day
		nonNegative(t, loan, when.AddDate(0, 0, d))
	}
}

// E is rounded so that the item keeps exactly its charges as reported. Half up, the TERM and
// the EARLY payment below left item 1 keeping a tiyin more than its interest and service (two
// roundings, interest and service, each half up): once overdue it showed
// overdueInterestAmount −1.
func TestGivenBackInterestLeavesNoItemACredit(t *testing.T) {
	t.Parallel()
	loan := annuityLoan(1_808_019, 5, "14", "19", "0.05", "2027-09-10")
	repay(t, loan, at("2027-09-28"), domain.PaymentTerm, 87_737)
	repay(t, loan, at("2027-09-29"), domain.PaymentEarly, 52_603)
	for d := at("2027-09-29"); d.Before(at("2027-11-20")); d = d.AddDate(0, 0, 1) {
		nonNegative(t, loan, d)
		items, err := loan.ItemsAt(d)
		if err != nil {
			t.Fatal(err)
		}
		if c := items[0].OutstandingCharges(); c != 0 {
			t.Fatalf("%s: item 1 owes %d of charges, want exactly 0", d.Format(time.DateOnly), c)
		}
	}
}

// An EARLY payment on a payment date settles the item due that day first, by (2) and (3) as
// TERM would (its whole interest, 214 795, no day of the next period), and lays out only the
// items after it: 10 000 000 over 3 months at 28 %, issued 31 January 2026, EARLY of item 1's
// instalment and 1 000 000 more on 28 February. Items 2 and 3 then ask 2 966 698 and
// 2 966 697 (3 484 412 and 3 484 410 before).
func TestEarlyOnAPaymentDateSettlesThatItemFirst(t *testing.T) {
	t.Parallel()
	loan := annuityLoan(10_000_000, 3, "28", "0", "0.05", "2026-01-31")
	on := at("2026-02-28")
	first := schedule(t, loan)[0]
	p, posting := repay(t, loan, on, domain.PaymentEarly, first.Total()+1_000_000)
	if p.Principal != 4_269_617 || p.Interest != 214_795 || p.Penalty != 0 {
		t.Fatalf("applied %+v, want principal 4 269 617 (item 1's and 1 000 000), interest 214 795", p)
	}
	if got := still(t, loan, on); !slices.Equal(got, []int64{0, 2_966_698, 2_966_697}) {
		t.Fatalf("the items still ask %v, want [0 2966698 2966697]", got)
	}
	if s := schedule(t, loan); s[0].Interest != first.Interest || s[0].Principal != first.Principal+1_000_000 {
		t.Fatalf("item 1 is %+v, want its interest unchanged and the early 1 000 000 shown in it", s[0])
	}
	balanced(t, posting)
	nonNegative(t, loan, on)
}
