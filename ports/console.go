package ports

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// ErrNoSession means the console session token is unknown (never issued, logged out, or purged).
var ErrNoSession = errors.New("no such console session")

// ErrBadList means a console list was asked for a kind, filter or order it does not have.
var ErrBadList = errors.New("no such list, filter or order")

// ErrEventNotFound means no event has that id, or its partner has no webhook to send it to.
var ErrEventNotFound = errors.New("no such event, or its partner has no webhook")

// OperatorSession is a logged-in operator's server-side session. It is known by its token's
// hash: the token itself lives only in the operator's cookie.
type OperatorSession struct {
	TokenHash  []byte
	OperatorID uuid.UUID
	CSRF       string
	CreatedAt  time.Time
	LastSeenAt time.Time
	// SecondFactor: the login proved the operator's second factor, or the session enrolled
	// one. A session without may only change its password and enrol.
	SecondFactor bool
}

// OperatorRepository stores the console's operators and their sessions.
type OperatorRepository interface {
	// Create stores a new operator; domain.ErrOperatorExists when the name is taken.
	Create(ctx context.Context, o *domain.Operator) error
	// Get returns the operator; domain.ErrOperatorNotFound when there is none.
	Get(ctx context.Context, id uuid.UUID) (*domain.Operator, error)
	// ByName returns the operator with that name; domain.ErrOperatorNotFound when there is none.
	ByName(ctx context.Context, name string) (*domain.Operator, error)
	// List returns every operator, by name.
	List(ctx context.Context) ([]*domain.Operator, error)
	// Update locks the operator's row, applies fn and saves it.
	Update(ctx context.Context, id uuid.UUID, fn func(o *domain.Operator) error) error
	// CreateSession stores a new session.
	CreateSession(ctx context.Context, s OperatorSession) error
	// Session returns the session whose token hashes to h; ErrNoSession when there is none.
	Session(ctx context.Context, h []byte) (OperatorSession, error)
	// TouchSession records a request of the session at t.
	TouchSession(ctx context.Context, h []byte, t time.Time) error
	// DeleteSessions ends the session whose token hashes to h, or, with h nil, every session of
	// the operator.
	DeleteSessions(ctx context.Context, operatorID uuid.UUID, h []byte) error
	// DeleteOtherSessions ends every session of the operator but the one whose token hashes to
	// keep.
	DeleteOtherSessions(ctx context.Context, operatorID uuid.UUID, keep []byte) error
	// PurgeSessions deletes the sessions last seen before idleBefore or created before
	// createdBefore, and returns how many.
	PurgeSessions(ctx context.Context, idleBefore, createdBefore time.Time) (int64, error)
}

// SecondFactorRepository stores operators' second factors and recovery codes. A factor's
// secret is sealed at rest (Sealer, bound to its row); a recovery code is kept only as a hash.
type SecondFactorRepository interface {
	// Factor returns the operator's factor of the kind, enrolled or being enrolled;
	// domain.ErrNoSecondFactor when there is none.
	Factor(ctx context.Context, operatorID uuid.UUID, kind domain.FactorKind) (*domain.SecondFactor, error)
	// CreateFactor stores a factor being enrolled, unless the operator has one of its kind
	// already; it reports whether it did.
	CreateFactor(ctx context.Context, f *domain.SecondFactor) (bool, error)
	// UpdateFactor locks the factor's row, applies fn and saves it; domain.ErrNoSecondFactor
	// when there is none.
	UpdateFactor(ctx context.Context, id uuid.UUID, fn func(f *domain.SecondFactor) error) error
	// RemoveFactors deletes the operator's factors and recovery codes.
	RemoveFactors(ctx context.Context, operatorID uuid.UUID) error
	// Enrolled returns when each operator with an enrolled factor enrolled it.
	Enrolled(ctx context.Context) (map[uuid.UUID]time.Time, error)
	// ReplaceRecoveryCodes replaces the operator's recovery codes by the codes of these hashes,
	// made at at.
	ReplaceRecoveryCodes(ctx context.Context, operatorID uuid.UUID, hashes [][]byte, at time.Time) error
	// UseRecoveryCode marks the operator's unused recovery code of this hash used at at, and
	// reports whether there was one: a code is used once.
	UseRecoveryCode(ctx context.Context, operatorID uuid.UUID, hash []byte, at time.Time) (bool, error)
}

// AuditEntry is one line of the console's audit log: who did what, when, from which address.
type AuditEntry struct {
	ID       int64
	At       time.Time
	Operator string
	Address  string
	Action   string
	Object   string
	Detail   string
}

// AuditFilter selects audit entries; empty fields select all. Entries come newest first.
type AuditFilter struct {
	Operator, Action, Object string
	From, To                 time.Time
	BeforeID                 int64
	Limit                    int
}

// AuditLog is the append-only record of the console's logins, actions, approvals and reveals of
// personal data. It has no update or delete path, and the database refuses both.
type AuditLog interface {
	// Append adds an entry, in the transaction of ctx, chained to the one before it: its chain
	// is a keyed hash (under the data key) of the previous entry's chain and its own fields, so
	// an entry edited, removed or inserted without the key breaks the chain.
	Append(ctx context.Context, e AuditEntry) error
	// List returns the entries the filter selects.
	List(ctx context.Context, f AuditFilter) ([]AuditEntry, error)
	// Verify walks the whole log in order and checks what the database's owner could change
	// without the data key: the entries written before the chain began are those recorded
	// when it began and none follows a chained one; every entry's chain; every verification's
	// seal, that its own line (AuditVerified) is in the log and its line's verification in
	// theirs, and that the entries it saw are still there as they were; and, with an anchor
	// (a head kept outside, nil for none), that the log still holds that head unchanged.
	Verify(ctx context.Context, anchor *AuditHead) (AuditVerification, error)
	// SaveVerification keeps v, sealed and chained to the verification before it, and appends
	// by, its own line in the log (action AuditVerified), in the transaction of ctx: removing
	// either alone is noticed by the next verification. ErrNoAuditStart when there is nothing
	// to seal the first one on.
	SaveVerification(ctx context.Context, v AuditVerification, by AuditEntry) error
	// LastVerification returns the latest verification, nil when there is none; one whose seal
	// does not hold comes back broken, saying so.
	LastVerification(ctx context.Context) (*AuditVerification, error)
	// Head returns the log's head, for an outside anchor; ErrNoAuditStart without the record
	// of where the chain began.
	Head(ctx context.Context) (AuditHead, error)
}

// ErrNoAuditStart means where the audit chain began is not recorded under the data key (it is
// when the schema is migrated with the key): there is then no head to anchor, and nothing to
// seal the first verification on.
var ErrNoAuditStart = errors.New("where the audit chain began is not recorded under the data key")

// AuditVerified is the action of a verification's own line in the audit log.
const AuditVerified = "audit.verify"

// AuditHead is the audit log's head as kept outside the database (`tiyin audit checkpoint`):
// the last entry's number and a digest of where the chain began and that entry's chain, which
// an entry's chain makes a digest of every entry before it too. The database's owner cannot
// rewrite the log up to that entry without the digest changing.
type AuditHead struct {
	Seq  int64
	Hash []byte
}

// String is the head as checkpoints print it and `tiyin audit verify --anchor` takes it:
// SEQ:HASH, the hash in hex.
func (h AuditHead) String() string { return fmt.Sprintf("%d:%x", h.Seq, h.Hash) }

// AuditCheckpointSender sends the audit log's head out of the database's reach: the service's
// log and, when the bank has one, its SIEM.
type AuditCheckpointSender interface {
	Send(ctx context.Context, h AuditHead) error
}

// AuditVerification is the result of checking the audit log's chain.
type AuditVerification struct {
	At time.Time
	// Entries were checked; Chained of them carry a chain (those written before the chain
	// began carry none); LastID and Head are the last entry's id and chain.
	Entries, Chained, LastID int64
	Head                     []byte
	// BrokenID is the first entry that breaks the chain (0 when none, or when a verification
	// is what gives the change away) and Problem says how.
	BrokenID int64
	Problem  string
}

// Intact reports whether the log passed.
func (v AuditVerification) Intact() bool { return v.Problem == "" }

// ProposalRepository stores maker-checker proposals.
type ProposalRepository interface {
	// Create stores a new proposal; domain.ErrProposalOpen when its object has an open one.
	Create(ctx context.Context, p *domain.Proposal) error
	// Get returns the proposal; domain.ErrProposalNotFound when there is none.
	Get(ctx context.Context, id uuid.UUID) (*domain.Proposal, error)
	// Update locks the proposal's row, applies fn and saves it.
	Update(ctx context.Context, id uuid.UUID, fn func(p *domain.Proposal) error) error
	// List returns the object's proposals (uuid.Nil: the open ones of every object), newest first.
	List(ctx context.Context, objectID uuid.UUID, limit int) ([]*domain.Proposal, error)
}

// StatusCount is how many objects of a kind are in a status.
type StatusCount struct {
	Kind, Status string
	N            int
}

// AttentionQuery says when work has waited too long: an application in one stage since before
// StageBefore; an unknown gateway outcome, a transfer PROCESSING or a write request claimed and
// never answered since before UnknownBefore; a webhook delivery failed FailedAttempts times.
type AttentionQuery struct {
	StageBefore, UnknownBefore time.Time
	FailedAttempts             int
	Limit                      int
}

// AttentionItem is one line of the "needs attention" queue.
type AttentionItem struct {
	Kind   string // application, unknown_application, transfer, card_order, request (ID is its partner's), delivery
	ID     uuid.UUID
	Status string
	Detail string
	Since  time.Time
}

// SearchQuery is what an operator typed: an id of any kind, a phone's blind indexes, or the
// last four digits of a card number.
type SearchQuery struct {
	ID   uuid.UUID
	Text string
	// Number is the text without spaces and dashes: a loan's contract number (loanId) or its
	// demand account's number, as typed.
	Number       string
	PhoneIndexes []string
	PANLast4     string
	// After is the last hit of the page before, for the next page of a phone's or a card's
	// hits (newest first, keyset on when the object was made and its id).
	After *SearchHit
	Limit int
}

// SearchHit is one object found: when it was made, whose it is, its amount (0: none).
type SearchHit struct {
	Kind    string // application, loan, transfer, repayment, card, card_order, request
	ID      uuid.UUID
	Label   string
	At      time.Time
	Partner string
	Amount  int64
}

// EventRecord is a recorded event and its delivery state.
type EventRecord struct {
	ID          uuid.UUID
	PartnerID   uuid.UUID
	ObjectID    uuid.UUID
	Type        string
	Sequence    int64
	CreatedAt   time.Time
	Attempts    int
	NextAttempt time.Time
	DeliveredAt time.Time
	LastError   string
}

// AccountBalance is a ledger account and its balance (debits minus credits).
type AccountBalance struct {
	Key     string
	Kind    string
	Balance int64
}

// EntryRecord is one ledger entry with its posting.
type EntryRecord struct {
	PostingID uuid.UUID
	Kind      string
	Ref       uuid.UUID
	At        time.Time
	Account   string
	Debit     int64
	Credit    int64
}

// The console's lists (ListQuery.Kind).
const (
	ListApplications = "application"
	ListLoans        = "loan"
	ListTransfers    = "transfer"
	ListRepayments   = "repayment"
	ListCardOrders   = "card_order"
	ListCards        = "card"
)

// List sort orders (ListQuery.Sort).
const (
	SortTime   = "time"   // when the object was made (a loan: issued); the default
	SortAmount = "amount" // its amount; a list whose kind has no amount to sort by refuses it
)

// ListQuery selects one page of a console list. Zero fields select all.
type ListQuery struct {
	Kind      string    // ListApplications, ListLoans, …
	Status    string    // the object's status; a loan's OPEN or CLOSED, a repayment request's PAID or NOT_PAID
	PartnerID uuid.UUID // one partner's
	// From and To bound when the object was made: From ≤ t < To.
	From, To time.Time
	// MinAmount and MaxAmount bound its amount in tiyin, both included (an application's
	// amount is its chosen offer's; one without an offer has none, and a bound excludes it).
	MinAmount, MaxAmount int64
	// MinDaysOverdue (loans) selects the open loans at least this many days overdue at Today,
	// a business date (domain.BusinessDate); 0 selects all.
	MinDaysOverdue int
	// DueWithinDays (loans), when set, selects the open loans not yet overdue whose oldest
	// unpaid item is due from Today to this many days after it (0: today).
	DueWithinDays *int
	// Today is each partner's business date, which days overdue and falling due count from.
	Today     Today
	Sort      string // SortTime (default) or SortAmount
	Ascending bool   // oldest or smallest first; default newest or largest first
	// After is the last row of the page before, for the next page (keyset paging: a page
	// costs the same however deep).
	After *ListRow
	Limit int
	// Wide (exports) reads each row's own columns too: a repayment request's payment, a loan
	// as it stands and its principal outstanding; with Contacts, a loan's client's name and
	// phones (personal data: only for the roles that may see it).
	Wide, Contacts bool
}

// Today is each partner's business date (domain.BusinessDate) on its own clock: in the
// sandbox a partner whose clock is ahead of the system's has its own (Ahead); every other
// partner is at Date. A view across partners counts each loan's days overdue at its partner's
// date, so it agrees with the loan's page.
type Today struct {
	Date  time.Time
	Ahead map[uuid.UUID]time.Time
}

// Of is partner's business date.
func (t Today) Of(partner uuid.UUID) time.Time {
	if d, ok := t.Ahead[partner]; ok {
		return d
	}
	return t.Date
}

// Latest is the latest business date of any partner.
func (t Today) Latest() time.Time {
	latest := t.Date
	for _, d := range t.Ahead {
		if d.After(latest) {
			latest = d
		}
	}
	return latest
}

// ListRow is one object of a console list.
type ListRow struct {
	ID, PartnerID uuid.UUID
	Partner       string
	Status        string
	Detail        string // an application's stage, a loan's contract number, a card's network and masked number
	Amount        int64  // 0: none yet
	At            time.Time
	// DaysOverdue (loans) is how many days the loan's oldest unpaid item is overdue at the
	// query's Today; 0 when none is.
	DaysOverdue int
	// Of a wide query (ListQuery.Wide) only: a paid repayment request's payment; a loan, its
	// principal outstanding (its LOAN and OVERDUE_PRINCIPAL accounts' balances) and, asked for,
	// its client.
	Payment     *domain.Payment
	Loan        *domain.Loan
	Outstanding int64
	Contact     *ListContact
}

// ListContact is how a loan's client is reached: personal data.
type ListContact struct {
	Name, Phone, BackupPhone string
}

// Aging buckets of open loans by days overdue (PortfolioRow.Count, .Principal).
const (
	AgingCurrent = iota // not overdue
	Aging1To30          // 1–30 days
	Aging31To60         // 31–60 days
	Aging61To90         // 61–90 days
	AgingOver90         // more than 90 days
	AgingBuckets
)

// PortfolioRow is one partner's loans at a business date: how many are open and closed, the
// principal outstanding on the open ones (their LOAN and OVERDUE_PRINCIPAL accounts), both by
// how many days the loans are overdue, and the collections to expect.
type PortfolioRow struct {
	Partner      string
	Open, Closed int
	Outstanding  int64
	// WrittenOff counts the loans written off and not recovered in full (they are out of the
	// aging buckets); WrittenOffPrincipal is their principal not yet recovered.
	WrittenOff          int
	WrittenOffPrincipal int64
	Count               [AgingBuckets]int
	Principal           [AgingBuckets]int64
	// DueToday and DueThisWeek are the loans not closed whose oldest unpaid item falls due at
	// the business date, and in the seven days from it (that day included), with the principal
	// outstanding on them.
	DueToday, DueThisWeek Collection
}

// DailyRow is one business day's money: loans issued, repayments paid and transfers to cards
// completed, how many and how much (tiyin).
type DailyRow struct {
	Day                            time.Time // a business date
	IssuedN, RepaidN, TransferredN int
	Issued, Repaid, Transferred    int64
}

// Collection is the open loans whose oldest unpaid item falls due in a span of days, and
// the principal outstanding on them.
type Collection struct {
	Loans     int
	Principal int64
}

// ClientRecord is one person across partners, found by their PINFL's blind index: their
// applications and what came of them, and the operators' audit entries about those.
type ClientRecord struct {
	Applications, Loans, Transfers, Repayments, Cards []ListRow
	Audit                                             []AuditEntry
}

// BackOffice is the console's read model: the cross-partner queries an operator's pages need,
// each one query whatever the number of rows it returns.
type BackOffice interface {
	// List returns one page of a console list; ErrBadList names a filter or order the list's
	// kind does not have.
	List(ctx context.Context, q ListQuery) ([]ListRow, error)
	// Portfolio returns each partner's loans at its today (a business date), by name, with
	// the loans due at that today and in the seven days from it.
	Portfolio(ctx context.Context, today Today) ([]PortfolioRow, error)
	// Daily returns the business days from from up to to (business dates, to excluded), one
	// row each, days without money included.
	Daily(ctx context.Context, from, to time.Time) ([]DailyRow, error)
	// Client returns the person whose PINFL has the blind index (under the current key), each
	// loan at its partner's today, each part newest first and at most limit long.
	Client(ctx context.Context, pinflIndex string, today Today, limit int) (ClientRecord, error)
	// CountByStatus counts applications, transfers, card orders and cards by status.
	CountByStatus(ctx context.Context) ([]StatusCount, error)
	// NeedsAttention lists the work that waited too long, oldest first.
	NeedsAttention(ctx context.Context, q AttentionQuery) ([]AttentionItem, error)
	// Search finds the objects the query names.
	Search(ctx context.Context, q SearchQuery) ([]SearchHit, error)
	// Events returns the events recorded about an object, or (objectID nil) for a partner,
	// newest first.
	Events(ctx context.Context, partnerID, objectID uuid.UUID, limit int) ([]EventRecord, error)
	// StageRecords returns the application's gateway attempts, newest first.
	StageRecords(ctx context.Context, applicationID uuid.UUID, limit int) ([]domain.StageRecord, error)
	// ResendEvent makes an event due for delivery at t again, its attempts counted afresh;
	// ErrEventNotFound when there is none.
	ResendEvent(ctx context.Context, id uuid.UUID, t time.Time) error
	// Accounts lists the bank's accounts, or with loanID the loan's accounts, and balances.
	Accounts(ctx context.Context, loanID uuid.UUID) ([]AccountBalance, error)
	// Entries returns the entries of the postings that touch the accounts, newest first.
	Entries(ctx context.Context, accounts []string, limit int) ([]EntryRecord, error)
}
