package store

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/tiyin/tiyin/ports"
)

// requestLockTimeout is how long a request waits for a concurrent request with the same
// idempotency key before it answers "still in progress"; on PostgreSQL it is every
// connection's lock_timeout.
const requestLockTimeout = 5 * time.Second

type txKey struct{}

// txState is the transaction a context carries.
type txState struct {
	tx *gorm.DB // the repositories' handle on the open transaction, nil when none is open
	// end commits the open transaction, after running last in it, or rolls it back.
	end func(ctx context.Context, commit bool, last []statement) error
	// deferred are statements sent with COMMIT, in one round trip with it on PostgreSQL: the
	// transaction's events, which nothing in it reads, and its writes behind (writeBehind),
	// which go ahead of its next statement instead when one comes.
	deferred []statement
	behind   bool // deferred holds a write behind
	owned    bool // the HTTP edge owns it: Do joins, RequestScope commits
	// opener is set while a unit of work is under way on it (in a request scope, from its
	// first one on): the first statement opens the transaction, and when it is a single-row
	// read it travels with the BEGIN.
	opener      *UnitOfWork
	claim       *ports.IdempotencyRecord
	poisoned    bool // a use case failed inside it: roll back before storing the answer
	afterCommit []func(context.Context)
}

func stateFrom(ctx context.Context) *txState {
	st, _ := ctx.Value(txKey{}).(*txState)
	return st
}

// conn returns the handle every repository query must use: the context's transaction when
// there is one (on SQLite's single connection anything else would deadlock), opening it when
// a unit of work is under way, else the pool. A transaction that cannot be opened is the
// handle's error.
func (db *DB) conn(ctx context.Context) *gorm.DB {
	st := stateFrom(ctx)
	if st.opening() {
		if err := st.opener.begin(ctx, st, nil); err != nil {
			g := db.Gorm.WithContext(ctx)
			_ = g.AddError(err)
			return g
		}
	}
	if st != nil && st.tx != nil {
		tx := st.tx.WithContext(ctx)
		if err := st.flush(ctx); err != nil {
			_ = tx.AddError(err)
		}
		return tx
	}
	return db.Gorm.WithContext(ctx)
}

// opening reports whether st's next statement opens its transaction.
func (st *txState) opening() bool { return st != nil && st.tx == nil && st.opener != nil }

// UnitOfWork implements ports.UnitOfWork and ports.IdempotencyStore on one database.
type UnitOfWork struct {
	db *DB
}

// NewUnitOfWork returns the unit of work of db.
func NewUnitOfWork(db *DB) *UnitOfWork { return &UnitOfWork{db: db} }

// Do implements ports.UnitOfWork. The transaction opens with fn's first statement (a request's
// claim and a first single-row read travel with its BEGIN); fn that runs none commits nothing.
func (u *UnitOfWork) Do(ctx context.Context, fn func(ctx context.Context) error) error {
	st := stateFrom(ctx)
	if st != nil && st.owned {
		st.opener = u
		if err := fn(ctx); err != nil {
			st.poisoned = true
			return err
		}
		return nil
	}
	if st != nil && (st.tx != nil || st.opener != nil) {
		return fn(ctx)
	}
	st = &txState{opener: u}
	inner := context.WithValue(ctx, txKey{}, st)
	if err := fn(inner); err != nil {
		st.rollback(ctx)
		return err
	}
	if st.tx != nil {
		if err := st.commit(ctx, nil); err != nil {
			return err
		}
	}
	runAfterCommit(ctx, st)
	return nil
}

// commit ends st's transaction, running its deferred statements and last in it first; on
// failure it is rolled back.
func (st *txState) commit(ctx context.Context, last *statement) error {
	end, stmts := st.end, st.deferred
	if last != nil {
		stmts = append(stmts, *last)
	}
	st.dropTx()
	return interpretError(end(ctx, true, stmts), nil, nil)
}

// deferUntilCommit adds s, a write nothing in the transaction reads, to the statements st's
// transaction sends with its COMMIT; it reports false when no transaction is open.
func (st *txState) deferUntilCommit(s statement) bool {
	if st == nil || st.tx == nil {
		return false
	}
	st.deferred = append(st.deferred, s)
	return true
}

// writeBehind adds s to the statements st's transaction sends with its COMMIT, or ahead of its
// next statement when one comes first, so that a later read sees it; it reports false when no
// transaction is open. s must be a write that nothing can refuse for a reason its caller would
// answer (no unique key but a fresh id, references only to rows the transaction has read):
// its failure surfaces at the next statement or at COMMIT, as the transaction's.
func (st *txState) writeBehind(s statement) bool {
	if !st.deferUntilCommit(s) {
		return false
	}
	st.behind = true
	return true
}

// flush sends st's deferred statements, when a write behind is among them, ahead of the
// statement about to run in its open transaction.
func (st *txState) flush(ctx context.Context) error {
	if st == nil || !st.behind {
		return nil
	}
	stmts := st.deferred
	st.deferred, st.behind = nil, false
	return execAll(st.tx.WithContext(ctx), stmts)
}

// rollback ends st's transaction, if one is open, discarding its effects and hooks.
func (st *txState) rollback(ctx context.Context) {
	if st.tx != nil {
		_ = st.end(ctx, false, nil)
	}
	st.dropTx()
	st.afterCommit = nil
}

// dropTx forgets st's transaction and the statements it had yet to send.
func (st *txState) dropTx() { st.tx, st.end, st.deferred, st.behind = nil, nil, nil, false }

// Detach implements ports.UnitOfWork.
func (u *UnitOfWork) Detach(ctx context.Context) context.Context {
	return context.WithValue(ctx, txKey{}, (*txState)(nil))
}

// AfterCommit implements ports.UnitOfWork.
func (u *UnitOfWork) AfterCommit(ctx context.Context, fn func(context.Context)) {
	if st := stateFrom(ctx); st != nil {
		st.afterCommit = append(st.afterCommit, fn)
		return
	}
	fn(ctx)
}

// runAfterCommit runs the hooks of a committed transaction with a context that no longer
// carries it, so what they do runs in transactions of their own.
func runAfterCommit(ctx context.Context, st *txState) {
	hooks := st.afterCommit
	st.afterCommit = nil
	detached := (&UnitOfWork{}).Detach(context.WithoutCancel(ctx))
	for _, fn := range hooks {
		fn(detached)
	}
}

// begin opens st's transaction and runs in it writes and then read (when not nil); in a
// request scope its first statement claims the request's idempotency key, so a concurrent
// duplicate blocks on that row until this one ends. A write that fails leaves no transaction
// open.
func (u *UnitOfWork) begin(ctx context.Context, st *txState, read *rowRead, writes ...statement) error {
	first := writes
	if c := st.claim; c != nil {
		claim := statement{claimQuery, []any{c.PartnerID, c.Key, c.Endpoint, c.Fingerprint, c.HTTPStatus, c.Body, c.CreatedAt.UTC()}}
		first = append([]statement{claim}, writes...)
	}
	open := opener(beginGorm)
	if u.db.Dialect == Postgres {
		open = beginPipelined
	}
	tx, end, err := open(ctx, u.db, first, read)
	if err != nil {
		return interpretError(err, nil, idempotencyUnique)
	}
	st.tx, st.end = tx, end
	return nil
}

// The claim of a request's idempotency key, and the answer stored under it at the end.
var (
	claimQuery  = newQuery("INSERT INTO idempotency_records (partner_id, key, endpoint, fingerprint, http_status, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
	answerQuery = newQuery("UPDATE idempotency_records SET http_status = ?, body = ? WHERE partner_id = ? AND key = ?")
)

var idempotencyUnique = constraintErrors{
	"idempotency_records_pkey":                                ports.ErrDuplicateRequest,
	"idempotency_records.partner_id, idempotency_records.key": ports.ErrDuplicateRequest,
}

type idempotencyModel struct {
	PartnerID   uuid.UUID `gorm:"column:partner_id;primaryKey"`
	Key         string    `gorm:"column:key;primaryKey"`
	Endpoint    string    `gorm:"column:endpoint"`
	Fingerprint []byte    `gorm:"column:fingerprint"`
	HTTPStatus  int       `gorm:"column:http_status"`
	Body        []byte    `gorm:"column:body"`
	CreatedAt   time.Time `gorm:"column:created_at;autoCreateTime:false"`
}

func (idempotencyModel) TableName() string { return "idempotency_records" }

// Lookup implements ports.IdempotencyStore.
func (u *UnitOfWork) Lookup(ctx context.Context, partnerID uuid.UUID, key string) (*ports.IdempotencyRecord, error) {
	var m idempotencyModel
	err := u.db.conn(ctx).Where("partner_id = ? AND key = ?", partnerID, key).Take(&m).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	return &ports.IdempotencyRecord{PartnerID: m.PartnerID, Key: m.Key, Endpoint: m.Endpoint,
		Fingerprint: m.Fingerprint, HTTPStatus: m.HTTPStatus, Body: m.Body, CreatedAt: m.CreatedAt}, nil
}

// Begin implements ports.IdempotencyStore.
func (u *UnitOfWork) Begin(ctx context.Context, rec ports.IdempotencyRecord) (context.Context, ports.RequestScope) {
	st := &txState{owned: true, claim: &rec}
	return context.WithValue(ctx, txKey{}, st), &requestScope{u: u, st: st}
}

// Purge implements ports.IdempotencyStore.
func (u *UnitOfWork) Purge(ctx context.Context, before time.Time) (int64, error) {
	res := u.db.conn(ctx).Where("created_at < ?", before.UTC()).Delete(&idempotencyModel{})
	return res.RowsAffected, interpretError(res.Error, nil, nil)
}

type requestScope struct {
	u  *UnitOfWork
	st *txState
}

// Commit implements ports.RequestScope.
func (r *requestScope) Commit(ctx context.Context, httpStatus int, body []byte) error {
	st := r.st
	if st.poisoned {
		st.rollback(ctx)
	}
	if st.tx == nil {
		if err := r.u.begin(ctx, st, nil); err != nil {
			return err
		}
	}
	answer := &statement{answerQuery, []any{httpStatus, body, st.claim.PartnerID, st.claim.Key}}
	if err := st.commit(ctx, answer); err != nil {
		return err
	}
	runAfterCommit(ctx, st)
	return nil
}

// Rollback implements ports.RequestScope.
func (r *requestScope) Rollback() {
	r.st.rollback(context.Background()) // after a commit, only hooks a failed one left are dropped
}

// lockedUpdate is the body of every repository's Update: in the transaction of ctx (or a new
// one, whose BEGIN travels with the read) it reads the row of model M with that id from t,
// locked, rebuilds the aggregate, applies fn and saves every column (written behind when t's
// updates are). An error from fn leaves the row unchanged.
func lockedUpdate[M any, PM model[M], A any](ctx context.Context, db *DB, t table, id uuid.UUID, notFound error,
	unique constraintErrors, load func(*M) (A, error), save func(A) (*M, error), fn func(A) error) error {
	return NewUnitOfWork(db).Do(ctx, func(ctx context.Context) error {
		var m M
		if err := interpretError(db.queryRow(ctx, t.locked, id).Scan(PM(&m).fields()...), notFound, nil); err != nil {
			return err
		}
		a, err := load(&m)
		if err != nil {
			return err
		}
		if err := fn(a); err != nil {
			return err
		}
		saved, err := save(a)
		if err != nil {
			return err
		}
		write := db.exec
		if t.behind {
			write = db.execBehind
		}
		if err := interpretError(write(ctx, t.updateOf(PM(saved))), nil, unique); err != nil {
			return err
		}
		return insertEvents(ctx, db, takeEvents(a))
	})
}

// infallible adapts a mapping that cannot fail to lockedUpdate's save.
func infallible[A, M any](f func(A) *M) func(A) (*M, error) {
	return func(a A) (*M, error) { return f(a), nil }
}
