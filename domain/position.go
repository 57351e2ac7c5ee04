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

// PositionAt computes the loan's position at now from its schedule. An item is overdue from
// the day after its due date; the penalty accrues daily on overdue principal at the loan's
// daily penalty percent, and stops where interest, service and penalty accrued in the 365 days
// up to today would exceed half of the amount.
func (l *Loan) PositionAt(schedule []ScheduleItem, now time.Time) Position {
	today := BusinessDate(now)
	var p Position
	var chargesInYear int64
	yearAgo := today.AddDate(0, 0, -365)
	var penalty int64
	periodStart := BusinessDate(l.issuedAt)
	current := -1
	for i, it := range schedule {
		if it.PaymentDate.Before(today) {
			p.OverduePrincipal += it.Principal
			p.OverdueInterest += it.Interest + it.Service
			days := DaysBetween(it.PaymentDate, today)
			penalty += Accrue(it.Principal, l.penaltyDaily, days*365)
			if it.PaymentDate.After(yearAgo) {
				chargesInYear += it.Interest + it.Service
			}
			periodStart = it.PaymentDate
			continue
		}
		if current < 0 {
			current = i
		}
		p.NotDuePrincipal += it.Principal
	}
	if current >= 0 {
		days := DaysBetween(periodStart, today)
		p.TermInterest = Accrue(p.NotDuePrincipal, l.rate, days) + Accrue(p.NotDuePrincipal, l.serviceRate, days)
		chargesInYear += p.TermInterest
	}
	capRoom := int64(l.amount)/CapShare - chargesInYear
	p.Penalty = max(0, min(penalty, capRoom))
	return p
}

// AssignContract records the contract number core banking gave the loan (loanId).
func (l *Loan) AssignContract(number string) error {
	n, err := ParseContractNumber(number)
	if err != nil {
		return err
	}
	l.contractNumber = n
	return nil
}
