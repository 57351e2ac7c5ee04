package domain

import (
	"errors"
	"time"
)

// Position is what a loan's client owes at a moment. It is a pure function of the loan's terms,
// its schedule and the moment, so any call can decide it against the Clock.
type Position struct {
	// NotDuePrincipal is principal whose due date has not passed (mainDebtAmount).
	NotDuePrincipal int64
	// OverduePrincipal is principal of items not paid by the end of their due date.
	OverduePrincipal int64
	// OverdueInterest is interest and service of overdue items.
	OverdueInterest int64
	// TermInterest is interest and service accrued in the current period up to today.
	TermInterest int64
	// Penalty is the penalty accrued on overdue principal, within the Central Bank cap.
	Penalty int64
}

// Payoff is everything needed to close the loan today (totalResidue).
func (p Position) Payoff() int64 {
	return p.NotDuePrincipal + p.OverduePrincipal + p.OverdueInterest + p.TermInterest + p.Penalty
}

// Fine is all debt on overdue payments: overdue principal, overdue interest and penalty
// (totalFine).
func (p Position) Fine() int64 { return p.OverduePrincipal + p.OverdueInterest + p.Penalty }

// ErrContractNumber means a contract number is not 1 to 32 digits.
var ErrContractNumber = errors.New("must be the loan contract number: 1 to 32 digits")

// ParseContractNumber accepts a loan contract number (loanId): 1 to 32 digits.
func ParseContractNumber(s string) (string, error) {
	if len(s) > 32 || !isDigits(s) {
		return "", ErrContractNumber
	}
	return s, nil
}

// PositionAt computes the loan's position at now from its schedule and repayments. An item
// not fully paid by the end of its payment date is overdue from the next day; the penalty
// accrues daily on overdue principal at the loan's daily penalty percent, and stops where
// interest, service and penalty accrued in the 365 days up to today would exceed half of the
// amount. A closed loan owes nothing.
func (l *Loan) PositionAt(now time.Time) (Position, error) {
	b, err := l.repaymentBook()
	if err != nil || !l.closedAt.IsZero() {
		return Position{}, err
	}
	return b.at(l.dayOf(now)).Position, nil
}

// Schedule returns the loan's schedule as it stands: the original one, with the items that
// repayments recomputed.
func (l *Loan) Schedule() ([]ScheduleItem, error) {
	b, err := l.repaymentBook()
	if err != nil {
		return nil, err
	}
	return b.schedule(), nil
}

// ItemStanding is a schedule item at a business date: what it asks (ScheduleItem), what was
// paid on it, and whether it is overdue: not fully paid by the end of its payment date.
type ItemStanding struct {
	ScheduleItem
	PaidPrincipal int64
	// PaidCharges is interest and service settled on the item (interest paid ahead of its days
	// that a later fall of the principal applied to principal is not counted): paid, or waived
	// by operators (WaivedCharges of it).
	PaidCharges   int64
	WaivedCharges int64
	Overdue       bool
	// DaysOverdue counts the days since the payment date; 0 unless Overdue.
	DaysOverdue int
}

// OutstandingPrincipal is the item's principal not yet paid.
func (it ItemStanding) OutstandingPrincipal() int64 { return it.Principal - it.PaidPrincipal }

// PaidOnlyCharges is the item's interest and service paid with money, not waived.
func (it ItemStanding) PaidOnlyCharges() int64 { return it.PaidCharges - it.WaivedCharges }

// OutstandingCharges is the item's interest and service not yet paid. For the current item
// it is the whole period's, as the schedule shows it, not what accrued to date.
func (it ItemStanding) OutstandingCharges() int64 { return it.Interest + it.Service - it.PaidCharges }

// ItemsAt returns the loan's schedule at now item by item, with what was paid on each and what
// is overdue: the overdue items' outstanding principal and charges add up to PositionAt's
// OverduePrincipal and OverdueInterest.
func (l *Loan) ItemsAt(now time.Time) ([]ItemStanding, error) {
	b, err := l.repaymentBook()
	if err != nil {
		return nil, err
	}
	day := l.dayOf(now)
	sched := b.schedule()
	out := make([]ItemStanding, 0, len(sched))
	for k := range b.Items {
		it := &b.Items[k]
		if it.Gone {
			continue
		}
		s := ItemStanding{ScheduleItem: sched[len(out)], PaidPrincipal: it.PaidPrincipal, PaidCharges: it.PaidCharges,
			WaivedCharges: it.WaivedCharges}
		if it.PaymentDate.Before(day) && (s.OutstandingPrincipal() != 0 || s.OutstandingCharges() != 0) {
			s.Overdue, s.DaysOverdue = true, DaysBetween(it.PaymentDate, day)
		}
		out = append(out, s)
	}
	return out, nil
}

// FirstUnpaidDue is the payment date of the loan's earliest schedule item not fully paid
// (a business date): the loan is overdue from the day after it, by the days since (as
// ItemsAt's oldest overdue item). False when the loan is closed or written off (out of the
// active portfolio) or owes nothing on its items.
func (l *Loan) FirstUnpaidDue() (time.Time, bool, error) {
	if l.Status() != LoanActive {
		return time.Time{}, false, nil
	}
	items, err := l.ItemsAt(l.issuedAt)
	if err != nil {
		return time.Time{}, false, err
	}
	for _, it := range items {
		if it.OutstandingPrincipal() != 0 || it.OutstandingCharges() != 0 {
			return it.PaymentDate, true, nil
		}
	}
	return time.Time{}, false, nil
}

// repaymentBook returns the loan's repayment book, built from its terms before the first repayment.
func (l *Loan) repaymentBook() (*book, error) {
	if l.book == nil && l.bookState != nil {
		l.book = &book{BookState: *l.bookState.clone(), terms: l.Terms(), penaltyDaily: l.penaltyDaily}
	}
	if l.book == nil {
		b, err := newBook(l.Terms(), l.penaltyDaily)
		if err != nil {
			return nil, err
		}
		l.book = b
	}
	return l.book, nil
}

// AssignContract records the contract number core banking gave the loan (loanId).
func (l *Loan) AssignContract(number string, now time.Time) error {
	n, err := ParseContractNumber(number)
	if err != nil {
		return err
	}
	l.contractNumber = n
	l.record(l.partnerID, now, LoanContractAssigned{ApplicationID: l.applicationID, ContractNumber: n})
	return nil
}
