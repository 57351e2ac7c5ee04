package client

import "context"

// Repayments check what a loan owes, pay it with a card debit, and read a payment's status
// (endpoints 12–14).
type Repayments struct{ c *Client }

// CheckRepaymentResult is a loan's debt at the moment of Check, in tiyin, and the request
// (RequestID) that Pay needs. The five parts sum to TotalResidue, the full payoff today, which
// MaxAmount equals; AccountBalance is the demand account's balance.
type CheckRepaymentResult struct {
	RequestID             UUID   `json:"requestId"`
	LoanID                string `json:"loanId"`
	ClientName            string `json:"clientName"`
	AccountBalance        int64  `json:"accountBalance"`
	TotalResidue          int64  `json:"totalResidue"`
	MainDebtAmount        int64  `json:"mainDebtAmount"`
	OverdueDebtAmount     int64  `json:"overdueDebtAmount"`
	TermInterestAmount    int64  `json:"termInterestAmount"`
	OverdueInterestAmount int64  `json:"overdueInterestAmount"`
	InterestFineAmount    int64  `json:"interestFineAmount"`
	MaxAmount             int64  `json:"maxAmount"`
}

// Check snapshots a loan's debt and opens a repayment request, which lives 30 minutes and
// never past midnight in Tashkent. It is a write: repeated with the same envelope id it
// answers the same request. Codes 1012 (unknown loan), 1013 (paid off).
func (r *Repayments) Check(ctx context.Context, loanID string, opts ...CallOption) (*CheckRepaymentResult, error) {
	return call[CheckRepaymentResult](ctx, r.c, r.c.api.CheckRepaymentWithBody, loanIDParams{loanID}, opts)
}

// PayRepaymentParams pay a checked request: DebitID names a successful card debit of exactly
// Amount tiyin on ProcessingType, never used before (code 1020); Amount is positive and not
// above the check's MaxAmount (code 1019).
type PayRepaymentParams struct {
	LoanID         string         `json:"loanId"`
	RequestID      UUID           `json:"requestId"`
	PaymentType    PaymentType    `json:"paymentType"`
	DebitID        string         `json:"debitId"`
	Amount         int64          `json:"amount"`
	ProcessingType ProcessingType `json:"processingType"`
}

// PayRepaymentResult is the request after Pay.
type PayRepaymentResult struct {
	LoanID    string          `json:"loanId"`
	RequestID UUID            `json:"requestId"`
	Status    RepaymentStatus `json:"status"`
	Message   string          `json:"message"`
}

// Pay pays a request from Check; the payment is applied at once, in the order of the law.
// Code 1018 when the request expired or the loan changed since Check (check again), 1017 for
// an unknown request. A refused pay uses up neither the request nor the debit. The call's
// envelope id is the payment's externalId in Status: keep it (WithEnvelopeID) to ask later.
func (r *Repayments) Pay(ctx context.Context, p PayRepaymentParams, opts ...CallOption) (*PayRepaymentResult, error) {
	return call[PayRepaymentResult](ctx, r.c, r.c.api.PayRepaymentWithBody, p, opts)
}

// GetRepaymentParams name a repayment request. ExternalID is optional (the zero UUID leaves it
// out); when given it must be the envelope id of the request's Pay (code 1017).
type GetRepaymentParams struct {
	RequestID  UUID `json:"requestId"`
	ExternalID UUID `json:"externalId,omitzero"`
}

// Repayment is a repayment request's status: RepaymentNew (checked, not paid),
// RepaymentProcessing, RepaymentSuccess (TransactionID is the bank's transaction),
// RepaymentFailed (the loan changed since Check) or RepaymentExpired; RequestErrorMessage says
// why for the last two. ExternalID is the Pay's envelope id; it and TransactionID are zero
// before Pay.
type Repayment struct {
	RequestID           UUID            `json:"requestId"`
	ExternalID          UUID            `json:"externalId"`
	LoanID              string          `json:"loanId"`
	TransactionID       UUID            `json:"transactionId"`
	RequestStatus       RepaymentStatus `json:"requestStatus"`
	Message             string          `json:"message"`
	RequestErrorMessage string          `json:"requestErrorMessage"`
}

// Status reads a repayment request.
func (r *Repayments) Status(ctx context.Context, p GetRepaymentParams, opts ...CallOption) (*Repayment, error) {
	return call[Repayment](ctx, r.c, r.c.api.GetRepaymentWithBody, p, opts)
}
