// Package ports declares the interfaces the application layer needs from the outside world:
// storage, the bank's gateways, time and background work. It holds interfaces and the plain
// data types they exchange, nothing else.
package ports

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
)

// Clock tells the time every business rule is decided against. Each partner has its own
// time: in the sandbox a partner's clock can be moved forward, like a test clock, without
// moving any other partner's objects; everywhere else every partner's time is the system time.
type Clock interface {
	// Now is the time of partner's objects; uuid.Nil is the system time.
	Now(partner uuid.UUID) time.Time
	// Ahead lists the partners whose time is ahead of the system time (none outside the
	// sandbox). Background work runs once for all other partners at the system time, and
	// once for each of these at its own (see Partners).
	Ahead() []uuid.UUID
}

// SandboxClock is the sandbox's movable clock: one offset per partner, kept in the database
// so that every node and every restart see the same time.
type SandboxClock interface {
	Clock
	// Advance moves partner's clock forward by d (never back) and returns its new time;
	// ErrClockBound when the partner's total offset would pass MaxClockOffset.
	Advance(ctx context.Context, partner uuid.UUID, d time.Duration) (time.Time, error)
	// Reset erases every object of the partner and every posting of its loans (the ledger stays
	// balanced) and sets its clock back to the real time, like deleting a test clock; other
	// partners' objects and clocks are untouched. It returns the partner's time, now the real one.
	Reset(ctx context.Context, partner uuid.UUID) (time.Time, error)
}

// Partners narrows a listing of background work to the partners that share one time: one
// partner (Only), or every partner except some (Except). The zero value is every partner.
type Partners struct {
	Only   uuid.UUID
	Except []uuid.UUID
}

// MaxClockOffset bounds how far the sandbox clock is ahead of real time in all: 100 years.
const MaxClockOffset = 100 * 8766 * time.Hour

// ErrClockBound is an advance past MaxClockOffset.
var ErrClockBound = errors.New("the sandbox clock moves at most 100 years ahead in all")

// UnitOfWork runs a use case's changes in one database transaction. Repositories called with
// the context that Do passes to fn take part in that transaction.
type UnitOfWork interface {
	// Do begins a transaction, runs fn in it and commits when fn returns nil, else rolls back.
	// Called with a context that carries a transaction already, fn runs in that one, and the
	// outermost Do commits. No gateway is called inside fn.
	Do(ctx context.Context, fn func(ctx context.Context) error) error
}

// WorkQueue starts background work. The database row is the truth; a job is written in the
// transaction that makes its work due, and a periodic reconciler enqueues work that comes due
// with time alone.
type WorkQueue interface {
	// EnqueueApplications asks for the applications' due stages to be run, inside a unit of
	// work (an error outside one): the job commits or rolls back with it. An application that
	// already has a job waiting or running gets no second one.
	EnqueueApplications(ctx context.Context, ids ...ApplicationRef) error
}

// Storage errors that repositories translate their drivers' errors into.
var (
	// ErrDuplicateRequest means another request with the same idempotency key committed first;
	// its answer is to be replayed.
	ErrDuplicateRequest = errors.New("request with this id was already executed")
	// ErrRequestInProgress means another request with the same idempotency key is still running.
	ErrRequestInProgress = errors.New("request with this id is still in progress")
	// ErrUnavailable means the database or a gateway is unavailable, or a lock was held past
	// its wait by a concurrent request; the call is safe to retry.
	ErrUnavailable = errors.New("service temporarily unavailable")
)

//go:generate go tool mockgen -destination=mocks/mocks.go -package=mocks github.com/tiyin/tiyin/ports Clock,SandboxClock,OpsLog,UnitOfWork,WorkQueue,ApplicationRepository,LoanRepository,PartnerRepository,IdempotencyStore,LedgerRepository,TransferRepository,RepaymentRepository,CardRepository,CodeCounter,CardOrderRepository,EventOutbox,OperatorRepository,SecondFactorRepository,AuditLog,ProposalRepository,BackOffice,ReconciliationRepository,BooksRepository,NetworkJournal,Scoring,CoreBanking,Processing,SMSSender,SMSOutbox,CardIssuer,GeneralLedger,WebhookSender,CollectionsRepository,BulkRepository

// Sealer protects secrets and personal data at rest under the data key (TIYIN_DATA_KEY).
// Seal encrypts (AES-256-GCM) under the current key and names that key in its result, so a
// value sealed before a rotation still opens while its key is kept as retired; the context is
// authenticated with the value, so a sealed value copied to another row does not open. Blind
// returns keyed hashes of the parts, one per key, the current key's first: a value kept only
// as a hash is looked up by any of them.
type Sealer interface {
	Seal(plain []byte, context string) (string, error)
	Open(sealed, context string) ([]byte, error)
	Blind(label string, parts ...string) [][]byte
	// KeyID names the current key, as sealed values carry it.
	KeyID() string
}

// OpsLog tells the on-call engineer, in the service's log, what failed in the background
// (docs/operations.md, "Logs"). A Failure names the partner, the object, the event, the target
// and the attempt; never a secret, a card number or a client's personal data.
type OpsLog interface {
	Failure(ctx context.Context, f Failure)
}

// Failure is one thing that failed: an application that ended FAILED, a stage whose gateway
// call's outcome is still unknown after its first retry, a webhook delivery that failed or was
// given up.
type Failure struct {
	// Event is what failed: application.failed, stage.outcome_unknown, card_order.failed,
	// webhook.failed, webhook.given_up, books.gl_post_failed.
	Event     string
	PartnerID uuid.UUID
	// Object is what it failed on, "application:<id>", "event:<id>" or "books_day:<date>",
	// and Detail its stage, the event's type or the post's sequence.
	Object, Detail string
	// Target is the gateway port called, or the webhook's host.
	Target  string
	Attempt int
	// Final: nothing will try again by itself.
	Final  bool
	Reason string
}

// NoOpsLog is an OpsLog that tells nobody (tests, commands).
type NoOpsLog struct{}

// Failure implements OpsLog.
func (NoOpsLog) Failure(context.Context, Failure) {}

type requestIDKey struct{}

// WithRequestID is ctx carrying the partner's request id (its envelope id): background work
// the request caused carries it on, so the log ties them together.
func WithRequestID(ctx context.Context, id string) context.Context {
	if id == "" {
		return ctx
	}
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID is the request id ctx carries, empty when none.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}
