package client

import (
	"context"
	"time"
)

// Loans read an issued loan, its repayment schedule and the repayments made (endpoints 9–11).
// A loan is named by its application until core banking gives it a contract number, its
// LoanID, and by that number afterwards.
type Loans struct{ c *Client }

// Loan is an issued loan. LoanID, the contract number, is "" until core banking assigns it
// (no earlier than 30 minutes after issuance: the LOAN_CONTRACT_ASSIGNED event tells it).
// TotalResidue is everything that closes the loan today, TotalFine all debt on overdue
// payments; amounts are in tiyin.
type Loan struct {
	ApplicationID UUID       `json:"applicationId"`
	LoanID        string     `json:"loanId"`
	Status        LoanStatus `json:"status"`
	Amount        int64      `json:"amount"`
	MonthPeriod   int        `json:"monthPeriod"`
	Rate          Percent    `json:"rate"`
	TotalResidue  int64      `json:"totalResidue"`
	TotalFine     int64      `json:"totalFine"`
}

// Info reads the loan of an application: code 1013 while the application is not
// ApplicationCompleted, 1012 for an unknown one.
func (l *Loans) Info(ctx context.Context, applicationID UUID, opts ...CallOption) (*Loan, error) {
	return call[Loan](ctx, l.c, l.c.api.GetLoanWithBody, applicationIDParams{applicationID}, opts)
}

// ScheduleItem is one month of a loan's schedule, due at PaymentDate (00:00 in Tashkent).
// TotalResidue is the principal left after it; amounts are in tiyin.
type ScheduleItem struct {
	PaymentDate             time.Time `json:"paymentDate"`
	PeriodDays              int       `json:"periodDays"`
	TotalRepaymentAmount    int64     `json:"totalRepaymentAmount"`
	LoanRepaymentAmount     int64     `json:"loanRepaymentAmount"`
	AccruedInterestAmount   int64     `json:"accruedInterestAmount"`
	ServicePercentageAmount int64     `json:"servicePercentageAmount"`
	TotalResidue            int64     `json:"totalResidue"`
}

// Schedule reads a loan's schedule, one item per month (code 1012 for an unknown loanID).
func (l *Loans) Schedule(ctx context.Context, loanID string, opts ...CallOption) ([]ScheduleItem, error) {
	r, err := call[scheduleResult](ctx, l.c, l.c.api.GetScheduleWithBody, loanIDParams{loanID}, opts)
	if err != nil {
		return nil, err
	}
	return r.Schedule, nil
}

// Payment is one repayment posted to a loan: TotalRepaymentAmount paid, of which
// LoanRepaymentAmount principal and AccruedInterestAmount interest and service (negative when
// an early payment moved interest paid ahead to principal), the rest penalty. Recovery is a
// payment on a written-off loan.
type Payment struct {
	PaymentDate           time.Time `json:"paymentDate"`
	TotalRepaymentAmount  int64     `json:"totalRepaymentAmount"`
	LoanRepaymentAmount   int64     `json:"loanRepaymentAmount"`
	AccruedInterestAmount int64     `json:"accruedInterestAmount"`
	Channel               Channel   `json:"channel"`
	Recovery              bool      `json:"recovery"`
}

// Payments lists a loan's repayments in date order (code 1012 for an unknown loanID).
func (l *Loans) Payments(ctx context.Context, loanID string, opts ...CallOption) ([]Payment, error) {
	r, err := call[paymentsResult](ctx, l.c, l.c.api.ListPaymentsWithBody, loanIDParams{loanID}, opts)
	if err != nil {
		return nil, err
	}
	return r.Payments, nil
}

type scheduleResult struct {
	Schedule []ScheduleItem `json:"schedule"`
}

type paymentsResult struct {
	Payments []Payment `json:"payments"`
}

// loanIDParams are the params of the calls that take only a loan's contract number.
type loanIDParams struct {
	LoanID string `json:"loanId"`
}
