package domain

import (
	"time"

	"github.com/google/uuid"
)

// EventType names a fact a partner is told of by webhook (DESIGN.md §11).
type EventType struct{ s string }

// The event types. interface.md shows no events; DESIGN.md §11 lists what a partner is told of.
var (
	// EventApplicationStatusChanged: the application's status changed, or, while it waits in
	// PENDING, its last stage did (pre-scoring approved, the phone call completed). The loan's
	// issuance is told with the status LOAN_ISSUED where the info call shows COMPLETED.
	EventApplicationStatusChanged = EventType{"APPLICATION_STATUS_CHANGED"}
	// EventLoanContractAssigned: core banking gave the loan its contract number (loanId).
	EventLoanContractAssigned = EventType{"LOAN_CONTRACT_ASSIGNED"}
	// EventTransferStatusChanged: a transfer to a card was confirmed, settled or expired.
	EventTransferStatusChanged = EventType{"TRANSFER_STATUS_CHANGED"}
	// EventRepaymentStatusChanged: a repayment was posted to the loan.
	EventRepaymentStatusChanged = EventType{"REPAYMENT_STATUS_CHANGED"}
	// EventCardOrderStatusChanged: the card issuer took, made or refused a card order.
	EventCardOrderStatusChanged = EventType{"CARD_ORDER_STATUS_CHANGED"}
	// EventCardAttached: a client confirmed a card attach with the SMS code.
	EventCardAttached = EventType{"CARD_ATTACHED"}
	// EventLoanChanged: the bank's operators waived interest or penalty on the loan, or wrote
	// it off.
	EventLoanChanged = EventType{"LOAN_CHANGED"}
	// EventReminderSent: a reminder of a loan's instalment, coming due or missed, went to the
	// borrower's phone (docs/integration.md, "Reminders").
	EventReminderSent = EventType{"REMINDER_SENT"}
	// EventTest is a test event a sandbox partner asks for, to try its webhook.
	EventTest = EventType{"TEST"}
)

// EventTypes lists every event type.
func EventTypes() []EventType {
	return []EventType{EventApplicationStatusChanged, EventLoanContractAssigned, EventTransferStatusChanged,
		EventRepaymentStatusChanged, EventCardOrderStatusChanged, EventCardAttached, EventLoanChanged, EventReminderSent, EventTest}
}

// ParseEventType accepts one of the event types.
func ParseEventType(s string) (EventType, error) { return parseEnum(s, EventTypes()) }

func (t EventType) String() string { return t.s }

// IsZero reports whether the type is unset.
func (t EventType) IsZero() bool { return t.s == "" }

// Event is a change a partner is told of. Aggregates record their events as they change;
// repositories store them with the change, in its transaction, so that an event exists if and
// only if its change committed.
type Event struct {
	ID, PartnerID uuid.UUID
	At            time.Time
	Data          EventData
}

// Type returns the event's type, which its data decides.
func (e Event) Type() EventType { return e.Data.EventType() }

// EventData is what an event tells: one of the types below.
type EventData interface {
	EventType() EventType
	// Object is the id of what the event is about: one object's events are delivered in
	// the order they were recorded.
	Object() uuid.UUID
}

// Object implements EventData.
func (d ApplicationChanged) Object() uuid.UUID { return d.ApplicationID }

// Object implements EventData: the loan's contract follows its application's events.
func (d LoanContractAssigned) Object() uuid.UUID { return d.ApplicationID }

// Object implements EventData.
func (d TransferChanged) Object() uuid.UUID { return d.TransactionID }

// Object implements EventData.
func (d RepaymentChanged) Object() uuid.UUID { return d.RequestID }

// Object implements EventData.
func (d CardOrderChanged) Object() uuid.UUID { return d.OrderID }

// Object implements EventData.
func (d CardAttachment) Object() uuid.UUID { return d.CardID }

// Object implements EventData: a test event is about itself.
func (d WebhookTest) Object() uuid.UUID { return d.ID }

// WebhookTest is the event a sandbox partner asks for to try its webhook.
type WebhookTest struct {
	ID      uuid.UUID
	Message string
}

// EventType implements EventData.
func (WebhookTest) EventType() EventType { return EventTest }

// NewTestEvent is a test event for the partner, recorded at now.
func NewTestEvent(partnerID uuid.UUID, now time.Time) Event {
	id := uuid.Must(uuid.NewV7())
	return Event{ID: id, PartnerID: partnerID, At: now,
		Data: WebhookTest{ID: id, Message: "a test event, sent because you asked for one"}}
}

// ApplicationChanged tells an application's new status and last stage. COMPLETED means the
// loan exists and its money is on the client's account; partners are told it as LOAN_ISSUED.
type ApplicationChanged struct {
	ApplicationID, ExternalID uuid.UUID
	Status                    ApplicationStatus
	Stage                     Stage
}

// EventType implements EventData.
func (ApplicationChanged) EventType() EventType { return EventApplicationStatusChanged }

// LoanContractAssigned tells the loan's contract number.
type LoanContractAssigned struct {
	ApplicationID  uuid.UUID
	ContractNumber string
}

// EventType implements EventData.
func (LoanContractAssigned) EventType() EventType { return EventLoanContractAssigned }

// TransferChanged tells a transfer's new status.
type TransferChanged struct {
	TransactionID, ExternalID uuid.UUID
	Status                    TransferStatus
	Amount                    int64
	Message                   string
}

// EventType implements EventData.
func (TransferChanged) EventType() EventType { return EventTransferStatusChanged }

// RepaymentChanged tells a posted repayment and whether it closed the loan.
type RepaymentChanged struct {
	RequestID, ApplicationID uuid.UUID
	ContractNumber           string
	Status                   RepaymentStatus
	Amount                   int64
	PaymentType              PaymentType
	// Channel is how the money came (the operators post cash desk and bank transfer
	// payments); Recovery marks a payment on a written-off loan.
	Channel    Channel
	Recovery   bool
	LoanClosed bool
}

// EventType implements EventData.
func (RepaymentChanged) EventType() EventType { return EventRepaymentStatusChanged }

// CardOrderChanged tells a card order's new status, with the card once it is made.
type CardOrderChanged struct {
	OrderID    uuid.UUID
	ExternalID string
	Status     CardOrderStatus
	CardID     uuid.UUID
	Reason     string
}

// EventType implements EventData.
func (CardOrderChanged) EventType() EventType { return EventCardOrderStatusChanged }

// CardAttachment tells a card attached by its client's SMS code, ready for transfers.
type CardAttachment struct {
	CardID    uuid.UUID
	Network   Network
	MaskedPAN string
}

// EventType implements EventData.
func (CardAttachment) EventType() EventType { return EventCardAttached }

// events collects an aggregate's events until its repository takes them.
type events struct{ pending []Event }

func (e *events) record(partnerID uuid.UUID, at time.Time, d EventData) {
	e.pending = append(e.pending, Event{ID: uuid.Must(uuid.NewV7()), PartnerID: partnerID, At: at, Data: d})
}

// TakeEvents returns the events recorded since the last call and forgets them. Only
// repositories call it, to store the events with the change that recorded them.
func (e *events) TakeEvents() []Event {
	out := e.pending
	e.pending = nil
	return out
}
