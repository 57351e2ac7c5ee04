package domain

import (
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/google/uuid"
)

// The books on an accrual basis: the loan sub-ledger's accounts beyond the loan and its demand
// account. Each kind has a fixed normal side; the memo kinds are off balance and come in pairs
// that net to zero.
var (
	// AccountOverduePrincipal (per loan, debit) is principal unpaid after the end of its
	// payment date; the close moves it from LOAN.
	AccountOverduePrincipal = AccountKind{"OVERDUE_PRINCIPAL"}
	// AccountInterestReceivable, AccountServiceReceivable and AccountPenaltyReceivable (per
	// loan, debit) are charges accrued and not yet paid.
	AccountInterestReceivable = AccountKind{"INTEREST_RECEIVABLE"}
	AccountServiceReceivable  = AccountKind{"SERVICE_RECEIVABLE"}
	AccountPenaltyReceivable  = AccountKind{"PENALTY_RECEIVABLE"}
	// AccountInterestInAdvance and AccountServiceInAdvance (per loan, credit: a liability) are
	// interest and service paid for days not yet accrued; each close moves the day's accrual
	// from them to the receivable.
	AccountInterestInAdvance = AccountKind{"INTEREST_IN_ADVANCE"}
	AccountServiceInAdvance  = AccountKind{"SERVICE_IN_ADVANCE"}
	// AccountProvision (per loan, credit: a contra-asset) is the loss allowance on the loan.
	AccountProvision = AccountKind{"PROVISION"}
	// AccountProvisionExpense and AccountWriteOffExpense (bank-wide, debit) are the cost of
	// provisioning and of principal written off beyond the provision.
	AccountProvisionExpense = AccountKind{"PROVISION_EXPENSE"}
	AccountWriteOffExpense  = AccountKind{"WRITE_OFF_EXPENSE"}
	// AccountRecoveryIncome (bank-wide, credit) is principal recovered after a write-off.
	AccountRecoveryIncome = AccountKind{"RECOVERY_INCOME"}
	// The memo accounts (per loan, off balance). MEMO_NONACCRUED_* (debit) hold the charges of a
	// loan in non-accrual not yet paid, against MEMO_NONACCRUED_CONTRA (credit);
	// MEMO_WRITTEN_OFF (debit) holds principal written off not yet recovered, against
	// MEMO_WRITTEN_OFF_CONTRA (credit).
	AccountMemoNonAccruedInterest = AccountKind{"MEMO_NONACCRUED_INTEREST"}
	AccountMemoNonAccruedService  = AccountKind{"MEMO_NONACCRUED_SERVICE"}
	AccountMemoNonAccruedPenalty  = AccountKind{"MEMO_NONACCRUED_PENALTY"}
	AccountMemoNonAccruedContra   = AccountKind{"MEMO_NONACCRUED_CONTRA"}
	AccountMemoWrittenOff         = AccountKind{"MEMO_WRITTEN_OFF"}
	AccountMemoWrittenOffContra   = AccountKind{"MEMO_WRITTEN_OFF_CONTRA"}
)

// Side is the side of an account's normal balance.
type Side int

// The sides.
const (
	SideDebit Side = iota + 1
	SideCredit
)

// String returns the name.
func (s Side) String() string {
	if s == SideCredit {
		return "CREDIT"
	}
	return "DEBIT"
}

// AccountKinds is every account kind, in the order reports list them.
func AccountKinds() []AccountKind {
	return []AccountKind{AccountLoan, AccountOverduePrincipal, AccountInterestReceivable, AccountServiceReceivable,
		AccountPenaltyReceivable, AccountProvision, AccountDemand, AccountHold, AccountInterestInAdvance,
		AccountServiceInAdvance, AccountCardSettlement, AccountRepaymentClearing, AccountCashDesk, AccountBankTransfers,
		AccountReconciliation, AccountWrittenOff, AccountInterestIncome, AccountServiceIncome, AccountPenaltyIncome,
		AccountRecoveryIncome, AccountProvisionExpense, AccountWriteOffExpense,
		AccountMemoNonAccruedInterest, AccountMemoNonAccruedService, AccountMemoNonAccruedPenalty,
		AccountMemoNonAccruedContra, AccountMemoWrittenOff, AccountMemoWrittenOffContra}
}

// Normal is the side of the kind's normal balance.
func (k AccountKind) Normal() Side {
	switch k {
	case AccountDemand, AccountHold, AccountCardSettlement, AccountInterestIncome, AccountServiceIncome,
		AccountPenaltyIncome, AccountRecoveryIncome, AccountInterestInAdvance, AccountServiceInAdvance,
		AccountProvision, AccountMemoNonAccruedContra, AccountMemoWrittenOffContra:
		return SideCredit
	}
	return SideDebit
}

// OffBalance reports a memo kind: its pairs net to zero, apart from the balance sheet.
func (k AccountKind) OffBalance() bool {
	switch k {
	case AccountMemoNonAccruedInterest, AccountMemoNonAccruedService, AccountMemoNonAccruedPenalty,
		AccountMemoNonAccruedContra, AccountMemoWrittenOff, AccountMemoWrittenOffContra:
		return true
	}
	return false
}

// ProvisionClass is a row of the provision table: a loan overdue From to To days (inclusive;
// To < 0 for no upper bound) is provisioned at Basis hundredths of a percent (10 000 = 100 %).
type ProvisionClass struct {
	Class    string
	From, To int
	Basis    int64
}

// BooksRules are the bank's settings the close applies.
type BooksRules struct {
	// NonAccrualDays is the days overdue from which a loan's charges stop accruing on balance.
	NonAccrualDays int
	// Provisions is the provision table, classes by days overdue.
	Provisions []ProvisionClass
}

// ErrBooksRules means a provision table or a books setting is not usable.
var ErrBooksRules = errors.New("books rules")

// Validate checks that the table covers every day overdue from 0 once, its classes named and
// its percents from 0 to 100, and that the non-accrual threshold is positive.
func (r BooksRules) Validate() error {
	if r.NonAccrualDays < 1 {
		return fmt.Errorf("%w: the non-accrual threshold must be at least 1 day", ErrBooksRules)
	}
	next := 0
	for i, c := range r.Provisions {
		switch {
		case c.Class == "":
			return fmt.Errorf("%w: provision row %d has no class", ErrBooksRules, i+1)
		case c.From != next:
			return fmt.Errorf("%w: provision class %s starts at %d days, expected %d", ErrBooksRules, c.Class, c.From, next)
		case c.Basis < 0 || c.Basis > 10000:
			return fmt.Errorf("%w: provision class %s: percent must be from 0 to 100", ErrBooksRules, c.Class)
		case c.To < 0:
			if i != len(r.Provisions)-1 {
				return fmt.Errorf("%w: provision class %s has no upper bound but is not the last", ErrBooksRules, c.Class)
			}
			return nil
		case c.To < c.From:
			return fmt.Errorf("%w: provision class %s ends before it starts", ErrBooksRules, c.Class)
		}
		next = c.To + 1
	}
	return fmt.Errorf("%w: the provision table must end with a class without upper bound", ErrBooksRules)
}

// classify is the class of a loan overdue days days; the zero class past a table's end.
func (r BooksRules) classify(days int) ProvisionClass {
	for _, c := range r.Provisions {
		if days >= c.From && (c.To < 0 || days <= c.To) {
			return c
		}
	}
	return ProvisionClass{}
}

// DefaultBooksRules is the shipped example: non-accrual from 90 days, and a five-class table
// (standard, substandard, unsatisfactory, doubtful, loss) the bank replaces with its
// regulator's.
func DefaultBooksRules() BooksRules {
	return BooksRules{NonAccrualDays: 90, Provisions: []ProvisionClass{
		{Class: "STANDARD", From: 0, To: 0, Basis: 100},
		{Class: "SUBSTANDARD", From: 1, To: 30, Basis: 1000},
		{Class: "UNSATISFACTORY", From: 31, To: 90, Basis: 2500},
		{Class: "DOUBTFUL", From: 91, To: 180, Basis: 5000},
		{Class: "LOSS", From: 181, To: -1, Basis: 10000},
	}}
}

// IFRS9BooksRules is the IFRS 9 staging preset: stage 1 up to 30 days overdue, stage 2 to 90,
// stage 3 beyond, with example percents.
func IFRS9BooksRules() BooksRules {
	return BooksRules{NonAccrualDays: 90, Provisions: []ProvisionClass{
		{Class: "STAGE_1", From: 0, To: 30, Basis: 100},
		{Class: "STAGE_2", From: 31, To: 90, Basis: 1500},
		{Class: "STAGE_3", From: 91, To: -1, Basis: 6000},
	}}
}

// BooksState is a loan's standing in the books after a close (and the postings since): its
// per-loan balances, each in its account's normal sign, and what the close needs to post the
// next day's difference. Interest and service are kept item by item (Items), as they are
// settled; their loan-wide fields are the items' sums.
type BooksState struct {
	// Day is the last business date closed; zero before the loan's first close.
	Day time.Time
	// Taken is, per charge (interest, service, penalty), what the books have taken in: accrued
	// by the closes, and the penalty paid or waived before a close reached its day. The close
	// of d posts the accrual through d less it (interest and service item by item).
	TakenInterest, TakenService, TakenPenalty int64

	OverduePrincipal                                         int64
	InterestReceivable, ServiceReceivable, PenaltyReceivable int64
	InterestAdvance, ServiceAdvance                          int64
	Provision                                                int64
	// The memo balances of a loan in non-accrual: its charges accrued and not yet paid.
	MemoInterest, MemoService, MemoPenalty int64
	// MemoWrittenOff is principal written off and not yet recovered.
	MemoWrittenOff int64

	NonAccrual  bool
	DaysOverdue int
	Class       string

	// Items are interest's and service's books per schedule item, in the order of the loan's
	// book (items a prepayment laid out to nothing included); an item past the end is at zero.
	Items []ItemBooks
}

// ItemBooks is a schedule item's interest and service in the books (index 0 interest, 1
// service): taken in by the closes, receivable on balance, and in the non-accrual memo; what
// was paid ahead of their accrual (Advance: the item's part of INTEREST_IN_ADVANCE and
// SERVICE_IN_ADVANCE together), and what was waived before it accrued (WaivedAhead, which the
// item's next closes do not accrue). Service is allocated together with the interest of its
// period (docs/accounting.md, Decisions): a payment, a waiver and the advance settle an item's
// own charges, never another item's.
type ItemBooks struct {
	Taken, Receivable, Memo [2]int64
	Advance, WaivedAhead    int64
}

// itemKinds are the accounts of an item's interest (0) and service (1).
var itemKinds = [2]struct{ income, receivable, memo, advance AccountKind }{
	{AccountInterestIncome, AccountInterestReceivable, AccountMemoNonAccruedInterest, AccountInterestInAdvance},
	{AccountServiceIncome, AccountServiceReceivable, AccountMemoNonAccruedService, AccountServiceInAdvance},
}

// ownItems gives s a copy of its items that it alone holds, at least n of them: a state's
// value shares its items with the state it was copied from.
func (s *BooksState) ownItems(n int) {
	items := make([]ItemBooks, max(n, len(s.Items)))
	copy(items, s.Items)
	s.Items = items
}

// sumItems sets interest's and service's loan-wide fields to their items' sums.
func (s *BooksState) sumItems() {
	var taken, rec, memo [2]int64
	for _, it := range s.Items {
		for c := range taken {
			taken[c] += it.Taken[c]
			rec[c] += it.Receivable[c]
			memo[c] += it.Memo[c]
		}
	}
	s.TakenInterest, s.TakenService = taken[0], taken[1]
	s.InterestReceivable, s.ServiceReceivable = rec[0], rec[1]
	s.MemoInterest, s.MemoService = memo[0], memo[1]
}

// settle settles up to x of the item's charges, oldest accrual first: what sits in its
// non-accrual memo (interest's, then service's: it accrued before anything on balance now),
// then its receivables (interest's, then service's). It adds what it took of each charge to
// memo and rec, and returns what is left.
func (it *ItemBooks) settle(x int64, memo, rec *[2]int64) int64 {
	for c := range it.Memo {
		y := min(x, max(0, it.Memo[c]))
		it.Memo[c] -= y
		memo[c] += y
		x -= y
	}
	for c := range it.Receivable {
		y := min(x, max(0, it.Receivable[c]))
		it.Receivable[c] -= y
		rec[c] += y
		x -= y
	}
	return x
}

// layOnItems lays a state stored before the books kept interest and service per item (issue
// 51, before its release) on the book's items, its loan-wide amounts unchanged: each item takes
// in what it accrued through the state's day (any difference on the last item that accrued),
// the memo and the receivables go to the oldest items first, up to what each took in (any rest
// on that last item), and the advance to the item current the next day (the earliest due after
// the state's day; else the last).
func (s *BooksState) layOnItems(b *book) {
	accrued, _ := b.accruedItems(s.Day)
	s.Items = make([]ItemBooks, len(b.Items))
	if len(s.Items) == 0 {
		return
	}
	last, next := 0, -1
	for k := range accrued {
		if accrued[k][0]+accrued[k][1] > 0 {
			last = k
		}
		if next < 0 && b.Items[k].PaymentDate.After(s.Day) {
			next = k
		}
	}
	if next < 0 {
		next = len(s.Items) - 1
	}
	taken := [2]int64{s.TakenInterest, s.TakenService}
	memo := [2]int64{s.MemoInterest, s.MemoService}
	rec := [2]int64{s.InterestReceivable, s.ServiceReceivable}
	for k := range s.Items {
		it := &s.Items[k]
		for c := range taken {
			it.Taken[c] = min(accrued[k][c], taken[c])
			taken[c] -= it.Taken[c]
		}
	}
	for c := range taken {
		s.Items[last].Taken[c] += taken[c]
	}
	for k := range s.Items {
		it := &s.Items[k]
		for c := range memo {
			it.Memo[c] = min(memo[c], it.Taken[c])
			memo[c] -= it.Memo[c]
			it.Receivable[c] = min(rec[c], it.Taken[c]-it.Memo[c])
			rec[c] -= it.Receivable[c]
		}
	}
	for c := range memo {
		s.Items[last].Memo[c] += memo[c]
		s.Items[last].Receivable[c] += rec[c]
	}
	s.Items[next].Advance = s.InterestAdvance + s.ServiceAdvance
}

// charge is the penalty with its accounts and its fields in a BooksState (interest and service
// are kept per item: ItemBooks).
type charge struct {
	income, receivable, memo AccountKind
	taken, rec, memoBal      *int64
	target                   int64
}

func (s *BooksState) penalty(target int64) charge {
	return charge{AccountPenaltyIncome, AccountPenaltyReceivable, AccountMemoNonAccruedPenalty,
		&s.TakenPenalty, &s.PenaltyReceivable, &s.MemoPenalty, target}
}

// entries collects a loan's entries; a move of a non-positive amount adds nothing.
type entries struct {
	loan uuid.UUID
	out  []Entry
}

// account is the loan's account of a per-loan kind, the bank's of a bank-wide one.
func (e *entries) account(k AccountKind) Account {
	switch k {
	case AccountInterestIncome, AccountServiceIncome, AccountPenaltyIncome, AccountRecoveryIncome,
		AccountProvisionExpense, AccountWriteOffExpense, AccountRepaymentClearing, AccountCashDesk,
		AccountBankTransfers, AccountCardSettlement, AccountReconciliation:
		return BankAccount(k)
	}
	return LoanAccount(k, e.loan)
}

func (e *entries) move(amount int64, debit, credit AccountKind) {
	if amount > 0 {
		e.out = append(e.out, Entry{Account: e.account(debit), Debit: amount}, Entry{Account: e.account(credit), Credit: amount})
	}
}

// AccruedThrough is the loan's charges accrued through the end of day: each schedule item's
// interest and service rounded half up from the exact accrual of the principal-days it has
// held through day, and the penalty's exact accrual through day rounded half up. A written-off
// loan's charges stand as on the day of its write-off.
func (l *Loan) AccruedThrough(day time.Time) (interest, service, penalty int64, err error) {
	b, err := l.repaymentBook()
	if err != nil {
		return 0, 0, 0, err
	}
	if !l.writtenOffAt.IsZero() {
		if off := BusinessDate(l.writtenOffAt); off.Before(day) {
			day = off
		}
	}
	i, s, p := b.accruedThrough(day)
	return i, s, p, nil
}

// accruedThrough is AccruedThrough on the book.
func (b *book) accruedThrough(day time.Time) (interest, service, penalty int64) {
	items, penalty := b.accruedItems(day)
	for _, it := range items {
		interest, service = interest+it[0], service+it[1]
	}
	return interest, service, penalty
}

// accruedItems is accruedThrough item by item: each item's interest and service accrued
// through the end of day, and the loan's penalty. The days of an item's period are its days
// from the previous payment date (or the issue date) to the day before its payment date; each
// holds the principal not yet paid at its end. The book's days before AccrualFrom are in Held;
// its later days hold the principal not yet due now.
func (b *book) accruedItems(day time.Time) (items [][2]int64, penalty int64) {
	nd := b.notDue()
	end := day.AddDate(0, 0, 1)
	items = make([][2]int64, len(b.Items))
	for k := range b.Items {
		it := &b.Items[k]
		to := end
		if it.PaymentDate.Before(to) {
			to = it.PaymentDate
		}
		held := it.Held
		if n := DaysBetween(it.AccrualFrom, to); n > 0 {
			held += nd[k] * int64(n)
		}
		i, s := b.accrual(held)
		items[k] = [2]int64{i, s}
	}
	if day.Before(b.terms.IssuedOn) {
		return items, 0
	}
	_, p := b.penaltySince(day, nd)
	return items, p.round()
}

// chargesPaid is what each item has paid of its charges (PaidCharges), in the book's order.
func (b *book) chargesPaid() []int64 {
	out := make([]int64, len(b.Items))
	for k := range b.Items {
		out[k] = b.Items[k].PaidCharges
	}
	return out
}

// paidSince is what each item's charges paid moved by since before (chargesPaid's, taken
// earlier; an item added since counts from zero).
func (b *book) paidSince(before []int64) []int64 {
	out := b.chargesPaid()
	for k := range min(len(before), len(out)) {
		out[k] -= before[k]
	}
	return out
}

// ChargesPaid is what each schedule item of the loan's book has paid of its interest and
// service, in the book's order (items a prepayment laid out to nothing included): the order in
// which BooksState.Repayment and BooksState.Waive take what a payment or a waiver moved.
func (l *Loan) ChargesPaid() ([]int64, error) {
	b, err := l.repaymentBook()
	if err != nil {
		return nil, err
	}
	return b.chargesPaid(), nil
}

// overdueAt is, at the close of day, the principal of the items whose payment date has ended
// unpaid (payment date on or before day) and the loan's days overdue: days since the payment
// date of its earliest item not fully paid whose payment date is before day (0 when none).
func (b *book) overdueAt(day time.Time) (principal int64, days int) {
	nd := b.notDue()
	for k := range b.Items {
		it := &b.Items[k]
		if it.PaymentDate.After(day) {
			break
		}
		principal += it.Principal - it.PaidPrincipal
		i, s := b.charges(it, nd[k])
		if days == 0 && it.PaymentDate.Before(day) && (it.Principal != it.PaidPrincipal || i+s-it.PaidCharges > 0) {
			days = DaysBetween(it.PaymentDate, day)
		}
	}
	return principal, days
}

// OpeningBooks is the books state a loan starts its first close from: nothing on the
// sub-ledger's new accounts, and its charges paid or waived so far taken in (a loan issued
// before the books kept accruals had its charges made income when paid), each item's divided
// between interest and service as the cash basis credited them (in proportion to its interest
// and service). The first close then posts the opening entry: the receivables the rules give
// for its day, interest paid ahead moved out of income to the advance, and overdue principal.
func (l *Loan) OpeningBooks() (BooksState, error) {
	b, err := l.repaymentBook()
	if err != nil {
		return BooksState{}, err
	}
	s := BooksState{TakenPenalty: b.PenaltyPaid + b.PenaltyWaived, Items: make([]ItemBooks, len(b.Items))}
	nd := b.notDue()
	for k := range b.Items {
		it := &b.Items[k]
		var interest int64
		if i, sv := b.charges(it, nd[k]); i+sv > 0 {
			interest = floorShare(it.PaidCharges, i, i+sv)
		}
		s.Items[k].Taken = [2]int64{interest, it.PaidCharges - interest}
	}
	s.sumItems()
	return s, nil
}

// CloseDay is the close of business date day for the loan, from its books after the close of
// the day before (prev; OpeningBooks for its first close). It returns the loan's books after
// the close and the close's entries, balanced on balance and in each memo pair:
//   - the non-accrual switch: from the day the loan is rules.NonAccrualDays overdue its
//     receivables leave income for the memo accounts; when it is no longer overdue the close
//     accrues on balance again;
//   - each item's interest and service accrued through day less what it took in: Dr
//     receivable / Cr income (in non-accrual paid first from the item's advance, the rest Dr
//     memo / Cr memo contra), a negative difference in reverse; then what the item paid ahead
//     settles its own charges, as a payment would (ItemBooks.settle); the penalty likewise,
//     for the loan;
//   - principal unpaid after its payment date: Dr OVERDUE_PRINCIPAL / Cr LOAN;
//   - the provision: percent of the loan's class × (principal outstanding, overdue included,
//     plus the receivables), its change Dr PROVISION_EXPENSE / Cr PROVISION or the reverse.
//
// A day already closed posts nothing. A written-off loan accrues nothing.
func CloseDay(l *Loan, day time.Time, prev BooksState, rules BooksRules) (BooksState, []Entry, error) {
	if !prev.Day.IsZero() && !day.After(prev.Day) {
		return prev, nil, nil
	}
	b, err := l.repaymentBook()
	if err != nil {
		return prev, nil, err
	}
	s := prev
	s.Day = day
	if !l.writtenOffAt.IsZero() || day.Before(b.terms.IssuedOn) {
		return s, nil, nil
	}
	e := entries{loan: l.id}
	overdue, days := b.overdueAt(day)
	s.DaysOverdue = days
	items, penalty := b.accruedItems(day)
	s.ownItems(len(items))
	switch {
	case !s.NonAccrual && days >= rules.NonAccrualDays:
		s.NonAccrual = true
		e.toMemo(&s)
	case s.NonAccrual && days == 0:
		s.NonAccrual = false
	}
	e.accrueItems(&s, items)
	e.accruePenalty(s.penalty(penalty), s.NonAccrual)
	switch d := overdue - s.OverduePrincipal; {
	case d > 0:
		e.move(d, AccountOverduePrincipal, AccountLoan)
	case d < 0:
		e.move(-d, AccountLoan, AccountOverduePrincipal)
	}
	s.OverduePrincipal = overdue
	class := rules.classify(days)
	s.Class = class.Class
	if l.Closed() { // only an open loan is classified
		s.DaysOverdue, s.Class = 0, ""
	}
	exposure := b.notDue()[0] + max(0, s.InterestReceivable) + max(0, s.ServiceReceivable) + max(0, s.PenaltyReceivable)
	if l.Closed() {
		exposure = 0
	}
	required := basisOf(exposure, class.Basis)
	switch d := required - s.Provision; {
	case d > 0:
		e.move(d, AccountProvisionExpense, AccountProvision)
	case d < 0:
		e.move(-d, AccountProvision, AccountProvisionExpense)
	}
	s.Provision = required
	return s, e.out, nil
}

// toMemo moves the loan's receivables out of income into the non-accrual memo (Dr income / Cr
// receivable, Dr memo / Cr memo contra), each item's interest and service to its own memo.
func (e *entries) toMemo(s *BooksState) {
	var moved [2]int64
	for k := range s.Items {
		it := &s.Items[k]
		for c := range moved {
			moved[c] += it.Receivable[c]
			it.Memo[c] += it.Receivable[c]
			it.Receivable[c] = 0
		}
	}
	for c, a := range itemKinds {
		e.move(moved[c], a.income, a.receivable)
		e.move(moved[c], a.memo, AccountMemoNonAccruedContra)
	}
	pen := s.penalty(0)
	e.move(*pen.rec, pen.income, pen.receivable)
	e.move(*pen.rec, pen.memo, AccountMemoNonAccruedContra)
	*pen.memoBal += *pen.rec
	*pen.rec = 0
	s.sumItems()
}

// accrueItems posts each item's interest and service accrued through the close's day (target,
// item by item) less what the item took in, what it had waived ahead not accrued: on balance
// Dr receivable / Cr income; in non-accrual paid first from what the item paid ahead (Dr
// advance / Cr income), the rest Dr memo / Cr memo contra; a negative difference (the item's
// accrual fell: a close run before a payment of its day) in reverse, out of the receivable,
// then the memo, the rest back to the advance it was paid from. Then what the item paid ahead
// settles its own charges, oldest first (ItemBooks.settle): Dr advance / Cr receivable, or Cr
// income for what sat in the memo. The accounts in advance are the loan's: INTEREST_IN_ADVANCE
// is drawn first, then SERVICE_IN_ADVANCE (fromAdvance).
func (e *entries) accrueItems(s *BooksState, target [][2]int64) {
	var m [2]closeMoves // by charge
	var relMemo, relRec [2]int64
	for k := range s.Items {
		it := &s.Items[k]
		var t [2]int64
		if k < len(target) {
			t = target[k]
		}
		for c := range t {
			m[c] = m[c].plus(it.accrue(c, t[c], s.NonAccrual))
		}
		if it.Advance > 0 {
			it.Advance = it.settle(it.Advance, &relMemo, &relRec)
		}
	}
	// Income given back to what was paid for it, in advance again, first: the releases may
	// take it.
	for c, a := range itemKinds {
		e.move(m[c].backAdv, a.income, a.advance)
	}
	s.InterestAdvance += m[0].backAdv
	s.ServiceAdvance += m[1].backAdv
	for c, a := range itemKinds {
		e.move(m[c].accrued, a.receivable, a.income)
		e.fromAdvance(s, m[c].toIncome, a.income)
		e.move(m[c].toMemo, a.memo, AccountMemoNonAccruedContra)
		e.move(m[c].backRec, a.income, a.receivable)
		e.move(m[c].backMemo, AccountMemoNonAccruedContra, a.memo)
		e.fromAdvance(s, relMemo[c], a.income)
		e.move(relMemo[c], AccountMemoNonAccruedContra, a.memo)
		e.fromAdvance(s, relRec[c], a.receivable)
	}
	s.sumItems()
}

// closeMoves are what a close moves of a charge (interest or service): accrued on balance;
// accrued in non-accrual, out of the advance (to income) and to the memo; and a fall of the
// accrual taken back out of the receivable, the memo and to the advance.
type closeMoves struct{ accrued, toIncome, toMemo, backRec, backMemo, backAdv int64 }

func (a closeMoves) plus(b closeMoves) closeMoves {
	return closeMoves{a.accrued + b.accrued, a.toIncome + b.toIncome, a.toMemo + b.toMemo, a.backRec + b.backRec,
		a.backMemo + b.backMemo, a.backAdv + b.backAdv}
}

// accrue brings the item's charge c (0 interest, 1 service) to target, its accrual through the
// close's day, less what it waived ahead: a rise on balance to its receivable; in non-accrual
// out of its advance (income: it was paid), the rest to its memo; a fall out of its
// receivable, then its memo, the rest, which it had paid for, back to its advance.
func (it *ItemBooks) accrue(c int, target int64, nonAccrual bool) (mv closeMoves) {
	diff := target - it.Taken[c]
	it.Taken[c] = target
	w := min(max(0, diff), it.WaivedAhead)
	it.WaivedAhead -= w
	diff -= w
	switch {
	case diff > 0 && nonAccrual:
		mv.toIncome = min(diff, max(0, it.Advance))
		mv.toMemo = diff - mv.toIncome
		it.Advance -= mv.toIncome
		it.Memo[c] += mv.toMemo
	case diff > 0:
		mv.accrued = diff
		it.Receivable[c] += diff
	case diff < 0:
		mv.backRec = min(-diff, max(0, it.Receivable[c]))
		mv.backMemo = min(-diff-mv.backRec, max(0, it.Memo[c]))
		mv.backAdv = -diff - mv.backRec - mv.backMemo
		it.Receivable[c] -= mv.backRec
		it.Memo[c] -= mv.backMemo
		it.Advance += mv.backAdv
	}
	return mv
}

// accruePenalty posts the penalty accrued through the close's day (c.target) less what was
// taken in: Dr receivable / Cr income, in non-accrual Dr memo / Cr memo contra; a negative
// difference in reverse, out of the receivable, then the memo.
func (e *entries) accruePenalty(c charge, nonAccrual bool) {
	switch diff := c.target - *c.taken; {
	case diff > 0 && nonAccrual:
		e.move(diff, c.memo, AccountMemoNonAccruedContra)
		*c.memoBal += diff
	case diff > 0:
		e.move(diff, c.receivable, c.income)
		*c.rec += diff
	case diff < 0:
		back := -diff
		r := min(back, max(0, *c.rec))
		e.move(r, c.income, c.receivable)
		*c.rec -= r
		m := min(back-r, *c.memoBal)
		e.move(m, AccountMemoNonAccruedContra, c.memo)
		*c.memoBal -= m
		e.move(back-r-m, c.income, c.receivable)
		*c.rec -= back - r - m
	}
	*c.taken = c.target
}

// fromAdvance credits x, what the items paid ahead settled of their charges, against the
// loan's accounts in advance: INTEREST_IN_ADVANCE first, then SERVICE_IN_ADVANCE (which of
// the two holds an item's advance is the payment's split, ItemBooks.Advance their sum).
func (e *entries) fromAdvance(s *BooksState, x int64, credit AccountKind) {
	for _, a := range []struct {
		kind AccountKind
		bal  *int64
	}{{AccountInterestInAdvance, &s.InterestAdvance}, {AccountServiceInAdvance, &s.ServiceAdvance}} {
		y := min(x, max(0, *a.bal))
		e.move(y, a.kind, credit)
		*a.bal -= y
		x -= y
	}
}

// basisOf is amount × basis / 10 000 rounded half up.
func basisOf(amount, basis int64) int64 {
	if amount <= 0 || basis <= 0 {
		return 0
	}
	n := new(big.Int).Mul(big.NewInt(amount), big.NewInt(basis))
	n.Add(n, big.NewInt(5000))
	return n.Quo(n, big.NewInt(10000)).Int64()
}

// Repayment turns a repayment's posting (Repayment.Pay's: the money received against the
// loan's principal and the income accounts, as a cash basis books it) into the accrual basis,
// and returns the loan's books after it with the posting's new entries. charges is what the
// payment moved each schedule item's charges paid by, in the order of ChargesPaid (negative
// where interest paid ahead was given back); it adds up to the interest and service the
// posting credits, less what it debits.
//   - principal credits OVERDUE_PRINCIPAL first, then LOAN; a recovery's principal (credited to
//     WRITTEN_OFF) is income, RECOVERY_INCOME, and leaves the written-off memo;
//   - each item's charges paid settle that item's own (service is allocated together with the
//     interest of its period), oldest accrual first: what sits in its non-accrual memo
//     (interest's, then service's: income when paid), then its receivables (interest's, then
//     service's); the rest was paid ahead of the item's days, to the accounts in advance
//     (SERVICE_IN_ADVANCE up to the service the posting credits, the rest INTEREST_IN_ADVANCE),
//     which the closes release against that item's accrual;
//   - the penalty paid settles its memo, then its receivable; the rest (the payment day's own,
//     which its close accrues) is income at once, taken in so the close does not accrue it
//     again;
//   - interest an item gives back to principal (E) comes out of what that item paid ahead
//     (INTEREST_IN_ADVANCE first, then SERVICE_IN_ADVANCE), any rest out of income.
func (s BooksState) Repayment(loanID uuid.UUID, cash []Entry, charges []int64) (BooksState, []Entry) {
	e := entries{loan: loanID}
	s.ownItems(len(charges))
	var service, serviceBack int64 // the service the posting credits, and debits
	for _, x := range cash {
		k := x.Account.Kind
		switch {
		case k == AccountLoan && x.Credit > 0:
			o := min(x.Credit, max(0, s.OverduePrincipal))
			e.out = append(e.out, Entry{Account: e.account(AccountOverduePrincipal), Credit: o})
			e.out = append(e.out, Entry{Account: x.Account, Credit: x.Credit - o})
			s.OverduePrincipal -= o
		case k == AccountWrittenOff && x.Credit > 0:
			e.out = append(e.out, Entry{Account: e.account(AccountRecoveryIncome), Credit: x.Credit})
			m := min(x.Credit, s.MemoWrittenOff)
			e.move(m, AccountMemoWrittenOffContra, AccountMemoWrittenOff)
			s.MemoWrittenOff -= m
		case k == AccountInterestIncome: // the items say what it settles
		case k == AccountServiceIncome:
			service, serviceBack = service+x.Credit, serviceBack+x.Debit
		case k == AccountPenaltyIncome && x.Credit > 0:
			e.settle(s.penalty(0), x.Credit)
		default:
			e.out = append(e.out, x)
		}
	}
	var memo, rec [2]int64
	var ahead, given, beyond int64 // paid ahead; given back out of the advance, and beyond it
	for k, d := range charges {
		it := &s.Items[k]
		if d < 0 {
			y := min(-d, max(0, it.Advance))
			it.Advance -= y
			given += y
			beyond += -d - y
			continue
		}
		rest := it.settle(d, &memo, &rec)
		it.Advance += rest
		ahead += rest
	}
	for c, a := range itemKinds {
		e.out = append(e.out, Entry{Account: e.account(a.income), Credit: memo[c]})
		e.move(memo[c], AccountMemoNonAccruedContra, a.memo)
	}
	for c, a := range itemKinds {
		e.out = append(e.out, Entry{Account: e.account(a.receivable), Credit: rec[c]})
	}
	// What the accruals took is taken from interest's part first.
	toService := min(ahead, service)
	e.out = append(e.out, Entry{Account: e.account(AccountServiceInAdvance), Credit: toService},
		Entry{Account: e.account(AccountInterestInAdvance), Credit: ahead - toService})
	s.ServiceAdvance += toService
	s.InterestAdvance += ahead - toService
	for _, a := range []struct {
		kind AccountKind
		bal  *int64
	}{{AccountInterestInAdvance, &s.InterestAdvance}, {AccountServiceInAdvance, &s.ServiceAdvance}} {
		y := min(given, max(0, *a.bal))
		e.out = append(e.out, Entry{Account: e.account(a.kind), Debit: y})
		*a.bal -= y
		given -= y
	}
	beyond += given // none: the items' advances are the accounts'
	fromService := min(beyond, serviceBack)
	e.out = append(e.out, Entry{Account: e.account(AccountServiceIncome), Debit: fromService},
		Entry{Account: e.account(AccountInterestIncome), Debit: beyond - fromService})
	s.sumItems()
	return s, dropZero(e.out)
}

// settle credits the penalty paid, oldest accrual first: what sits in its non-accrual memo (it
// accrued before anything on balance now: income when paid), then its receivable, then the
// payment day's own penalty, income at once and taken in.
func (e *entries) settle(c charge, paid int64) {
	m := min(paid, max(0, *c.memoBal))
	e.out = append(e.out, Entry{Account: e.account(c.income), Credit: m})
	e.move(m, AccountMemoNonAccruedContra, c.memo)
	*c.memoBal -= m
	r := min(paid-m, max(0, *c.rec))
	e.out = append(e.out, Entry{Account: e.account(c.receivable), Credit: r})
	*c.rec -= r
	rest := paid - r - m
	e.out = append(e.out, Entry{Account: e.account(c.income), Credit: rest})
	*c.taken += rest
}

// dropZero leaves out entries of no amount.
func dropZero(in []Entry) []Entry {
	out := in[:0]
	for _, x := range in {
		if x.Debit != 0 || x.Credit != 0 {
			out = append(out, x)
		}
	}
	return out
}

// Waive reverses the accrual an operator's waiver forgives: charges is what it forgave of each
// schedule item's interest and service, in the order of ChargesPaid, penalty of the penalty.
// Each item's waiver settles its own charges, oldest accrual first (ItemBooks.settle): from
// the memo of a loan in non-accrual (never income: Dr memo contra / Cr memo), then from the
// receivables (Dr income / Cr receivable), interest's before service's; any rest was not yet
// accrued, and the item's next closes do not accrue it. The penalty likewise, its rest taken
// in.
func (s BooksState) Waive(loanID uuid.UUID, charges []int64, penalty int64) (BooksState, []Entry) {
	e := entries{loan: loanID}
	s.ownItems(len(charges))
	var memo, rec [2]int64
	for k, w := range charges {
		it := &s.Items[k]
		it.WaivedAhead += it.settle(max(0, w), &memo, &rec)
	}
	for c, a := range itemKinds {
		e.move(memo[c], AccountMemoNonAccruedContra, a.memo)
	}
	for c, a := range itemKinds {
		e.move(rec[c], a.income, a.receivable)
	}
	pen := s.penalty(penalty)
	m := min(penalty, max(0, *pen.memoBal))
	e.move(m, AccountMemoNonAccruedContra, pen.memo)
	*pen.memoBal -= m
	r := min(penalty-m, max(0, *pen.rec))
	e.move(r, pen.income, pen.receivable)
	*pen.rec -= r
	*pen.taken += penalty - m - r // not accrued yet: taken in, so that no close accrues it
	s.sumItems()
	return s, e.out
}

// WriteOff is a write-off's postings on the accrual basis, principal being the loan's
// principal outstanding (LOAN and OVERDUE_PRINCIPAL): its receivables leave income for the
// non-accrual memo (its charges are income only when recovered); the principal is written off
// against the provision first (Dr PROVISION), the rest Dr WRITE_OFF_EXPENSE, crediting
// OVERDUE_PRINCIPAL and LOAN; provision left over is released; and the principal is recorded
// in the written-off memo for recoveries.
//
// penalty is the loan's penalty accrued through the write-off's day (which the penalty rule makes owed
// from the day's start, and which no close will accrue on a written-off loan): what of it the
// books have not taken in goes to the memo, so that the memo holds everything the loan owes.
func (s BooksState) WriteOff(loanID uuid.UUID, principal, penalty int64) (BooksState, []Entry) {
	e := entries{loan: loanID}
	s.NonAccrual = true
	if d := penalty - s.TakenPenalty; d > 0 {
		e.move(d, AccountMemoNonAccruedPenalty, AccountMemoNonAccruedContra)
		s.MemoPenalty += d
		s.TakenPenalty = penalty
	}
	s.ownItems(0)
	e.toMemo(&s)
	fromProvision := min(principal, s.Provision)
	overdue := min(principal, s.OverduePrincipal)
	if principal > 0 {
		e.out = append(e.out, Entry{Account: e.account(AccountProvision), Debit: fromProvision},
			Entry{Account: e.account(AccountWriteOffExpense), Debit: principal - fromProvision},
			Entry{Account: e.account(AccountOverduePrincipal), Credit: overdue},
			Entry{Account: e.account(AccountLoan), Credit: principal - overdue})
	}
	e.move(s.Provision-fromProvision, AccountProvision, AccountProvisionExpense)
	e.move(principal, AccountMemoWrittenOff, AccountMemoWrittenOffContra)
	s.Provision, s.OverduePrincipal = 0, s.OverduePrincipal-overdue
	s.DaysOverdue, s.Class = 0, "" // out of the portfolio: no longer classified
	s.MemoWrittenOff += principal
	return s, dropZero(e.out)
}
