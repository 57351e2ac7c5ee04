package domain

import (
	"errors"
	"time"

	"github.com/google/uuid"
)

// CardOrderStatus is where a card order is.
type CardOrderStatus struct{ s string }

// The card order statuses (interface.md 3.3). tiyin moves an order NEW → IN_PROGRESS (the card
// issuer took it) → COMPLETED (with a card) or CANCELED (the description says why); PENDING is
// part of the interface's list but no step of tiyin's waits in it.
var (
	CardOrderNew        = CardOrderStatus{"NEW"}
	CardOrderPending    = CardOrderStatus{"PENDING"}
	CardOrderInProgress = CardOrderStatus{"IN_PROGRESS"}
	CardOrderCompleted  = CardOrderStatus{"COMPLETED"}
	CardOrderCanceled   = CardOrderStatus{"CANCELED"}
)

// ParseCardOrderStatus reads a stored status.
func ParseCardOrderStatus(s string) (CardOrderStatus, error) {
	return parseEnum(s, []CardOrderStatus{CardOrderNew, CardOrderPending, CardOrderInProgress, CardOrderCompleted, CardOrderCanceled})
}

// String returns the name.
func (s CardOrderStatus) String() string { return s.s }

// ErrCardOrderFinished means the order completed or was canceled already.
var ErrCardOrderFinished = errors.New("card order finished already")

// CardOrder is a partner's order to issue a card to a client, or to replace the client's card.
type CardOrder struct {
	id, partnerID uuid.UUID
	externalID    string
	phone         Phone
	clientData    ClientData
	status        CardOrderStatus
	description   string
	issuerRef     string
	cardID        uuid.UUID
	attempts      int
	nextRunAt     time.Time
	unknownSince  time.Time
	createdAt     time.Time
	updatedAt     time.Time
	requestID     string
	events
}

// NewCardOrderParams are an order's inputs.
type NewCardOrderParams struct {
	ID, PartnerID uuid.UUID
	ExternalID    string
	Phone         Phone
	ClientData    ClientData
	Now           time.Time
}

// ErrExternalIDInvalid means a string externalId is empty or longer than 64 characters.
var ErrExternalIDInvalid = errors.New("must be 1 to 64 characters")

// NewCardOrder registers an order: NEW, due for the card issuer at once.
func NewCardOrder(p NewCardOrderParams) (*CardOrder, error) {
	if n := len(p.ExternalID); n < 1 || n > 64 {
		return nil, ErrExternalIDInvalid
	}
	return &CardOrder{id: p.ID, partnerID: p.PartnerID, externalID: p.ExternalID, phone: p.Phone, clientData: p.ClientData,
		status: CardOrderNew, description: "order registered", nextRunAt: p.Now, createdAt: p.Now, updatedAt: p.Now}, nil
}

// Submitted records that the card issuer took the order under ref; its result is polled.
func (o *CardOrder) Submitted(ref string, now time.Time) error {
	if o.status != CardOrderNew {
		return ErrCardOrderFinished
	}
	o.status, o.issuerRef, o.description = CardOrderInProgress, ref, "the card issuer is making the card"
	o.attempts, o.nextRunAt, o.updatedAt, o.unknownSince = 0, now.Add(PollInterval), now, time.Time{}
	o.told(now)
	return nil
}

// Pending records that the issuer has no answer yet: ask again after PollInterval.
func (o *CardOrder) Pending(now time.Time) {
	o.attempts, o.nextRunAt, o.updatedAt, o.unknownSince = 0, now.Add(PollInterval), now, time.Time{}
}

// Unknown records an issuer call whose outcome is unknown (the issuer may have made the card):
// asked again with the same key, with backoff growing to an hour, and never canceled on its
// account.
func (o *CardOrder) Unknown(now time.Time) {
	if o.unknownSince.IsZero() {
		o.unknownSince = now
	}
	o.attempts++
	o.nextRunAt, o.updatedAt = now.Add(Backoff(o.attempts)), now
}

// Failed records an issuer call that never reached the issuer, or that it definitely refused
// for a technical reason: retried with backoff, canceled after MaxStageAttempts. It reports
// whether it gave up.
func (o *CardOrder) Failed(reason string, now time.Time) bool {
	o.unknownSince = time.Time{}
	o.attempts++
	o.updatedAt = now
	if o.attempts >= MaxStageAttempts {
		o.finish(CardOrderCanceled, "the card issuer is unavailable: "+reason, now)
		return true
	}
	o.nextRunAt = now.Add(Backoff(o.attempts))
	return false
}

// Complete records the issued card.
func (o *CardOrder) Complete(cardID uuid.UUID, now time.Time) error {
	if o.status != CardOrderInProgress {
		return ErrCardOrderFinished
	}
	o.cardID = cardID
	o.finish(CardOrderCompleted, "card issued", now)
	return nil
}

// Cancel records the issuer's refusal.
func (o *CardOrder) Cancel(reason string, now time.Time) error {
	if o.status == CardOrderCompleted || o.status == CardOrderCanceled {
		return ErrCardOrderFinished
	}
	o.finish(CardOrderCanceled, reason, now)
	return nil
}

func (o *CardOrder) finish(s CardOrderStatus, description string, now time.Time) {
	o.status, o.description, o.nextRunAt, o.updatedAt, o.unknownSince = s, description, time.Time{}, now, time.Time{}
	o.told(now)
}

// told records the order's new status for the partner.
func (o *CardOrder) told(now time.Time) {
	d := CardOrderChanged{OrderID: o.id, ExternalID: o.externalID, Status: o.status, CardID: o.cardID}
	if o.status == CardOrderCanceled {
		d.Reason = o.description
	}
	o.record(o.partnerID, now, d)
}

// IssuedCardParams describe a card the issuer made for an order.
type IssuedCardParams struct {
	ID        uuid.UUID
	Network   Network
	MaskedPAN string
	Expiry    Expiry
	Token     string
	Now       time.Time
}

// IssuedCard is the order's card: ACTIVE, usable through tiyin by its token.
func (o *CardOrder) IssuedCard(p IssuedCardParams) *Card {
	return &Card{id: p.ID, partnerID: o.partnerID, origin: CardIssued, network: p.Network, maskedPAN: p.MaskedPAN,
		expiry: p.Expiry, phone: o.phone, pinfl: o.clientData.PINFL(), token: p.Token, status: CardActive,
		reason: "issued", createdAt: p.Now, updatedAt: p.Now}
}

// CardOrderState is every stored field of an order, for repositories only.
type CardOrderState struct {
	ID, PartnerID        uuid.UUID
	ExternalID           string
	Phone                Phone
	ClientData           ClientData
	Status               CardOrderStatus
	Description          string
	IssuerRef            string
	CardID               uuid.UUID
	Attempts             int
	NextRunAt            time.Time
	UnknownSince         time.Time
	CreatedAt, UpdatedAt time.Time
	RequestID            string
}

// RestoreCardOrder rebuilds an order from storage. Only repositories may call it.
func RestoreCardOrder(s CardOrderState) *CardOrder {
	return &CardOrder{id: s.ID, partnerID: s.PartnerID, externalID: s.ExternalID, phone: s.Phone, clientData: s.ClientData,
		status: s.Status, description: s.Description, issuerRef: s.IssuerRef, cardID: s.CardID, attempts: s.Attempts,
		nextRunAt: s.NextRunAt, unknownSince: s.UnknownSince, createdAt: s.CreatedAt, updatedAt: s.UpdatedAt, requestID: s.RequestID}
}

// State returns every field, for repositories to store.
func (o *CardOrder) State() CardOrderState {
	return CardOrderState{ID: o.id, PartnerID: o.partnerID, ExternalID: o.externalID, Phone: o.phone, ClientData: o.clientData,
		Status: o.status, Description: o.description, IssuerRef: o.issuerRef, CardID: o.cardID, Attempts: o.attempts,
		NextRunAt: o.nextRunAt, UnknownSince: o.unknownSince, CreatedAt: o.createdAt, UpdatedAt: o.updatedAt, RequestID: o.requestID}
}

// Correlate keeps the id of the partner's request that placed the order: the log lines of its
// background work name it. An empty id changes nothing.
func (o *CardOrder) Correlate(requestID string) {
	if requestID != "" {
		o.requestID = requestID
	}
}

// RequestID is the id of the partner's request that placed the order.
func (o *CardOrder) RequestID() string { return o.requestID }

// ID returns the order id (orderId).
func (o *CardOrder) ID() uuid.UUID { return o.id }

// PartnerID returns the owning partner.
func (o *CardOrder) PartnerID() uuid.UUID { return o.partnerID }

// ExternalID returns the partner's id for the order.
func (o *CardOrder) ExternalID() string { return o.externalID }

// Phone returns the client's phone.
func (o *CardOrder) Phone() Phone { return o.phone }

// ClientData returns the client.
func (o *CardOrder) ClientData() ClientData { return o.clientData }

// Status returns the order's status.
func (o *CardOrder) Status() CardOrderStatus { return o.status }

// Description says where the order is, or why it was canceled.
func (o *CardOrder) Description() string { return o.description }

// IssuerRef returns the card issuer's reference, empty before it took the order.
func (o *CardOrder) IssuerRef() string { return o.issuerRef }

// CardID returns the issued card, uuid.Nil until COMPLETED.
func (o *CardOrder) CardID() uuid.UUID { return o.cardID }

// PINFL returns the client's PINFL: the client's next order replaces this order's card.
func (c *Card) PINFL() string { return c.pinfl }
