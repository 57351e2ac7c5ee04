package ports

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// Gateway errors. A gateway adapter wraps every failure in one of them so that the service
// knows whether to retry. Anything else a gateway returns is treated as ErrGatewayTransient.
var (
	// ErrGatewayTransient: the call failed or its outcome is unknown; it is repeated with the
	// same idempotency key, which the gateway must honour.
	ErrGatewayTransient = errors.New("gateway temporarily unavailable")
	// ErrGatewayFailed: the gateway definitely refused the call for a technical reason.
	ErrGatewayFailed = errors.New("gateway refused the call")
	// ErrGatewayRefused: the bank refused on business grounds; the message says why.
	ErrGatewayRefused = errors.New("refused by the bank")
)

// AnswerStatus is the state of an asynchronous gateway answer.
type AnswerStatus int

// The states of an asynchronous answer.
const (
	AnswerPending AnswerStatus = iota + 1
	AnswerApproved
	AnswerDeclined
)

// Answer is an asynchronous gateway answer.
type Answer struct {
	Status AnswerStatus
	Reason string
}

// PreScoreRequest asks the scoring for the offer range a client may choose from.
type PreScoreRequest struct {
	IdempotencyKey string
	ApplicationID  uuid.UUID
	Phone          domain.Phone
	ClientData     domain.ClientData
}

// PreScoreAnswer is the scoring's pre-scoring answer; Result is set when approved.
type PreScoreAnswer struct {
	Answer
	Result domain.PreScoreResult
}

// PostScoreRequest asks the scoring to accept the client's chosen offer.
type PostScoreRequest struct {
	IdempotencyKey string
	ApplicationID  uuid.UUID
	Offer          domain.Offer
	ClientData     domain.ClientData
}

// Scoring is the bank's credit scoring.
type Scoring interface {
	// RequestPreScore submits the client for pre-scoring; the answer comes from PreScoreResult.
	RequestPreScore(ctx context.Context, req PreScoreRequest) error
	// PreScoreResult returns the pre-scoring answer to the request submitted with
	// req.IdempotencyKey. The whole request is passed again so that an adapter whose system
	// lost it can resubmit it instead of failing the application.
	PreScoreResult(ctx context.Context, req PreScoreRequest) (PreScoreAnswer, error)
	// PostScore decides on the chosen offer, synchronously.
	PostScore(ctx context.Context, req PostScoreRequest) (domain.PostScoreResult, error)
}

// OpenAccountRequest asks core banking for the client's demand account.
type OpenAccountRequest struct {
	IdempotencyKey string
	ApplicationID  uuid.UUID
	Phone          domain.Phone
	ClientData     domain.ClientData
}

// LoanApplicationRequest files the loan application with core banking.
type LoanApplicationRequest struct {
	IdempotencyKey string
	ApplicationID  uuid.UUID
	AccountNumber  string
	Offer          domain.Offer
}

// IssueLoanRequest asks core banking to disburse the approved loan onto the demand account.
type IssueLoanRequest struct {
	IdempotencyKey     string
	ApplicationID      uuid.UUID
	AccountNumber      string
	LoanApplicationRef string
}

// CoreBanking is the bank's core system: accounts and loans.
type CoreBanking interface {
	// OpenAccount opens (or returns the already opened) demand account.
	OpenAccount(ctx context.Context, req OpenAccountRequest) (accountNumber string, err error)
	// OpenLoanApplication files the loan application and returns its reference.
	OpenLoanApplication(ctx context.Context, req LoanApplicationRequest) (ref string, err error)
	// LoanApplicationResult tells whether the filed loan application was approved.
	LoanApplicationResult(ctx context.Context, ref string) (Answer, error)
	// IssueLoan starts disbursement and returns its reference.
	IssueLoan(ctx context.Context, req IssueLoanRequest) (ref string, err error)
	// IssuanceResult tells whether the disbursement completed.
	IssuanceResult(ctx context.Context, ref string) (Answer, error)
	// ContractNumber returns the loan's contract number (digits only); ErrGatewayTransient
	// while core banking has not assigned it yet.
	ContractNumber(ctx context.Context, req ContractRequest) (string, error)
}

// ContractRequest asks core banking for an issued loan's contract number.
type ContractRequest struct {
	IdempotencyKey string
	ApplicationID  uuid.UUID
	AccountNumber  string
}

// CreditRequest prepares an account-to-card credit: the network checks the card and returns a
// token for it, so tiyin never keeps the full card number.
type CreditRequest struct {
	IdempotencyKey string
	// PAN, or CardToken (the network's token of a card tiyin knows), names the card.
	PAN        domain.PAN
	CardToken  string
	Network    domain.Network
	Amount     int64
	CardHolder string
}

// CreditOrder executes a prepared credit.
type CreditOrder struct {
	IdempotencyKey string
	Token          string
	Amount         int64
}

// CreditResult is the settled outcome of a credit.
type CreditResult struct {
	Credited bool
	// Reason says why the network refused, when it did.
	Reason string
}

// Processing is the card processing networks (UZCARD, HUMO).
type Processing interface {
	// PrepareCredit checks that the network knows the card and returns a credit token;
	// domain.ErrCardRejected (wrapped) when it does not, or the card is not of that network.
	PrepareCredit(ctx context.Context, req CreditRequest) (token string, err error)
	// Credit sends the money to the card. ErrGatewayTransient means the outcome is unknown: it
	// is settled by CreditStatus with the same order, never by assuming failure.
	Credit(ctx context.Context, order CreditOrder) (CreditResult, error)
	// CreditStatus returns the outcome of the credit with the order's idempotency key;
	// ErrGatewayTransient while the network cannot say.
	CreditStatus(ctx context.Context, order CreditOrder) (CreditResult, error)
	// LookupDebit returns a card debit as the network knows it; domain.ErrDebitRejected
	// (wrapped) when the network does not know the debit id. It only reads: tiyin itself makes
	// sure a debit pays one repayment at most.
	LookupDebit(ctx context.Context, q DebitQuery) (domain.Debit, error)
	// LookupCard asks the network whether it knows the card with that expiry, registered to
	// that phone; it returns the network's reference for tokenising it, or
	// domain.ErrCardRejected (wrapped) saying why not.
	LookupCard(ctx context.Context, q CardQuery) (ref string, err error)
	// Tokenise returns the network's token for a card looked up with ref.
	Tokenise(ctx context.Context, ref string) (token string, err error)
	// SetCardState tells the network that a card issued through tiyin is blocked, unblocked or
	// closed.
	SetCardState(ctx context.Context, token string, status domain.CardStatus) error
}

// CardQuery names a card to attach.
type CardQuery struct {
	PAN     domain.PAN
	Expiry  domain.Expiry
	Network domain.Network
	Phone   domain.Phone
}

// SMS is a text message with an SMS code.
type SMS struct {
	Phone domain.Phone
	Text  string
	// Code and Card (the masked PAN) describe the message for the sandbox outbox; a real
	// gateway sends Text only.
	Code, Card string
}

// SentSMS is a message the sandbox SMS gateway sent.
type SentSMS struct {
	SMS
	SentAt time.Time
}

// SMSOutbox keeps what the sandbox SMS gateway sent, so automated partner tests can read the
// codes (sandbox only).
type SMSOutbox interface {
	// Add records a sent message.
	Add(ctx context.Context, m SentSMS) error
	// List returns the messages sent to the phone, newest first.
	List(ctx context.Context, phone domain.Phone, limit int) ([]SentSMS, error)
}

// SMSSender sends text messages to clients' phones.
type SMSSender interface {
	// Send sends the message; domain.ErrSMSNotSent (wrapped) when the gateway refused it.
	Send(ctx context.Context, m SMS) error
}

// CardIssueRequest asks the card issuer for a client's card.
type CardIssueRequest struct {
	IdempotencyKey string
	OrderID        uuid.UUID
	Phone          domain.Phone
	ClientData     domain.ClientData
}

// IssuedCard is the card an issuer made; tiyin never learns its full number.
type IssuedCard struct {
	Network   domain.Network
	MaskedPAN string
	Expiry    domain.Expiry
	Token     string
}

// CardIssueAnswer is the issuer's answer to an order; Card is set when approved.
type CardIssueAnswer struct {
	Answer
	Card IssuedCard
}

// CardIssuer makes payment cards for card orders.
type CardIssuer interface {
	// Order submits the order and returns the issuer's reference.
	Order(ctx context.Context, req CardIssueRequest) (ref string, err error)
	// Result returns the order's outcome.
	Result(ctx context.Context, ref string) (CardIssueAnswer, error)
}

// DebitQuery names a card debit a partner made to repay a loan.
type DebitQuery struct {
	DebitID string
	Network domain.Network
	// Amount is what the partner says was debited. A real adapter answers the network's own
	// figures; the sandbox, which keeps no debits, answers a debit of this amount.
	Amount int64
}

// Webhook is one event on its way to a partner's webhook.
type Webhook struct {
	URL string
	// Secret signs the body (X-Tiyin-Signature); it is the partner's webhook secret in clear.
	Secret  []byte
	EventID uuid.UUID
	Type    string
	Body    []byte
}

// WebhookSender delivers events to partners' webhooks. A nil error means the partner
// acknowledged the event (a 2xx answer); any error is retried with backoff.
type WebhookSender interface {
	Send(ctx context.Context, w Webhook) error
}
