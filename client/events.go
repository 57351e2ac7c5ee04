package client

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Events list the partner's events: what its webhook was sent, or would have been, from the
// last 30 days. After an outage, ask for what came after the highest Sequence processed.
type Events struct{ c *Client }

// ListEventsParams ask for the events numbered after AfterSequence (0: from the oldest kept),
// at most Limit of them (1 to 100; 0 asks for the default, 100), of Types only (all when empty).
type ListEventsParams struct {
	AfterSequence int64       `json:"afterSequence,omitempty"`
	Limit         int         `json:"limit,omitempty"`
	Types         []EventType `json:"types,omitempty"`
}

// EventPage is a page of events, oldest first. Ask again after NextSequence (the last event's
// Sequence, or AfterSequence when none came) at once while HasMore.
type EventPage struct {
	Events       []Event `json:"events"`
	NextSequence int64   `json:"nextSequence"`
	HasMore      bool    `json:"hasMore"`
}

// List reads a page of events.
func (e *Events) List(ctx context.Context, p ListEventsParams, opts ...CallOption) (*EventPage, error) {
	return call[EventPage](ctx, e.c, e.c.api.ListEventsWithBody, p, opts)
}

// Event is one event, as the webhook's body carries it and List lists it: decode a webhook
// delivery's body into an Event with encoding/json once VerifyWebhook accepts it. The same
// event may come more than once: deduplicate by ID. Sequence is the partner's own number of
// it, growing in the order its events happened. Data is the event's data as sent; Decode reads
// it into the type's struct.
type Event struct {
	ID        UUID            `json:"id"`
	Type      EventType       `json:"type"`
	Sequence  int64           `json:"sequence"`
	CreatedAt time.Time       `json:"createdAt"`
	Data      json.RawMessage `json:"data"`
}

// Decode reads the event's data into its type's struct and returns a pointer to it:
// *ApplicationStatusChanged, *LoanContractAssigned, *TransferStatusChanged,
// *RepaymentStatusChanged, *CardOrderStatusChanged, *CardAttached, *LoanChanged, *ReminderSent or *TestEvent.
// An event type this package does not know is an error: ignore it, or update the package.
//
//	d, err := ev.Decode()
//	switch d := d.(type) {
//	case *client.ApplicationStatusChanged: …
//	}
func (e Event) Decode() (any, error) {
	var v any
	switch e.Type {
	case EventApplicationStatusChanged:
		v = new(ApplicationStatusChanged)
	case EventLoanContractAssigned:
		v = new(LoanContractAssigned)
	case EventTransferStatusChanged:
		v = new(TransferStatusChanged)
	case EventRepaymentStatusChanged:
		v = new(RepaymentStatusChanged)
	case EventCardOrderStatusChanged:
		v = new(CardOrderStatusChanged)
	case EventCardAttached:
		v = new(CardAttached)
	case EventLoanChanged:
		v = new(LoanChanged)
	case EventReminderSent:
		v = new(ReminderSent)
	case EventTest:
		v = new(TestEvent)
	default:
		return nil, fmt.Errorf("tiyin client: event %s: type %q unknown to this client (version %s)", e.ID, e.Type, Version)
	}
	if err := json.Unmarshal(e.Data, v); err != nil {
		return nil, fmt.Errorf("tiyin client: event %s (%s): %w", e.ID, e.Type, err)
	}
	return v, nil
}

// ApplicationStatusChanged is an APPLICATION_STATUS_CHANGED event's data: the application's
// status changed, or, while ApplicationPending, its last stage did. Status is
// ApplicationLoanIssued where Info shows ApplicationCompleted.
type ApplicationStatusChanged struct {
	ApplicationID UUID              `json:"applicationId"`
	ExternalID    UUID              `json:"externalId"`
	Status        ApplicationStatus `json:"status"`
	LastTask      LastTask          `json:"lastTask"`
}

// LoanContractAssigned is a LOAN_CONTRACT_ASSIGNED event's data: core banking gave the loan
// its contract number, the LoanID of the loan calls.
type LoanContractAssigned struct {
	ApplicationID UUID   `json:"applicationId"`
	LoanID        string `json:"loanId"`
}

// TransferStatusChanged is a TRANSFER_STATUS_CHANGED event's data: a transfer was confirmed,
// settled or expired. Message says why the network refused a TransferFailed one.
type TransferStatusChanged struct {
	TransactionID UUID           `json:"transactionId"`
	ExternalID    UUID           `json:"externalId"`
	Status        TransferStatus `json:"status"`
	Amount        int64          `json:"amount"`
	Message       string         `json:"message"`
}

// RepaymentStatusChanged is a REPAYMENT_STATUS_CHANGED event's data: a repayment was posted to
// a loan; LoanClosed says it paid the loan off, Recovery that the loan was written off. A
// payment the bank's operators posted comes with a RequestID of its own.
type RepaymentStatusChanged struct {
	RequestID     UUID            `json:"requestId"`
	ApplicationID UUID            `json:"applicationId"`
	LoanID        string          `json:"loanId"`
	Status        RepaymentStatus `json:"status"`
	Amount        int64           `json:"amount"`
	PaymentType   PaymentType     `json:"paymentType"`
	Channel       Channel         `json:"channel"`
	Recovery      bool            `json:"recovery"`
	LoanClosed    bool            `json:"loanClosed"`
}

// CardOrderStatusChanged is a CARD_ORDER_STATUS_CHANGED event's data: the issuer took the order,
// made the card (CardOrderCompleted, with CardID) or refused it (CardOrderCanceled, with
// Reason). CardID is zero until the card is made.
type CardOrderStatusChanged struct {
	OrderID    UUID            `json:"orderId"`
	ExternalID string          `json:"externalId"`
	Status     CardOrderStatus `json:"status"`
	CardID     UUID            `json:"cardId"`
	Reason     string          `json:"reason"`
}

// CardAttached is a CARD_ATTACHED event's data: the client confirmed an attach; the card is
// CardActive. MaskedPAN is 860012******3456.
type CardAttached struct {
	CardID         UUID           `json:"cardId"`
	ProcessingType ProcessingType `json:"processingType"`
	MaskedPAN      string         `json:"maskedPan"`
}

// LoanChanged is a LOAN_CHANGED event's data: the bank's operators changed the loan's debt,
// each change approved by a second officer. Amount (tiyin) is what was waived, or the
// principal written off; Months what EXTEND_TERM added or PAYMENT_HOLIDAY's holiday lasts.
// LoanStatus is the loan's status after the change.
type LoanChanged struct {
	ApplicationID UUID             `json:"applicationId"`
	LoanID        string           `json:"loanId"`
	Action        LoanChangeAction `json:"action"`
	Amount        int64            `json:"amount"`
	Months        int              `json:"months"`
	LoanStatus    LoanStatus       `json:"loanStatus"`
}

// ReminderSent is a REMINDER_SENT event's data: tiyin sent the borrower an SMS reminder about
// an instalment of the loan, BEFORE_DUE some days before its date or OVERDUE once in each
// overdue bucket (Bucket, e.g. "8-30"; empty before the date). Amount (tiyin) is what the
// instalment still asked.
type ReminderSent struct {
	ApplicationID UUID         `json:"applicationId"`
	LoanID        *string      `json:"loanId"`
	Kind          ReminderKind `json:"kind"`
	DueDate       Date         `json:"dueDate"`
	Bucket        string       `json:"bucket"`
	Amount        int64        `json:"amount"`
}

// TestEvent is a TEST event's data: the event asked for with Sandbox.SendTestEvent.
type TestEvent struct {
	Message string `json:"message"`
}
