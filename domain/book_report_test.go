package domain_test

import (
	"testing"

	"github.com/tiyin/tiyin/domain"
)

// TestTheBookReportReadsTheBooks: one loan of 1 000 000 lent to a card, 500 of interest accrued
// and paid with 100 000 of principal, a provision of 10 005, and 300 of interest in the
// non-accrual memo. The balance sheet balances, the income lines are the income and expense
// accounts on their sides, and the memo stands apart.
func TestTheBookReportReadsTheBooks(t *testing.T) {
	s := domain.NewBookReport([]domain.KindBalance{
		{Kind: domain.AccountLoan, Day: -100_000, Closing: 900_000},
		{Kind: domain.AccountInterestReceivable, Day: -500, Closing: 0},
		{Kind: domain.AccountProvision, Day: -10_005, Closing: -10_005},
		{Kind: domain.AccountDemand, Closing: 0},
		{Kind: domain.AccountCardSettlement, Closing: -1_000_000},
		{Kind: domain.AccountRepaymentClearing, Day: 100_500, Closing: 100_500},
		{Kind: domain.AccountInterestIncome, Closing: -500},
		{Kind: domain.AccountProvisionExpense, Day: 10_005, Closing: 10_005},
		{Kind: domain.AccountMemoNonAccruedInterest, Day: 300, Closing: 300},
		{Kind: domain.AccountMemoNonAccruedContra, Day: -300, Closing: -300},
	})
	want := map[string][2]int64{ // line → day, closing
		"LOANS": {-100_000, 900_000}, "ACCRUED_CHARGES": {-500, 0}, "PROVISION": {-10_005, -10_005}, "WRITTEN_OFF_CASH_BASIS": {0, 0},
		"CLIENT_ACCOUNTS": {0, 0}, "CHARGES_IN_ADVANCE": {0, 0}, "SETTLEMENT_NET": {-100_500, 899_500},
		"INTEREST_INCOME": {0, 500}, "SERVICE_INCOME": {0, 0}, "PENALTY_INCOME": {0, 0}, "RECOVERY_INCOME": {0, 0},
		"PROVISION_EXPENSE": {-10_005, -10_005}, "WRITE_OFF_EXPENSE": {0, 0},
		"NONACCRUED_CHARGES": {300, 300}, "WRITTEN_OFF_PRINCIPAL": {0, 0},
	}
	if len(s.Lines) != len(want) {
		t.Fatalf("%d lines, want %d: %+v", len(s.Lines), len(want), s.Lines)
	}
	for _, l := range s.Lines {
		if got := [2]int64{l.Day, l.Closing}; got != want[l.Name] {
			t.Errorf("%s %s: day %d, closing %d; want %d, %d", l.Section, l.Name, l.Day, l.Closing, want[l.Name][0], want[l.Name][1])
		}
	}
	if s.Assets != 889_995 || s.Liabilities != 889_995 || s.ResultToDate != -9_505 || s.ResultDay != -10_005 {
		t.Errorf("assets %d, liabilities %d (result to date %d, the day's %d); want 889 995 twice, -9 505, -10 005",
			s.Assets, s.Liabilities, s.ResultToDate, s.ResultDay)
	}
}

// TestEveryKindHasItsReportLine: each on-balance kind sits on exactly one line, and each memo
// kind on the debit side on one off-balance line, so that a kind added to the books cannot
// leave the balance sheet unbalanced unseen.
func TestEveryKindHasItsReportLine(t *testing.T) {
	for _, k := range domain.AccountKinds() {
		// A balance of 1 in this kind alone shows on the lines that hold it.
		s := domain.NewBookReport([]domain.KindBalance{{Kind: k, Closing: 1}})
		var on []string
		for _, l := range s.Lines {
			if l.Closing != 0 {
				on = append(on, l.Section+" "+l.Name)
			}
		}
		contra := k.OffBalance() && k.Normal() == domain.SideCredit
		if want := 1; contra {
			want = 0
			if len(on) != want {
				t.Errorf("the memo contra %s is on %v, want no line", k, on)
			}
		} else if len(on) != want {
			t.Errorf("%s is on %v, want exactly one line", k, on)
		}
	}
}
