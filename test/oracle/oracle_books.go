package oracle

import (
	"errors"
	"fmt"
	"math/big"
	"time"
)

// The books (DESIGN.md §9.1, accrual basis), kept by the oracle from the design's text alone.
//
// API, for the comparison with the domain's close:
//
//	l := oracle.New(terms)
//	err := l.KeepBooks(oracle.BooksRules{NonAccrualDays: 90, Classes: oracle.ExampleClasses})
//	l.Advance(d)      // closes every day before d, one at a time (the close of day x is the
//	                  // walk from x to x+1); CloseThrough(x) is Advance(x+1)
//	b := l.Books()    // the loan's balances after its last close (b.Date is that day;
//	                  // zero Books on the issue day, before its first close)
//	l.BooksNow()      // the same, with what was posted since (payments, waivers, write-off)
//	l.Journal()       // every posting, in order, each with its date, kind and lines
//	l.CheckBooks()    // the first proof that failed (nil: every close and event held them)
//	l.Income()        // the lifetime counters the income proof is made of
//
// Pay, WaivePenalty, WaiveInterest and WriteOff post as they happen; Restructure posts
// nothing (the principal not yet due stays in LOAN, whatever its items). Every balance in Books
// is in tiyin on its kind's normal side: assets and expenses debit, the advance, the
// provision and incomes credit, each memo account debit (its contra is the same amount on the
// other side). Books.Cash is the money side (debit: paid in; credit: lent), signed.
//
// The close of day d, for a loan open at the start of d (one paid off or settled during d
// included), in this order:
//  1. a loan in non-accrual that is no longer overdue accrues on balance again;
//  2. each item's interest and service accrued through d is round-half-up(its exact
//     accrual), the penalty round-half-up(its exact accrual through d); the close posts the
//     difference from the last close, Dr receivable / Cr income (in non-accrual Dr memo / Cr
//     memo contra), a negative difference in reverse;
//  3. what was paid ahead of that accrual (INTEREST_IN_ADVANCE) settles it: Dr
//     INTEREST_IN_ADVANCE / Cr receivable (a memo amount settled is income: Cr income and
//     the memo pair reversed); a penalty waived ahead of its accrual reverses it;
//  4. an item due on d with principal unpaid: Dr OVERDUE_PRINCIPAL / Cr LOAN;
//  5. a loan that reaches NonAccrualDays days overdue: its on-balance receivables Dr income
//     / Cr receivable, recorded Dr memo / Cr memo contra;
//  6. the provision: percent of the loan's class × (LOAN + OVERDUE_PRINCIPAL + the three
//     receivables), rounded half up; the change Dr PROVISION_EXPENSE / Cr PROVISION or back;
//  7. the proofs (CheckBooks).
//
// A loan's days overdue at the close of d are d − the date of its oldest item due before d
// and not fully paid (principal or charges): an item unpaid at the end of its date is 1 day
// overdue at the close of the next day, as the partner's loan view counts it.

// Account is a kind of account of the books.
type Account int

// The kinds of account. The memo accounts are off balance, each with its contra.
const (
	Cash          Account = iota // the money side: Cr when lent, Dr when paid
	LoanPrincipal                // LOAN: principal not yet due
	OverduePrincipal
	InterestReceivable
	ServiceReceivable
	PenaltyReceivable
	InterestInAdvance // a liability: charges paid ahead of their accrual
	Provision         // a contra-asset
	InterestIncome
	ServiceIncome
	PenaltyIncome
	RecoveryIncome // principal recovered after a write-off
	ProvisionExpense
	WriteOffExpense
	MemoInterest // off balance: charges not accrued on balance (non-accrual, write-off)
	MemoInterestContra
	MemoService
	MemoServiceContra
	MemoPenalty
	MemoPenaltyContra
	MemoWrittenOff // off balance: principal written off, for recoveries
	MemoWrittenOffContra
	accounts
)

var accountNames = [accounts]string{"CASH", "LOAN", "OVERDUE_PRINCIPAL", "INTEREST_RECEIVABLE", "SERVICE_RECEIVABLE",
	"PENALTY_RECEIVABLE", "INTEREST_IN_ADVANCE", "PROVISION", "INTEREST_INCOME", "SERVICE_INCOME", "PENALTY_INCOME",
	"RECOVERY_INCOME", "PROVISION_EXPENSE", "WRITE_OFF_EXPENSE", "MEMO_INTEREST", "MEMO_INTEREST_CONTRA", "MEMO_SERVICE",
	"MEMO_SERVICE_CONTRA", "MEMO_PENALTY", "MEMO_PENALTY_CONTRA", "MEMO_WRITTEN_OFF", "MEMO_WRITTEN_OFF_CONTRA"}

func (a Account) String() string { return accountNames[a] }

// offBalance says the account is a memo account or its contra.
func (a Account) offBalance() bool { return a >= MemoInterest }

// creditNormal says the account's balance is normally on the credit side.
func (a Account) creditNormal() bool {
	switch a {
	case InterestInAdvance, Provision, InterestIncome, ServiceIncome, PenaltyIncome, RecoveryIncome,
		MemoInterestContra, MemoServiceContra, MemoPenaltyContra, MemoWrittenOffContra:
		return true
	}
	return false
}

// The charges, by kind: their receivable, income and memo accounts.
const (
	interest = iota
	service
	penaltyKind
	chargeKinds
)

var (
	receivable = [chargeKinds]Account{InterestReceivable, ServiceReceivable, PenaltyReceivable}
	income     = [chargeKinds]Account{InterestIncome, ServiceIncome, PenaltyIncome}
	memo       = [chargeKinds]Account{MemoInterest, MemoService, MemoPenalty}
	memoContra = [chargeKinds]Account{MemoInterestContra, MemoServiceContra, MemoPenaltyContra}
)

// ProvisionClass is a row of the provisioning table: loans From to To days overdue (both
// inclusive; To < 0 for no upper bound) are provisioned at Percent, in hundredths of a percent
// (25 % is 2500).
type ProvisionClass struct {
	Name     string
	From, To int
	Percent  int64
}

// BooksRules are the books' settings: the days overdue from which a loan stops accruing on
// balance (DESIGN's TIYIN_NONACCRUAL_DAYS; 0 means its default, 90) and the provisioning table,
// which must cover every day count from 0 once.
type BooksRules struct {
	NonAccrualDays int
	Classes        []ProvisionClass
}

// ExampleClasses is an example table (not a regulator's): standard, substandard,
// unsatisfactory, doubtful and bad loans.
var ExampleClasses = []ProvisionClass{
	{Name: "standard", From: 0, To: 0, Percent: 100},
	{Name: "substandard", From: 1, To: 30, Percent: 1000},
	{Name: "unsatisfactory", From: 31, To: 90, Percent: 2500},
	{Name: "doubtful", From: 91, To: 180, Percent: 5000},
	{Name: "bad", From: 181, To: -1, Percent: 10000},
}

// IFRS9Classes is IFRS 9's staging by days overdue (30 and 90) with example percents.
var IFRS9Classes = []ProvisionClass{
	{Name: "stage 1", From: 0, To: 30, Percent: 100},
	{Name: "stage 2", From: 31, To: 90, Percent: 1000},
	{Name: "stage 3", From: 91, To: -1, Percent: 5000},
}

// validate checks that the classes cover every day count from 0, once, in order.
func (r BooksRules) validate() error {
	next := 0
	for _, c := range r.Classes {
		if c.From != next || c.To >= 0 && c.To < c.From || c.Percent < 0 || c.Percent > 10000 {
			return fmt.Errorf("provision class %q (%d–%d days, %d) does not follow from %d days", c.Name, c.From, c.To, c.Percent, next)
		}
		if c.To < 0 {
			return nil
		}
		next = c.To + 1
	}
	return errors.New("the provision classes leave days overdue without a class")
}

// class is the class of a loan days overdue.
func (r BooksRules) class(days int) ProvisionClass {
	for _, c := range r.Classes {
		if days >= c.From && (c.To < 0 || days <= c.To) {
			return c
		}
	}
	return ProvisionClass{}
}

// Line is one side of a posting: an account debited or credited.
type Line struct {
	Account       Account
	Debit, Credit int64
}

// Posting is one balanced posting of the journal: on balance Σ debits = Σ credits, and so off
// balance.
type Posting struct {
	Date  time.Time
	Kind  string // ISSUE, ACCRUAL, ADVANCE_RELEASE, OVERDUE, NON_ACCRUAL, PROVISION, PAYMENT, RECOVERY, WAIVER, WRITE_OFF
	Lines []Line
}

func (p *Posting) dr(a Account, x int64) {
	switch {
	case x < 0:
		p.cr(a, -x)
	case x > 0:
		p.Lines = append(p.Lines, Line{Account: a, Debit: x})
	}
}

func (p *Posting) cr(a Account, x int64) {
	switch {
	case x < 0:
		p.dr(a, -x)
	case x > 0:
		p.Lines = append(p.Lines, Line{Account: a, Credit: x})
	}
}

// Books are a loan's balances at a moment, each on its kind's normal side.
type Books struct {
	Date time.Time // the day of the close they are after (zero: before the first close)

	Loan, OverduePrincipal                                   int64
	InterestReceivable, ServiceReceivable, PenaltyReceivable int64
	InterestInAdvance, Provision                             int64
	InterestIncome, ServiceIncome, PenaltyIncome             int64
	RecoveryIncome, ProvisionExpense, WriteOffExpense        int64
	Cash                                                     int64 // debit − credit: paid in less lent
	MemoInterest, MemoService, MemoPenalty, MemoWrittenOff   int64

	NonAccrual  bool
	DaysOverdue int
	Class       string // the provision class (empty for a loan closed or written off)
}

// Income is what the lifetime income proof is made of (§9.1: "interest income = interest
// paid − interest given back as E − interest waived (the same for service and penalty)").
type Income struct {
	// Gross is what payments put to interest and service before E; GivenBack is E, the
	// interest paid ahead that paid the penalty instead, and what a payoff returned to
	// principal; Net = Gross − GivenBack is Σ of the payments' Split.Interest. PenaltyPaid is
	// Σ Split.Penalty.
	Gross, GivenBack, Net, PenaltyPaid int64
	// Paid is, by kind (interest, service, penalty), what was settled on it by payments, at
	// once or from the advance; Waived what the operators forgave of it.
	Paid, Waived [3]int64
	// Interest, Service and Penalty are the income accounts.
	Interest, Service, Penalty int64
}

// itemBooks is an item's part of the books: its charges accrued through the last close and
// their settlement.
type itemBooks struct {
	booked   [2]int64 // interest and service accrued through the last close, rounded
	rec, mem [2]int64 // interest and service accrued, unpaid: on balance, and in the memo
	adv      int64    // paid ahead of its accrual
	paidC    int64    // the item's paidC as the books last saw it
}

// books is a loan's books.
type books struct {
	rules      BooksRules
	bal        [accounts]int64 // debit − credit
	journal    []Posting
	nonAccrual bool
	// the penalty: accrued through the last close, unpaid on balance and in the memo, paid
	// and waived ahead of its accrual (the day's penalty, owed from the day's start, is
	// accrued by the day's close)
	bookedP, recP, memP, penAdv, penWaivedAhead int64
	penSeen                                     int64 // penPaid + penWaived as last seen
	writtenOff                                  bool
	writtenOffP, recovered                      int64 // principal written off, and recovered since
	finished                                    bool  // closed and its last close done: nothing more to post
	income                                      Income
	day                                         [2][2]int64 // the current day's debits and credits, on and off balance
	last                                        Books       // after the last close
	daysOverdue                                 int
	class                                       string
	err                                         error
}

// ErrBooks is KeepBooks on a loan already walked or paid.
var ErrBooks = errors.New("the books are kept from issue: KeepBooks before any Advance or payment")

// KeepBooks makes the loan keep its books under rules, from its issue: it must be called on a
// new loan. The issue posts Dr LOAN / Cr CASH.
func (l *Loan) KeepBooks(r BooksRules) error {
	if r.NonAccrualDays == 0 {
		r.NonAccrualDays = 90
	}
	if err := r.validate(); err != nil {
		return err
	}
	if l.bk != nil || l.day != 0 || !l.calendar.Equal(l.t.IssuedOn) || l.penPaid != 0 || l.closed || l.writtenOff {
		return ErrBooks
	}
	for _, it := range l.items {
		if it.paidC != 0 || it.paidP != 0 {
			return ErrBooks
		}
	}
	l.bk = &books{rules: r}
	p := l.posting("ISSUE")
	p.dr(LoanPrincipal, l.t.Amount)
	p.cr(Cash, l.t.Amount)
	l.commit(p)
	return nil
}

// CloseThrough closes the books through day d: Advance(d + 1).
func (l *Loan) CloseThrough(d time.Time) { l.Advance(d.AddDate(0, 0, 1)) }

// Books is the loan's books after its last close; before the first (during its issue day),
// nothing: the loan was not on the books at the last close.
func (l *Loan) Books() Books {
	if l.bk == nil {
		return Books{}
	}
	return l.bk.last
}

// BooksNow is the loan's books now: after its last close and what was posted since.
func (l *Loan) BooksNow() Books {
	if l.bk == nil {
		return Books{}
	}
	return l.booksNow(l.bk.last.Date)
}

// Journal is every posting of the loan's books, in order.
func (l *Loan) Journal() []Posting {
	if l.bk == nil {
		return nil
	}
	return l.bk.journal
}

// Income is the lifetime income proof's counters, now.
func (l *Loan) Income() Income {
	if l.bk == nil {
		return Income{}
	}
	in := l.bk.income
	in.Net = in.Gross - in.GivenBack
	in.Interest, in.Service, in.Penalty = -l.bk.bal[InterestIncome], -l.bk.bal[ServiceIncome], -l.bk.bal[PenaltyIncome]
	return in
}

// CheckBooks is the first proof of the books that failed, at a close or at an event.
func (l *Loan) CheckBooks() error {
	if l.bk == nil {
		return nil
	}
	return l.bk.err
}

func (l *Loan) booksNow(date time.Time) Books {
	b := l.bk
	side := func(a Account) int64 {
		if a.creditNormal() {
			return -b.bal[a]
		}
		return b.bal[a]
	}
	return Books{Date: date, Loan: side(LoanPrincipal), OverduePrincipal: side(OverduePrincipal),
		InterestReceivable: side(InterestReceivable), ServiceReceivable: side(ServiceReceivable), PenaltyReceivable: side(PenaltyReceivable),
		InterestInAdvance: side(InterestInAdvance), Provision: side(Provision), InterestIncome: side(InterestIncome),
		ServiceIncome: side(ServiceIncome), PenaltyIncome: side(PenaltyIncome), RecoveryIncome: side(RecoveryIncome),
		ProvisionExpense: side(ProvisionExpense), WriteOffExpense: side(WriteOffExpense), Cash: side(Cash),
		MemoInterest: side(MemoInterest), MemoService: side(MemoService), MemoPenalty: side(MemoPenalty), MemoWrittenOff: side(MemoWrittenOff),
		NonAccrual: b.nonAccrual, DaysOverdue: b.daysOverdue, Class: b.class}
}

// bad records the books' first failed proof.
func (l *Loan) bad(format string, args ...any) {
	if l.bk.err == nil {
		l.bk.err = fmt.Errorf("books, %s: %s", l.calendar.Format(time.DateOnly), fmt.Sprintf(format, args...))
	}
}

func (l *Loan) posting(kind string) *Posting { return &Posting{Date: l.calendar, Kind: kind} }

// commit checks that p balances, on balance and off, and posts it.
func (l *Loan) commit(p *Posting) {
	if len(p.Lines) == 0 {
		return
	}
	var sums [2][2]int64
	for _, ln := range p.Lines {
		off := 0
		if ln.Account.offBalance() {
			off = 1
		}
		sums[off][0] += ln.Debit
		sums[off][1] += ln.Credit
		l.bk.bal[ln.Account] += ln.Debit - ln.Credit
	}
	for off := range 2 {
		if sums[off][0] != sums[off][1] {
			l.bad("a %s posting does not balance (off balance %t): debits %d, credits %d: %+v", p.Kind, off == 1, sums[off][0], sums[off][1], p.Lines)
		}
		l.bk.day[off][0] += sums[off][0]
		l.bk.day[off][1] += sums[off][1]
	}
	l.bk.journal = append(l.bk.journal, *p)
}

// How an amount settles charges: paid (in cash, or from the advance), or waived.
const (
	byPayment = iota
	byWaiver
)

// bucket is charges accrued and unpaid of one kind, on balance or in the memo.
type bucket struct {
	kind int
	memo bool
	v    *int64
}

// buckets are item k's charges in the order a settlement takes them: the memo's first (they
// are older: what accrued before the loan went into non-accrual or was written off), interest
// before service in each.
func (it *item) buckets() []bucket {
	b := &it.bk
	return []bucket{{interest, true, &b.mem[0]}, {service, true, &b.mem[1]}, {interest, false, &b.rec[0]}, {service, false, &b.rec[1]}}
}

func (b *books) penaltyBuckets() []bucket {
	return []bucket{{penaltyKind, true, &b.memP}, {penaltyKind, false, &b.recP}}
}

// settle settles x of the buckets, in their order, and returns what is left. Paid: a memo
// amount is income (Cr income, the memo pair reversed), an on-balance one Cr receivable (the
// caller debits cash or the advance). Waived: a memo amount reverses the memo pair, an
// on-balance one Dr income / Cr receivable.
func (l *Loan) settle(p *Posting, bs []bucket, x int64, how int) int64 {
	for _, bu := range bs {
		y := min(x, max(0, *bu.v))
		if y == 0 {
			continue
		}
		*bu.v -= y
		x -= y
		switch {
		case how == byPayment && bu.memo:
			p.cr(income[bu.kind], y)
			p.dr(memoContra[bu.kind], y)
			p.cr(memo[bu.kind], y)
		case how == byPayment:
			p.cr(receivable[bu.kind], y)
		case bu.memo:
			p.dr(memoContra[bu.kind], y)
			p.cr(memo[bu.kind], y)
		default:
			p.dr(income[bu.kind], y)
			p.cr(receivable[bu.kind], y)
		}
		if how == byPayment {
			l.bk.income.Paid[bu.kind] += y
		} else {
			l.bk.income.Waived[bu.kind] += y
		}
	}
	return x
}

// accrue posts x of kind accrued into v: on balance Dr receivable / Cr income, in
// non-accrual (or after a write-off) Dr memo / Cr memo contra.
func (l *Loan) accrue(p *Posting, kind int, rec, mem *int64, x int64) {
	if l.bk.nonAccrual || l.bk.writtenOff {
		*mem += x
		p.dr(memo[kind], x)
		p.cr(memoContra[kind], x)
		return
	}
	*rec += x
	p.dr(receivable[kind], x)
	p.cr(income[kind], x)
}

// bookPayment posts a payment of amount applied as split: Dr CASH; its principal to
// OVERDUE_PRINCIPAL first, then LOAN (after a write-off: RECOVERY_INCOME, and the memo of
// principal written off reversed); each item's charges settled, what is paid beyond their
// accrual to INTEREST_IN_ADVANCE, and what was given back (E) taken from it; the penalty
// settled, the day's penalty not yet accrued to INTEREST_IN_ADVANCE until the close.
func (l *Loan) bookPayment(amount int64, split Split) {
	if l.bk == nil {
		return
	}
	b := l.bk
	b.income.Gross += split.Interest + l.given
	b.income.GivenBack += l.given
	b.income.PenaltyPaid += split.Penalty
	p := l.posting("PAYMENT")
	if b.writtenOff {
		p.Kind = "RECOVERY"
	}
	p.dr(Cash, amount)
	if b.writtenOff {
		p.cr(RecoveryIncome, split.Principal)
		p.dr(MemoWrittenOffContra, split.Principal)
		p.cr(MemoWrittenOff, split.Principal)
		b.recovered += split.Principal
	} else {
		overdue := min(split.Principal, b.bal[OverduePrincipal])
		p.cr(OverduePrincipal, overdue)
		p.cr(LoanPrincipal, split.Principal-overdue)
	}
	var charges int64
	for _, it := range l.items {
		d := it.paidC - it.bk.paidC
		it.bk.paidC = it.paidC
		charges += d
		if d < 0 { // given back: from what was paid ahead
			if -d > it.bk.adv {
				l.bad("the item of %s gives back %d, more than the %d paid ahead", it.date.Format(time.DateOnly), -d, it.bk.adv)
			}
			it.bk.adv += d
			p.dr(InterestInAdvance, -d)
			continue
		}
		if ahead := l.settle(p, it.buckets(), d, byPayment); ahead > 0 {
			it.bk.adv += ahead
			p.cr(InterestInAdvance, ahead)
		}
	}
	if charges != split.Interest {
		l.bad("the items' charges moved by %d, the payment's interest is %d", charges, split.Interest)
	}
	l.bookPenalty(p, byPayment)
	l.commit(p)
	l.prove(false)
}

// bookPenalty settles the penalty paid or waived since last seen.
func (l *Loan) bookPenalty(p *Posting, how int) {
	b := l.bk
	d := l.penPaid + l.penWaived - b.penSeen
	b.penSeen = l.penPaid + l.penWaived
	if d < 0 {
		l.bad("the penalty paid and waived fell by %d", -d)
		return
	}
	ahead := l.settle(p, b.penaltyBuckets(), d, how)
	if how == byPayment {
		b.penAdv += ahead
		p.cr(InterestInAdvance, ahead)
	} else {
		b.penWaivedAhead += ahead
	}
}

// bookWaiver posts what the operators forgave: the items' charges and the penalty, each
// reversing its accrual (Dr income / Cr receivable, or the memo pair).
func (l *Loan) bookWaiver() {
	if l.bk == nil {
		return
	}
	p := l.posting("WAIVER")
	for _, it := range l.items {
		d := it.paidC - it.bk.paidC
		it.bk.paidC = it.paidC
		if left := l.settle(p, it.buckets(), d, byWaiver); left != 0 {
			l.bad("%d of charges waived on the item of %s had not accrued", left, it.date.Format(time.DateOnly))
		}
	}
	l.bookPenalty(p, byWaiver)
	l.commit(p)
	l.prove(false)
}

// bookWriteOff posts the write-off of principal p: the day's penalty accrued (the loan's last
// close), its receivables reversed out of income into the memo, the principal credited Dr
// PROVISION as far as it goes and Dr WRITE_OFF_EXPENSE for the rest, recorded in the memo of
// principal written off, and what provision is left released.
func (l *Loan) bookWriteOff(principal int64) {
	if l.bk == nil || l.bk.writtenOff || l.closed {
		return
	}
	b := l.bk
	p := l.posting("ACCRUAL")
	l.accruePenalty(p)
	l.commit(p)
	p = l.posting("ADVANCE_RELEASE")
	l.releasePenalty(p)
	l.commit(p)
	l.toMemo("WRITE_OFF")
	b.writtenOff = true
	b.nonAccrual = true // a decision (docs/accounting.md, Decisions): a written-off loan is in non-accrual
	p = l.posting("WRITE_OFF")
	if got := b.bal[LoanPrincipal] + b.bal[OverduePrincipal]; got != principal {
		l.bad("the principal accounts hold %d, the loan writes off %d", got, principal)
	}
	used := min(-b.bal[Provision], principal)
	p.dr(Provision, used)
	p.dr(WriteOffExpense, principal-used)
	p.cr(OverduePrincipal, b.bal[OverduePrincipal])
	p.cr(LoanPrincipal, b.bal[LoanPrincipal])
	p.dr(MemoWrittenOff, principal)
	p.cr(MemoWrittenOffContra, principal)
	p.dr(Provision, -b.bal[Provision]-used)
	p.cr(ProvisionExpense, -b.bal[Provision]-used)
	l.commit(p)
	b.writtenOffP = principal
	b.daysOverdue, b.class = 0, ""
	l.prove(false)
}

// toMemo reverses the loan's on-balance receivables out of income into the memo.
func (l *Loan) toMemo(kind string) {
	b := l.bk
	p := l.posting(kind)
	move := func(k int, rec, mem *int64) {
		p.dr(income[k], *rec)
		p.cr(receivable[k], *rec)
		p.dr(memo[k], *rec)
		p.cr(memoContra[k], *rec)
		*mem += *rec
		*rec = 0
	}
	for _, it := range l.items {
		move(interest, &it.bk.rec[0], &it.bk.mem[0])
		move(service, &it.bk.rec[1], &it.bk.mem[1])
	}
	move(penaltyKind, &b.recP, &b.memP)
	l.commit(p)
}

// accruePenalty posts the penalty accrued since the last close.
func (l *Loan) accruePenalty(p *Posting) {
	b := l.bk
	now := roundHalfUp(l.penalty)
	l.accrue(p, penaltyKind, &b.recP, &b.memP, now-b.bookedP)
	b.bookedP = now
}

// releasePenalty settles the day's penalty paid, or waived, ahead of its accrual.
func (l *Loan) releasePenalty(p *Posting) {
	b := l.bk
	if b.penAdv > 0 {
		left := l.settle(p, b.penaltyBuckets(), b.penAdv, byPayment)
		p.dr(InterestInAdvance, b.penAdv-left)
		b.penAdv = left
	}
	if b.penWaivedAhead > 0 {
		b.penWaivedAhead = l.settle(p, b.penaltyBuckets(), b.penWaivedAhead, byWaiver)
	}
}

// daysOverdue is the loan's days overdue at the close of d: d − the date of its oldest item
// due before d and not fully paid.
func (l *Loan) daysOverdue(d time.Time) int {
	if l.closed {
		return 0
	}
	for k, it := range l.items {
		if !it.date.Before(d) {
			break
		}
		// Its charges are all booked: its period ended by the close of d − 2 at the latest
		// (prove checks the booked accrual against the loan's at every close).
		if l.unpaid(k) > 0 || it.bk.booked[0]+it.bk.booked[1] > it.paidC {
			return days(it.date, d)
		}
	}
	return 0
}

// closeBooks is the books' close of day d (see the top of this file), and its proofs.
func (l *Loan) closeBooks(d time.Time) {
	b := l.bk
	if b == nil {
		return
	}
	if b.writtenOff || b.finished {
		l.prove(true)
		b.last = l.booksNow(d)
		return
	}
	late := l.daysOverdue(d)
	// 1. cured: on balance again.
	if b.nonAccrual && late == 0 {
		b.nonAccrual = false
	}
	// 2. the day's accrual: the item whose period holds d, and the penalty.
	p := l.posting("ACCRUAL")
	if k := l.periodOf(d); k >= 0 {
		it := l.items[k]
		for kind, exact := range []*big.Rat{it.accI, it.accS} {
			now := roundHalfUp(exact)
			l.accrue(p, kind, &it.bk.rec[kind], &it.bk.mem[kind], now-it.bk.booked[kind])
			it.bk.booked[kind] = now
		}
	}
	l.accruePenalty(p)
	l.commit(p)
	// 3. what was paid ahead settles it.
	p = l.posting("ADVANCE_RELEASE")
	for _, it := range l.items {
		if it.bk.adv > 0 {
			left := l.settle(p, it.buckets(), it.bk.adv, byPayment)
			p.dr(InterestInAdvance, it.bk.adv-left)
			it.bk.adv = left
		}
	}
	l.releasePenalty(p)
	l.commit(p)
	// 4. principal unpaid at the end of its date.
	p = l.posting("OVERDUE")
	for k, it := range l.items {
		if it.date.Equal(d) {
			p.dr(OverduePrincipal, l.unpaid(k))
			p.cr(LoanPrincipal, l.unpaid(k))
		}
	}
	l.commit(p)
	// 5. non-accrual.
	if !b.nonAccrual && late >= b.rules.NonAccrualDays {
		l.toMemo("NON_ACCRUAL")
		b.nonAccrual = true
	}
	// 6. the provision.
	class := b.rules.class(late)
	exposure := b.bal[LoanPrincipal] + b.bal[OverduePrincipal] + b.bal[InterestReceivable] + b.bal[ServiceReceivable] + b.bal[PenaltyReceivable]
	need := roundHalfUp(mul(rat(exposure), quo(rat(class.Percent), hundred)))
	p = l.posting("PROVISION")
	p.dr(ProvisionExpense, need+b.bal[Provision])
	p.cr(Provision, need+b.bal[Provision])
	l.commit(p)
	b.daysOverdue, b.class = late, class.Name
	if l.closed {
		b.daysOverdue, b.class, b.finished = 0, "", true
	}
	l.prove(true)
	b.last = l.booksNow(d)
}

// prove checks the books' proofs now; closing, those of a close besides.
func (l *Loan) prove(closing bool) {
	b := l.bk
	// The trial balance: on balance the accounts sum to zero; each memo pair nets to zero.
	var sum int64
	for a := Cash; a < MemoInterest; a++ {
		sum += b.bal[a]
	}
	if sum != 0 {
		l.bad("the accounts on balance sum to %d, not 0", sum)
	}
	for a := MemoInterest; a < accounts; a += 2 {
		if b.bal[a]+b.bal[a+1] != 0 {
			l.bad("the memo pair %s / %s nets to %d", a, a+1, b.bal[a]+b.bal[a+1])
		}
	}
	for a := LoanPrincipal; a < accounts; a++ {
		if v := b.bal[a]; a.creditNormal() && v > 0 || !a.creditNormal() && v < 0 {
			l.bad("%s is %d on the wrong side", a, v)
		}
	}
	// The loan's sub-ledger (its items' charges, the penalty, what was paid ahead) is its
	// accounts, and agrees with the loan's own state.
	var rec, mem [chargeKinds]int64
	var booked [chargeKinds]int64
	var itemsAdv int64
	for _, it := range l.items {
		for k := range 2 {
			rec[k] += it.bk.rec[k]
			mem[k] += it.bk.mem[k]
			booked[k] += it.bk.booked[k]
			if it.bk.rec[k] < 0 || it.bk.mem[k] < 0 {
				l.bad("the item of %s owes %d on balance and %d in the memo", it.date.Format(time.DateOnly), it.bk.rec[k], it.bk.mem[k])
			}
		}
		if it.bk.paidC != it.paidC {
			l.bad("the item of %s has paid %d of charges, the books saw %d", it.date.Format(time.DateOnly), it.paidC, it.bk.paidC)
		}
		if out := it.bk.booked[0] + it.bk.booked[1] - it.paidC; out != it.bk.rec[0]+it.bk.rec[1]+it.bk.mem[0]+it.bk.mem[1]-it.bk.adv || it.bk.adv < 0 {
			l.bad("the item of %s: accrued less paid is %d, its receivables %d %d, memo %d %d, advance %d", it.date.Format(time.DateOnly), out,
				it.bk.rec[0], it.bk.rec[1], it.bk.mem[0], it.bk.mem[1], it.bk.adv)
		}
		itemsAdv += it.bk.adv
	}
	rec[penaltyKind], mem[penaltyKind], booked[penaltyKind] = b.recP, b.memP, b.bookedP

	for k := range chargeKinds {
		if b.bal[receivable[k]] != rec[k] || b.bal[memo[k]] != mem[k] {
			l.bad("%s is %d and %s %d, the items owe %d and %d", receivable[k], b.bal[receivable[k]], memo[k], b.bal[memo[k]], rec[k], mem[k])
		}
	}
	if -b.bal[InterestInAdvance] != itemsAdv+b.penAdv {
		l.bad("INTEREST_IN_ADVANCE is %d, the items hold %d ahead and the penalty %d", -b.bal[InterestInAdvance], itemsAdv, b.penAdv)
	}
	// Income: by kind, what was paid on it and what of it is receivable on balance; and what
	// was accrued, less what was waived and what sits in the memo. Interest and service
	// together: what the payments put to them less what they gave back (E), less what is paid
	// ahead, plus what is receivable.
	in := l.Income()
	got := [chargeKinds]int64{in.Interest, in.Service, in.Penalty}
	for k := range chargeKinds {
		if got[k] != in.Paid[k]+rec[k] {
			l.bad("%s is %d: %d paid and %d receivable", income[k], got[k], in.Paid[k], rec[k])
		}
		if got[k] != booked[k]-in.Waived[k]-mem[k] {
			l.bad("%s is %d: %d accrued, %d waived, %d in the memo", income[k], got[k], booked[k], in.Waived[k], mem[k])
		}
	}
	if in.Interest+in.Service != in.Net-itemsAdv+rec[interest]+rec[service] {
		l.bad("interest and service income %d: the payments put %d to them and gave back %d; %d is paid ahead, %d receivable",
			in.Interest+in.Service, in.Gross, in.GivenBack, itemsAdv, rec[interest]+rec[service])
	}
	if in.Penalty != in.PenaltyPaid-b.penAdv+rec[penaltyKind] {
		l.bad("penalty income %d: %d paid, %d of it ahead, %d receivable", in.Penalty, in.PenaltyPaid, b.penAdv, rec[penaltyKind])
	}
	// Principal.
	var unpaid, overdue int64
	last := l.calendar // at a close, the items due on it have moved to OVERDUE_PRINCIPAL
	if !closing {
		last = last.AddDate(0, 0, -1)
	}
	for k, it := range l.items {
		unpaid += l.unpaid(k)
		if !it.date.After(last) {
			overdue += l.unpaid(k)
		}
	}
	if b.writtenOff {
		if b.bal[LoanPrincipal] != 0 || b.bal[OverduePrincipal] != 0 || b.bal[Provision] != 0 || rec != [chargeKinds]int64{} {
			l.bad("a loan written off keeps LOAN %d, OVERDUE_PRINCIPAL %d, PROVISION %d, receivables %v", b.bal[LoanPrincipal],
				b.bal[OverduePrincipal], -b.bal[Provision], rec)
		}
		if b.bal[MemoWrittenOff] != b.writtenOffP-b.recovered || -b.bal[RecoveryIncome] != b.recovered {
			l.bad("MEMO_WRITTEN_OFF %d and RECOVERY_INCOME %d: %d written off, %d recovered", b.bal[MemoWrittenOff],
				-b.bal[RecoveryIncome], b.writtenOffP, b.recovered)
		}
	} else if b.bal[LoanPrincipal]+b.bal[OverduePrincipal] != unpaid || b.bal[OverduePrincipal] != overdue {
		l.bad("LOAN %d and OVERDUE_PRINCIPAL %d, the items owe %d of which %d overdue", b.bal[LoanPrincipal], b.bal[OverduePrincipal], unpaid, overdue)
	}
	if !closing {
		return
	}
	// A close: the day balanced, nothing is left paid or waived ahead of the penalty, the
	// accruals are the loan's, and a loan in non-accrual has no receivable.
	for off := range 2 {
		if b.day[off][0] != b.day[off][1] {
			l.bad("the day's debits %d and credits %d differ (off balance %t)", b.day[off][0], b.day[off][1], off == 1)
		}
	}
	b.day = [2][2]int64{}
	if b.penAdv != 0 || b.penWaivedAhead != 0 {
		l.bad("after the close %d of the penalty is paid ahead and %d waived ahead", b.penAdv, b.penWaivedAhead)
	}
	for _, it := range l.items {
		if it.bk.booked[0] != roundHalfUp(it.accI) || it.bk.booked[1] != roundHalfUp(it.accS) {
			l.bad("the item of %s booked %d and %d, its accrual is %s and %s", it.date.Format(time.DateOnly), it.bk.booked[0], it.bk.booked[1],
				it.accI.FloatString(3), it.accS.FloatString(3))
		}
	}
	if b.bookedP != roundHalfUp(l.penalty) {
		l.bad("the penalty booked is %d, its accrual %s", b.bookedP, l.penalty.FloatString(3))
	}
	if b.nonAccrual && rec != [chargeKinds]int64{} {
		l.bad("a loan in non-accrual keeps receivables %v", rec)
	}
	// Over the loan's life (§9.1): once it is closed and its last day closed, interest and
	// service income are what was paid less what was given back, the penalty's what was paid,
	// and each kind's income what was paid on it.
	if l.closed {
		if rec != [chargeKinds]int64{} || mem != [chargeKinds]int64{} || itemsAdv != 0 {
			l.bad("a closed loan keeps receivables %v, memo %v, paid ahead %d", rec, mem, itemsAdv)
		}
		if in.Interest+in.Service != in.Gross-in.GivenBack || in.Penalty != in.PenaltyPaid {
			l.bad("over its life: income %d + %d, %d paid less %d given back; penalty income %d, %d paid", in.Interest, in.Service,
				in.Gross, in.GivenBack, in.Penalty, in.PenaltyPaid)
		}
	}
}
