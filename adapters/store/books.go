package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// storedBooks is a loan's books as stored (JSON): its items' books in a compact text form,
// read with the loan as its book is,
//
//	item;item;…
//
// each item its eight amounts (Taken, Receivable and Memo, interest's then service's; Advance;
// WaivedAhead) joined by commas, its trailing zeros left out (an item all zeros is empty), and
// the trailing empty items left out. Books stored before they kept items have none.
type storedBooks struct {
	domain.BooksState
	Items string `json:",omitempty"`
}

func encodeBooks(b domain.BooksState) (string, error) {
	raw, err := json.Marshal(storedBooks{BooksState: b, Items: encodeItemBooks(b.Items)})
	return string(raw), err
}

func decodeBooks(s string) (domain.BooksState, error) {
	var v storedBooks
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return domain.BooksState{}, fmt.Errorf("books: %w", err)
	}
	b := v.BooksState
	var err error
	if b.Items, err = decodeItemBooks(v.Items); err != nil {
		return domain.BooksState{}, fmt.Errorf("books: %w", err)
	}
	return b, nil
}

func itemBooksFields(it *domain.ItemBooks) [8]*int64 {
	return [8]*int64{&it.Taken[0], &it.Taken[1], &it.Receivable[0], &it.Receivable[1], &it.Memo[0], &it.Memo[1],
		&it.Advance, &it.WaivedAhead}
}

func encodeItemBooks(items []domain.ItemBooks) string {
	var buf []byte
	end := 0 // the buffer's length after the last item not all zeros
	for k := range items {
		if k > 0 {
			buf = append(buf, ';')
		}
		fields := itemBooksFields(&items[k])
		n := len(fields)
		for n > 0 && *fields[n-1] == 0 {
			n--
		}
		for j, f := range fields[:n] {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = strconv.AppendInt(buf, *f, 10)
		}
		if n > 0 {
			end = len(buf)
		}
	}
	return string(buf[:end])
}

func decodeItemBooks(s string) ([]domain.ItemBooks, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ";")
	items := make([]domain.ItemBooks, len(parts))
	for k, part := range parts {
		if part == "" {
			continue
		}
		fields := itemBooksFields(&items[k])
		values := strings.Split(part, ",")
		if len(values) > len(fields) {
			return nil, fmt.Errorf("item %d has %d amounts", k+1, len(values))
		}
		for j, v := range values {
			x, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", k+1, err)
			}
			*fields[j] = x
		}
	}
	return items, nil
}

// BooksRepository implements ports.BooksRepository.
type BooksRepository struct {
	db     *DB
	ledger *LedgerRepository
}

// NewBooksRepository returns the repository on db.
func NewBooksRepository(db *DB) *BooksRepository {
	return &BooksRepository{db: db, ledger: NewLedgerRepository(db)}
}

// LoansToClose implements ports.BooksRepository. On PostgreSQL a loan another close locked is
// waited for, and then left out once its books stand closed through day.
func (r *BooksRepository) LoansToClose(ctx context.Context, partners ports.Partners, day time.Time, after uuid.UUID, limit int) ([]*domain.Loan, error) {
	var ms []loanModel
	_, end := domain.BusinessDay(day)
	q := r.db.conn(ctx).Clauses(clause.Locking{Strength: "UPDATE"}).Scopes(ofPartners(partners)).
		Where("books_open = ? AND (books_day IS NULL OR books_day < ?) AND issued_at < ?", true, day.Format(domain.DateLayout), end.UTC())
	if after != uuid.Nil {
		q = q.Where("id > ?", after)
	}
	err := q.Order("id").Limit(limit).Find(&ms).Error
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]*domain.Loan, 0, len(ms))
	for i := range ms {
		l, err := ms[i].toDomain()
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// SaveClosed implements ports.BooksRepository: the accounts in one insert, each loan's row in
// one update (on PostgreSQL all of them go with the commit, in one round trip), the postings
// as PostAll posts them.
func (r *BooksRepository) SaveClosed(ctx context.Context, loans []*domain.Loan, opened []uuid.UUID, postings []domain.Posting) error {
	return r.db.inTx(ctx, func(ctx context.Context) error {
		if err := r.openBooksAccounts(ctx, opened); err != nil {
			return err
		}
		if err := r.saveBooks(ctx, loans); err != nil {
			return err
		}
		return r.ledger.PostAll(ctx, postings)
	})
}

// openBooksAccounts opens the books' accounts of the loans (one already open stays as it was):
// on PostgreSQL in one statement, sent with the commit; on SQLite in inserts of 2 000.
func (r *BooksRepository) openBooksAccounts(ctx context.Context, loans []uuid.UUID) error {
	if len(loans) == 0 {
		return nil
	}
	rows := make([]ledgerAccountModel, 0, len(loans)*len(domain.BooksAccountKinds))
	for _, id := range loans {
		loanID := id
		for _, k := range domain.BooksAccountKinds {
			rows = append(rows, ledgerAccountModel{Key: domain.LoanAccount(k, id).Key(), Kind: k.String(), LoanID: &loanID})
		}
	}
	if r.db.Dialect != Postgres {
		for chunk := range slices.Chunk(rows, 2000) {
			err := r.db.conn(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&chunk).Error
			if err := interpretError(err, nil, nil); err != nil {
				return err
			}
		}
		return nil
	}
	raw, err := json.Marshal(rows)
	if err != nil {
		return err
	}
	q := `INSERT INTO ledger_accounts (key, kind, loan_id)
		SELECT v.key, v.kind, v.loan_id FROM jsonb_to_recordset(?::jsonb) AS v(key text, kind text, loan_id uuid)
		ON CONFLICT DO NOTHING`
	return r.db.write(ctx, true, func(g *gorm.DB) *gorm.DB { return g.Exec(q, string(raw)) }, check(nil))
}

// saveBooks writes the loans' books: on PostgreSQL one UPDATE for them all, on SQLite one
// UPDATE a loan.
func (r *BooksRepository) saveBooks(ctx context.Context, loans []*domain.Loan) error {
	if len(loans) == 0 {
		return nil
	}
	type row struct {
		ID    uuid.UUID `json:"id"`
		Books *string   `json:"books"`
		Day   *string   `json:"day"`
		Open  bool      `json:"open"`
	}
	rows := make([]row, 0, len(loans))
	for _, l := range loans {
		m, err := toLoanModel(l)
		if err != nil {
			return err
		}
		rows = append(rows, row{ID: m.ID, Books: m.Books, Day: m.BooksDay, Open: m.BooksOpen})
	}
	if r.db.Dialect != Postgres {
		for _, m := range rows {
			err := r.db.write(ctx, true, func(g *gorm.DB) *gorm.DB {
				return g.Model(&loanModel{}).Where("id = ?", m.ID).
					Updates(map[string]any{"books": m.Books, "books_day": m.Day, "books_open": m.Open})
			}, check(nil))
			if err != nil {
				return err
			}
		}
		return nil
	}
	q := `UPDATE loans AS l SET books = v.books, books_day = v.day, books_open = v.open
		FROM jsonb_to_recordset(?::jsonb) AS v(id uuid, books text, day text, open boolean) WHERE l.id = v.id`
	return pgUpdateEach(ctx, r.db, q, rows, "books of %d loans saved, want %d", nil)
}

// pgUpdateEach runs q, an UPDATE … FROM jsonb_to_recordset(?::jsonb), on PostgreSQL with rows
// as its one parameter, and requires one row updated each (else the error of format, with the
// rows updated and wanted). Passed as one document, not as a list of VALUES, the rows make one
// statement whatever their number, prepared once, and its plan finds each row by its key: a
// list of VALUES as long as a batch was hash-joined against a whole table read for each batch
// (a close of 20 000 loans read the 320 000 accounts 41 times a day).
func pgUpdateEach[T any](ctx context.Context, db *DB, q string, rows []T, format string, refusals constraintErrors) error {
	doc, err := json.Marshal(rows)
	if err != nil {
		return err
	}
	n := int64(len(rows))
	return db.write(ctx, true, func(g *gorm.DB) *gorm.DB { return g.Exec(q, string(doc)) }, func(got int64, err error) error {
		if err == nil && got != n {
			err = fmt.Errorf(format, got, n)
		}
		return interpretError(err, nil, refusals)
	})
}

// Start implements ports.BooksRepository.
func (r *BooksRepository) Start(ctx context.Context) (time.Time, bool, error) {
	return r.day(ctx, "SELECT MIN(day) FROM books_closed_days")
}

// LastClosed implements ports.BooksRepository.
func (r *BooksRepository) LastClosed(ctx context.Context, scope string) (time.Time, bool, error) {
	return r.day(ctx, "SELECT MAX(day) FROM books_closed_days WHERE scope = ?", scope)
}

func (r *BooksRepository) day(ctx context.Context, q string, args ...any) (time.Time, bool, error) {
	var day *string
	if err := r.db.conn(ctx).Raw(q, args...).Scan(&day).Error; err != nil {
		return time.Time{}, false, interpretError(err, nil, nil)
	}
	if day == nil || *day == "" {
		return time.Time{}, false, nil
	}
	t, err := time.Parse(domain.DateLayout, *day)
	return t, err == nil, err
}

// analyzeClosed refreshes the statistics of the tables a close grows and rewrites, and with
// them every connection's plans of these tables, the foreign keys' checks among them. A check's
// plan is made once a connection and kept: made while ledger_postings held a few rows, it read
// the whole table for every entry inserted, and with nothing analysing it (a server without
// autovacuum) each day's close ran slower than the day before (a close of 20 000 loans fell from
// 451 to 93 loans a second in three days). A table another process is vacuuming or analysing
// is left to it (SKIP_LOCKED). Run before the days are recorded, so that a failure leaves them
// to close again, not closed and never posted to the general ledger.
const analyzeClosed = `ANALYZE (SKIP_LOCKED) loans, ledger_accounts, ledger_postings, ledger_entries`

type closedDayModel struct {
	Scope      string    `gorm:"column:scope;primaryKey"`
	Day        string    `gorm:"column:day;primaryKey"`
	ClosedAt   time.Time `gorm:"column:closed_at"`
	Loans      int64     `gorm:"column:loans"`
	Postings   int64     `gorm:"column:postings"`
	DurationMS int64     `gorm:"column:duration_ms"`
}

func (closedDayModel) TableName() string { return "books_closed_days" }

// MarkClosed implements ports.BooksRepository. On PostgreSQL it first analyses the tables a
// close grows and rewrites (analyzeClosed).
func (r *BooksRepository) MarkClosed(ctx context.Context, scope string, days []time.Time, c ports.ClosedDay) error {
	if len(days) == 0 {
		return nil
	}
	if r.db.Dialect == Postgres {
		if err := r.db.conn(ctx).Exec(analyzeClosed).Error; err != nil {
			return interpretError(err, nil, nil)
		}
	}
	rows := make([]closedDayModel, 0, len(days))
	for _, d := range days {
		rows = append(rows, closedDayModel{Scope: scope, Day: d.Format(domain.DateLayout), ClosedAt: c.At.UTC(),
			Loans: int64(c.Loans), Postings: int64(c.Postings), DurationMS: c.Duration.Milliseconds()})
	}
	err := r.db.conn(ctx).Clauses(clause.OnConflict{DoNothing: true}).CreateInBatches(&rows, 500).Error
	return interpretError(err, nil, nil)
}

// TrialBalance implements ports.BooksRepository. The entries are summed by account before they
// meet the accounts: joined entry by entry on the account's key, a plan that hashed the entries
// (the statistics not yet caught up after a close's inserts) put every entry of a bank-wide
// account in one hash bucket, which no batching splits, and a parallel worker grew to 7.4 GB at
// 100 000 loans and was killed (the whole PostgreSQL server restarted with it).
func (r *BooksRepository) TrialBalance(ctx context.Context, day time.Time) ([]ports.TrialBalanceLine, error) {
	start, end := domain.BusinessDay(day)
	var rows []struct {
		Kind                     string
		Opening, Debits, Credits int64
	}
	err := r.db.conn(ctx).Raw(`SELECT a.kind AS kind, COALESCE(SUM(x.opening), 0) AS opening,
		COALESCE(SUM(x.debits), 0) AS debits, COALESCE(SUM(x.credits), 0) AS credits
		FROM (SELECT e.account_key AS account_key,
			SUM(CASE WHEN p.created_at < ? THEN e.debit - e.credit ELSE 0 END) AS opening,
			SUM(CASE WHEN p.created_at >= ? THEN e.debit ELSE 0 END) AS debits,
			SUM(CASE WHEN p.created_at >= ? THEN e.credit ELSE 0 END) AS credits
			FROM ledger_entries e JOIN ledger_postings p ON p.id = e.posting_id
			WHERE p.created_at < ? GROUP BY e.account_key) x
		JOIN ledger_accounts a ON a.key = x.account_key GROUP BY a.kind`, start.UTC(), start.UTC(), start.UTC(), end.UTC()).Scan(&rows).Error
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]ports.TrialBalanceLine, 0, len(rows))
	for _, row := range rows {
		k, err := domain.ParseAccountKind(row.Kind)
		if err != nil {
			return nil, fmt.Errorf("stored account kind: %w", err)
		}
		out = append(out, ports.TrialBalanceLine{Kind: k, Opening: row.Opening, Debits: row.Debits, Credits: row.Credits})
	}
	return out, nil
}

// Subledger implements ports.BooksRepository: one statement, so that both sides are read at
// one moment. The sum over loans is the loans' accounts' kept balances (ledger_accounts.balance,
// moved by every posting in its transaction) less their entries posted from the day's end on;
// the control account is every entry on an account of the kind before the day's end, as the
// trial balance sums it. The entries are summed by account first, so that the join to the
// accounts is on unique keys: a bank-wide account every close posts to (INTEREST_INCOME) is one
// row, not a hot key hashed hundreds of thousands of times.
func (r *BooksRepository) Subledger(ctx context.Context, day time.Time) ([]domain.SubledgerBalance, error) {
	_, end := domain.BusinessDay(day)
	var rows []struct {
		Kind           string
		Loans, Control int64
	}
	err := r.db.conn(ctx).Raw(`SELECT a.kind AS kind,
		COALESCE(SUM(CASE WHEN a.loan_id IS NOT NULL THEN a.balance - COALESCE(x.later, 0) ELSE 0 END), 0) AS loans,
		COALESCE(SUM(x.before), 0) AS control
		FROM ledger_accounts a LEFT JOIN (
			SELECT e.account_key AS account_key,
				SUM(CASE WHEN p.created_at < ? THEN e.debit - e.credit ELSE 0 END) AS before,
				SUM(CASE WHEN p.created_at >= ? THEN e.debit - e.credit ELSE 0 END) AS later
			FROM ledger_entries e JOIN ledger_postings p ON p.id = e.posting_id GROUP BY e.account_key
		) x ON x.account_key = a.key
		GROUP BY a.kind`, end.UTC(), end.UTC()).Scan(&rows).Error
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]domain.SubledgerBalance, 0, len(rows))
	for _, row := range rows {
		k, err := domain.ParseAccountKind(row.Kind)
		if err != nil {
			return nil, fmt.Errorf("stored account kind: %w", err)
		}
		out = append(out, domain.SubledgerBalance{Kind: k, Loans: row.Loans, Control: row.Control})
	}
	return out, nil
}

// Journal implements ports.BooksRepository.
func (r *BooksRepository) Journal(ctx context.Context, day time.Time) ([]ports.JournalLine, error) {
	start, end := domain.BusinessDay(day)
	var rows []struct {
		PostingID uuid.UUID
		Kind      string
		Ref       uuid.UUID
		CreatedAt time.Time
		Account   string
		Debit     int64
		Credit    int64
	}
	err := r.db.conn(ctx).Raw(`SELECT p.id AS posting_id, p.kind AS kind, p.ref AS ref, p.created_at AS created_at,
		e.account_key AS account, e.debit AS debit, e.credit AS credit
		FROM ledger_postings p JOIN ledger_entries e ON e.posting_id = p.id
		WHERE p.created_at >= ? AND p.created_at < ? ORDER BY p.created_at, p.id, e.account_key`, start.UTC(), end.UTC()).
		Scan(&rows).Error
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]ports.JournalLine, 0, len(rows))
	for _, row := range rows {
		a, err := parseAccountKey(row.Account)
		if err != nil {
			return nil, err
		}
		out = append(out, ports.JournalLine{PostingID: row.PostingID, Kind: row.Kind, Ref: row.Ref, At: row.CreatedAt.UTC(),
			Account: a, Debit: row.Debit, Credit: row.Credit})
	}
	return out, nil
}

// parseAccountKey reads an account key: "KIND" or "KIND:<loan id>".
func parseAccountKey(key string) (domain.Account, error) {
	kind, loan, perLoan := strings.Cut(key, ":")
	k, err := domain.ParseAccountKind(kind)
	if err != nil {
		return domain.Account{}, fmt.Errorf("stored account %s: %w", key, err)
	}
	if !perLoan {
		return domain.BankAccount(k), nil
	}
	id, err := uuid.Parse(loan)
	if err != nil {
		return domain.Account{}, fmt.Errorf("stored account %s: %w", key, err)
	}
	return domain.LoanAccount(k, id), nil
}

// PostAll posts many balanced postings at once: each account's balance moves once by the sum of
// its entries (accounts in key order, so concurrent posters never deadlock), and the postings
// and entries are inserted in chunks. It is for postings no floor can refuse (the close's).
func (r *LedgerRepository) PostAll(ctx context.Context, postings []domain.Posting) error {
	if len(postings) == 0 {
		return nil
	}
	delta := map[string]int64{}
	heads := make([]postingModel, 0, len(postings))
	var rows []entryModel
	for _, p := range postings {
		heads = append(heads, postingModel{ID: p.ID, Kind: p.Kind.String(), Ref: p.Ref, CreatedAt: p.At.UTC()})
		for _, e := range p.Entries {
			delta[e.Account.Key()] += e.Debit - e.Credit
			rows = append(rows, entryModel{PostingID: p.ID, AccountKey: e.Account.Key(), Debit: e.Debit, Credit: e.Credit})
		}
	}
	keys := make([]string, 0, len(delta))
	var perLoan []string
	for k, d := range delta {
		switch {
		case d == 0:
		case r.db.Dialect == Postgres && strings.Contains(k, ":"):
			perLoan = append(perLoan, k)
		default:
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	slices.Sort(perLoan)
	// A loan's accounts in one statement on PostgreSQL: their loans are locked by whoever posts
	// to them (the close holds its batch's), so no lock order is needed among them. The bank's
	// accounts, which every payment also moves, one by one in key order: no deadlock.
	if len(perLoan) > 0 {
		type row struct {
			Key string `json:"key"`
			D   int64  `json:"d"`
		}
		rows := make([]row, 0, len(perLoan))
		for _, k := range perLoan {
			rows = append(rows, row{Key: k, D: delta[k]})
		}
		q := `UPDATE ledger_accounts AS a SET balance = a.balance + v.d
			FROM jsonb_to_recordset(?::jsonb) AS v(key text, d bigint) WHERE a.key = v.key`
		if err := pgUpdateEach(ctx, r.db, q, rows, "ledger: %d of %d loan accounts exist", ledgerFloor); err != nil {
			return err
		}
	}
	for _, key := range keys {
		d := delta[key]
		if d == 0 {
			continue
		}
		err := r.db.write(ctx, true, func(g *gorm.DB) *gorm.DB {
			return g.Model(&ledgerAccountModel{}).Where("key = ?", key).Update("balance", gormExpr("balance + ?", d))
		}, func(n int64, err error) error {
			if err != nil {
				return interpretError(err, nil, ledgerFloor)
			}
			if n != 1 {
				return errNoAccount(key)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for chunk := range slices.Chunk(heads, 2000) {
		if err := r.db.write(ctx, true, func(g *gorm.DB) *gorm.DB { return g.Create(&chunk) }, check(nil)); err != nil {
			return err
		}
	}
	for chunk := range slices.Chunk(rows, 3000) {
		if err := r.db.write(ctx, true, func(g *gorm.DB) *gorm.DB { return g.Create(&chunk) }, check(nil)); err != nil {
			return err
		}
	}
	return nil
}

type glPostModel struct {
	Day            string     `gorm:"column:day;primaryKey"`
	Sequence       int        `gorm:"column:sequence;primaryKey"`
	Lines          string     `gorm:"column:lines"`
	CreatedAt      time.Time  `gorm:"column:created_at"`
	Reference      string     `gorm:"column:reference"`
	AcknowledgedAt *time.Time `gorm:"column:acknowledged_at"`
	Attempts       int        `gorm:"column:attempts"`
	LastError      string     `gorm:"column:last_error"`
	AckDebits      *int64     `gorm:"column:acknowledged_debits"`
	AckCredits     *int64     `gorm:"column:acknowledged_credits"`
}

func (glPostModel) TableName() string { return "books_gl_posts" }

// glLineJSON is a line as books_gl_posts.lines keeps it.
type glLineJSON struct {
	GL      string `json:"gl"`
	Debits  int64  `json:"debits"`
	Credits int64  `json:"credits"`
}

func (m glPostModel) toPort() (ports.GLPost, error) {
	day, err := time.Parse(domain.DateLayout, m.Day)
	if err != nil {
		return ports.GLPost{}, fmt.Errorf("books_gl_posts day %q: %w", m.Day, err)
	}
	var lines []glLineJSON
	if err := json.Unmarshal([]byte(m.Lines), &lines); err != nil {
		return ports.GLPost{}, fmt.Errorf("books_gl_posts lines of %s:%d: %w", m.Day, m.Sequence, err)
	}
	p := ports.GLPost{Journal: ports.GLJournal{IdempotencyKey: ports.GLKey(day, m.Sequence), Day: day, Sequence: m.Sequence,
		Lines: make([]ports.GLLine, len(lines))}, CreatedAt: m.CreatedAt.UTC(), Reference: m.Reference, Attempts: m.Attempts,
		Error: m.LastError}
	for i, l := range lines {
		p.Journal.Lines[i] = ports.GLLine{GL: l.GL, Debits: l.Debits, Credits: l.Credits}
	}
	if m.AcknowledgedAt != nil {
		p.AcknowledgedAt = m.AcknowledgedAt.UTC()
	}
	if m.Reference != "" && m.AckDebits != nil && m.AckCredits != nil {
		p.Acknowledged = &domain.Turnover{Debits: *m.AckDebits, Credits: *m.AckCredits}
	}
	return p, nil
}

func (r *BooksRepository) glPosts(ctx context.Context, where string, args ...any) ([]ports.GLPost, error) {
	var ms []glPostModel
	if err := r.db.conn(ctx).Where(where, args...).Order("day, sequence").Find(&ms).Error; err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]ports.GLPost, 0, len(ms))
	for _, m := range ms {
		p, err := m.toPort()
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// GLPosts implements ports.BooksRepository.
func (r *BooksRepository) GLPosts(ctx context.Context, day time.Time) ([]ports.GLPost, error) {
	return r.glPosts(ctx, "day = ?", day.Format(domain.DateLayout))
}

// UnacknowledgedGLPosts implements ports.BooksRepository.
func (r *BooksRepository) UnacknowledgedGLPosts(ctx context.Context) ([]ports.GLPost, error) {
	return r.glPosts(ctx, "reference = ?", "")
}

// AddGLPost implements ports.BooksRepository.
func (r *BooksRepository) AddGLPost(ctx context.Context, p ports.GLPost) (bool, error) {
	lines := make([]glLineJSON, len(p.Journal.Lines))
	for i, l := range p.Journal.Lines {
		lines[i] = glLineJSON{GL: l.GL, Debits: l.Debits, Credits: l.Credits}
	}
	raw, err := json.Marshal(lines)
	if err != nil {
		return false, err
	}
	m := glPostModel{Day: p.Journal.Day.Format(domain.DateLayout), Sequence: p.Journal.Sequence, Lines: string(raw),
		CreatedAt: p.CreatedAt.UTC()}
	res := r.db.conn(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&m)
	if res.Error != nil {
		return false, interpretError(res.Error, nil, nil)
	}
	return res.RowsAffected == 1, nil
}

// AcknowledgeGLPost implements ports.BooksRepository.
func (r *BooksRepository) AcknowledgeGLPost(ctx context.Context, day time.Time, sequence int, ack ports.GLAck, at time.Time) error {
	err := r.db.conn(ctx).Model(&glPostModel{}).Where("day = ? AND sequence = ?", day.Format(domain.DateLayout), sequence).
		Updates(map[string]any{"reference": ack.Ref, "acknowledged_at": at.UTC(), "last_error": "",
			"acknowledged_debits": ack.Debits, "acknowledged_credits": ack.Credits}).Error
	return interpretError(err, nil, nil)
}

// FailGLPost implements ports.BooksRepository.
func (r *BooksRepository) FailGLPost(ctx context.Context, day time.Time, sequence int, reason string) error {
	err := r.db.conn(ctx).Model(&glPostModel{}).Where("day = ? AND sequence = ?", day.Format(domain.DateLayout), sequence).
		Updates(map[string]any{"attempts": gorm.Expr("attempts + 1"), "last_error": reason}).Error
	return interpretError(err, nil, nil)
}
