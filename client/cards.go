package client

import "context"

// Cards attach any UZCARD or HUMO card of a client with an SMS code, and read and change a
// card's status (endpoints 17–20). Cards issued by the bank are ordered with CardOrders.
type Cards struct{ c *Client }

// AttachCardParams are a card to attach: its full number, its expiry as yyMM (a month not yet
// over), its network and the phone the network knows for it.
type AttachCardParams struct {
	PAN            string         `json:"pan"`
	Expiry         string         `json:"expiry"`
	ProcessingType ProcessingType `json:"processingType"`
	PhoneNumber    string         `json:"phoneNumber"`
}

// AttachCardResult is the attached card, CardUnverified until Confirm.
type AttachCardResult struct {
	CardID UUID `json:"cardId"`
}

// Attach attaches a card the network knows with that expiry, network and phone (code 1023
// otherwise) and sends the client a 6-digit code that lives 3 minutes. Attaching again while
// the card is unverified sends a new code (at most once a minute: sooner is code 7); a card the
// partner attached already is code 1010; code 1006 when the SMS could not be sent.
func (c *Cards) Attach(ctx context.Context, p AttachCardParams, opts ...CallOption) (*AttachCardResult, error) {
	return call[AttachCardResult](ctx, c.c, c.c.api.AttachCardWithBody, p, opts)
}

// ConfirmCardResult is tiyin's word that the card is attached.
type ConfirmCardResult struct {
	Message string `json:"message"`
}

// Confirm confirms an attach with the SMS code; the card becomes CardActive. A wrong code is
// 1009 (the message says the attempts left); an expired code, or three wrong ones, 1008:
// attach again for a new code.
func (c *Cards) Confirm(ctx context.Context, cardID UUID, otpCode string, opts ...CallOption) (*ConfirmCardResult, error) {
	return call[ConfirmCardResult](ctx, c.c, c.c.api.ConfirmCardWithBody, confirmCardParams{cardID, otpCode}, opts)
}

type confirmCardParams struct {
	CardID  UUID   `json:"cardId"`
	OTPCode string `json:"otpCode"`
}

// Card is a card's status and the reason given for it.
type Card struct {
	CardID UUID       `json:"cardId"`
	Status CardStatus `json:"status"`
	Reason string     `json:"reason"`
}

// Status reads a card's status (code 1007 for an unknown card).
func (c *Cards) Status(ctx context.Context, cardID UUID, opts ...CallOption) (*Card, error) {
	return call[Card](ctx, c.c, c.c.api.GetCardStatusWithBody, cardIDParams{cardID}, opts)
}

// ChangeCardStatusParams are a card's new status and why.
type ChangeCardStatusParams struct {
	CardID UUID       `json:"cardId"`
	Status CardStatus `json:"status"`
	Reason string     `json:"reason"`
}

// ChangeStatus changes a card's status: CardActive ↔ CardBlocked; active, blocked or
// unverified → CardClosed or CardDeleted; closed → deleted; deleted is final. The same status
// again changes nothing; any other change is code 1022.
func (c *Cards) ChangeStatus(ctx context.Context, p ChangeCardStatusParams, opts ...CallOption) (*Card, error) {
	return call[Card](ctx, c.c, c.c.api.ChangeCardStatusWithBody, p, opts)
}

// cardIDParams are the params of the calls that take only a card's id.
type cardIDParams struct {
	CardID UUID `json:"cardId"`
}

// CardOrders order a card from the bank's issuer for a client and follow the order
// (endpoints 15–16).
type CardOrders struct{ c *Client }

// OrderCardParams order a card. ExternalID, the partner's own id of the order (1 to 64
// characters), is unique per partner (code 1011); both consents must be true.
type OrderCardParams struct {
	ExternalID                 string     `json:"externalId"`
	PhoneNumber                string     `json:"phoneNumber"`
	ClientData                 ClientData `json:"clientData"`
	PrivacyPolicyAccepted      bool       `json:"privacyPolicyAccepted"`
	TermsAndConditionsAccepted bool       `json:"termsAndConditionsAccepted"`
}

// OrderCardResult is the new order's id.
type OrderCardResult struct {
	OrderID    UUID   `json:"orderId"`
	ExternalID string `json:"externalId"`
}

// Create orders a card (CardOrderNew, then CardOrderInProgress, then CardOrderCompleted with
// a card or CardOrderCanceled). A second order for the same client replaces the card: the old
// one is closed.
func (o *CardOrders) Create(ctx context.Context, p OrderCardParams, opts ...CallOption) (*OrderCardResult, error) {
	return call[OrderCardResult](ctx, o.c, o.c.api.OrderCardWithBody, p, opts)
}

// CardOrder is an order and, once it is CardOrderCompleted, its card (nil before).
type CardOrder struct {
	Order OrderState `json:"order"`
	Card  *CardInfo  `json:"card"`
}

// OrderState is where an order is; Description says why a canceled one was.
type OrderState struct {
	Status      CardOrderStatus `json:"status"`
	Description string          `json:"description"`
}

// CardInfo is a card an order made: its id, its number masked (860012******3456) and its
// expiry as yyMM.
type CardInfo struct {
	ID     UUID   `json:"id"`
	PAN    string `json:"pan"`
	Expiry string `json:"expiry"`
}

// Info reads an order (code 1021 for an unknown one).
func (o *CardOrders) Info(ctx context.Context, orderID UUID, opts ...CallOption) (*CardOrder, error) {
	return call[CardOrder](ctx, o.c, o.c.api.GetCardOrderWithBody, orderIDParams{orderID}, opts)
}

type orderIDParams struct {
	OrderID UUID `json:"orderId"`
}
