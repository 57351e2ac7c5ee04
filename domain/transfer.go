package domain

import (
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Transfer errors.
var (
	// ErrLoanNotIssued means the application has no issued loan yet (or the loan is closed).
	ErrLoanNotIssued = refusal("loan-not-issued", "loan not issued yet, or already closed")
	// ErrTransferNotFound means no transfer of the partner has that transactionId and externalId.
	ErrTransferNotFound = refusal("transfer-not-found", "transfer not found")
	// ErrTransferState means the transfer's status does not allow the call.
	ErrTransferState = refusal("transfer-state", "transfer status does not allow this call")
	// ErrCardRejected means the processing network refused the card.
	ErrCardRejected = refusal("card-rejected", "card rejected by the processing network")
)

// TransferTTL is how long a transfer may wait for confirmation before it expires.
const TransferTTL = 15 * time.Minute

// TransferStatus is where a transfer is.
type TransferStatus struct{ s string }

// The transfer statuses (DESIGN.md §8.2).
var (
	TransferNew        = TransferStatus{"NEW"}
	TransferProcessing = TransferStatus{"PROCESSING"}
	TransferSuccess    = TransferStatus{"SUCCESS"}
	TransferFailed     = TransferStatus{"FAILED"}
	TransferExpired    = TransferStatus{"EXPIRED"}
)

// ParseTransferStatus reads a stored status.
func ParseTransferStatus(s string) (TransferStatus, error) {
	return parseEnum(s, []TransferStatus{TransferNew, TransferProcessing, TransferSuccess, TransferFailed, TransferExpired})
}

// String returns the name.
func (s TransferStatus) String() string { return s.s }

// MarshalText writes the name, so a stored outcome keeps the status.
func (s TransferStatus) MarshalText() ([]byte, error) { return []byte(s.s), nil }

// UnmarshalText reads a name MarshalText wrote.
func (s *TransferStatus) UnmarshalText(b []byte) error {
	st, err := ParseTransferStatus(string(b))
	if err != nil {
		return err
	}
	*s = st
	return nil
}

// Final reports whether the transfer can no longer change.
func (s TransferStatus) Final() bool {
	return s == TransferSuccess || s == TransferFailed || s == TransferExpired
}

// Transfer moves money from the client's demand account to a card. Its amount is held on the
// account from creation until the network credits the card (captured) or refuses (released).
type Transfer struct {
	id, partnerID, applicationID, loanID, externalID uuid.UUID
	maskedPAN                                        string
	accountNumber                                    string // the demand account it draws on
	network                                          Network
	cardHolder                                       string
	amount                                           Amount
	creditToken                                      string
	status                                           TransferStatus
	message                                          string
	createdAt, finishedAt, updatedAt                 time.Time
	events
}

// NewTransferParams are a transfer's inputs.
type NewTransferParams struct {
	ID, PartnerID, ApplicationID, LoanID, ExternalID uuid.UUID
	MaskedPAN                                        string
	AccountNumber                                    string
	Network                                          Network
	CardHolder                                       string
	Amount                                           Amount
	CreditToken                                      string
	Now                                              time.Time
}

// NewTransfer registers a transfer in NEW; the caller holds its amount in the same transaction.
func NewTransfer(p NewTransferParams) *Transfer {
	return &Transfer{id: p.ID, partnerID: p.PartnerID, applicationID: p.ApplicationID, loanID: p.LoanID,
		externalID: p.ExternalID, maskedPAN: p.MaskedPAN, accountNumber: p.AccountNumber, network: p.Network, cardHolder: p.CardHolder,
		amount: p.Amount, creditToken: p.CreditToken, status: TransferNew, createdAt: p.Now, updatedAt: p.Now}
}

// TransferState is every stored field of a transfer, for repositories only.
type TransferState struct {
	ID, PartnerID, ApplicationID, LoanID, ExternalID uuid.UUID
	MaskedPAN                                        string
	AccountNumber                                    string
	Network                                          Network
	CardHolder                                       string
	Amount                                           Amount
	CreditToken                                      string
	Status                                           TransferStatus
	Message                                          string
	CreatedAt, FinishedAt, UpdatedAt                 time.Time
}

// RestoreTransfer rebuilds a transfer from storage. Only repositories may call it.
func RestoreTransfer(s TransferState) *Transfer {
	return &Transfer{id: s.ID, partnerID: s.PartnerID, applicationID: s.ApplicationID, loanID: s.LoanID,
		externalID: s.ExternalID, maskedPAN: s.MaskedPAN, accountNumber: s.AccountNumber, network: s.Network, cardHolder: s.CardHolder,
		amount: s.Amount, creditToken: s.CreditToken, status: s.Status, message: s.Message,
		createdAt: s.CreatedAt, finishedAt: s.FinishedAt, updatedAt: s.UpdatedAt}
}

// State returns every field, for repositories to store.
func (t *Transfer) State() TransferState {
	return TransferState{ID: t.id, PartnerID: t.partnerID, ApplicationID: t.applicationID, LoanID: t.loanID,
		ExternalID: t.externalID, MaskedPAN: t.maskedPAN, AccountNumber: t.accountNumber, Network: t.network, CardHolder: t.cardHolder,
		Amount: t.amount, CreditToken: t.creditToken, Status: t.status, Message: t.message,
		CreatedAt: t.createdAt, FinishedAt: t.finishedAt, UpdatedAt: t.updatedAt}
}

// ID returns the transaction id.
func (t *Transfer) ID() uuid.UUID { return t.id }

// PartnerID returns the owning partner.
func (t *Transfer) PartnerID() uuid.UUID { return t.partnerID }

// ExternalID returns the partner's id of the transfer.
func (t *Transfer) ExternalID() uuid.UUID { return t.externalID }

// CreatedAt returns when the transfer was created.
func (t *Transfer) CreatedAt() time.Time { return t.createdAt }

// LoanID returns the loan whose demand account pays.
func (t *Transfer) LoanID() uuid.UUID { return t.loanID }

// Amount returns the amount.
func (t *Transfer) Amount() Amount { return t.amount }

// CreditToken returns the network's token for the prepared credit.
func (t *Transfer) CreditToken() string { return t.creditToken }

// Status returns the stored status; see StatusAt for the status at a moment.
func (t *Transfer) Status() TransferStatus { return t.status }

// StatusAt is the status at now: a NEW transfer older than TransferTTL is EXPIRED, even before
// the reconciler records it.
func (t *Transfer) StatusAt(now time.Time) TransferStatus {
	if t.status == TransferNew && t.expiresAt().Before(now) {
		return TransferExpired
	}
	return t.status
}

func (t *Transfer) expiresAt() time.Time { return t.createdAt.Add(TransferTTL) }

// MessageAt describes the status at now.
func (t *Transfer) MessageAt(now time.Time) string {
	switch t.StatusAt(now) {
	case TransferNew:
		return "Transfer registered; confirm it within 15 minutes"
	case TransferProcessing:
		return "Transfer is being processed by the card network"
	case TransferSuccess:
		return "Money credited to the card"
	case TransferExpired:
		return "Transfer was not confirmed within 15 minutes; the held amount was released"
	default:
		return "Card network refused the credit: " + t.message
	}
}

// TransactionDateAt is when the transfer reached its final status, or its creation before that.
func (t *Transfer) TransactionDateAt(now time.Time) time.Time {
	switch {
	case t.StatusAt(now) == TransferExpired:
		return t.expiresAt()
	case t.status.Final():
		return t.finishedAt
	}
	return t.createdAt
}

func (t *Transfer) refuse(op string, now time.Time) error {
	return fmt.Errorf("%w: %s is not allowed, transfer status is %s", ErrTransferState, op, t.StatusAt(now))
}

// Expire records the expiry of an unconfirmed transfer; the caller releases its hold. It
// reports whether anything changed.
func (t *Transfer) Expire(now time.Time) bool {
	if t.StatusAt(now) != TransferExpired || t.status != TransferNew {
		return false
	}
	t.status, t.finishedAt, t.updatedAt = TransferExpired, t.expiresAt(), now
	t.told(now)
	return true
}

// StartProcessing records the partner's confirmation: NEW → PROCESSING.
func (t *Transfer) StartProcessing(now time.Time) error {
	if t.StatusAt(now) != TransferNew {
		return t.refuse("confirm", now)
	}
	t.status, t.updatedAt = TransferProcessing, now
	t.told(now)
	return nil
}

// Settle records the network's answer: SUCCESS (the caller captures the hold) or FAILED (the
// caller releases it).
func (t *Transfer) Settle(success bool, reason string, now time.Time) error {
	if t.status != TransferProcessing {
		return t.refuse("settle", now)
	}
	t.status, t.message, t.finishedAt, t.updatedAt = TransferFailed, reason, now, now
	if success {
		t.status, t.message = TransferSuccess, ""
	}
	t.told(now)
	return nil
}

// Reverse records that a credit tiyin took as made never reached the card, as the network's
// statement shows and an operator accepted: SUCCESS → FAILED with the reason; the caller moves
// the captured amount back to the demand account (docs/reconciliation.md).
func (t *Transfer) Reverse(reason string, now time.Time) error {
	if t.status != TransferSuccess {
		return t.refuse("reverse", now)
	}
	t.status, t.message, t.updatedAt = TransferFailed, reason, now
	t.told(now)
	return nil
}

// told records the transfer's new status for the partner.
func (t *Transfer) told(now time.Time) {
	t.record(t.partnerID, now, TransferChanged{TransactionID: t.id, ExternalID: t.externalID, Status: t.status,
		Amount: t.amount.Tiyin(), Message: t.message})
}
