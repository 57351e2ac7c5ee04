package oracle_test

import (
	"testing"

	"github.com/tiyin/tiyin/test/oracle"
)

// The books' hand-computed cases. Every amount below is worked out from DESIGN §8.3–8.4 and
// §9.1 in the comments; the rate 36.5 % makes a day's interest exactly 0.1 % of the principal
// (36.5 / 100 / 365 = 0.001), the penalty is 0.05 % a day, and the provision table is the
// example one (0 days 1 %, 1–30 days 10 %, 31–90 25 %, 91–180 50 %, beyond 100 %).

// loan1500 is 1 500 for one month at 36.5 %, issued on 31 January 2026: one item due on 28
// February (28 days) of 1 500 principal and 1 500 × 28 × 0.001 = 42 interest. A day accrues
// 1.5 exactly.
func loan1500(service int64) oracle.Terms {
	return oracle.Terms{Amount: 1_500, Months: 1, Rate: 3650, Service: service, PenaltyDaily: 5, IssuedOn: date("2026-01-31")}
}

func wantBooks(t *testing.T, what string, got, want oracle.Books) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

// Accrual without drift, the missed date, the penalty, the provision by class, non-accrual
// (after 3 days here), the cure, and the memo's charges income when paid, memo first.
func TestBooksAccrualOverdueNonAccrualAndCure(t *testing.T) {
	t.Parallel()
	l := booksLoan(t, loan1500(0), oracle.BooksRules{NonAccrualDays: 3, Classes: oracle.ExampleClasses})
	// The close of the issue day: 1.5 accrued, round half up 2; the provision is 1 % of
	// 1 500 + 2 = 15.02, 15.
	l.Advance(date("2026-02-01"))
	wantBooks(t, "after the close of 31 January", l.Books(), oracle.Books{Date: date("2026-01-31"), Loan: 1_500, InterestReceivable: 2,
		InterestIncome: 2, Provision: 15, ProvisionExpense: 15, Cash: -1_500, Class: "standard"})
	// Through the n-th day: round(1.5 n): 2, 3, 5, 6, …: the closes post 2, 1, 2, 1, … and no
	// drift: after the close of 27 February (28 days) 42, the item's interest.
	var posted []int64
	for d := date("2026-02-02"); !d.After(date("2026-02-28")); d = d.AddDate(0, 0, 1) {
		before := l.Books().InterestIncome
		l.Advance(d)
		posted = append(posted, l.Books().InterestIncome-before)
	}
	if posted[0] != 1 || posted[1] != 2 || posted[2] != 1 || posted[26] != 1 {
		t.Errorf("the closes of 1–27 February post %v, want 1 2 1 2 … 1", posted)
	}
	// 1 % of 1 542 = 15.42, 15.
	wantBooks(t, "after the close of 27 February", l.Books(), oracle.Books{Date: date("2026-02-27"), Loan: 1_500, InterestReceivable: 42,
		InterestIncome: 42, Provision: 15, ProvisionExpense: 15, Cash: -1_500, Class: "standard"})
	// 28 February, the item's date, passes unpaid: its close moves 1 500 from LOAN to
	// OVERDUE_PRINCIPAL; the loan is 0 days overdue at that close (1 from the next day).
	l.Advance(date("2026-03-01"))
	wantBooks(t, "after the close of 28 February", l.Books(), oracle.Books{Date: date("2026-02-28"), OverduePrincipal: 1_500,
		InterestReceivable: 42, InterestIncome: 42, Provision: 15, ProvisionExpense: 15, Cash: -1_500, Class: "standard"})
	// 1 March, 1 day overdue: the penalty 0.0005 × 1 500 = 0.75, round 1; the class
	// substandard, 10 % of 1 500 + 42 + 1 = 154.3, 154 (expense 15 + 139).
	l.Advance(date("2026-03-02"))
	wantBooks(t, "after the close of 1 March", l.Books(), oracle.Books{Date: date("2026-03-01"), OverduePrincipal: 1_500,
		InterestReceivable: 42, PenaltyReceivable: 1, InterestIncome: 42, PenaltyIncome: 1, Provision: 154, ProvisionExpense: 154,
		Cash: -1_500, DaysOverdue: 1, Class: "substandard"})
	// 2 March: 1.5, 2 (+1). 3 March: 2.25, 2 (+0); 3 days overdue, non-accrual from this
	// close: 42 of interest and 2 of penalty reversed out of income into the memo; the
	// provision 10 % of 1 500 = 150.
	l.Advance(date("2026-03-04"))
	wantBooks(t, "after the close of 3 March", l.Books(), oracle.Books{Date: date("2026-03-03"), OverduePrincipal: 1_500,
		Provision: 150, ProvisionExpense: 150, Cash: -1_500, MemoInterest: 42, MemoPenalty: 2, NonAccrual: true, DaysOverdue: 3,
		Class: "substandard"})
	// 4 March: 3.0 → 3, the 1 more to the memo only.
	l.Advance(date("2026-03-05"))
	if b := l.Books(); b.MemoPenalty != 3 || b.PenaltyIncome != 0 || b.PenaltyReceivable != 0 {
		t.Errorf("after the close of 4 March: %+v", b)
	}
	// 5 March: 1 542 pays (1) the overdue principal and interest; the penalty (3.75 → 4) is
	// left. Dr CASH 1 542, Cr OVERDUE_PRINCIPAL 1 500, and the memo's 42 is income when paid.
	if split, err := l.Pay(false, 1_542); err != nil || split != (oracle.Split{Principal: 1_500, Interest: 42}) {
		t.Fatalf("the cure applies %+v (%v)", split, err)
	}
	wantBooks(t, "after the cure", l.BooksNow(), oracle.Books{Date: date("2026-03-04"), InterestIncome: 42, Provision: 150,
		ProvisionExpense: 150, Cash: 42, MemoPenalty: 3, NonAccrual: true, DaysOverdue: 4, Class: "substandard"})
	// Its close: no longer overdue, on-balance accrual resumes: the day's penalty (4 − 3 = 1)
	// is receivable; the 3 stay in the memo. Standard again: 1 % of 1 = 0.01, 0.
	l.Advance(date("2026-03-06"))
	wantBooks(t, "after the close of 5 March", l.Books(), oracle.Books{Date: date("2026-03-05"), PenaltyReceivable: 1, InterestIncome: 42,
		PenaltyIncome: 1, Cash: 42, MemoPenalty: 3, Class: "standard"})
	// 6 March: 2 of the 4 pay the memo first (income when paid: the memo's older), the
	// receivable's 1 waits; the last 2 pay the memo's 1 and the receivable's 1; the loan closes.
	if _, err := l.Pay(true, 2); err != nil {
		t.Fatal(err)
	}
	if b := l.BooksNow(); b.MemoPenalty != 1 || b.PenaltyReceivable != 1 || b.PenaltyIncome != 3 {
		t.Errorf("after 2 of the penalty: %+v", b)
	}
	if _, err := l.Pay(true, 2); err != nil || !l.Closed() {
		t.Fatalf("the penalty's payment: %v, closed %t", err, l.Closed())
	}
	l.Advance(date("2026-03-08"))
	wantBooks(t, "closed", l.Books(), oracle.Books{Date: date("2026-03-07"), InterestIncome: 42, PenaltyIncome: 4, Cash: 46})
	// Over its life: interest income 42 = the 42 paid; penalty income 4 = the 4 paid.
	if in := l.Income(); in.Interest != 42 || in.Gross != 42 || in.GivenBack != 0 || in.Penalty != 4 || in.PenaltyPaid != 4 {
		t.Errorf("the income over the loan's life: %+v", in)
	}
	if err := l.Check(); err != nil {
		t.Error(err)
	}
}

// The penalty paid on the day it accrues, before that day's close: the day's penalty waits in
// INTEREST_IN_ADVANCE until the close accrues it.
func TestBooksPenaltyPaidBeforeItsClose(t *testing.T) {
	t.Parallel()
	l := booksLoan(t, loan1500(0), oracle.BooksRules{Classes: oracle.ExampleClasses})
	// 5 March: 1 500 overdue 5 days, 42 interest; the penalty through 5 March 3.75 → 4, of
	// which 3 accrued by the close of 4 March. The payoff 1 546 closes the loan.
	l.Advance(date("2026-03-05"))
	if b := l.Books(); b.PenaltyReceivable != 3 || b.PenaltyIncome != 3 {
		t.Fatalf("after the close of 4 March: %+v", b)
	}
	if _, err := l.Pay(false, 1_546); err != nil || !l.Closed() {
		t.Fatalf("the payoff: %v", err)
	}
	if b := l.BooksNow(); b.PenaltyReceivable != 0 || b.InterestInAdvance != 1 || b.PenaltyIncome != 3 || b.InterestReceivable != 0 || b.OverduePrincipal != 0 {
		t.Errorf("after the payoff: %+v", b)
	}
	// The close of 5 March accrues the 1 and settles it from the advance; the provision goes.
	l.Advance(date("2026-03-06"))
	wantBooks(t, "after the close of 5 March", l.Books(), oracle.Books{Date: date("2026-03-05"), InterestIncome: 42, PenaltyIncome: 4,
		Cash: 46})
}

// A TERM payment in the middle of the period pays its whole interest: the accrued part
// settles the receivable, the rest is paid ahead, less E, and the closes release it day by day.
//
// 1 000 000 over two months at 36.5 %, issued on 31 January 2026 (periods of 28 and 31 days).
// The instalment is 521 846: item 1 is 493 846 + 28 000 (1 000 000 × 28 × 0.001); item 2
// 506 154 + 15 691 (506 154 × 31 × 0.001 = 15 690.774) = 521 845, and 521 845 would leave
// item 2 at 521 846.
// TERM 521 846 on 10 February (10 days accrued: 10 000): (2) 28 000, (3) 493 846. Principal fell
// before the date: the residue 506 154 keeps for the 18 open days 10 000 + 506 154 × 18 ×
// 0.001 = 19 110.772, 8 889.228 paid ahead; E* = 8 889.228 / (1 − 0.018) = 9 052.167, E =
// 9 052: 497 102 left, whose 18 days give 10 000 + 8 947.836 = 18 947.836 → 18 948 = 28 000 −
// 9 052. The payment: Dr CASH 521 846; Cr LOAN 493 846 + 9 052 = 502 898; Cr
// INTEREST_RECEIVABLE 10 000; Cr INTEREST_IN_ADVANCE 18 000 − 9 052 = 8 948.
func TestBooksTermPaysAheadAndTheClosesReleaseIt(t *testing.T) {
	t.Parallel()
	l := booksLoan(t, oracle.Terms{Amount: 1_000_000, Months: 2, Rate: 3650, PenaltyDaily: 5, IssuedOn: date("2026-01-31")},
		oracle.BooksRules{Classes: oracle.ExampleClasses})
	if s := l.Schedule(); s[0].Principal+s[0].Interest != 521_846 || s[1].Principal+s[1].Interest != 521_845 {
		t.Fatalf("the schedule is %+v", s)
	}
	l.Advance(date("2026-02-10"))
	// After the close of 9 February: 10 000 receivable; provision 1 % of 1 010 000 = 10 100.
	wantBooks(t, "after the close of 9 February", l.Books(), oracle.Books{Date: date("2026-02-09"), Loan: 1_000_000,
		InterestReceivable: 10_000, InterestIncome: 10_000, Provision: 10_100, ProvisionExpense: 10_100, Cash: -1_000_000, Class: "standard"})
	split, err := l.Pay(false, 521_846)
	if err != nil || split != (oracle.Split{Principal: 502_898, Interest: 18_948}) {
		t.Fatalf("the TERM applies %+v (%v)", split, err)
	}
	wantBooks(t, "after the TERM", l.BooksNow(), oracle.Books{Date: date("2026-02-09"), Loan: 497_102, InterestInAdvance: 8_948,
		InterestIncome: 10_000, Provision: 10_100, ProvisionExpense: 10_100, Cash: -478_154, Class: "standard"})
	if in := l.Income(); in.Gross != 28_000 || in.GivenBack != 9_052 || in.Net != 18_948 {
		t.Errorf("the payment put %d to interest and gave back %d, want 28 000 and 9 052", in.Gross, in.GivenBack)
	}
	// The close of 10 February: through it 10 000 + 497.102 → 10 497: 497 accrued and settled
	// from the advance (8 451 left); the provision 1 % of 497 102 = 4 971.02, 4 971.
	l.Advance(date("2026-02-11"))
	wantBooks(t, "after the close of 10 February", l.Books(), oracle.Books{Date: date("2026-02-10"), Loan: 497_102,
		InterestInAdvance: 8_451, InterestIncome: 10_497, Provision: 4_971, ProvisionExpense: 4_971, Cash: -478_154, Class: "standard"})
	// 11 February: 10 994.204 → 10 994 (+497); … 27 February, the period's last day: 18 948,
	// the advance spent to the tiyin.
	l.Advance(date("2026-02-12"))
	if b := l.Books(); b.InterestIncome != 10_994 || b.InterestInAdvance != 7_954 {
		t.Errorf("after the close of 11 February: %+v", b)
	}
	l.Advance(date("2026-02-28"))
	wantBooks(t, "after the close of 27 February", l.Books(), oracle.Books{Date: date("2026-02-27"), Loan: 497_102,
		InterestIncome: 18_948, Provision: 4_971, ProvisionExpense: 4_971, Cash: -478_154, Class: "standard"})
	// 28 February: item 1 was paid; item 2's period begins: 497.102 → 497 receivable;
	// provision 1 % of 497 599 = 4 975.99, 4 976.
	l.Advance(date("2026-03-01"))
	wantBooks(t, "after the close of 28 February", l.Books(), oracle.Books{Date: date("2026-02-28"), Loan: 497_102,
		InterestReceivable: 497, InterestIncome: 19_445, Provision: 4_976, ProvisionExpense: 4_976, Cash: -478_154, Class: "standard"})
	if err := l.Check(); err != nil {
		t.Error(err)
	}
}

// A payment short of an item's accrued charges settles its interest before its service.
// 1 500 at 36.5 % with 7.3 % of service (0.3 a day): through 9 February 15 of interest and
// 3 of service. EARLY 10 on 10 February pays (2) 10 of the 18 accrued: 10 of interest.
func TestBooksInterestBeforeService(t *testing.T) {
	t.Parallel()
	l := booksLoan(t, loan1500(730), oracle.BooksRules{Classes: oracle.ExampleClasses})
	l.Advance(date("2026-02-10"))
	if b := l.Books(); b.InterestReceivable != 15 || b.ServiceReceivable != 3 {
		t.Fatalf("after the close of 9 February: %+v", b)
	}
	if split, err := l.Pay(true, 10); err != nil || split != (oracle.Split{Interest: 10}) {
		t.Fatalf("EARLY 10 applies %+v (%v)", split, err)
	}
	if b := l.BooksNow(); b.InterestReceivable != 5 || b.ServiceReceivable != 3 || b.InterestIncome != 15 || b.ServiceIncome != 3 {
		t.Errorf("after EARLY 10: %+v", b)
	}
	if in := l.Income(); in.Paid != [3]int64{10, 0, 0} {
		t.Errorf("paid by kind %v, want 10 0 0", in.Paid)
	}
}

// A write-off uses the provision first, the rest is expense; the receivables go out of income
// into the memo, the principal into the memo of principal written off; a recovery is income.
// 1 500 unpaid: after the close of 2 March (2 days overdue) the provision is 10 % of 1 500 +
// 42 + 2 = 154.4, 154. Written off on 3 March: the day's penalty (2.25, still 2) accrued;
// 42 and 2 to the memo; Dr PROVISION 154, Dr WRITE_OFF_EXPENSE 1 346, Cr OVERDUE_PRINCIPAL
// 1 500. A recovery of 1 000 on 20 March pays (1) in proportion: principal floor(1 000 ×
// 1 500 / 1 542) = 972, interest 28: RECOVERY_INCOME 972, INTEREST_INCOME 28 (from the memo).
func TestBooksWriteOffAndRecovery(t *testing.T) {
	t.Parallel()
	l := booksLoan(t, loan1500(0), oracle.BooksRules{Classes: oracle.ExampleClasses})
	l.Advance(date("2026-03-03"))
	if b := l.Books(); b.Provision != 154 || b.PenaltyReceivable != 2 || b.InterestReceivable != 42 {
		t.Fatalf("after the close of 2 March: %+v", b)
	}
	if p := l.WriteOff(); p != 1_500 {
		t.Fatalf("wrote off %d", p)
	}
	wantBooks(t, "after the write-off", l.BooksNow(), oracle.Books{Date: date("2026-03-02"), ProvisionExpense: 154, WriteOffExpense: 1_346,
		Cash: -1_500, MemoInterest: 42, MemoPenalty: 2, MemoWrittenOff: 1_500, DaysOverdue: 0,
		NonAccrual: true}) // a written-off loan is in non-accrual (a decision both sides share)
	l.Advance(date("2026-03-20"))
	split, err := l.Pay(false, 1_000)
	if err != nil || split != (oracle.Split{Principal: 972, Interest: 28}) {
		t.Fatalf("the recovery applies %+v (%v)", split, err)
	}
	l.Advance(date("2026-03-21"))
	wantBooks(t, "after the recovery", l.Books(), oracle.Books{Date: date("2026-03-20"), InterestIncome: 28, RecoveryIncome: 972,
		ProvisionExpense: 154, WriteOffExpense: 1_346, Cash: -500, MemoInterest: 14, MemoPenalty: 2, MemoWrittenOff: 528, NonAccrual: true})
	if err := l.Check(); err != nil {
		t.Error(err)
	}
}

// A waiver reverses the accrual it forgives: 1 500 overdue since 28 February; on 5 March the
// operators waive 20 of the 42 interest and all of the penalty (3.75 → 4, of which 3
// accrued): Dr INTEREST_INCOME 20 / Cr INTEREST_RECEIVABLE 20; Dr PENALTY_INCOME 3 / Cr
// PENALTY_RECEIVABLE 3, and the day's 1, waived before it accrued, is reversed by the close
// that accrues it.
func TestBooksWaiverReversesTheAccrual(t *testing.T) {
	t.Parallel()
	l := booksLoan(t, loan1500(0), oracle.BooksRules{Classes: oracle.ExampleClasses})
	l.Advance(date("2026-03-05"))
	if got, err := l.WaiveInterest(20); err != nil || got != 20 {
		t.Fatalf("waived %d (%v)", got, err)
	}
	if got, err := l.WaivePenalty(0); err != nil || got != 4 {
		t.Fatalf("waived %d of the penalty (%v)", got, err)
	}
	if b := l.BooksNow(); b.InterestReceivable != 22 || b.InterestIncome != 22 || b.PenaltyReceivable != 0 || b.PenaltyIncome != 0 {
		t.Errorf("after the waivers: %+v", b)
	}
	l.Advance(date("2026-03-06"))
	// 5 days overdue, substandard: 10 % of 1 500 + 22 = 152.2, 152.
	wantBooks(t, "after the close of 5 March", l.Books(), oracle.Books{Date: date("2026-03-05"), OverduePrincipal: 1_500,
		InterestReceivable: 22, InterestIncome: 22, Provision: 152, ProvisionExpense: 152, Cash: -1_500, DaysOverdue: 5, Class: "substandard"})
	if in := l.Income(); in.Waived != [3]int64{20, 0, 4} {
		t.Errorf("waived by kind %v, want 20 0 4", in.Waived)
	}
	if err := l.Check(); err != nil {
		t.Error(err)
	}
}
