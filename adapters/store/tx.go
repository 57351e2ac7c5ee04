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
// its jobs in it (WithPgxTx, SQLTx).
//
// On PostgreSQL, writes whose result nobody reads (inserts, updates of a locked row, the
// answer of a request) wait in the transaction and go with its COMMIT, in one round trip
// (write, commit): a repayment check then costs BEGIN, its read, and COMMIT with its two
// inserts, not five round trips. A read flushes the waiting writes first, so the transaction
// always reads its own writes. This is the one place that batches; SQLite writes at once.

type txKey struct{}

// txState is the transaction a unit of work's context carries, and what is to run once it
// has committed.
type txState struct {
	tx *gorm.DB
	// conn is the database/sql connection the transaction is pinned to on PostgreSQL (nil on
	// SQLite): River's inserts and the waiting writes reach pgx under it, through withPgx.
	conn        *sql.Conn
	writes      []waitingWrite
	afterCommit []func(context.Context)
}

// waitingWrite is a statement held for the commit, with what makes its outcome an error.
type waitingWrite struct {
	sql   string
	vars  []any
	check func(rows int64, err error) error
}

// InTransaction reports whether ctx carries a unit of work's transaction: row locks may be
// held. Tests use it to show that no gateway is called under one.
func InTransaction(ctx context.Context) bool { return stateFrom(ctx) != nil }

func stateFrom(ctx context.Context) *txState {
	st, _ := ctx.Value(txKey{}).(*txState)
	return st
}

// conn returns the handle every repository statement must use: the context's transaction
// when there is one (on SQLite's single connection anything else would deadlock), its
// waiting writes sent first, else the pool.
func (db *DB) conn(ctx context.Context) *gorm.DB {
	st := stateFrom(ctx)
	if st == nil {
		return db.Gorm.WithContext(ctx)
	}
	g := st.tx.WithContext(ctx)
	if err := st.send(ctx, false); err != nil {
		_ = g.AddError(err)
	}
	return g
}

// write runs a statement whose result is only its success, as check judges it. Held is for
// a write no business rule can refuse: on PostgreSQL it then waits for the next read or the
// COMMIT. A write a constraint may refuse (held false) runs at once, so that its refusal is
// the call's error, as it is on SQLite and outside a transaction.
func (db *DB) write(ctx context.Context, held bool, stmt func(*gorm.DB) *gorm.DB, check func(rows int64, err error) error) error {
	st := stateFrom(ctx)
	if !held || st == nil || st.conn == nil {
		res := stmt(db.conn(ctx))
		return check(res.RowsAffected, res.Error)
	}
	dry := stmt(st.tx.Session(&gorm.Session{DryRun: true, NewDB: true}).WithContext(ctx))
	if dry.Error != nil {
		return dry.Error
	}
	st.writes = append(st.writes, waitingWrite{sql: dry.Statement.SQL.String(), vars: dry.Statement.Vars, check: check})
	return nil
}

// check is the check of a write whose only failures are the constraints in unique.
func check(unique constraintErrors) func(int64, error) error {
	return func(_ int64, err error) error { return interpretError(err, nil, unique) }
}

// send sends the waiting writes, then COMMIT when commit is set, in one round trip.
func (st *txState) send(ctx context.Context, commit bool) error {
	if len(st.writes) == 0 && !commit {
		return nil
	}
	b := &pgx.Batch{}
	for _, w := range st.writes {
		b.Queue(w.sql, w.vars...)
	}
	if commit {
		b.Queue("COMMIT")
	}
	writes := st.writes
	st.writes = nil
	return st.withPgx(func(tx pgx.Tx) error {
		br := tx.SendBatch(ctx, b)
		for _, w := range writes {
			tag, err := br.Exec()
			if err = w.check(tag.RowsAffected(), err); err != nil {
				_ = br.Close()
				return err
			}
		}
		if commit {
			// A transaction a failed statement aborted answers COMMIT with ROLLBACK, no error.
			tag, err := br.Exec()
			if err == nil && tag.String() != "COMMIT" {
				err = errRolledBack
			}
			if err != nil {
				_ = br.Close()
				return err
			}
		}
		return br.Close()
	})
}

var errRolledBack = errors.New("store: the transaction was aborted by a failed statement and rolled back")

// Do implements ports.UnitOfWork: it runs fn in the transaction ctx carries, or else in a new
// one: BEGIN, fn, then COMMIT when fn returns nil (and the hooks registered for after it), else
// ROLLBACK. The outermost Do owns the transaction and commits it; a Do inside fn joins it.
func (u *UnitOfWork) Do(ctx context.Context, fn func(ctx context.Context) error) error {
	if stateFrom(ctx) != nil {
		return fn(ctx)
	}
	db, st := u.db, &txState{}
	var err error
	if db.Dialect == Postgres {
		err = db.Gorm.WithContext(ctx).Connection(func(g *gorm.DB) error { return db.pgTx(ctx, g, st, fn) })
	} else {
		err = db.Gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			st.tx = tx
			return fn(context.WithValue(ctx, txKey{}, st))
		})
	}
	if err != nil {
		return interpretError(err, nil, nil)
	}
	for _, hook := range st.afterCommit {
		hook(context.WithoutCancel(ctx))
	}
	return nil
}

// inTx is Do, for a repository method that must lock and write in one transaction: it joins
// the caller's unit of work. With none, it is ErrNoTransaction when the database requires a
// unit of work (RequireUnitOfWork: repositories never commit), else a transaction of its own
// (the store's contract suite).
func (db *DB) inTx(ctx context.Context, fn func(ctx context.Context) error) error {
	if db.RequireUnitOfWork && stateFrom(ctx) == nil {
		return ErrNoTransaction
	}
	return (&UnitOfWork{db: db}).Do(ctx, fn)
}

// pgTx is a PostgreSQL transaction on the connection g is pinned to: GORM's statements and
// River's go through it, and BEGIN, COMMIT (with the waiting writes) and ROLLBACK are sent
// here, in plain sight. A connection whose transaction could not be ended is discarded.
func (db *DB) pgTx(ctx context.Context, g *gorm.DB, st *txState, fn func(ctx context.Context) error) (err error) {
	c, ok := g.Statement.ConnPool.(*sql.Conn)
	if !ok {
		return errors.New("store: transaction not on a pinned connection")
	}
	st.tx, st.conn = g, c
	if err = st.withPgx(func(tx pgx.Tx) error { _, err := tx.Exec(ctx, "BEGIN"); return err }); err != nil {
		return err
	}
	defer func() {
		end := context.WithoutCancel(ctx)
		_ = st.withPgx(func(tx pgx.Tx) error {
			pc := tx.Conn()
			if pc.PgConn().TxStatus() == 'I' {
				return nil
			}
			if _, rerr := pc.Exec(end, "ROLLBACK"); rerr != nil {
				_ = pc.Close(end) // database/sql sees it closed and drops it
			}
			return nil
		})
	}()
	if err = fn(context.WithValue(ctx, txKey{}, st)); err != nil {
		return err
	}
	return st.send(ctx, true)
}

// withPgx runs fn on the pgx connection under the transaction's database/sql connection,
// inside sql.Conn.Raw, as database/sql requires: the driver's connection is used only while fn
// runs, and nothing else uses it meanwhile. fn sees it as a transaction that it neither nests,
// commits nor rolls back: pgTx owns those.
func (st *txState) withPgx(fn func(tx pgx.Tx) error) error {
	return st.conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return errors.New("store: PostgreSQL connection is not pgx")
		}
		return fn(borrowedTx{sc.Conn()})
	})
}

// ErrNoTransaction is a write with no unit of work: a job is written in the transaction of the
// work that makes it due, and a repository's write in its caller's, so that they commit
// together or not at all.
var ErrNoTransaction = errors.New("store: a write runs in the caller's unit of work; this context carries none")

// WithPgxTx runs fn on the PostgreSQL transaction ctx carries, as River's pgx driver takes it
// (inside sql.Conn.Raw); ErrNoTransaction outside a unit of work.
func WithPgxTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	st := stateFrom(ctx)
	if st == nil || st.conn == nil {
		return ErrNoTransaction
	}
	return st.withPgx(fn) // the held writes need not go first: nothing a job insert does reads them
}

// SQLTx returns the SQLite transaction ctx carries; ErrNoTransaction outside a unit of work.
func SQLTx(ctx context.Context) (*sql.Tx, error) {
	st := stateFrom(ctx)
	if st == nil {
		return nil, ErrNoTransaction
	}
	tx, ok := st.tx.Statement.ConnPool.(*sql.Tx)
	if !ok {
		return nil, ErrNoTransaction
	}
	return tx, nil
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

// AfterCommit runs fn once the transaction ctx carries has committed (not at all when it rolls
// back), or at once when it carries none. The test harnesses run their background work so, as
// a job queue would after the commit.
func AfterCommit(ctx context.Context, fn func(ctx context.Context)) {
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
