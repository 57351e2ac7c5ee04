package store

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/tiyin/tiyin/ports"
)

// requestLockTimeout is how long a request waits for a concurrent request with the same
// idempotency key before it answers "still in progress"; on PostgreSQL it is every
// connection's lock_timeout.
const requestLockTimeout = 5 * time.Second

type txKey struct{}

// txState is the transaction a context carries.
type txState struct {
	tx          *gorm.DB
	owned       bool // the HTTP edge owns it: Do joins, RequestScope commits
	claim       *ports.IdempotencyRecord
	poisoned    bool // a use case failed inside it: roll back before storing the answer
	afterCommit []func(context.Context)
}

func stateFrom(ctx context.Context) *txState {
	st, _ := ctx.Value(txKey{}).(*txState)
	return st
}

// conn returns the handle every repository query must use: the context's transaction when
// there is one (on SQLite's single connection anything else would deadlock), else the pool.
func (db *DB) conn(ctx context.Context) *gorm.DB {
	if st := stateFrom(ctx); st != nil && st.tx != nil {
		return st.tx.WithContext(ctx)
	}
	return db.Gorm.WithContext(ctx)
}

// UnitOfWork implements ports.UnitOfWork and ports.IdempotencyStore on one database.
type UnitOfWork struct {
	db *DB
}

// NewUnitOfWork returns the unit of work of db.
func NewUnitOfWork(db *DB) *UnitOfWork { return &UnitOfWork{db: db} }

// Do implements ports.UnitOfWork.
func (u *UnitOfWork) Do(ctx context.Context, fn func(ctx context.Context) error) error {
	st := stateFrom(ctx)
	if st != nil && st.owned {
		if st.tx == nil {
			if err := u.begin(ctx, st); err != nil {
				return err
			}
		}
		if err := fn(ctx); err != nil {
			st.poisoned = true
			return err
		}
		return nil
	}
	if st != nil && st.tx != nil {
		return fn(ctx)
	}
	st = &txState{}
	if err := u.begin(ctx, st); err != nil {
		return err
	}
	inner := context.WithValue(ctx, txKey{}, st)
	if err := fn(inner); err != nil {
		st.tx.Rollback()
		return err
	}
	if err := st.tx.Commit().Error; err != nil {
		return interpretError(err, nil, nil)
	}
	runAfterCommit(ctx, st)
	return nil
}

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
	st.tx, st.afterCommit = nil, nil
	detached := (&UnitOfWork{}).Detach(context.WithoutCancel(ctx))
	for _, fn := range hooks {
		fn(detached)
	}
}

// begin opens st's transaction; in a request scope its first statement claims the request's
// idempotency key, so a concurrent duplicate blocks on that row until this one ends.
func (u *UnitOfWork) begin(ctx context.Context, st *txState) error {
	tx := u.db.Gorm.WithContext(ctx).Begin()
	if tx.Error != nil {
		return interpretError(tx.Error, nil, nil)
	}
	if st.claim != nil {
		err := tx.Create(toIdempotencyModel(*st.claim)).Error
		if err != nil {
			tx.Rollback()
			return interpretError(err, nil, idempotencyUnique)
		}
	}
	st.tx = tx
	return nil
}

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

func toIdempotencyModel(r ports.IdempotencyRecord) *idempotencyModel {
	return &idempotencyModel{PartnerID: r.PartnerID, Key: r.Key, Endpoint: r.Endpoint,
		Fingerprint: r.Fingerprint, HTTPStatus: r.HTTPStatus, Body: r.Body, CreatedAt: r.CreatedAt.UTC()}
}

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
	u    *UnitOfWork
	st   *txState
	done bool
}

// Commit implements ports.RequestScope.
func (r *requestScope) Commit(ctx context.Context, httpStatus int, body []byte) error {
	st := r.st
	if st.tx != nil && st.poisoned {
		st.tx.Rollback()
		st.tx, st.afterCommit = nil, nil
	}
	if st.tx == nil {
		if err := r.u.begin(ctx, st); err != nil {
			return err
		}
	}
	r.done = true
	err := st.tx.Model(&idempotencyModel{}).
		Where("partner_id = ? AND key = ?", st.claim.PartnerID, st.claim.Key).
		Updates(map[string]any{"http_status": httpStatus, "body": body}).Error
	if err != nil {
		st.tx.Rollback()
		return interpretError(err, nil, nil)
	}
	if err := st.tx.Commit().Error; err != nil {
		return interpretError(err, nil, nil)
	}
	runAfterCommit(ctx, st)
	return nil
}

// Rollback implements ports.RequestScope.
func (r *requestScope) Rollback() {
	if !r.done && r.st.tx != nil {
		r.st.tx.Rollback()
	}
	r.done = true
	r.st.tx, r.st.afterCommit = nil, nil
}

// lockedUpdate is the body of every repository's Update: in the transaction of ctx (or a new
// one) it locks the row of model M with that id, rebuilds the aggregate, applies fn and saves
// every column. An error from fn leaves the row unchanged.
func lockedUpdate[M any, A any](ctx context.Context, db *DB, id uuid.UUID, notFound error, unique constraintErrors,
	load func(*M) (A, error), save func(A) (*M, error), fn func(A) error) error {
	return NewUnitOfWork(db).Do(ctx, func(ctx context.Context) error {
		var m M
		if err := db.conn(ctx).Clauses(clause.Locking{Strength: "UPDATE"}).Where("id = ?", id).Take(&m).Error; err != nil {
			return interpretError(err, notFound, nil)
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
		if err := interpretError(db.conn(ctx).Select("*").Updates(saved).Error, nil, unique); err != nil {
			return err
		}
		return insertEvents(ctx, db, takeEvents(a))
	})
}

// infallible adapts a mapping that cannot fail to lockedUpdate's save.
func infallible[A, M any](f func(A) *M) func(A) (*M, error) {
	return func(a A) (*M, error) { return f(a), nil }
}
