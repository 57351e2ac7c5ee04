package ports

// The gateway ports are the bank's systems as tiyin sees them: Scoring, CoreBanking,
// Processing (UZCARD/HUMO), SMSSender, CardIssuer and GeneralLedger. A bank team replaces a
// sandbox adapter (adapters/gateway/sandbox) with its own by implementing the port; the exported suites in
// ports/porttest check an adapter against the contract written here, and docs/gateways.md
// walks through it. What holds for every method of every gateway port:
//
//   - Timeout. Every call's context carries a deadline of TIYIN_GATEWAY_TIMEOUT (default 5 s),
//     set by the gateway guard (adapters/gateway/guard) around the adapter. An adapter must
//     return when the context ends; the guard turns a call that runs out into
//     ErrGatewayTransient whatever the adapter does.
//   - Errors. An adapter wraps every failure in exactly one of ErrGatewayTransient (the
//     call's outcome is unknown, as after a timeout or a lost answer: the bank may have acted;
//     tiyin asks again with the same idempotency key for as long as it takes),
//     ErrGatewayNotReached (the call certainly never reached the system, as when no connection
//     could be made: nothing happened there), ErrGatewayFailed (the system definitely refused
//     the call for a technical reason: final) or ErrGatewayRefused (the bank refused on
//     business grounds; its message is shown to the partner), or in the domain error a method
//     names (domain.ErrCardRejected, domain.ErrDebitRejected, domain.ErrSMSNotSent). Any other
//     error counts as ErrGatewayTransient: when in doubt, the outcome is unknown.
//   - Who retries. The adapter may retry inside its deadline; tiyin retries too: a request
//     answers code 10 and the partner repeats it with the same envelope id, which reaches the
//     adapter with the same idempotency key; a background stage is repeated with backoff
//     (domain.Backoff: 1 s doubling to 1 h): after an unknown outcome for as long as it takes
//     (the stage shows IN_PROGRESS), after calls that never reached the system
//     domain.MaxStageAttempts = 5 times, then the application is FAILED with code 1027; a
//     reconciler asks again on its next pass (1 s).
//   - What happened to key K? A repeated call with the same idempotency key is that question:
//     the system answers with the first call's outcome, or acts now if the first never
//     arrived. No port needs a separate lookup by key.
//   - Idempotency. Every request that changes something in the bank's system carries an
//     IdempotencyKey, derived from tiyin's own ids as each method says, so the same question
//     always carries the same key. The system must answer a repeated key with the first
//     call's outcome and must not act twice; an HTTP adapter sends it as an Idempotency-Key header.
//   - No state is changed in tiyin before a gateway answers: a call that fails leaves every
//     aggregate as it was, so an unknown outcome is always safe to ask again.
//   - Personal data. Requests carry client data and card numbers; an adapter must not log
//     them (tiyin's own logs never hold them), nor put them in the errors it returns, which
//     tiyin logs.
//   - Context. An adapter must not block past its context: a call whose context has already
//     ended returns at once with an error and without acting, and a call whose context ends
//     while it waits returns then (the guard's deadline cannot stop a goroutine that ignores
//     it; it can only stop waiting for it).
//   - No state of its own. An adapter keeps nothing that a restart would lose: tiyin runs on
//     several nodes, any of which may ask the next question about a key, and remembers what
//     it must in its database. What the adapter needs again is sent to the bank's system
//     with the idempotency key, or asked of it again (as PreScoreResult resubmits a lost
//     request). Connection pools and caches of what the system already holds are fine.
//   - Where an adapter comes from: tiyin's sandbox and HTTP adapters, or a bank's Go adapter
//     given to package server (server.WithScoring and the like) from the bank's own main.
//     ports/porttest checks what a test can: success, refusals, repeated keys, an ended
//     context, transient failures and hangs.

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// Gateway errors. A gateway adapter wraps every failure in one of them so that the service
// knows whether to retry. Anything else a gateway returns is treated as ErrGatewayTransient.
var (
	// ErrGatewayTransient: the call's outcome is unknown (the system may have acted); it is
	// repeated with the same idempotency key, which the gateway must honour, until it is known.
	ErrGatewayTransient = errors.New("gateway temporarily unavailable")
	// ErrGatewayNotReached: the call certainly never reached the system, so nothing happened
	// there; it is repeated, and a background stage gives up after MaxStageAttempts of them.
	ErrGatewayNotReached = errors.New("gateway not reached")
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
	// RequestPreScore submits the client for pre-scoring; the answer comes from
	// PreScoreResult. Called by the application's background stage PRE_SCORING with
	// IdempotencyKey "<applicationId>:PRE_SCORING". nil: the stage moves on to
	// PRE_SCORING_INFO. ErrGatewayRefused: the application is REJECTED (stage error 1024) with
	// the message. ErrGatewayFailed: FAILED (1027). Transient: the stage is repeated with backoff.
	RequestPreScore(ctx context.Context, req PreScoreRequest) error
	// PreScoreResult returns the pre-scoring answer to the request submitted with
	// req.IdempotencyKey. The whole request is passed again so that an adapter whose system
	// lost it can resubmit it instead of failing the application. Called by the stage
	// PRE_SCORING_INFO. AnswerPending: asked again later (stage PENDING); AnswerApproved with
	// Result (the offer range): the application becomes PENDING for the client's choice;
	// AnswerDeclined: REJECTED (1024) with Reason. Errors as RequestPreScore.
	PreScoreResult(ctx context.Context, req PreScoreRequest) (PreScoreAnswer, error)
	// PostScore decides on the chosen offer, synchronously, inside the partner's
	// /microloans/applications/verify request. IdempotencyKey
	// "<applicationId>:POST_SCORING:<amount>:<percent in hundredths>:<months>:<backupPhone>",
	// so the same offer asks the same question. Approved (with PhoneCallRequired and the call
	// centre's phone when a call is needed) or not approved with a Reason: the verify answer
	// says so. Any error: the request answers code 10 and changes nothing.
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
	// Amount is the principal to disburse, in tiyin, and At when tiyin asked (its clock): the
	// closing balances of that business day count it.
	Amount int64
	At     time.Time
}

// CoreBanking is the bank's core system: accounts and loans. Its first five methods are the
// issuance stages of an application, run in the background after /issue, in this order; each
// stage's idempotency key is "<applicationId>:<STAGE>". In every stage ErrGatewayRefused makes
// the application REJECTED (stage error 1026) with the message, ErrGatewayFailed makes it
// FAILED (1027), and a transient error repeats the stage with backoff (FAILED after 5 attempts).
type CoreBanking interface {
	// OpenAccount opens (or returns the already opened) demand account: stage OPEN_ACCOUNT.
	// The account number is kept on the application and the loan.
	OpenAccount(ctx context.Context, req OpenAccountRequest) (accountNumber string, err error)
	// OpenLoanApplication files the loan application and returns its reference: stage
	// OPEN_LOAN_APPLICATION.
	OpenLoanApplication(ctx context.Context, req LoanApplicationRequest) (ref string, err error)
	// LoanApplicationResult tells whether the filed loan application (ref from
	// OpenLoanApplication) was approved: stage GET_OPEN_LOAN_APPLICATION_RESULT. Pending: asked
	// again later; Declined: REJECTED (1026) with Reason.
	LoanApplicationResult(ctx context.Context, ref string) (Answer, error)
	// IssueLoan starts disbursement onto the demand account and returns its reference: stage
	// LOAN_ISSUANCE.
	IssueLoan(ctx context.Context, req IssueLoanRequest) (ref string, err error)
	// IssuanceResult tells whether the disbursement completed: stage
	// GET_LOAN_ISSUANCE_RESULT. Approved: the application is COMPLETED and the loan, its
	// accounts and the issuance posting are written in the same transaction. Pending: asked
	// again; Declined: REJECTED (1026).
	IssuanceResult(ctx context.Context, ref string) (Answer, error)
	// ContractNumber returns the loan's contract number (digits only, the partner's loanId);
	// ErrGatewayTransient while core banking has not assigned it yet. Asked by the reconciler
	// on every pass (1 s) for loans issued longer than TIYIN_LOAN_CONTRACT_DELAY ago, with
	// IdempotencyKey "<loanId>:CONTRACT"; any error just means "ask again next pass".
	ContractNumber(ctx context.Context, req ContractRequest) (string, error)
	// Balances returns the closing balances, at the end of one business day (Asia/Tashkent; a
	// business date, as domain.BusinessDate gives), of the accounts core banking keeps for
	// tiyin's loans, each named by the demand account's number: the demand account's balance,
	// less what left it for a card (domain.LineDemand), and, if core banking keeps it, the
	// loan's principal outstanding (domain.LineLoan). tiyin's reconciliation compares them with its
	// ledger's (docs/reconciliation.md, "Balances"). It only reads; any error: the day is
	// reconciled later.
	Balances(ctx context.Context, day time.Time) ([]domain.AccountBalance, error)
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
	// Network is the card's network, and At when tiyin ordered the credit (its clock): the
	// statement of that business day lists it.
	Network domain.Network
	At      time.Time
	// AccountNumber is the client's demand account the credit draws on.
	AccountNumber string
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
	// Called inside /transfers/account-to-card/create with IdempotencyKey
	// "<transactionId>:PREPARE". ErrCardRejected: the request answers its business code and
	// no transfer is created. Any other error: code 10, nothing created.
	PrepareCredit(ctx context.Context, req CreditRequest) (token string, err error)
	// Credit sends the money to the card. Called inside /transfers/account-to-card/confirm
	// after the transfer is marked PROCESSING, with IdempotencyKey "<transactionId>:CREDIT".
	// Credited: SUCCESS and the ledger moves the money out; not credited: FAILED with Reason
	// and the hold is released. ErrGatewayTransient means the outcome is unknown: the transfer
	// stays PROCESSING and is settled by CreditStatus with the same order, never by assuming
	// failure.
	Credit(ctx context.Context, order CreditOrder) (CreditResult, error)
	// CreditStatus returns the outcome of the credit with the order's idempotency key;
	// ErrGatewayTransient while the network cannot say. Asked by the reconciler for transfers
	// PROCESSING for a while; an error means "ask again next pass".
	CreditStatus(ctx context.Context, order CreditOrder) (CreditResult, error)
	// LookupDebit returns a card debit as the network knows it; domain.ErrDebitRejected
	// (wrapped) when the network does not know the debit id. It only reads: tiyin itself makes
	// sure a debit pays one repayment at most. Called inside /repayment/loans/pay (no
	// idempotency key: it changes nothing). ErrDebitRejected: the repayment request answers
	// its business code. Any other error: code 10, nothing paid.
	LookupDebit(ctx context.Context, q DebitQuery) (domain.Debit, error)
	// LookupCard asks the network whether it knows the card with that expiry, registered to
	// that phone; it returns the network's reference for tokenising it, or
	// domain.ErrCardRejected (wrapped) saying why not. Called inside /cards/attach, before the
	// SMS code is sent (reads only). ErrCardRejected: business code, no card kept; any other
	// error: code 10.
	LookupCard(ctx context.Context, q CardQuery) (ref string, err error)
	// Tokenise returns the network's token for a card looked up with ref; called inside
	// /cards/attach/confirm once the SMS code matched. The same ref must give the same token.
	// Any error: code 10 and the card stays UNVERIFIED (the same code may be sent again).
	Tokenise(ctx context.Context, ref string) (token string, err error)
	// SetCardState tells the network that a card issued through tiyin is blocked, unblocked or
	// closed; called inside PUT /cards/status before the status changes in tiyin. Setting the
	// state a card already has must succeed. Any error: code 10, the status is unchanged.
	SetCardState(ctx context.Context, token string, status domain.CardStatus) error
	// Statement returns the credits and debits the network recorded on one business day
	// (Asia/Tashkent) for one network, as it recorded them: a credit's line has the order's
	// idempotency key as its id, a debit's its debit id; each with its amount, its time and how
	// it ended (DONE, FAILED, REVERSED). tiyin's reconciliation compares it with its own
	// (docs/reconciliation.md). It only reads; any error: the day is reconciled later.
	Statement(ctx context.Context, q StatementQuery) ([]domain.StatementLine, error)
}

// StatementQuery asks for one network's statement of one business day: Day is a business
// date (domain.BusinessDate: the Tashkent date, at midnight UTC).
type StatementQuery struct {
	Network domain.Network
	Day     time.Time
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
	// Partner, Code and Card (the masked PAN) describe the message for the sandbox outbox,
	// which shows each partner its own messages only; a real gateway sends Text only.
	Partner    uuid.UUID
	Code, Card string
}

// SentSMS is a message the sandbox SMS gateway sent.
type SentSMS struct {
	SMS
	SentAt time.Time
}

// NetworkJournal is the sandbox bank's own record of what it moved: the processing network's
// credits and debits (the source of its statements) and core banking's disbursements (with the
// network's credits, the source of its closing balances). It is kept apart from tiyin's
// transfers, repayments and ledger so that the two can disagree (and reconciliation can find
// where), and shared by every node and command.
type NetworkJournal interface {
	// Record keeps a line of the network, once per kind, id and copy: copy is 0, or 1 for the
	// second record of a movement the network made twice (a sandbox fault). account is the
	// demand account a credit draws on, empty for a debit.
	Record(ctx context.Context, network domain.Network, line domain.StatementLine, account string, copy int) error
	// Lines are the network's lines of a business day, in the order they were recorded.
	Lines(ctx context.Context, q StatementQuery) ([]domain.StatementLine, error)
	// Disburse keeps core banking's disbursement of amount onto account, once per ref.
	Disburse(ctx context.Context, ref, account string, amount int64, at time.Time) error
	// Balances are the demand accounts' balances at the end of a business day: what was
	// disbursed onto each, less the network's credits drawn on it (each once, as the network
	// made it).
	Balances(ctx context.Context, day time.Time) ([]domain.AccountBalance, error)
}

// SMSOutbox keeps what the sandbox SMS gateway sent, so automated partner tests can read the
// codes (sandbox only).
type SMSOutbox interface {
	// Add records a sent message.
	Add(ctx context.Context, m SentSMS) error
	// List returns the messages the partner's requests sent to the phone, newest first.
	List(ctx context.Context, partner uuid.UUID, phone domain.Phone, limit int) ([]SentSMS, error)
}

// SMSSender sends text messages to clients' phones.
type SMSSender interface {
	// Send sends the message; domain.ErrSMSNotSent (wrapped) when the gateway refused it (an
	// unknown or barred number): /cards/attach answers 1006 and that answer is final for the
	// envelope id. Any other error means the outcome is unknown: code 10, and the partner's
	// retry with the same id sends a new code. There is no idempotency key: a repeated call may
	// send the message twice, which is harmless (the newest code counts).
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

// CardIssuer makes payment cards for card orders, in the background after /cards/order.
type CardIssuer interface {
	// Order submits the order and returns the issuer's reference. IdempotencyKey
	// "<orderId>:ORDER". nil: the order is IN_PROGRESS; any error counts a failed attempt and
	// the order is tried again later.
	Order(ctx context.Context, req CardIssueRequest) (ref string, err error)
	// Result returns the order's outcome. Approved with Card: the order is done and the card is
	// kept (token, masked number, expiry; never the full number), attached to the client.
	// Declined: the order is cancelled with Reason. Pending or an error: asked again later.
	Result(ctx context.Context, ref string) (CardIssueAnswer, error)
}

// DebitQuery names a card debit a partner made to repay a loan.
type DebitQuery struct {
	DebitID string
	Network domain.Network
	// Amount is what the partner says was debited. A real adapter answers the network's own
	// figures; the sandbox answers a debit of this amount.
	Amount int64
	// At is when tiyin asks (its clock); the sandbox records the debit then.
	At time.Time
}

// Webhook is one event on its way to a partner's webhook.
type Webhook struct {
	URL string
	// Secret signs the body (X-Tiyin-Signature); it is the partner's webhook secret in clear.
	Secret []byte
	// PreviousSecret, when set, is the secret Secret replaced: during its overlap the body is
	// signed with both, so a partner still checking with it accepts the delivery.
	PreviousSecret []byte
	EventID        uuid.UUID
	Type           string
	Body           []byte
}

// WebhookSender delivers events to partners' webhooks. A nil error means the partner
// acknowledged the event (a 2xx answer); any error is retried with backoff.
type WebhookSender interface {
	Send(ctx context.Context, w Webhook) error
}

// GLLine is one general ledger account's movement in a journal: the sums of its debits and
// credits, in tiyin.
type GLLine struct {
	// GL is the bank's general ledger account number (docs/accounting.md, the bank's chart).
	GL      string
	Debits  int64
	Credits int64
}

// GLJournal is one closed business day's journal as posted to the bank's general ledger: the
// day's entries summed by general ledger account. A day is posted as sequence 1 when it is
// first closed; entries dated it that come later (another time scope closing the same date in
// the sandbox, a payment after a close run for today) are posted as the next sequence, with
// what was not posted yet. The sequences of a day add up to its journal.
type GLJournal struct {
	// IdempotencyKey is "<day YYYY-MM-DD>:<sequence>".
	IdempotencyKey string
	// Day is a business date (domain.BusinessDate: the Tashkent date, at midnight UTC).
	Day      time.Time
	Sequence int
	// Lines are in the order of their GL numbers, one per number; their debits and their
	// credits sum to the same amount.
	Lines []GLLine
}

// Totals are the journal's debits and its credits, summed over its lines.
func (j GLJournal) Totals() domain.Turnover {
	var t domain.Turnover
	for _, l := range j.Lines {
		t.Debits, t.Credits = t.Debits+l.Debits, t.Credits+l.Credits
	}
	return t
}

// GLAck is core banking's acknowledgement of a journal: its reference of the posting, and the
// debits and the credits it posted under it, as core banking counted them (the control totals
// tiyin proves each day against the journal it sent, docs/accounting.md, "The daily proof").
type GLAck struct {
	Ref             string
	Debits, Credits int64
}

// GLKey is the idempotency key of a day's sequence.
func GLKey(day time.Time, sequence int) string {
	return day.Format(time.DateOnly) + ":" + strconv.Itoa(sequence)
}

// GeneralLedger is the bank's general ledger in core banking, where tiyin's closed days are
// posted so that the bank's books include the loan sub-ledger.
type GeneralLedger interface {
	// PostJournal posts a closed day's journal and returns core banking's acknowledgement: its
	// reference of the posting, and the debits and the credits it posted (for a journal posted
	// as sent, the journal's totals). Idempotent by day and sequence (IdempotencyKey): the same
	// journal posted again answers the first acknowledgement and posts nothing; a different
	// journal under a key already posted is ErrGatewayFailed, and nothing is posted. Called by
	// the books' close after the day is recorded closed, outside any transaction; tiyin keeps
	// the journal it sent, and any error leaves the day unacknowledged: the next close run
	// posts the same journal again with the same key.
	PostJournal(ctx context.Context, j GLJournal) (GLAck, error)
}
