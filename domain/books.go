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
// next day's difference.
type BooksState struct {
	// Day is the last business date closed; zero before the loan's first close.
	Day time.Time
	// Taken is, per charge (interest, service, penalty), what the books have taken in: accrued
	// by the closes, and paid or waived before a close reached its day. The close of d posts
	// the accrual through d less it.
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
}

// charge is one of the three charges with its accounts and its fields in a BooksState.
type charge struct {
	income, receivable, advance, memo AccountKind
	taken, rec, adv, memoBal          *int64
	target                            int64
}

func (s *BooksState) charges(i, sv, p int64) [3]charge {
	return [3]charge{
		{AccountInterestIncome, AccountInterestReceivable, AccountInterestInAdvance, AccountMemoNonAccruedInterest,
			&s.TakenInterest, &s.InterestReceivable, &s.InterestAdvance, &s.MemoInterest, i},
		{AccountServiceIncome, AccountServiceReceivable, AccountServiceInAdvance, AccountMemoNonAccruedService,
			&s.TakenService, &s.ServiceReceivable, &s.ServiceAdvance, &s.MemoService, sv},
		{AccountPenaltyIncome, AccountPenaltyReceivable, AccountKind{}, AccountMemoNonAccruedPenalty,
			&s.TakenPenalty, &s.PenaltyReceivable, nil, &s.MemoPenalty, p},
	}
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

// accruedThrough is AccruedThrough on the book. The days of an item's period are its days from
// the previous payment date (or the issue date) to the day before its payment date; each holds
// the principal not yet paid at its end. The book's days before AccrualFrom are in Held; its
// later days hold the principal not yet due now.
func (b *book) accruedThrough(day time.Time) (interest, service, penalty int64) {
	nd := b.notDue()
	end := day.AddDate(0, 0, 1)
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
		interest, service = interest+i, service+s
	}
	if day.Before(b.terms.IssuedOn) {
		return interest, service, 0
	}
	_, p := b.penaltySince(day, nd)
	return interest, service, p.round()
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
// before the books kept accruals had its charges made income when paid). The first close then
// posts the opening entry: the receivables the rules give for its day, interest paid ahead
// moved out of income to the advance, and overdue principal.
func (l *Loan) OpeningBooks() (BooksState, error) {
	b, err := l.repaymentBook()
	if err != nil {
		return BooksState{}, err
	}
	var paid int64
	for k := range b.Items {
		paid += b.Items[k].PaidCharges
	}
	interest := b.interestPaid()
	return BooksState{TakenInterest: interest, TakenService: paid - interest, TakenPenalty: b.PenaltyPaid + b.PenaltyWaived}, nil
}

// CloseDay is the close of business date day for the loan, from its books after the close of
// the day before (prev; OpeningBooks for its first close). It returns the loan's books after
// the close and the close's entries, balanced on balance and in each memo pair:
//   - the non-accrual switch: from the day the loan is rules.NonAccrualDays overdue its
//     receivables leave income for the memo accounts; when it is no longer overdue the close
//     accrues on balance again;
//   - each charge's accrual through day less what was taken in: Dr receivable / Cr income (in
//     non-accrual paid first from the advance, the rest Dr memo / Cr memo contra), a negative
//     difference in reverse; then the advance settles the receivable;
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
	cs := s.charges(b.accruedThrough(day))
	switch {
	case !s.NonAccrual && days >= rules.NonAccrualDays:
		s.NonAccrual = true
		for _, c := range cs {
			e.move(*c.rec, c.income, c.receivable)
			e.move(*c.rec, c.memo, AccountMemoNonAccruedContra)
			*c.memoBal += *c.rec
			*c.rec = 0
		}
	case s.NonAccrual && days == 0:
		s.NonAccrual = false
	}
	for _, c := range cs {
		diff := c.target - *c.taken
		*c.taken = c.target
		switch {
		case diff > 0 && s.NonAccrual:
			if c.adv != nil {
				diff -= e.fromAdvance(&s, diff, c.income)
			}
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
			rest := back - r - m
			if c.adv != nil { // income given back to what was paid for it: in advance again
				e.move(rest, c.income, c.advance)
				*c.adv += rest
			} else {
				e.move(rest, c.income, c.receivable)
				*c.rec -= rest
			}
		}
		if c.adv != nil && !s.NonAccrual {
			*c.rec -= e.fromAdvance(&s, *c.rec, c.receivable)
		}
	}
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

// fromAdvance settles up to x of interest's or service's accrual (credit) from what was paid
// ahead of its days, interest's account first, then service's: the two are one charge for a
// payment (allocated together), so either's advance settles either's accrual. It returns what
// it took.
func (e *entries) fromAdvance(s *BooksState, x int64, credit AccountKind) int64 {
	var took int64
	for _, a := range []struct {
		kind AccountKind
		bal  *int64
	}{{AccountInterestInAdvance, &s.InterestAdvance}, {AccountServiceInAdvance, &s.ServiceAdvance}} {
		y := min(x-took, max(0, *a.bal))
		e.move(y, a.kind, credit)
		*a.bal -= y
		took += y
	}
	return took
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
// and returns the loan's books after it with the posting's new entries:
//   - principal credits OVERDUE_PRINCIPAL first, then LOAN; a recovery's principal (credited to
//     WRITTEN_OFF) is income, RECOVERY_INCOME, and leaves the written-off memo;
//   - each charge paid settles, oldest accrual first, what sits in its non-accrual memo (income
//     when paid), then its receivable (interest and service as one charge, interest's first),
//     and the rest was paid ahead of its days: interest and service to their account in
//     advance, penalty (the payment day's own, which its close accrues) to income at once,
//     taken in so the close does not accrue it again;
//   - interest given back to principal (a debit of income: E) comes out of the advance it was
//     paid into, any rest out of income.
func (s BooksState) Repayment(loanID uuid.UUID, cash []Entry) (BooksState, []Entry) {
	e := entries{loan: loanID}
	cs := s.charges(0, 0, 0)
	var paid, back [2]int64 // interest's and service's, paid and given back
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
		case k == AccountInterestIncome:
			paid[0], back[0] = paid[0]+x.Credit, back[0]+x.Debit
		case k == AccountServiceIncome:
			paid[1], back[1] = paid[1]+x.Credit, back[1]+x.Debit
		case k == AccountPenaltyIncome && x.Credit > 0:
			e.settle(cs[2], x.Credit)
		default:
			e.out = append(e.out, x)
		}
	}
	e.settleCharges(&s, cs, paid)
	// Interest given back to principal (E) comes out of the advance it was paid into, any rest
	// out of income.
	given := back[0] + back[1]
	for _, a := range []struct {
		kind AccountKind
		bal  *int64
	}{{AccountInterestInAdvance, &s.InterestAdvance}, {AccountServiceInAdvance, &s.ServiceAdvance}} {
		y := min(given, max(0, *a.bal))
		e.out = append(e.out, Entry{Account: e.account(a.kind), Debit: y})
		*a.bal -= y
		given -= y
	}
	service := min(given, back[1])
	e.out = append(e.out, Entry{Account: e.account(AccountServiceIncome), Debit: service},
		Entry{Account: e.account(AccountInterestIncome), Debit: given - service})
	return s, dropZero(e.out)
}

// settleCharges settles interest and service paid (paid: the payment's split of them) as one
// charge, allocated together: oldest accrual first, what sits in the non-accrual memo
// (interest's, then service's: income when paid), then the receivables (interest's, then
// service's); the rest was paid for days not yet accrued, to the accounts in advance.
func (e *entries) settleCharges(s *BooksState, cs [3]charge, paid [2]int64) {
	pool := paid[0] + paid[1]
	for _, c := range cs[:2] {
		m := min(pool, max(0, *c.memoBal))
		e.out = append(e.out, Entry{Account: e.account(c.income), Credit: m})
		e.move(m, AccountMemoNonAccruedContra, c.memo)
		*c.memoBal -= m
		pool -= m
	}
	for _, c := range cs[:2] {
		r := min(pool, max(0, *c.rec))
		e.out = append(e.out, Entry{Account: e.account(c.receivable), Credit: r})
		*c.rec -= r
		pool -= r
	}
	// What the accruals took is taken from interest's part first.
	service := min(pool, paid[1])
	e.out = append(e.out, Entry{Account: e.account(AccountServiceInAdvance), Credit: service},
		Entry{Account: e.account(AccountInterestInAdvance), Credit: pool - service})
	s.ServiceAdvance += service
	s.InterestAdvance += pool - service
}

// settle credits a charge paid, oldest accrual first: what sits in its non-accrual memo (it
// accrued before anything on balance now: income when paid), then its receivable, then what
// is paid ahead.
func (e *entries) settle(c charge, paid int64) {
	m := min(paid, max(0, *c.memoBal))
	e.out = append(e.out, Entry{Account: e.account(c.income), Credit: m})
	e.move(m, AccountMemoNonAccruedContra, c.memo)
	*c.memoBal -= m
	r := min(paid-m, max(0, *c.rec))
	e.out = append(e.out, Entry{Account: e.account(c.receivable), Credit: r})
	*c.rec -= r
	rest := paid - r - m
	if c.adv != nil {
		e.out = append(e.out, Entry{Account: e.account(c.advance), Credit: rest})
		*c.adv += rest
		return
	}
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

// Waive reverses the accrual an operator's waiver forgives (interest, service and penalty
// waived), oldest accrual first: from the memo of a loan in non-accrual (never income), then
// from the receivable (Dr income / Cr receivable); any rest was not yet accrued, and is taken in so that no close
// accrues it.
func (s BooksState) Waive(loanID uuid.UUID, interest, service, penalty int64) (BooksState, []Entry) {
	e := entries{loan: loanID}
	cs := s.charges(interest, service, penalty)
	// Interest and service are one charge, waived together: the memo's (interest's, then
	// service's) before the receivables; the penalty on its own.
	for _, group := range [][]charge{cs[:2], cs[2:]} {
		w := int64(0)
		for _, c := range group {
			w += c.target
		}
		for _, c := range group {
			m := min(w, max(0, *c.memoBal))
			e.move(m, AccountMemoNonAccruedContra, c.memo)
			*c.memoBal -= m
			w -= m
		}
		for _, c := range group {
			r := min(w, max(0, *c.rec))
			e.move(r, c.income, c.receivable)
			*c.rec -= r
			w -= r
		}
		// Any rest was not accrued yet: taken in, so that no close accrues it.
		for _, c := range group {
			y := min(w, c.target)
			*c.taken += y
			w -= y
		}
	}
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
	for _, c := range s.charges(0, 0, 0) {
		e.move(*c.rec, c.income, c.receivable)
		e.move(*c.rec, c.memo, AccountMemoNonAccruedContra)
		*c.memoBal += *c.rec
		*c.rec = 0
	}
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
