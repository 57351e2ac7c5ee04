package ports

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// QueueQuery selects a page of the collections queue: open loans overdue between MinDays and
// MaxDays (0: no upper bound), each counted on its partner's clock.
type QueueQuery struct {
	// Scopes are the partners' todays: every scope's loans are overdue at its own today.
	Scopes           []QueueScope
	MinDays, MaxDays int
	// Collector narrows to one collector's loans; Unassigned to loans nobody has.
	Collector  uuid.UUID
	Unassigned bool
	// Flagged narrows to loans back in the queue after a broken promise.
	Flagged bool
	// After is the last row of the page before (oldest first unpaid date first).
	After *QueueRow
	Limit int
}

// QueueScope is a set of partners that share one today (a business date).
type QueueScope struct {
	Partners Partners
	Today    time.Time
}

// QueueRow is an overdue loan in the queue.
type QueueRow struct {
	LoanID, PartnerID uuid.UUID
	Partner           string
	ContractNumber    string
	// Due is the first unpaid instalment's date; DaysOverdue counts from it at the loan's
	// partner's today.
	Due         time.Time
	DaysOverdue int
	Principal   int64 // outstanding: the LOAN and OVERDUE_PRINCIPAL accounts
	Collector   uuid.UUID
	// CollectorName is the collector's operator name, "" when nobody has the loan.
	CollectorName string
	// Flagged: back in the queue after a broken promise.
	Flagged bool
}

// Assignment is who works an overdue loan.
type Assignment struct {
	LoanID, Collector, By uuid.UUID
	At                    time.Time
	Flagged               bool
}

// ReminderRecord is a reminder claimed for a loan, then sent or failed: claimed once per loan and
// rule key, so a reminder never goes twice.
type ReminderRecord struct {
	ID, LoanID, PartnerID uuid.UUID
	Reminder              domain.Reminder
	// Status is PENDING (claimed, not yet sent), SENT or FAILED.
	Status string
	At     time.Time
}

// The reminder records' statuses.
const (
	ReminderPending = "PENDING"
	ReminderSent    = "SENT"
	ReminderFailed  = "FAILED"
)

// PARSnapshot is one business date's portfolio at risk, all partners: the open loans'
// outstanding principal and the part of it overdue past 1, 30 and 90 days.
type PARSnapshot struct {
	Day                      time.Time
	Loans                    int
	Principal                int64
	PAR1, PAR30, PAR90       int64
	Loans1, Loans30, Loans90 int
}

// CollectionsReport is what collections came to in a period: promises kept and broken, money
// recovered per collector, and how loans rolled between buckets.
type CollectionsReport struct {
	Kept, Broken, Open int
	KeptAmount         int64
	// Recovered is the money paid on assigned overdue loans in the period, per collector.
	Recovered []CollectorRecovery
}

// CollectorRecovery is a collector's recovered money.
type CollectorRecovery struct {
	Collector string
	Loans     int
	Amount    int64
}

// BucketDay is an overdue loan's bucket on a snapshot day (the roll rates' raw material).
type BucketDay struct {
	LoanID uuid.UUID
	Bucket int
}

// CollectionsRepository keeps the collectors' work: assignments, the contact log, promises to
// pay, reminders sent, and the daily snapshots of portfolio at risk.
type CollectionsRepository interface {
	// Queue returns a page of overdue open loans, oldest first unpaid date first.
	Queue(ctx context.Context, q QueueQuery) ([]QueueRow, error)
	// Assignment returns who works the loan; ok false when nobody does.
	Assignment(ctx context.Context, loanID uuid.UUID) (a Assignment, ok bool, err error)
	// Assign gives the loan to a collector (replacing any before), clearing its flag.
	Assign(ctx context.Context, a Assignment) error
	// Flag puts the loan back in the queue flagged (a broken promise), assigned or not.
	Flag(ctx context.Context, loanID uuid.UUID, at time.Time) error
	// AddNote adds a line to the loan's contact log.
	AddNote(ctx context.Context, n domain.ContactNote) error
	// Notes returns the loan's contact log, newest first.
	Notes(ctx context.Context, loanID uuid.UUID, limit int) ([]domain.ContactNote, error)
	// AddPromise stores a new promise to pay.
	AddPromise(ctx context.Context, p *domain.PromiseToPay) error
	// Promises returns the loan's promises, newest first.
	Promises(ctx context.Context, loanID uuid.UUID, limit int) ([]*domain.PromiseToPay, error)
	// OpenPromises returns up to limit open promises of the partners.
	OpenPromises(ctx context.Context, partners Partners, limit int) ([]*domain.PromiseToPay, error)
	// UpdatePromise locks the promise, applies fn and saves it.
	UpdatePromise(ctx context.Context, id uuid.UUID, fn func(p *domain.PromiseToPay) error) error
	// PaidSince sums the payments posted on the loan at or after since.
	PaidSince(ctx context.Context, loanID uuid.UUID, since time.Time) (int64, error)
	// DueForReminder returns up to limit open loans of the partners whose first unpaid date is
	// in one of the windows, after the loan id after (uuid.Nil: from the start).
	DueForReminder(ctx context.Context, partners Partners, windows []domain.DateRange, after uuid.UUID, limit int) ([]uuid.UUID, error)
	// ClaimReminder records a reminder as PENDING unless the loan had that rule's reminder
	// already, or its borrower got perWeek reminders since weekAgo; it reports whether it did.
	ClaimReminder(ctx context.Context, r ReminderRecord, weekAgo time.Time, perWeek int) (bool, error)
	// SettleReminder records that a claimed reminder was sent or failed.
	SettleReminder(ctx context.Context, id uuid.UUID, status string, at time.Time) error
	// Reminders returns the loan's reminders, newest first.
	Reminders(ctx context.Context, loanID uuid.UUID, limit int) ([]ReminderRecord, error)
	// SnapshotPAR records the day's portfolio at risk (at today) and each overdue loan's bucket,
	// once: a second snapshot of a day replaces the first.
	SnapshotPAR(ctx context.Context, scopes []QueueScope, day time.Time, buckets domain.Buckets) error
	// PARHistory returns the snapshots from from to to, both included, oldest first.
	PARHistory(ctx context.Context, from, to time.Time) ([]PARSnapshot, error)
	// BucketsOn returns each overdue loan's bucket as the snapshot of day recorded it.
	BucketsOn(ctx context.Context, day time.Time) ([]BucketDay, error)
	// Report sums the period's promises (settled in it) and recoveries (paid in it).
	Report(ctx context.Context, from, to time.Time) (CollectionsReport, error)
}

// BulkRepository keeps the lines of the repayments files proposed at once (BULK_REPAYMENTS).
type BulkRepository interface {
	// AddLines stores a batch's lines, as previewed.
	AddLines(ctx context.Context, batch uuid.UUID, lines []domain.BulkLine) error
	// Lines returns a batch's lines in file order.
	Lines(ctx context.Context, batch uuid.UUID) ([]domain.BulkLine, error)
}
