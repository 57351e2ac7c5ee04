package domain

import (
	"errors"
	"time"

	"github.com/google/uuid"
)

// ErrLoanNotFound means no loan of the partner matches the given application or loan id.
var ErrLoanNotFound = errors.New("loan not found")

// LoanIDs are the identifiers a new loan gets, chosen by the caller so the domain stays free of
// randomness.
type LoanIDs struct {
	LoanID uuid.UUID
}

// Loan is an issued microloan. Its terms are copied from the application at issuance and never
// change afterwards; the contract number arrives later from core banking.
type Loan struct {
	id, applicationID, partnerID uuid.UUID
	amount                       Amount
	monthPeriod                  int
	rate                         Percent
	accountNumber                string
	contractNumber               string
	issuedAt                     time.Time
}

func newLoan(a *Application, ids LoanIDs, now time.Time) *Loan {
	return &Loan{
		id: ids.LoanID, applicationID: a.id, partnerID: a.partnerID,
		amount: a.offer.Amount, monthPeriod: a.offer.MonthPeriod, rate: a.offer.Percent,
		accountNumber: a.accountNumber, issuedAt: now,
	}
}

// LoanState is every stored field of a loan, for repositories only.
type LoanState struct {
	ID, ApplicationID, PartnerID uuid.UUID
	Amount                       Amount
	MonthPeriod                  int
	Rate                         Percent
	AccountNumber                string
	ContractNumber               string
	IssuedAt                     time.Time
}

// RestoreLoan rebuilds a loan from storage. Only repositories may call it: it skips every rule.
func RestoreLoan(s LoanState) *Loan {
	return &Loan{id: s.ID, applicationID: s.ApplicationID, partnerID: s.PartnerID,
		amount: s.Amount, monthPeriod: s.MonthPeriod, rate: s.Rate, accountNumber: s.AccountNumber,
		contractNumber: s.ContractNumber, issuedAt: s.IssuedAt}
}

// State returns every field, for repositories to store.
func (l *Loan) State() LoanState {
	return LoanState{ID: l.id, ApplicationID: l.applicationID, PartnerID: l.partnerID,
		Amount: l.amount, MonthPeriod: l.monthPeriod, Rate: l.rate, AccountNumber: l.accountNumber,
		ContractNumber: l.contractNumber, IssuedAt: l.issuedAt}
}

// ID returns the loan's internal id.
func (l *Loan) ID() uuid.UUID { return l.id }

// ApplicationID returns the application the loan was issued on.
func (l *Loan) ApplicationID() uuid.UUID { return l.applicationID }

// Amount returns the principal.
func (l *Loan) Amount() Amount { return l.amount }

// MonthPeriod returns the term in months.
func (l *Loan) MonthPeriod() int { return l.monthPeriod }

// Rate returns the annual interest rate.
func (l *Loan) Rate() Percent { return l.rate }

// ContractNumber returns the loan contract number (loanId), empty until core banking assigns it.
func (l *Loan) ContractNumber() string { return l.contractNumber }

// IssuedAt returns the moment the loan was issued.
func (l *Loan) IssuedAt() time.Time { return l.issuedAt }
