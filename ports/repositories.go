package ports

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// ApplicationRef identifies an application for background work.
type ApplicationRef = uuid.UUID

// ApplicationRepository stores microloan applications.
type ApplicationRepository interface {
	// Create stores a new application; domain.ErrExternalIDUsed when the partner used its
	// externalId before.
	Create(ctx context.Context, a *domain.Application) error
	// Get returns the application; domain.ErrApplicationNotFound when there is none.
	Get(ctx context.Context, id uuid.UUID) (*domain.Application, error)
	// Summary returns what application info shows of the application, read without its
	// personal data; domain.ErrApplicationNotFound when there is none.
	Summary(ctx context.Context, id uuid.UUID) (domain.ApplicationSummary, error)
	// SummaryByExternalID returns the summary of the partner's application registered with
	// externalID, looked for among that partner's applications only;
	// domain.ErrApplicationNotFound when it has none.
	SummaryByExternalID(ctx context.Context, partnerID, externalID uuid.UUID) (domain.ApplicationSummary, error)
	// Update locks the application's row, applies fn and saves the result, in the transaction
	// of ctx or a new one. An error from fn leaves the stored application unchanged.
	Update(ctx context.Context, id uuid.UUID, fn func(a *domain.Application) error) error
	// ListDue returns the partners' applications whose background work is due at now,
	// oldest first.
	ListDue(ctx context.Context, partners Partners, now time.Time, limit int) ([]uuid.UUID, error)
	// ListPendingBefore returns the partners' PENDING applications that entered PENDING
	// before t.
	ListPendingBefore(ctx context.Context, partners Partners, t time.Time, limit int) ([]uuid.UUID, error)
	// ListAwaitingCall returns the partners' applications waiting for a phone call requested
	// before t.
	ListAwaitingCall(ctx context.Context, partners Partners, t time.Time, limit int) ([]uuid.UUID, error)
	// CountUnknownBefore counts IN_PROGRESS applications whose stage's gateway call went
	// unanswered first before t and is still unknown.
	CountUnknownBefore(ctx context.Context, t time.Time) (int, error)
}

// LoanRepository stores issued loans.
type LoanRepository interface {
	// Create stores a new loan.
	Create(ctx context.Context, l *domain.Loan) error
	// Get returns the loan; domain.ErrLoanNotFound when there is none.
	Get(ctx context.Context, id uuid.UUID) (*domain.Loan, error)
	// GetByApplication returns the loan issued on the application; domain.ErrLoanNotFound when
	// there is none.
	GetByApplication(ctx context.Context, applicationID uuid.UUID) (*domain.Loan, error)
	// GetByContract returns the loan with that contract number; domain.ErrLoanNotFound when
	// there is none.
	GetByContract(ctx context.Context, number string) (*domain.Loan, error)
	// GetForRepayment returns, in one read, the loan with that contract number and what a
	// repayment request quotes besides it; domain.ErrLoanNotFound when there is none.
	GetForRepayment(ctx context.Context, number string) (LoanForRepayment, error)
	// ListAwaitingContract returns the partners' loans without a contract number issued
	// before t.
	ListAwaitingContract(ctx context.Context, partners Partners, t time.Time, limit int) ([]uuid.UUID, error)
	// Update locks the loan's row, applies fn and saves it.
	Update(ctx context.Context, id uuid.UUID, fn func(l *domain.Loan) error) error
}

// LoanForRepayment is a loan with its demand account's balance (debits minus credits) and its
// client's full name: what a repayment request is quoted from.
type LoanForRepayment struct {
	Loan          *domain.Loan
	DemandBalance int64
	ClientName    string
}

// PartnerRepository stores partners and their hashed keys.
type PartnerRepository interface {
	// Create stores a new partner; domain.ErrPartnerExists when the name is taken.
	Create(ctx context.Context, p domain.Partner) error
	// ByKeyHash returns the partner whose key hashes to h; domain.ErrPartnerNotFound if none.
	ByKeyHash(ctx context.Context, h []byte) (domain.Partner, error)
	// ByName returns the partner named name; domain.ErrPartnerNotFound if none.
	ByName(ctx context.Context, name string) (domain.Partner, error)
	// List returns every partner, oldest first.
	List(ctx context.Context) ([]domain.Partner, error)
	// Update locks the partner's row, applies fn and saves it.
	Update(ctx context.Context, name string, fn func(p *domain.Partner) error) error
}

// IdempotencyRecord is a state-changing request's claim on its idempotency key and, once it
// has one, its outcome, replayed when the same request id comes again.
type IdempotencyRecord struct {
	PartnerID   uuid.UUID
	Key         string
	Endpoint    string
	Fingerprint []byte
	// Answered is set once the outcome is stored. A claim without one is a request whose
	// gateway step is under way, or was interrupted: a retry resumes it.
	Answered  bool
	Outcome   Outcome
	CreatedAt time.Time
}

// Outcome is how a request ended, as its use case returned it: a result, or a business
// refusal (domain.RefusalName) with its text. The edge renders it, fresh or replayed, the same
// way.
type Outcome struct {
	// ID is the request's key as its caller first wrote it, echoed by a replay.
	ID string
	// Result is the use case's result. Claim and Answer store it in the store's own encoding;
	// Lookup and Resume return it so encoded (an EncodedResult), for DecodeResult.
	Result any
	// Refusal names the business refusal that ended the request, and Message is its text;
	// empty for a result.
	Refusal, Message string
	// Sent is an answer stored before outcomes were (the envelope's code and body as they
	// were sent): it is replayed as it is.
	Sent *SentAnswer
}

// EncodedResult is a stored result in the store's own encoding.
type EncodedResult []byte

// SentAnswer is an answer kept as it was sent, by 0.1.0 and earlier: its envelope code and
// body, which a replay sends byte for byte.
type SentAnswer struct {
	Code int
	Body []byte
}

// IdempotencyStore keeps the claims and outcomes of state-changing requests, written in the
// transaction of the effects they answer for.
type IdempotencyStore interface {
	// Lookup returns the claim on the partner's request key, or nil when there is none.
	Lookup(ctx context.Context, partnerID uuid.UUID, key string) (*IdempotencyRecord, error)
	// Claim records rec's key in the transaction of ctx, with its outcome when rec is
	// Answered. ErrDuplicateRequest when a request with that key committed its claim first; a
	// concurrent one is waited for (five seconds at most, then ErrRequestInProgress).
	Claim(ctx context.Context, rec IdempotencyRecord) error
	// Resume locks the claim on the key in the transaction of ctx, for the step that ends a
	// request claimed by an earlier transaction, and returns it (Answered when another run of
	// the same request ended it first).
	Resume(ctx context.Context, partnerID uuid.UUID, key string) (*IdempotencyRecord, error)
	// DecodeResult decodes a stored result into what into points to.
	DecodeResult(enc EncodedResult, into any) error
	// Answer stores the outcome of the request claimed under key, in the transaction of ctx.
	Answer(ctx context.Context, partnerID uuid.UUID, key string, o Outcome) error
	// Purge deletes claims and answers recorded before t.
	Purge(ctx context.Context, before time.Time) (int64, error)
}

// LedgerRepository keeps the double-entry ledger. Postings are written in the caller's
// transaction, so money moves exactly when the state change that caused it commits.
type LedgerRepository interface {
	// OpenLoanAccounts creates the loan's accounts (loan, demand, hold).
	OpenLoanAccounts(ctx context.Context, loanID uuid.UUID) error
	// OpenAccount creates an account unless it exists: a loan's books accounts, opened when a
	// write-off opens its books (a loan written off before its first close).
	OpenAccount(ctx context.Context, a domain.Account) error
	// Post writes a balanced posting; domain.ErrInsufficientFunds when a demand or hold account
	// would go below zero.
	Post(ctx context.Context, p domain.Posting) error
	// Balance returns an account's debits minus credits.
	Balance(ctx context.Context, a domain.Account) (int64, error)
	// Check proves the ledger consistent.
	Check(ctx context.Context) (LedgerCheck, error)
}

// LedgerCheck is the result of a ledger check; OK when every list is empty and the sums agree.
type LedgerCheck struct {
	Debits, Credits int64
	// Unbalanced lists postings whose debits differ from their credits.
	Unbalanced []string
	// Drifted lists accounts whose stored balance differs from the sum of their entries.
	Drifted []string
	// BelowFloor lists demand or hold accounts debited beyond their credits.
	BelowFloor []string
}

// OK reports whether the ledger is consistent.
func (c LedgerCheck) OK() bool {
	return c.Debits == c.Credits && len(c.Unbalanced) == 0 && len(c.Drifted) == 0 && len(c.BelowFloor) == 0
}

// TransferRepository stores account-to-card transfers.
type TransferRepository interface {
	// Create stores a new transfer; domain.ErrExternalIDUsed when the partner used the externalId.
	Create(ctx context.Context, t *domain.Transfer) error
	// Get returns the transfer; domain.ErrTransferNotFound when there is none.
	Get(ctx context.Context, id uuid.UUID) (*domain.Transfer, error)
	// Update locks the transfer's row, applies fn and saves it.
	Update(ctx context.Context, id uuid.UUID, fn func(t *domain.Transfer) error) error
	// ListNewBefore returns the partners' NEW transfers created before t, of one loan or
	// (uuid.Nil) of all.
	ListNewBefore(ctx context.Context, partners Partners, loanID uuid.UUID, t time.Time, limit int) ([]uuid.UUID, error)
	// ListProcessingBefore returns the partners' PROCESSING transfers last changed before t.
	ListProcessingBefore(ctx context.Context, partners Partners, t time.Time, limit int) ([]uuid.UUID, error)
	// CountProcessingBefore counts PROCESSING transfers (the credit's outcome not known yet)
	// last changed before t.
	CountProcessingBefore(ctx context.Context, t time.Time) (int, error)
}

// RepaymentRepository stores repayment requests and the payments posted on them.
type RepaymentRepository interface {
	// Create stores a new request.
	Create(ctx context.Context, r *domain.Repayment) error
	// Get returns the request; domain.ErrRepaymentNotFound when there is none.
	Get(ctx context.Context, id uuid.UUID) (*domain.Repayment, error)
	// Update locks the request's row, applies fn and saves it; domain.ErrDebitRejected
	// (wrapped) when the payment's debit paid another request already.
	Update(ctx context.Context, id uuid.UUID, fn func(r *domain.Repayment) error) error
	// ListPayments returns the loan's posted payments in date order.
	ListPayments(ctx context.Context, loanID uuid.UUID) ([]domain.Payment, error)
	// ReceiptUsed reports whether a manual repayment by the channel (the cash desk, a bank
	// transfer) was paid with the receipt's or transfer's reference ref already: Create would
	// refuse another (domain.ErrDebitUsed).
	ReceiptUsed(ctx context.Context, channel domain.Channel, ref string) (bool, error)
}

// CardRepository stores payment cards.
type CardRepository interface {
	// Create stores a new card; domain.ErrCardAttached when the partner has this card (by PAN
	// hash) in a live status already.
	Create(ctx context.Context, c *domain.Card) error
	// Get returns the card; domain.ErrCardNotFound when there is none.
	Get(ctx context.Context, id uuid.UUID) (*domain.Card, error)
	// FindLive returns the partner's ACTIVE, BLOCKED or UNVERIFIED card with that PAN hash,
	// domain.ErrCardNotFound when there is none.
	FindLive(ctx context.Context, partnerID uuid.UUID, panHashes [][]byte) (*domain.Card, error)
	// ListIssuedLive returns the partner's ACTIVE or BLOCKED cards issued to the client.
	ListIssuedLive(ctx context.Context, partnerID uuid.UUID, pinfl string) ([]uuid.UUID, error)
	// Update locks the card's row, applies fn and saves it.
	Update(ctx context.Context, id uuid.UUID, fn func(c *domain.Card) error) error
}

// CodeCount is one SMS code to count under a daily cap.
type CodeCount struct {
	// Scope and Key name what is counted: a card by its PAN's hash, a phone by its hash, a
	// partner by its id.
	Scope domain.CodeCapScope
	Key   string
	// Day is the Tashkent business date counted on (domain.CodeCapDay).
	Day time.Time
	// Limit is the most codes the day counts under the key.
	Limit int
}

// CodeCounter counts the SMS codes attach sends, per key and day, for its daily caps.
type CodeCounter interface {
	// Take counts one code in the transaction of ctx, unless Limit are counted already: then
	// it counts nothing and reports false. Of two transactions at once only one takes the last
	// code; a rollback gives the code back.
	Take(ctx context.Context, c CodeCount) (bool, error)
	// GiveBack uncounts one code in the transaction of ctx: one the SMS gateway refused to send
	// (the caps count codes sent). A count already at zero stays there.
	GiveBack(ctx context.Context, c CodeCount) error
	// Purge deletes the counts of days before day; no cap reads them again.
	Purge(ctx context.Context, day time.Time) (int64, error)
}

// CardOrderRepository stores card orders.
type CardOrderRepository interface {
	// Create stores a new order; domain.ErrExternalIDUsed when the partner used the externalId.
	Create(ctx context.Context, o *domain.CardOrder) error
	// Get returns the order; domain.ErrCardOrderNotFound when there is none.
	Get(ctx context.Context, id uuid.UUID) (*domain.CardOrder, error)
	// Update locks the order's row, applies fn and saves it.
	Update(ctx context.Context, id uuid.UUID, fn func(o *domain.CardOrder) error) error
	// ListDue returns the partners' NEW and IN_PROGRESS orders due at now, oldest first.
	ListDue(ctx context.Context, partners Partners, now time.Time, limit int) ([]uuid.UUID, error)
	// CountUnknownBefore counts unfinished orders whose issuer call went unanswered first
	// before t and is still unknown.
	CountUnknownBefore(ctx context.Context, t time.Time) (int, error)
}

// OutboundEvent is a recorded event due for delivery to its partner's webhook.
type OutboundEvent struct {
	ID, PartnerID uuid.UUID
	Type          string
	// Body is the webhook's body, fixed when the event was recorded, so every attempt sends
	// the same bytes.
	Body      []byte
	CreatedAt time.Time
	// Attempts counts the deliveries tried before this one.
	Attempts int
	// URL and SealedSecret are the partner's webhook as it is now; URL is empty when the
	// partner removed it since.
	URL, SealedSecret string
	// PreviousSealedSecret is the secret the current one replaced, which signs beside it
	// until PreviousUntil; empty when none.
	PreviousSealedSecret string
	PreviousUntil        time.Time
}

// EventOutcome is what became of one delivery attempt.
type EventOutcome struct {
	Attempts int
	// DeliveredAt is set when the partner acknowledged the event.
	DeliveredAt time.Time
	// NextAttemptAt is when to try again; zero, with DeliveredAt zero, means given up.
	NextAttemptAt time.Time
	// Error says why the attempt failed, for operators.
	Error string
}

// EventQuery asks for a partner's events numbered after AfterSequence and recorded at or
// after Since, of Types (all when empty), at most Limit.
type EventQuery struct {
	PartnerID     uuid.UUID
	AfterSequence int64
	Since         time.Time
	Types         []string
	Limit         int
}

// ListedEvent is a numbered event as its webhook body carries it.
type ListedEvent struct {
	Sequence int64
	Body     []byte
}

// EventOutbox holds the events aggregates recorded, until their partners' webhooks take them.
// Repositories append events with the change that recorded them, in its transaction, for
// partners that have a webhook; the outbox only hands them out and records the outcome.
type EventOutbox interface {
	// ClaimDue returns up to limit of the partners' events due at now, oldest first, and
	// leases them until now+lease: another node, or this one after a crash, takes them again
	// only when the lease ends without an outcome.
	ClaimDue(ctx context.Context, partners Partners, now time.Time, lease time.Duration, limit int) ([]OutboundEvent, error)
	// Settle records the outcome of an attempt.
	Settle(ctx context.Context, id uuid.UUID, o EventOutcome) error
	// Record stores an event that no aggregate recorded (a sandbox test event), in the
	// transaction of ctx.
	Record(ctx context.Context, e domain.Event) error
	// Sequence numbers up to limit recorded events, each partner's in the order they became
	// visible, and returns how many it numbered. An event is delivered and listed only once
	// numbered, so a partner's numbers only grow in the order it can see them.
	Sequence(ctx context.Context, limit int) (int, error)
	// List returns the partner's numbered events after a number, oldest first.
	List(ctx context.Context, q EventQuery) ([]ListedEvent, error)
	// Purge deletes settled events recorded before before; it returns how many went.
	Purge(ctx context.Context, before time.Time) (int64, error)
}

// ReconciliationRepository keeps what reconciliation compares and finds (docs/reconciliation.md).
type ReconciliationRepository interface {
	// Lines is tiyin's own statement of one business day and network: its credits (transfers
	// created that day and sent to the network: PROCESSING as UNKNOWN, SUCCESS as DONE,
	// FAILED), under their order's key "<transactionId>:CREDIT", and its card debits
	// (repayments paid that day by card), under their debit id.
	Lines(ctx context.Context, q StatementQuery) ([]domain.StatementLine, error)
	// Balances are the ledger's closing balances at the end of a business day of each issued
	// loan's accounts, named by its demand account's number: the demand account, less what is
	// held on it for a transfer (domain.LineDemand), and the loan's principal outstanding, its
	// LOAN and OVERDUE_PRINCIPAL accounts together (domain.LineLoan), as CoreBanking.Balances
	// lists them.
	Balances(ctx context.Context, day time.Time) ([]domain.AccountBalance, error)
	// Record keeps a run and its breaks, in the caller's unit of work. A break already
	// recorded for the day and source (the same kind and line) is kept once, however many
	// runs or nodes find it; it returns how many of breaks were new.
	Record(ctx context.Context, run ReconciliationRun, breaks []domain.Break) (int, error)
	// OpenBreaks counts the breaks still OPEN by how long ago they were found at now: within a
	// day, 1–7 days, 7–30 days, longer (BreakAges' order).
	OpenBreaks(ctx context.Context, now time.Time) (BreakAges, error)
	// Breaks lists recorded breaks, a page of them (BreakQuery).
	Breaks(ctx context.Context, q BreakQuery) ([]BreakRecord, error)
	// CountBreaks counts the breaks q selects, whatever its page: all of them, or up to q.Limit
	// when it is positive (a count that stops there costs no more however many match).
	CountBreaks(ctx context.Context, q BreakQuery) (int, error)
	// Standing counts the breaks of a day and source by status (BreakOpen, BreakResolved,
	// BreakExplained): how much of the day is worked.
	Standing(ctx context.Context, day time.Time, source string) (map[string]int, error)
	// Break is one recorded break; ErrBreakNotFound when there is none.
	Break(ctx context.Context, id uuid.UUID) (BreakRecord, error)
	// Close marks an OPEN break status (BreakResolved, BreakExplained) with the operator's
	// note, in the caller's unit of work; domain.ErrWrongState when it is not open,
	// ErrBreakNotFound when there is none.
	Close(ctx context.Context, id uuid.UUID, status, note, by string, at time.Time) error
	// Reopen marks an EXPLAINED break OPEN again with the operator's note, in the caller's unit
	// of work; domain.ErrWrongState when it is not explained, or is a balance whose account has
	// another open balance break; ErrBreakNotFound when there is none.
	Reopen(ctx context.Context, id uuid.UUID, note, by string, at time.Time) error
	// Trace finds the objects the breaks' lines are of, by break: a credit's transfer (by its
	// line's transaction id), a card debit's repayment request (by the network and its debit
	// id), a closing balance's loan (by its demand account's number). A break whose line names
	// no object tiyin keeps (a debit tiyin never made) is left out.
	Trace(ctx context.Context, breaks []BreakRecord) (map[uuid.UUID]LineObject, error)
}

// LineObject is the object a reconciliation line is of: a transfer, a repayment request or a
// loan (Kind, as the console links it), its partner, and its loan.
type LineObject struct {
	Kind              string
	ID, PartnerID     uuid.UUID
	LoanID            uuid.UUID
	Account, Contract string // the loan's demand account's number and contract number
}

// ErrBreakNotFound means no break has that id.
var ErrBreakNotFound = errors.New("reconciliation break not found")

// The statuses of a break: OPEN until worked; RESOLVED when the books were made to agree (a
// run settled an unknown outcome, or two officers accepted the other side); EXPLAINED with an
// officer's note.
const (
	BreakOpen      = "OPEN"
	BreakResolved  = "RESOLVED"
	BreakExplained = "EXPLAINED"
)

// BreakQuery asks for breaks: of a status (empty for any), of a day (zero for any: a balance
// break covers every day from its Day to its LastDay), of a source and a kind (empty for any),
// recorded first by a run (uuid.Nil for any), newest found first (with Oldest, the oldest day
// first), at most Limit. A page of the newest-first list starts after Cursor (older than it),
// or, with Backward, ends before it (newer than it, still listed newest first).
type BreakQuery struct {
	// IDs, when given, selects those breaks only.
	IDs      []uuid.UUID
	Status   string
	Day      time.Time
	Source   string
	Kind     string
	RunID    uuid.UUID
	Oldest   bool
	Limit    int
	Cursor   *BreakCursor
	Backward bool
}

// BreakCursor is a break's place in the newest-first list: when it was found, and its id.
type BreakCursor struct {
	FoundAt time.Time
	ID      uuid.UUID
}

// BreakRecord is a recorded break with both sides and how it was worked.
type BreakRecord struct {
	ID  uuid.UUID
	Day time.Time
	// Source is the other side: a network's name, or domain.SourceCoreBanking.
	Source string
	domain.Break
	Status  string
	FoundAt time.Time
	// LastDay is the last business day the break was found on: its Day, or for a balance
	// break kept open as days pass (one per account), the latest day whose run found it.
	LastDay time.Time
	// Note is the operator's explanation, WorkedBy who gave it.
	Note, WorkedBy string
}

// BreakAges counts open breaks by age: within a day, 1–7 days, 7–30 days, longer.
type BreakAges [4]int

// ReconciliationRun is one comparison of a day and network: how many lines matched, how many
// breaks it found.
type ReconciliationRun struct {
	ID      uuid.UUID
	Day     time.Time // a business date
	Source  string    // a network's name, or domain.SourceCoreBanking
	At      time.Time
	Matched int
	Breaks  int
}
