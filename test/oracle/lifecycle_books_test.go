package oracle_test

import (
	"fmt"
	"time"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/test/oracle"
)

// The books in the lifecycle comparison: the domain's loan keeps its books (loan.CloseBooks each
// day, its payments, waivers and write-off posted on the accrual basis), and every posting it
// returns is summed into a per-loan ledger; the oracle keeps its own (KeepBooks). After the
// close of each day both ledgers are compared account by account, exactly, with the same
// provision table and non-accrual threshold on both sides: each charge on its own (interest's,
// service's and the penalty's receivable, income and memo; both sides settle interest and
// service item by item, docs/accounting.md, Decisions), the domain's two accounts in advance as
// the oracle's one.

// booksRules are the domain's rules for a history, and the same for the oracle. The threshold
// and the table vary with the terms so that non-accrual, cures and every class are reached.
func booksRules(t oracle.Terms) (domain.BooksRules, oracle.BooksRules) {
	d := domain.DefaultBooksRules()
	switch t.Amount % 4 {
	case 1:
		d = domain.IFRS9BooksRules()
	case 2:
		d.NonAccrualDays = 1 + int(t.Amount/4%60)
	}
	o := oracle.BooksRules{NonAccrualDays: d.NonAccrualDays}
	for _, c := range d.Provisions {
		o.Classes = append(o.Classes, oracle.ProvisionClass{Name: c.Class, From: c.From, To: c.To, Percent: c.Basis})
	}
	return d, o
}

// ledger is a loan's balances summed from the domain's postings (debit − credit), with the
// lifetime counters of its payments.
type bookLedger struct {
	bal map[domain.AccountKind]int64
	// paidCharges and paidPenalty are what the payments applied to interest and service (net of
	// what they gave back to principal) and to the penalty.
	paidCharges, paidPenalty int64
}

func newBookLedger(amount int64) *bookLedger {
	return &bookLedger{bal: map[domain.AccountKind]int64{domain.AccountLoan: amount, domain.AccountDemand: -amount}} // the issue: Dr LOAN / Cr DEMAND
}

func (g *bookLedger) post(entries []domain.Entry) {
	for _, e := range entries {
		g.bal[e.Account.Kind] += e.Debit - e.Credit
	}
}

// moneySide are the accounts money comes from or goes to, which the oracle keeps as one CASH.
var moneySide = map[domain.AccountKind]bool{domain.AccountDemand: true, domain.AccountHold: true, domain.AccountCardSettlement: true,
	domain.AccountRepaymentClearing: true, domain.AccountCashDesk: true, domain.AccountBankTransfers: true}

// books maps the domain's ledger onto the oracle's Books: each kind on its normal side;
// INTEREST_IN_ADVANCE and SERVICE_IN_ADVANCE together make the oracle's one advance.
func (g *bookLedger) books() oracle.Books {
	b := g.bal
	return oracle.Books{
		Loan: b[domain.AccountLoan], OverduePrincipal: b[domain.AccountOverduePrincipal],
		InterestReceivable: b[domain.AccountInterestReceivable], ServiceReceivable: b[domain.AccountServiceReceivable],
		PenaltyReceivable: b[domain.AccountPenaltyReceivable],
		InterestInAdvance: -b[domain.AccountInterestInAdvance] - b[domain.AccountServiceInAdvance],
		Provision:         -b[domain.AccountProvision],
		InterestIncome:    -b[domain.AccountInterestIncome], ServiceIncome: -b[domain.AccountServiceIncome],
		PenaltyIncome: -b[domain.AccountPenaltyIncome], RecoveryIncome: -b[domain.AccountRecoveryIncome],
		ProvisionExpense: b[domain.AccountProvisionExpense], WriteOffExpense: b[domain.AccountWriteOffExpense],
		MemoInterest: b[domain.AccountMemoNonAccruedInterest], MemoService: b[domain.AccountMemoNonAccruedService],
		MemoPenalty: b[domain.AccountMemoNonAccruedPenalty], MemoWrittenOff: b[domain.AccountMemoWrittenOff],
	}
}

// compareBooks compares the loan's books after the close of yesterday: the domain's ledger and
// its books state with the oracle's Books, every field exactly, and the domain's own proofs.
func (w *walk) compareBooks(day int, loan *domain.Loan, o *oracle.Loan, g *bookLedger) {
	want := o.Books()
	want.Date, want.Cash = time.Time{}, 0
	got := g.books()
	st, open := loan.Books()
	got.NonAccrual, got.DaysOverdue, got.Class = st.NonAccrual, st.DaysOverdue, st.Class
	if !open && !loan.Closed() {
		w.fail(day, "the domain's loan has no books after its first close")
		return
	}
	// A loan paid off on its issue day never opens books (nothing accrued: its postings were the
	// cash basis's, the same amounts); its ledger is still compared.
	w.amounts += 17
	w.closes++
	if *trace {
		fmt.Printf("day %d close %s: domain %+v\n        oracle %+v\n", day, o.Books().Date.Format(time.DateOnly), got, want)
	}
	if got != want {
		w.fail(day, "books after the close of %s differ: %s", o.Books().Date.Format(time.DateOnly), booksDiff(got, want))
		return
	}
	// The domain's state is its ledger.
	b := g.bal
	state := [][3]any{
		{"OVERDUE_PRINCIPAL", st.OverduePrincipal, b[domain.AccountOverduePrincipal]},
		{"INTEREST_RECEIVABLE", st.InterestReceivable, b[domain.AccountInterestReceivable]},
		{"SERVICE_RECEIVABLE", st.ServiceReceivable, b[domain.AccountServiceReceivable]},
		{"PENALTY_RECEIVABLE", st.PenaltyReceivable, b[domain.AccountPenaltyReceivable]},
		{"INTEREST_IN_ADVANCE", st.InterestAdvance, -b[domain.AccountInterestInAdvance]},
		{"SERVICE_IN_ADVANCE", st.ServiceAdvance, -b[domain.AccountServiceInAdvance]},
		{"PROVISION", st.Provision, -b[domain.AccountProvision]},
		{"MEMO_NONACCRUED_INTEREST", st.MemoInterest, b[domain.AccountMemoNonAccruedInterest]},
		{"MEMO_NONACCRUED_SERVICE", st.MemoService, b[domain.AccountMemoNonAccruedService]},
		{"MEMO_NONACCRUED_PENALTY", st.MemoPenalty, b[domain.AccountMemoNonAccruedPenalty]},
		{"MEMO_WRITTEN_OFF", st.MemoWrittenOff, b[domain.AccountMemoWrittenOff]},
		{"the memo pair", b[domain.AccountMemoNonAccruedInterest] + b[domain.AccountMemoNonAccruedService] +
			b[domain.AccountMemoNonAccruedPenalty], -b[domain.AccountMemoNonAccruedContra]},
		{"the written-off memo pair", b[domain.AccountMemoWrittenOff], -b[domain.AccountMemoWrittenOffContra]},
		{"WRITTEN_OFF (the cash basis's)", b[domain.AccountWrittenOff], int64(0)},
	}
	for _, s := range state {
		if s[1] != s[2] {
			w.fail(day, "the domain's %s is %d in its books state, %d in its postings", s[0], s[1], s[2])
			return
		}
	}
	var sum int64
	for k, v := range b {
		if !k.OffBalance() {
			sum += v
		}
		if !moneySide[k] && v != 0 && (v > 0) != (k.Normal() == domain.SideDebit) {
			w.fail(day, "the domain's %s is %d, on the wrong side", k, v)
			return
		}
	}
	if sum != 0 {
		w.fail(day, "the domain's postings sum to %d on balance", sum)
		return
	}
	// Income, at every close: what the payments applied to the charges (net of what they gave
	// back to principal), plus what is still receivable, less what is still paid ahead. A
	// waiver reverses an accrual that was never paid, so it appears on neither side.
	charges := got.InterestIncome + got.ServiceIncome
	if want := g.paidCharges + got.InterestReceivable + got.ServiceReceivable - got.InterestInAdvance; charges != want {
		w.fail(day, "interest and service income %d, but paid %d + receivable %d + %d − advance %d = %d", charges, g.paidCharges,
			got.InterestReceivable, got.ServiceReceivable, got.InterestInAdvance, want)
	}
	if want := g.paidPenalty + got.PenaltyReceivable; got.PenaltyIncome != want {
		w.fail(day, "penalty income %d, but paid %d + receivable %d = %d", got.PenaltyIncome, g.paidPenalty, got.PenaltyReceivable, want)
	}
}

// lifeIncome is the lifetime identity at the end of a loan's life (closed, its last day closed):
// income = charges paid − given back − waived, where "paid" is what was settled on the charges,
// in money or by a waiver (docs/accounting.md, Decisions): with nothing left receivable, paid ahead or in
// the memo, interest and service income is what the payments applied to them net of E, and the
// penalty income is the penalty paid.
func (w *walk) lifeIncome(day int, loan *domain.Loan, g *bookLedger) {
	got := g.books()
	waivedInterest, waivedPenalty, err := loan.Waived()
	if err != nil {
		w.fail(day, "waived: %v", err)
		return
	}
	settledCharges, settledPenalty := g.paidCharges+waivedInterest, g.paidPenalty+waivedPenalty
	if got.InterestReceivable+got.ServiceReceivable+got.PenaltyReceivable+got.InterestInAdvance+got.MemoInterest+got.MemoService+
		got.MemoPenalty != 0 {
		w.fail(day, "a loan closed for good still has receivables, an advance or a memo: %+v", got)
	}
	if got.InterestIncome+got.ServiceIncome != settledCharges-waivedInterest {
		w.fail(day, "over its life: interest and service income %d, settled %d − waived %d", got.InterestIncome+got.ServiceIncome,
			settledCharges, waivedInterest)
	}
	if got.PenaltyIncome != settledPenalty-waivedPenalty {
		w.fail(day, "over its life: penalty income %d, settled %d − waived %d", got.PenaltyIncome, settledPenalty, waivedPenalty)
	}
}

// booksDiff names the fields that differ.
func booksDiff(got, want oracle.Books) string {
	type f struct {
		name string
		g, o any
	}
	fields := []f{{"LOAN", got.Loan, want.Loan}, {"OVERDUE_PRINCIPAL", got.OverduePrincipal, want.OverduePrincipal},
		{"INTEREST_RECEIVABLE", got.InterestReceivable, want.InterestReceivable},
		{"SERVICE_RECEIVABLE", got.ServiceReceivable, want.ServiceReceivable},
		{"PENALTY_RECEIVABLE", got.PenaltyReceivable, want.PenaltyReceivable},
		{"IN_ADVANCE", got.InterestInAdvance, want.InterestInAdvance}, {"PROVISION", got.Provision, want.Provision},
		{"INTEREST_INCOME", got.InterestIncome, want.InterestIncome}, {"SERVICE_INCOME", got.ServiceIncome, want.ServiceIncome},
		{"PENALTY_INCOME", got.PenaltyIncome, want.PenaltyIncome}, {"RECOVERY_INCOME", got.RecoveryIncome, want.RecoveryIncome},
		{"PROVISION_EXPENSE", got.ProvisionExpense, want.ProvisionExpense},
		{"WRITE_OFF_EXPENSE", got.WriteOffExpense, want.WriteOffExpense},
		{"MEMO_INTEREST", got.MemoInterest, want.MemoInterest}, {"MEMO_SERVICE", got.MemoService, want.MemoService},
		{"MEMO_PENALTY", got.MemoPenalty, want.MemoPenalty}, {"MEMO_WRITTEN_OFF", got.MemoWrittenOff, want.MemoWrittenOff},
		{"non-accrual", got.NonAccrual, want.NonAccrual}, {"days overdue", got.DaysOverdue, want.DaysOverdue},
		{"class", got.Class, want.Class}}
	s := ""
	for _, x := range fields {
		if x.g != x.o {
			s += fmt.Sprintf(" %s domain %v oracle %v;", x.name, x.g, x.o)
		}
	}
	return s
}

// closeBooks closes the domain's books of the loan through day (its issue date starts them),
// sums the close's postings, and compares both sides' books.
func (w *walk) closeBooks(n int, loan *domain.Loan, o *oracle.Loan, issued, day time.Time, rules domain.BooksRules) {
	postings, err := loan.CloseBooks(issued, day, rules)
	if err != nil {
		w.fail(n, "the domain's close of %s: %v", day.Format(time.DateOnly), err)
		return
	}
	for _, p := range postings {
		w.books.post(p.Entries)
	}
	w.compareBooks(n, loan, o, w.books)
	if w.err == nil && loan.Closed() && !loan.BooksOpen() {
		w.lifeIncome(n, loan, w.books)
	}
}
