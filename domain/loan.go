package domain

import (
	"time"

	"github.com/google/uuid"
)

// ErrLoanNotFound means no loan of the partner matches the given application or loan id.
var ErrLoanNotFound = refusal("loan-not-found", "loan not found")

// LoanProduct is what a new loan gets besides the offer: its id (chosen by the caller, so the
// domain stays free of randomness) and the product's current settings, which the loan keeps
// for its whole life.
type LoanProduct struct {
	LoanID       uuid.UUID
	ServiceRate  Percent
	PenaltyDaily Percent // penalty per day on overdue principal, in percent
	ScheduleType ScheduleType
}

// Loan is an issued microloan. Its terms are copied at issuance and never change afterwards;
// the contract number arrives later from core banking.
type Loan struct {
	id, applicationID, partnerID uuid.UUID
	amount                       Amount
	monthPeriod                  int
	rate, serviceRate            Percent
	penaltyDaily                 Percent
	scheduleType                 ScheduleType
	accountNumber                string
	contractNumber               string
	issuedAt                     time.Time
	// repayments counts the changes to the loan's debt: posted repayments and operators'
	// actions; a repayment request quotes it to detect change.
	repayments int
	closedAt   time.Time
	// writtenOffAt is when operators wrote the loan off; its debt stands still from that day.
	writtenOffAt time.Time
	bookState    *BookState // as stored; nil before the first repayment
	book         *book      // built on first use
	// books is the loan's standing in the accrual books, nil before its first close (until
	// then its payments are booked on a cash basis, and its first close opens its books).
	books *BooksState
	events
}

func newLoan(a *Application, p LoanProduct, now time.Time) *Loan {
	st := p.ScheduleType
	if st == (ScheduleType{}) {
		st = ScheduleAnnuity
	}
	return &Loan{
		id: p.LoanID, applicationID: a.id, partnerID: a.partnerID,
		amount: a.offer.Amount, monthPeriod: a.offer.MonthPeriod, rate: a.offer.Percent,
		serviceRate: p.ServiceRate, penaltyDaily: p.PenaltyDaily, scheduleType: st,
		accountNumber: a.accountNumber, issuedAt: now,
	}
}

// LoanState is every stored field of a loan, for repositories only.
type LoanState struct {
	ID, ApplicationID, PartnerID uuid.UUID
	Amount                       Amount
	MonthPeriod                  int
	Rate, ServiceRate            Percent
	PenaltyDaily                 Percent
	ScheduleType                 ScheduleType
	AccountNumber                string
	ContractNumber               string
	IssuedAt                     time.Time
	Repayments                   int
	ClosedAt                     time.Time // zero while open
	WrittenOffAt                 time.Time // zero unless written off
	Book                         *BookState
	Books                        *BooksState // nil before the loan's first close
}

// RestoreLoan rebuilds a loan from storage. Only repositories may call it: it skips every rule.
func RestoreLoan(s LoanState) *Loan {
	return &Loan{id: s.ID, applicationID: s.ApplicationID, partnerID: s.PartnerID,
		amount: s.Amount, monthPeriod: s.MonthPeriod, rate: s.Rate, serviceRate: s.ServiceRate,
		penaltyDaily: s.PenaltyDaily, scheduleType: s.ScheduleType, accountNumber: s.AccountNumber,
		contractNumber: s.ContractNumber, issuedAt: s.IssuedAt, repayments: s.Repayments, closedAt: s.ClosedAt,
		writtenOffAt: s.WrittenOffAt, bookState: s.Book, books: s.Books}
}

// State returns every field, for repositories to store.
func (l *Loan) State() LoanState {
	s := LoanState{ID: l.id, ApplicationID: l.applicationID, PartnerID: l.partnerID,
		Amount: l.amount, MonthPeriod: l.monthPeriod, Rate: l.rate, ServiceRate: l.serviceRate,
		PenaltyDaily: l.penaltyDaily, ScheduleType: l.scheduleType, AccountNumber: l.accountNumber,
		ContractNumber: l.contractNumber, IssuedAt: l.issuedAt, Repayments: l.repayments, ClosedAt: l.closedAt,
		WrittenOffAt: l.writtenOffAt, Book: l.bookState, Books: l.booksCopy()}
	if l.book != nil && l.repayments > 0 {
		s.Book = l.book.clone()
	}
	return s
}

// Terms returns what the schedule is computed from.
func (l *Loan) Terms() LoanTerms {
	return LoanTerms{Amount: l.amount, MonthPeriod: l.monthPeriod, Rate: l.rate, ServiceRate: l.serviceRate,
		Type: l.scheduleType, IssuedOn: BusinessDate(l.issuedAt)}
}

// PartnerID returns the owning partner.
func (l *Loan) PartnerID() uuid.UUID { return l.partnerID }

// IssuancePosting moves the principal onto the client's demand account.
func (l *Loan) IssuancePosting(id uuid.UUID) (Posting, error) {
	return Move(id, PostingIssuance, l.id, l.issuedAt, int64(l.amount),
		LoanAccount(AccountLoan, l.id), LoanAccount(AccountDemand, l.id))
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

// AccountNumber is the client's demand account at core banking, which the loan was paid onto.
func (l *Loan) AccountNumber() string { return l.accountNumber }

// ContractNumber returns the loan contract number (loanId), empty until core banking assigns it.
func (l *Loan) ContractNumber() string { return l.contractNumber }

// IssuedAt returns the moment the loan was issued.
func (l *Loan) IssuedAt() time.Time { return l.issuedAt }

// Repayments returns the number of changes to the debt: posted repayments and operators' actions.
func (l *Loan) Repayments() int { return l.repayments }

// Closed reports whether the loan is paid off.
func (l *Loan) Closed() bool { return !l.closedAt.IsZero() }
