package ports

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// BooksRepository keeps the books' closes: which loans a close still has to visit, their
// books and postings, the days closed, and the reports of a closed day.
type BooksRepository interface {
	// LoansToClose locks and returns, in id order from after (uuid.Nil: the first), up to limit
	// loans of partners whose books are open and not closed through day, issued on or before it.
	LoansToClose(ctx context.Context, partners Partners, day time.Time, after uuid.UUID, limit int) ([]*domain.Loan, error)
	// SaveClosed stores the loans' books and posts the close's postings; opened lists the loans
	// whose books this close opened (their books accounts are created).
	SaveClosed(ctx context.Context, loans []*domain.Loan, opened []uuid.UUID, postings []domain.Posting) error
	// Start is the first day the books ever closed; false before any close.
	Start(ctx context.Context) (time.Time, bool, error)
	// LastClosed is the last day closed for the scope; false before its first.
	LastClosed(ctx context.Context, scope string) (time.Time, bool, error)
	// MarkClosed records the days closed for the scope (a day already recorded stays as it was).
	MarkClosed(ctx context.Context, scope string, days []time.Time, c ClosedDay) error
	// TrialBalance sums each account kind's entries: before the day (opening) and on it.
	TrialBalance(ctx context.Context, day time.Time) ([]TrialBalanceLine, error)
	// Subledger is each account kind at the day's end, debits minus credits, read at one
	// moment: the sum over the loans' accounts of the kind (each account's kept balance less
	// its entries posted after the day), and the kind's control account (every entry on an
	// account of the kind up to the day's end, as TrialBalance sums it). A kind no loan account
	// holds and no entry moved may be left out.
	Subledger(ctx context.Context, day time.Time) ([]domain.SubledgerBalance, error)
	// Journal lists the entries of the day's postings, in posting order.
	Journal(ctx context.Context, day time.Time) ([]JournalLine, error)
	// GLPosts are the day's posts to the general ledger, by sequence.
	GLPosts(ctx context.Context, day time.Time) ([]GLPost, error)
	// UnacknowledgedGLPosts are the posts core banking has not acknowledged yet, by day and
	// sequence.
	UnacknowledgedGLPosts(ctx context.Context) ([]GLPost, error)
	// UnpostedClosedDays are the days closed (for any scope) with no post to the general ledger
	// recorded, in day order: a close whose post of a day was never recorded (stopped, failed, or
	// held back behind an earlier day not acknowledged) leaves them to the next.
	UnpostedClosedDays(ctx context.Context) ([]time.Time, error)
	// AddGLPost records a post before it is sent; false when the day's sequence is recorded
	// already (another node's), and nothing is changed.
	AddGLPost(ctx context.Context, p GLPost) (bool, error)
	// AcknowledgeGLPost records core banking's acknowledgement of the day's sequence: its
	// reference and the totals it posted.
	AcknowledgeGLPost(ctx context.Context, day time.Time, sequence int, ack GLAck, at time.Time) error
	// FailGLPost counts a failed or unknown attempt of the day's sequence and keeps its error.
	FailGLPost(ctx context.Context, day time.Time, sequence int, reason string) error
}

// GLPost is a closed day's journal posted, or to be posted, to the bank's general ledger, and
// core banking's acknowledgement of it.
type GLPost struct {
	Journal   GLJournal
	CreatedAt time.Time
	// Reference is core banking's acknowledgement, empty until it acknowledged; AcknowledgedAt
	// when it did.
	Reference      string
	AcknowledgedAt time.Time
	// Acknowledged are the debits and the credits core banking said it posted; nil until it
	// acknowledged, and for a post acknowledged before tiyin kept them (migration 00039).
	Acknowledged *domain.Turnover
	// Attempts counts the attempts that failed or whose outcome is unknown, Error the last's.
	Attempts int
	Error    string
}

// GLDayAcknowledged reports whether a day's posts acknowledge it: it has a post, and core
// banking acknowledged each.
func GLDayAcknowledged(posts []GLPost) bool {
	return len(posts) > 0 && !slices.ContainsFunc(posts, func(p GLPost) bool { return p.Reference == "" })
}

// ClosedDay is what a close did.
type ClosedDay struct {
	At       time.Time
	Loans    int
	Postings int
	Duration time.Duration
}

// TrialBalanceLine is an account kind's movement on a day, debits minus credits for the opening.
type TrialBalanceLine struct {
	Kind                     domain.AccountKind
	Opening, Debits, Credits int64
}

// JournalLine is one entry of a day's journal.
type JournalLine struct {
	PostingID uuid.UUID
	Kind      string // the posting's kind
	Ref       uuid.UUID
	At        time.Time
	Account   domain.Account
	Debit     int64
	Credit    int64
}
