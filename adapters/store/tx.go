package store

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/gorm"
)

// query is SQL with ? placeholders, and the same with PostgreSQL's $1, $2, …
type query struct{ sql, pg string }

func newQuery(sql string) query { return query{sql: sql, pg: numbered(sql)} }

// statement is a query and its arguments.
type statement struct {
	query
	args []any
}

// opener opens a transaction, running first as its first statements and then read (when not
// nil), and returns the repositories' handle on it and its end. A read that finds no row leaves
// the transaction open, with sql.ErrNoRows as read.err.
type opener = func(ctx context.Context, db *DB, first []statement, read *rowRead) (*gorm.DB, func(ctx context.Context, commit bool, last []statement) error, error)

// beginGorm opens a transaction through GORM: each statement, BEGIN and COMMIT included, is a
// round trip of its own. SQLite's, in process, cost none.
func beginGorm(ctx context.Context, db *DB, first []statement, read *rowRead) (*gorm.DB, func(context.Context, bool, []statement) error, error) {
	tx := db.Gorm.WithContext(ctx).Begin()
	if tx.Error != nil {
		return nil, nil, tx.Error
	}
	if err := execAll(tx, first); err != nil {
		tx.Rollback()
		return nil, nil, err
	}
	if read != nil {
		if err := read.settle(tx.Statement.ConnPool.QueryRowContext(ctx, read.sql, read.args...).Scan(read.dest...)); err != nil {
			tx.Rollback()
			return nil, nil, err
		}
	}
	end := func(_ context.Context, commit bool, last []statement) error {
		if !commit {
			return tx.Rollback().Error
		}
		if err := execAll(tx, last); err != nil {
			tx.Rollback()
			return err
		}
		return tx.Commit().Error
	}
	return tx, end, nil
}

// execAll runs stmts in tx one after another, up to the first that fails.
func execAll(tx *gorm.DB, stmts []statement) error {
	for _, s := range stmts {
		if err := tx.Exec(s.sql, s.args...).Error; err != nil {
			return err
		}
	}
	return nil
}

// errRolledBack is a COMMIT that PostgreSQL answered with ROLLBACK: a statement of the
// transaction had failed.
var errRolledBack = errors.New("transaction rolled back by the database")

// beginPipelined opens a transaction on one pooled PostgreSQL connection and sends BEGIN in
// one pipeline with the first statements, and COMMIT in one with the last ones: a request's
// claim, its events and its answer cost no round trip of their own. GORM runs the statements
// between on the same connection. A connection given back while a transaction is still open
// on it is closed by the pool, never reused.
func beginPipelined(ctx context.Context, db *DB, first []statement, read *rowRead) (*gorm.DB, func(context.Context, bool, []statement) error, error) {
	conn, err := db.SQL.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	abort := func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_, _ = conn.ExecContext(rctx, "ROLLBACK")
		_ = conn.Close()
	}
	if err := pipeline(ctx, conn.Raw, "BEGIN", first, read, ""); err != nil {
		abort()
		return nil, nil, err
	}
	tx := db.Gorm.Session(&gorm.Session{Context: ctx, NewDB: true})
	tx.Statement.ConnPool = conn
	end := func(ctx context.Context, commit bool, last []statement) error {
		if !commit {
			abort()
			return nil
		}
		if err := pipeline(ctx, conn.Raw, "", last, nil, "COMMIT"); err != nil {
			abort()
			return err
		}
		return conn.Close()
	}
	return tx, end, nil
}

// pipeline sends before, stmts, read and after (before and after when not empty, read when
// not nil) in one round trip and reads their results; a COMMIT that did not commit is
// errRolledBack.
func pipeline(ctx context.Context, raw func(func(any) error) error, before string, stmts []statement, read *rowRead, after string) error {
	b := &pgx.Batch{}
	execs := len(stmts)
	if before != "" {
		b.Queue(before)
		execs++
	}
	for _, s := range stmts {
		b.Queue(s.pg, s.args...)
	}
	if read != nil {
		b.Queue(read.pg, read.args...)
	}
	if after != "" {
		b.Queue(after)
	}
	return raw(func(dc any) error {
		br := dc.(*stdlib.Conn).Conn().SendBatch(ctx, b)
		fail := func(err error) error {
			_ = br.Close()
			return err
		}
		var tag string
		for range execs {
			t, err := br.Exec()
			if err != nil {
				return fail(err)
			}
			tag = t.String()
		}
		if read != nil {
			if err := read.settle(br.QueryRow().Scan(read.dest...)); err != nil {
				return fail(err)
			}
		}
		if after != "" {
			t, err := br.Exec()
			if err != nil {
				return fail(err)
			}
			tag = t.String()
		}
		if err := br.Close(); err != nil {
			return err
		}
		if after == "COMMIT" && tag != "COMMIT" {
			return errRolledBack
		}
		return nil
	})
}

// numbered rewrites ? placeholders as PostgreSQL's $1, $2, …
func numbered(sql string) string {
	var b strings.Builder
	n := 0
	for _, r := range sql {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
