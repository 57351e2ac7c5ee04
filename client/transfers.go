package client

import (
	"context"
	"time"
)

// Transfers move a loan's money from the client's demand account to a card (endpoints 6–8):
// Create holds the amount, Confirm moves it.
type Transfers struct{ c *Client }

// CreateTransferParams are a transfer to a card. The card is named by exactly one of PAN (the
// full number) and CardID (an ACTIVE card of the partner's, issued through tiyin or attached);
// the other stays empty and is left out. ExternalID, the partner's own id of the transfer, is
// unique per partner (code 1011). Amount is in tiyin.
type CreateTransferParams struct {
	ExternalID       UUID           `json:"externalId"`
	ApplicationID    UUID           `json:"applicationId"`
	PAN              string         `json:"pan,omitempty"`
	CardID           UUID           `json:"cardId,omitzero"`
	ReceiverCardType ProcessingType `json:"receiverCardType"`
	CardHolderName   string         `json:"cardHolderName"`
	Amount           int64          `json:"amount"`
}

// CreateTransferResult is the new transfer's id.
type CreateTransferResult struct {
	TransactionID UUID `json:"transactionId"`
}

// Create registers a transfer (TransferNew) once the application is ApplicationCompleted,
// and holds its amount on the demand account (code 1014 beyond the balance). Unconfirmed for
// 15 minutes it expires and the hold is released.
func (t *Transfers) Create(ctx context.Context, p CreateTransferParams, opts ...CallOption) (*CreateTransferResult, error) {
	return call[CreateTransferResult](ctx, t.c, t.c.api.CreateTransferWithBody, p, opts)
}

// ConfirmTransferResult is the transfer's status when Confirm answered.
type ConfirmTransferResult struct {
	ExternalID UUID           `json:"externalId"`
	Status     TransferStatus `json:"status"`
	Message    string         `json:"message"`
}

// Confirm sends a TransferNew transfer to the network: it becomes TransferSuccess or
// TransferFailed (Message says why), or stays TransferProcessing while the network's outcome
// is unknown; follow it with Status. Both ids must match (code 1015).
func (t *Transfers) Confirm(ctx context.Context, externalID, transactionID UUID, opts ...CallOption) (*ConfirmTransferResult, error) {
	return call[ConfirmTransferResult](ctx, t.c, t.c.api.ConfirmTransferWithBody, transferRef{externalID, transactionID}, opts)
}

// Transfer is a transfer's status. TransactionDate is when it reached its final status, its
// creation before that.
type Transfer struct {
	ExternalID      UUID           `json:"externalId"`
	TransactionID   UUID           `json:"transactionId"`
	TransactionDate time.Time      `json:"transactionDate"`
	Status          TransferStatus `json:"status"`
	Message         string         `json:"message"`
}

// Status reads a transfer. Both ids must match (code 1015).
func (t *Transfers) Status(ctx context.Context, externalID, transactionID UUID, opts ...CallOption) (*Transfer, error) {
	return call[Transfer](ctx, t.c, t.c.api.CheckTransferWithBody, transferRef{externalID, transactionID}, opts)
}

// transferRef names a transfer by both its ids.
type transferRef struct {
	ExternalID    UUID `json:"externalId"`
	TransactionID UUID `json:"transactionId"`
}
