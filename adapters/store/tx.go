package store

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// A unit of work's transaction travels in its context: repositories run their statements on
// it (conn), and a unit of work begun inside another joins it (inTx).

type txKey struct{}

// txState is the transaction a unit of work's context carries, and what is to run once it
// has committed.
type txState struct {
	tx          *gorm.DB
	afterCommit []func(context.Context)
}

func stateFrom(ctx context.Context) *txState {
	st, _ := ctx.Value(txKey{}).(*txState)
	return st
}

// conn returns the handle every repository statement must use: the context's transaction
// when there is one (on SQLite's single connection anything else would deadlock), else the
// pool.
func (db *DB) conn(ctx context.Context) *gorm.DB {
	if st := stateFrom(ctx); st != nil {
		return st.tx.WithContext(ctx)
	}
	return db.Gorm.WithContext(ctx)
}

// inTx runs fn in the transaction ctx carries, or else in a new one: BEGIN, fn, then COMMIT
// when fn returns nil (and the hooks registered for after it), else ROLLBACK.
func (db *DB) inTx(ctx context.Context, fn func(ctx context.Context) error) error {
	if stateFrom(ctx) != nil {
		return fn(ctx)
	}
	st := &txState{}
	err := db.Gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		st.tx = tx
		return fn(context.WithValue(ctx, txKey{}, st))
	})
	if err != nil {
		return interpretError(err, nil, nil)
	}
	for _, hook := range st.afterCommit {
		hook(context.WithoutCancel(ctx))
	}
	return nil
}

// afterCommit runs fn once the transaction ctx carries has committed, or at once when it
// carries none.
func (db *DB) afterCommit(ctx context.Context, fn func(ctx context.Context)) {
	if st := stateFrom(ctx); st != nil {
		st.afterCommit = append(st.afterCommit, fn)
		return
	}
	fn(ctx)
}

// optTime is a moment as a nullable column holds it: NULL for the zero time, else UTC.
func optTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// fromOptTime reads what optTime wrote.
func fromOptTime(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}
