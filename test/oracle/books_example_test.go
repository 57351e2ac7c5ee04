package oracle_test

import (
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/tiyin/tiyin/test/oracle"
)

// exampleEvent is a worked example's event on a day: a payment (TERM or EARLY, of an amount
// or, with amount 0, of overdue + accrued interest + penalty, which cures the loan).
type exampleEvent struct {
	day    int
	early  bool
	amount int64
}

// workedExample walks terms for days with its events, keeping the books under rules, and
// returns the day-by-day table (each row after that day's events and its close) and the loan.
func workedExample(t *testing.T, terms oracle.Terms, rules oracle.BooksRules, days int, events []exampleEvent) (string, []oracle.Books, *oracle.Loan) {
	t.Helper()
	l := booksLoan(t, terms, rules)
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 1, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "day\tdate\tevent\tinterest accrued\tpenalty accrued\tLOAN\tOVERDUE_PRINCIPAL\tINTEREST_RECEIVABLE\tPENALTY_RECEIVABLE\tINTEREST_IN_ADVANCE\tPROVISION\tINTEREST_INCOME\tPENALTY_INCOME\tPROVISION_EXPENSE\tCASH\tdays overdue\tclass\t")
	var rows []oracle.Books
	accrued := func(d time.Time, acc ...oracle.Account) int64 { // the close's accrual of d
		var sum int64
		for _, p := range l.Journal() {
			if p.Date.Equal(d) && p.Kind == "ACCRUAL" {
				for _, ln := range p.Lines {
					for _, a := range acc {
						if ln.Account == a {
							sum += ln.Debit - ln.Credit
						}
					}
				}
			}
		}
		return sum
	}
	for day := 0; day < days; day++ {
		d := terms.IssuedOn.AddDate(0, 0, day)
		l.Advance(d)
		event := ""
		if day == 0 {
			event = fmt.Sprintf("issue %d", terms.Amount)
		}
		for _, e := range events {
			if e.day != day {
				continue
			}
			amount, kind := e.amount, "TERM"
			if e.early {
				kind = "EARLY"
			}
			if amount == 0 {
				p := l.Position()
				amount = p.OverduePrincipal + p.OverdueInterest + p.TermInterest + p.Penalty
			}
			split, err := l.Pay(e.early, amount)
			if err != nil {
				t.Fatalf("day %d: %s %d: %v", day, kind, amount, err)
			}
			event = fmt.Sprintf("%s %d: principal %d, interest %d, penalty %d", kind, amount, split.Principal, split.Interest, split.Penalty)
		}
		l.Advance(d.AddDate(0, 0, 1))
		now := l.Books()
		rows = append(rows, now)
		fmt.Fprintf(w, "%d\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t\n", day, d.Format(time.DateOnly), event,
			accrued(d, oracle.InterestReceivable, oracle.MemoInterest), accrued(d, oracle.PenaltyReceivable, oracle.MemoPenalty), now.Loan, now.OverduePrincipal, now.InterestReceivable,
			now.PenaltyReceivable, now.InterestInAdvance, now.Provision, now.InterestIncome, now.PenaltyIncome, now.ProvisionExpense, now.Cash,
			now.DaysOverdue, now.Class)
	}
	_ = w.Flush()
	b.WriteString("\nthe postings other than the closes' accruals, releases of the advance and provisions (the table has them), in order:\n")
	for _, p := range l.Journal() {
		if p.Kind != "ACCRUAL" && p.Kind != "ADVANCE_RELEASE" && p.Kind != "PROVISION" {
			b.WriteString(describe(p))
		}
	}
	return b.String(), rows, l
}

// describe is a posting on one line per account.
func describe(p oracle.Posting) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", p.Date.Format(time.DateOnly), p.Kind)
	for _, ln := range p.Lines {
		if ln.Debit > 0 {
			fmt.Fprintf(&b, "    Dr %-24s %15d\n", ln.Account, ln.Debit)
		} else {
			fmt.Fprintf(&b, "    Cr %-24s %15d\n", ln.Account, ln.Credit)
		}
	}
	return b.String()
}

// TestBooksWorkedExample is the books' worked example over 40 days, printed as a table (go
// test -v -run TestBooksWorkedExample ./test/oracle/): the docs' loan of 1 000 000 000 for 12
// months at 28 % (penalty 0.05 % a day), issued on 31 January 2026 (item 1: 74 923 255 +
// 21 479 452 due 28 February), under the example provision table (0 days 1 %, 1–30 days 10 %);
// a TERM payment of 50 000 000 in the middle of the first period, the rest of item 1 missed on
// 28 February, the penalty from 1 March, and on 9 March an EARLY payment of the overdue debt,
// the interest accrued and the penalty, which cures the loan. Each row is after the day's
// events and its close.
//
// The arithmetic, a day's interest on P being P × 0.28 / 365:
//   - 31 January: 767 123.29 → 767 123 receivable; provision 1 % × 1 000 767 123 = 10 007 671.23
//     → 10 007 671. Through 9 February (10 days) 7 671 232.88 → 7 671 233.
//   - 10 February, TERM 50 000 000: (2) the period's 21 479 452, (3) 28 520 548 of item 1's
//     principal. The residue 971 479 452 would keep 7 671 232.88 + 18 days × 971 479 452 × 0.28
//     / 365 = 21 085 634.08, so 393 817.92 was paid ahead: E* = 393 817.92 / (1 − 18 × 0.28 /
//     365) = 399 331.99, E = 399 332; the split is principal 28 919 880, interest 21 080 120.
//     Posting: Dr CASH 50 000 000, Cr LOAN 28 919 880, Cr INTEREST_RECEIVABLE 7 671 233, Cr
//     INTEREST_IN_ADVANCE 21 480 120 − 7 671 233 = 13 408 887 (21 479 452 − 7 671 233 paid ahead,
//     less E). Its close: 971 080 120 × 0.28 / 365 = 744 938.17, released from the advance; by
//     the close of 27 February the period has accrued 7 671 232.88 + 18 × 744 938.17 =
//     21 080 120.01 → 21 080 120 and the advance is 0.
//   - 28 February: 46 402 707 (74 923 255 − 28 520 548) of item 1 unpaid moves to
//     OVERDUE_PRINCIPAL; item 2 accrues on 924 677 413: 709 341.58 a day.
//   - 1 March, 1 day overdue: the penalty 46 402 707 × 0.0005 = 23 201.35 → 23 201; substandard:
//     10 % × (924 677 413 + 46 402 707 + 1 418 683 + 23 201) = 97 252 200.4 → 97 252 200.
//   - 9 March, EARLY 52 995 593: (1) 46 402 707, (2) the 9 days of item 2 accrued, 6 384 074,
//     (4) the penalty through 9 March, 9 × 23 201.35 = 208 812.18 → 208 812, of which 185 611 was
//     accrued: the day's 23 201 waits in INTEREST_IN_ADVANCE for the close. Cured: standard,
//     1 % × (924 677 413 + 709 342) = 9 253 867.55 → 9 253 868.
func TestBooksWorkedExample(t *testing.T) {
	t.Parallel()
	terms := loan28("2026-01-31")
	table, rows, l := workedExample(t, terms, oracle.BooksRules{Classes: oracle.ExampleClasses}, 40,
		[]exampleEvent{{day: 10, amount: 50_000_000}, {day: 37, early: true}})
	t.Logf("the books' worked example:\n%s", table)
	if err := l.Check(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		day                                                        int
		loan, overdue, interestRec, penaltyRec, advance, provision int64
		class                                                      string
	}{
		{0, 1_000_000_000, 0, 767_123, 0, 0, 10_007_671, "standard"},
		{9, 1_000_000_000, 0, 7_671_233, 0, 0, 10_076_712, "standard"},
		{10, 971_080_120, 0, 0, 0, 13_408_887 - 744_938, 9_710_801, "standard"},
		{27, 971_080_120, 0, 0, 0, 0, 9_710_801, "standard"},
		{28, 924_677_413, 46_402_707, 709_342, 0, 0, 9_717_895, "standard"},
		{29, 924_677_413, 46_402_707, 1_418_683, 23_201, 0, 97_252_200, "substandard"},
		{37, 924_677_413, 0, 709_342, 0, 0, 9_253_868, "standard"},
	} {
		b := rows[c.day]
		if b.Loan != c.loan || b.OverduePrincipal != c.overdue || b.InterestReceivable != c.interestRec || b.PenaltyReceivable != c.penaltyRec ||
			b.InterestInAdvance != c.advance || b.Provision != c.provision || b.Class != c.class {
			t.Errorf("day %d: %+v", c.day, b)
		}
	}
	// The incomes: interest 21 080 120 for item 1, then 12 days of item 2 on 924 677 413:
	// round(12 × 709 341.577) = 8 512 099; the penalty 208 812.
	if last := rows[39]; last.InterestIncome != 21_080_120+8_512_099 || last.PenaltyIncome != 208_812 {
		t.Errorf("the incomes after 40 days: %+v", last)
	}
}
