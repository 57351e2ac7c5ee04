package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/gorm"
)

// A unit of work's transaction travels in its context: repositories run their statements on
// it (conn), a unit of work begun inside another joins it (inTx), and the job queue inserts
// its jobs in it (JobTx).

type txKey struct{}

// txState is the transaction a unit of work's context carries, and what is to run once it
// has committed.
type txState struct {
	tx *gorm.DB
	// pgx is the same transaction seen by pgx on PostgreSQL (nil on SQLite), for River.
	pgx         pgx.Tx
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
	run := func(g *gorm.DB) error {
		return g.Transaction(func(tx *gorm.DB) error {
			st.tx = tx
			return fn(context.WithValue(ctx, txKey{}, st))
		})
	}
	var err error
	if db.Dialect == Postgres {
		// One connection held for the whole transaction, so that River's InsertTx, which
		// speaks pgx, writes its jobs in the very transaction GORM commits.
		err = db.Gorm.WithContext(ctx).Connection(func(g *gorm.DB) error {
			if st.pgx, err = pgxOf(g); err != nil {
				return err
			}
			return run(g)
		})
	} else {
		err = run(db.Gorm.WithContext(ctx))
	}
	if err != nil {
		return interpretError(err, nil, nil)
	}
	for _, hook := range st.afterCommit {
		hook(context.WithoutCancel(ctx))
	}
	return nil
}

// JobTx returns the transaction ctx carries as the job queue's drivers take it: a pgx.Tx on
// PostgreSQL, the *sql.Tx on SQLite; ok is false outside a unit of work.
func JobTx(ctx context.Context) (pgxTx pgx.Tx, sqlTx *sql.Tx, ok bool) {
	st := stateFrom(ctx)
	if st == nil {
		return nil, nil, false
	}
	sqlTx, _ = st.tx.Statement.ConnPool.(*sql.Tx)
	return st.pgx, sqlTx, true
}

// pgxOf returns the pgx connection under the database/sql connection g is pinned to, seen as
// a transaction that its holder neither nests, commits nor rolls back: GORM owns those.
// database/sql asks that a raw connection be used only inside Raw; g's connection stays
// pinned, and used by one goroutine, until the transaction ends, which is what that rule
// protects.
func pgxOf(g *gorm.DB) (pgx.Tx, error) {
	c, ok := g.Statement.ConnPool.(*sql.Conn)
	if !ok {
		return nil, errors.New("store: transaction not on a pinned connection")
	}
	var pc *pgx.Conn
	err := c.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return errors.New("store: PostgreSQL connection is not pgx")
		}
		pc = sc.Conn()
		return nil
	})
	return borrowedTx{pc}, err
}

// borrowedTx is a pgx.Tx over a connection whose transaction someone else owns: statements
// go to the connection; nesting, commit and rollback are refused.
type borrowedTx struct{ *pgxConn }

type pgxConn = pgx.Conn

var errBorrowedTx = errors.New("store: the unit of work owns this transaction")

func (borrowedTx) Begin(context.Context) (pgx.Tx, error) { return nil, errBorrowedTx }
func (borrowedTx) Commit(context.Context) error          { return errBorrowedTx }
func (borrowedTx) Rollback(context.Context) error        { return errBorrowedTx }
func (borrowedTx) LargeObjects() pgx.LargeObjects        { return pgx.LargeObjects{} }
func (t borrowedTx) Conn() *pgx.Conn                     { return t.pgxConn }

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

var _ pgx.Tx = borrowedTx{}
