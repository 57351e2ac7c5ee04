package domain

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Loan action errors.
var (
	// ErrActionAmount means a waiver's amount is above what is owed, or there is nothing to waive.
	ErrActionAmount = errors.New("the amount must be positive and not above what is owed")
	// ErrLoanWrittenOff means the loan is written off already.
	ErrLoanWrittenOff = errors.New("the loan is written off already")
)

// LoanStatus is where a loan stands: ACTIVE until paid off (CLOSED) or written off
// (WRITTEN_OFF). A written-off loan that recovers its whole debt is CLOSED.
type LoanStatus struct{ s string }

// The loan statuses.
var (
	LoanActive     = LoanStatus{"ACTIVE"}
	LoanClosed     = LoanStatus{"CLOSED"}
	LoanWrittenOff = LoanStatus{"WRITTEN_OFF"}
)

// String returns the name.
func (s LoanStatus) String() string { return s.s }

// Status returns the loan's status.
func (l *Loan) Status() LoanStatus {
	switch {
	case l.Closed():
		return LoanClosed
	case l.WrittenOff():
		return LoanWrittenOff
	}
	return LoanActive
}

// WrittenOff reports whether the loan was written off (and not recovered in full since).
func (l *Loan) WrittenOff() bool { return !l.writtenOffAt.IsZero() && !l.Closed() }

// WrittenOffAt returns when the loan was written off, zero if never.
func (l *Loan) WrittenOffAt() time.Time { return l.writtenOffAt }

// Waived returns the interest (with service) and the penalty operators have waived.
func (l *Loan) Waived() (interest, penalty int64, err error) {
	b, err := l.repaymentBook()
	if err != nil {
		return 0, 0, err
	}
	return b.InterestWaived, b.PenaltyWaived, nil
}

// dayOf is the business date the loan's debt is taken at for now: today, or the day it was
// written off, from which on its debt stands still (nothing accrues on a written-off loan).
func (l *Loan) dayOf(now time.Time) time.Time {
	day := BusinessDate(now)
	if !l.writtenOffAt.IsZero() {
		if off := BusinessDate(l.writtenOffAt); off.Before(day) {
			return off
		}
	}
	return day
}

// openBook is the book of a loan still owing, for an operator's action.
func (l *Loan) openBook() (*book, error) {
	if l.Closed() {
		return nil, ErrLoanClosed
	}
	return l.repaymentBook()
}

// WaivePenalty forgives amount of the penalty owed at now, or all of it for 0. It returns the
// amount waived. Nothing moves in the ledger: penalty is income only when paid.
func (l *Loan) WaivePenalty(now time.Time, amount int64) (int64, error) {
	b, err := l.openBook()
	if err != nil {
		return 0, err
	}
	owed := b.at(l.dayOf(now)).Penalty
	if amount, err = waivable(amount, owed, "penalty"); err != nil {
		return 0, err
	}
	b.PenaltyWaived += amount
	l.changed(now, LoanChanged{Action: ActionWaivePenalty, Amount: amount}, b)
	return amount, nil
}

// WaiveInterest forgives amount of the overdue interest and service owed at now, or all of it
// for 0, oldest items first. It returns the amount waived. Interest not yet due cannot be
// waived: it is not owed yet, and a restructuring is what changes it. Nothing moves in the
// ledger: interest is income only when paid.
func (l *Loan) WaiveInterest(now time.Time, amount int64) (int64, error) {
	b, err := l.openBook()
	if err != nil {
		return 0, err
	}
	day := l.dayOf(now)
	s := b.at(day)
	if amount, err = waivable(amount, s.OverdueInterest, "overdue interest"); err != nil {
		return 0, err
	}
	b.keepPenalty(day, s)
	b.fold(day)
	paid := make([]int64, len(b.Items))
	for k := range b.Items {
		paid[k] = b.Items[k].PaidCharges
	}
	b.payOverdue(day, b.notDue(), 0, amount)
	for k := range b.Items {
		b.Items[k].WaivedCharges += b.Items[k].PaidCharges - paid[k]
	}
	b.InterestWaived += amount
	l.changed(now, LoanChanged{Action: ActionWaiveInterest, Amount: amount}, b)
	return amount, nil
}

// waivable is the amount a waiver of what (owed now) forgives: amount, or all for 0.
func waivable(amount, owed int64, what string) (int64, error) {
	if owed <= 0 {
		return 0, fmt.Errorf("%w: no %s is owed", ErrActionAmount, what)
	}
	if amount == 0 {
		return owed, nil
	}
	if amount < 0 || amount > owed {
		return 0, fmt.Errorf("%w: %d tiyin of %s is owed", ErrActionAmount, owed, what)
	}
	return amount, nil
}

// WriteOff takes the loan out of the active portfolio at now: its debt stands still from that
// business day on. A later payment is a recovery, applied to the debt as it stood on that day in
// the legal order. The posting writes its principal off on the accrual basis, the same whether
// or not a close has run for the loan: against its provision first, the rest to
// WRITE_OFF_EXPENSE, recorded in the written-off memo, its receivables to the non-accrual memo
// (BooksState.WriteOff); nil when it moves nothing. A loan written off before its first close
// opens its books at the write-off (booksAtWriteOff), and the posting carries that opening too.
func (l *Loan) WriteOff(postingID uuid.UUID, now time.Time) (*Posting, error) {
	b, err := l.openBook()
	if err != nil {
		return nil, err
	}
	if !l.writtenOffAt.IsZero() {
		return nil, ErrLoanWrittenOff
	}
	principal := b.notDue()[0] // the loan account's balance: the principal of every item not yet paid
	l.writtenOffAt = now
	l.changed(now, LoanChanged{Action: ActionWriteOff, Amount: principal}, b)
	if err := l.itemBooks(); err != nil {
		return nil, err
	}
	day := BusinessDate(now)
	var opening []Entry
	if l.books == nil {
		st, es, err := l.booksAtWriteOff(day)
		if err != nil {
			return nil, err
		}
		l.books, opening = &st, es
	}
	// Its receivables go to the memo even when it owes no principal.
	_, _, penalty, err := l.AccruedThrough(day)
	if err != nil {
		return nil, err
	}
	st, entries := l.books.WriteOff(l.id, principal, penalty)
	l.books = &st
	if entries = append(opening, entries...); len(entries) == 0 {
		return nil, nil
	}
	p, err := NewPosting(postingID, PostingWriteOff, l.id, now, entries...)
	return &p, err
}

// changed records an operator's change to the loan: its version moves on (a repayment request
// checked before it can no longer be paid), a loan that owes nothing more is closed, and the
// partner is told.
func (l *Loan) changed(now time.Time, what LoanChanged, b *book) {
	l.repayments++
	if b.at(l.dayOf(now)).Payoff() == 0 {
		l.closedAt = now
	}
	what.ApplicationID, what.ContractNumber, what.Status = l.applicationID, l.contractNumber, l.Status()
	l.record(l.partnerID, now, what)
}

// The operators' actions on a loan's money: proposals, approved by a second officer.
const (
	ActionManualRepayment ProposalKind = "MANUAL_REPAYMENT"
	ActionWaivePenalty    ProposalKind = "WAIVE_PENALTY"
	ActionWaiveInterest   ProposalKind = "WAIVE_INTEREST"
	ActionWriteOff        ProposalKind = "WRITE_OFF"
	ActionExtendTerm      ProposalKind = "EXTEND_TERM"
	ActionPaymentHoliday  ProposalKind = "PAYMENT_HOLIDAY"
	// ActionRestructureArrears is a longer term that capitalises the arrears (RestructureArrears).
	ActionRestructureArrears ProposalKind = "RESTRUCTURE_ARREARS"
)

// IsLoanAction reports whether the proposal's kind acts on a loan's money.
func (k ProposalKind) IsLoanAction() bool {
	switch k {
	case ActionManualRepayment, ActionWaivePenalty, ActionWaiveInterest, ActionWriteOff, ActionExtendTerm, ActionPaymentHoliday,
		ActionRestructureArrears:
		return true
	}
	return false
}

// LoanActionTerms are what a loan action proposes besides its reason (the proposal's note)
// and a manual repayment's reference (its ref).
type LoanActionTerms struct {
	// Amount is a manual repayment's amount, or a waiver's (0 waives all that is owed at
	// approval); a write-off has none: it takes the principal owed.
	Amount      int64
	PaymentType PaymentType // a manual repayment's
	Channel     Channel     // a manual repayment's
	// Months is a restructuring's: the months a term extension adds, or a payment holiday's
	// length (which extends the term as much).
	Months int
}

// NewLoanActionProposal records an officer's proposal of an action on loan. The note is the
// reason, required: the approver decides on it and the audit log keeps it.
func NewLoanActionProposal(id uuid.UUID, kind ProposalKind, loan uuid.UUID, terms LoanActionTerms, ref, note string,
	by uuid.UUID, now time.Time) (*Proposal, error) {
	note, ref = strings.TrimSpace(note), strings.TrimSpace(ref)
	incomplete := func(msg string) (*Proposal, error) { return nil, fmt.Errorf("%w: %s", ErrProposalIncomplete, msg) }
	switch {
	case !kind.IsLoanAction():
		return incomplete("unknown action")
	case note == "" || len(note) > 500:
		return incomplete("give the reason (up to 500 characters)")
	case len(ref) > 100:
		return incomplete("the reference is at most 100 characters")
	case kind == ActionManualRepayment && terms.Amount <= 0:
		return incomplete("a repayment's amount is positive")
	case kind == ActionManualRepayment && terms.PaymentType != PaymentTerm && terms.PaymentType != PaymentEarly:
		return incomplete("a repayment is TERM or EARLY")
	case terms.Amount < 0:
		return incomplete("an amount is not negative")
	case (kind == ActionWriteOff || kind == ActionExtendTerm || kind == ActionPaymentHoliday || kind == ActionRestructureArrears) && terms.Amount != 0:
		return incomplete("this action has no amount")
	case (kind == ActionExtendTerm || kind == ActionRestructureArrears) && (terms.Months < 1 || terms.Months > MaxMonthPeriod):
		return incomplete("extend the term by 1 to 35 months")
	case kind == ActionPaymentHoliday && (terms.Months < 1 || terms.Months > 3):
		return incomplete("a payment holiday is 1 to 3 months")
	}
	if kind == ActionManualRepayment {
		if _, err := manualReceipt(terms.Channel, ref); err != nil {
			return nil, err
		}
	}
	if kind != ActionExtendTerm && kind != ActionPaymentHoliday && kind != ActionRestructureArrears {
		terms.Months = 0
	}
	if kind != ActionManualRepayment {
		terms.PaymentType, terms.Channel = PaymentType{}, Channel{}
	}
	return &Proposal{ID: id, Kind: kind, ObjectID: loan, Done: true, Ref: ref, Note: note, Action: terms,
		Status: ProposalOpen, ProposedBy: by, ProposedAt: now}, nil
}

// ActionOutcome is what a loan action did: the amount it paid, waived or wrote off, its
// postings, and a manual repayment's request (paid), for the payments list.
type ActionOutcome struct {
	Amount    int64
	Postings  []Posting
	Repayment *Repayment
}

// ApplyTo applies the loan action p to loan at now; postingID names its posting, repaymentID
// a manual repayment's request. The preview applies it to a copy of the loan, the approval to
// the loan itself, so both show the same.
func (p *Proposal) ApplyTo(loan *Loan, postingID, repaymentID uuid.UUID, now time.Time) (ActionOutcome, error) {
	if loan.id != p.ObjectID {
		return ActionOutcome{}, ErrLoanNotFound
	}
	var out ActionOutcome
	var err error
	switch p.Kind {
	case ActionManualRepayment:
		var posting Posting
		out.Repayment, posting, err = PostManually(repaymentID, loan, Payment{Type: p.Action.PaymentType, Amount: p.Action.Amount,
			Channel: p.Action.Channel, DebitID: p.Ref, ExternalID: p.ID, TransactionID: postingID, At: now})
		out.Amount, out.Postings = p.Action.Amount, []Posting{posting}
	case ActionWaivePenalty:
		if out.Amount, err = loan.WaivePenalty(now, p.Action.Amount); err == nil {
			err = out.addWaiver(loan, postingID, now, nil, out.Amount)
		}
	case ActionWaiveInterest:
		var b *book
		if b, err = loan.repaymentBook(); err != nil {
			return out, err
		}
		before := b.chargesPaid()
		if out.Amount, err = loan.WaiveInterest(now, p.Action.Amount); err == nil {
			err = out.addWaiver(loan, postingID, now, b.paidSince(before), 0)
		}
	case ActionExtendTerm:
		err = loan.Restructure(now, p.Action.Months, 0)
	case ActionPaymentHoliday:
		err = loan.Restructure(now, p.Action.Months, p.Action.Months)
	case ActionRestructureArrears:
		var c Capitalised
		var posting *Posting
		if c, posting, err = loan.RestructureArrears(postingID, now, p.Action.Months); posting != nil {
			out.Postings = []Posting{*posting}
		}
		out.Amount = c.Principal + c.Charges()
	case ActionWriteOff:
		var posting *Posting
		if posting, err = loan.WriteOff(postingID, now); posting != nil {
			out.Postings = []Posting{*posting}
			for _, e := range posting.Entries { // the principal: credited to the loan's principal accounts
				if e.Account.Kind == AccountLoan || e.Account.Kind == AccountOverduePrincipal {
					out.Amount += e.Credit
				}
			}
		}
	default:
		return out, fmt.Errorf("%w: %s is not a loan action", ErrProposalIncomplete, p.Kind)
	}
	return out, err
}

// addWaiver adds the books' reversal of a waiver's accrual to the outcome's postings.
func (o *ActionOutcome) addWaiver(loan *Loan, id uuid.UUID, now time.Time, charges []int64, penalty int64) error {
	p, err := loan.waiverPosting(id, now, charges, penalty)
	if p != nil {
		o.Postings = append(o.Postings, *p)
	}
	return err
}

// LoanChanged tells an operator's action on a loan: a waiver, a restructuring or a write-off (a
// manual repayment is told as a repayment). Amount is what was waived or the principal written
// off; Months a restructuring's (the term's extension or the holiday's length).
// The operators' reason stays in the audit log: it is not the partner's to read.
type LoanChanged struct {
	ApplicationID  uuid.UUID
	ContractNumber string
	Action         ProposalKind
	Amount         int64
	Months         int
	Status         LoanStatus
}

// EventType implements EventData.
func (LoanChanged) EventType() EventType { return EventLoanChanged }

// Object implements EventData.
func (d LoanChanged) Object() uuid.UUID { return d.ApplicationID }

// PostManually posts a repayment the bank's operators received by hand, at the cash desk or by
// bank transfer, with its receipt's or transfer's reference in p.DebitID: a repayment request
// checked and paid at p.At, applied in the legal order like any. On a written-off loan it is a
// recovery.
func PostManually(id uuid.UUID, loan *Loan, p Payment) (*Repayment, Posting, error) {
	var err error
	if p.DebitID, err = manualReceipt(p.Channel, p.DebitID); err != nil {
		return nil, Posting{}, err
	}
	r, err := NewRepayment(id, loan, 0, p.At)
	if err != nil {
		return nil, Posting{}, err
	}
	posting, err := r.Pay(loan, p)
	return r, posting, err
}

// manualReceipt checks how a manual repayment's money came (the cash desk or a bank transfer)
// and returns its receipt's or transfer's reference, trimmed.
func manualReceipt(channel Channel, ref string) (string, error) {
	if channel != ChannelCashDesk && channel != ChannelBankTransfer {
		return "", fmt.Errorf("%w: a manual repayment comes by the cash desk or a bank transfer", ErrProposalIncomplete)
	}
	if ref = strings.TrimSpace(ref); ref == "" || len(ref) > 100 {
		return "", fmt.Errorf("%w: give the receipt's or the transfer's reference (up to 100 characters)", ErrProposalIncomplete)
	}
	return ref, nil
}

// LoanCost is what a loan costs its client as it stands: the interest and service of its
// schedule, the penalty accrued to the day, less what operators waived. WithinCap says the
// schedule's charges stay within the Central Bank's cap in every 365-day window (§8.3).
type LoanCost struct {
	Charges, Penalty, Waived int64
	WithinCap                bool
}

// Total is the cost: charges and penalty less the waived.
func (c LoanCost) Total() int64 { return c.Charges + c.Penalty - c.Waived }

// CostAt is the loan's cost at now.
func (l *Loan) CostAt(now time.Time) (LoanCost, error) {
	b, err := l.repaymentBook()
	if err != nil {
		return LoanCost{}, err
	}
	items := b.schedule()
	var c LoanCost
	for _, it := range items {
		c.Charges += it.Interest + it.Service
	}
	_, penalty := b.penaltySince(l.dayOf(now), b.notDue())
	c.Penalty, c.Waived = penalty.round(), b.InterestWaived+b.PenaltyWaived
	c.WithinCap = ScheduledChargesWithinCap(l.Terms(), items)
	return c, nil
}
