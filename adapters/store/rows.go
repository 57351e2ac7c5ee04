package store

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"strings"
)

// The hot single-row reads (an application's info, a loan's schedule, the repayment check,
// every update's locked read) skip the ORM: the statement is written once, its columns listed
// from the model's tags by columnsOf, and the row is scanned straight into the model's fields
// through its fields method (TestScannedColumnsMatchTheModels holds fields to the field order).
// The ORM's statement building and reflective scanning were a tenth of such a request's CPU
// and a quarter of its garbage.

// row is a single-row read's result.
type row interface{ Scan(dest ...any) error }

// queryRow runs q on the context's transaction when there is one (opening it, in the same
// round trip, when a unit of work is under way), else on the pool.
func (db *DB) queryRow(ctx context.Context, q query, args ...any) row {
	st := stateFrom(ctx)
	if st.opening() {
		return openingRow{ctx, st, statement{q, args}}
	}
	text := q.sql
	if db.Dialect == Postgres {
		text = q.pg
	}
	if st != nil && st.tx != nil {
		return st.tx.Statement.ConnPool.QueryRowContext(ctx, text, args...)
	}
	return db.SQL.QueryRowContext(ctx, text, args...)
}

// openingRow is a read that opens its unit of work's transaction: it is run when scanned,
// right after BEGIN (and the request's claim).
type openingRow struct {
	ctx context.Context //nolint:containedctx // the read is run by Scan
	st  *txState
	s   statement
}

func (r openingRow) Scan(dest ...any) error {
	read := &rowRead{statement: r.s, dest: dest}
	if err := r.st.opener.begin(r.ctx, r.st, read); err != nil {
		return err
	}
	return read.err
}

// model is a row type whose fields method points at its fields in declaration order.
type model[M any] interface {
	*M
	fields() []any
}

// columnsOf lists a model's columns, from its gorm tags, in the order its fields method
// scans them.
func columnsOf(m any) string {
	typ := reflect.TypeOf(m)
	cols := make([]string, 0, typ.NumField())
	for i := range typ.NumField() {
		for part := range strings.SplitSeq(typ.Field(i).Tag.Get("gorm"), ";") {
			if col, ok := strings.CutPrefix(part, "column:"); ok {
				cols = append(cols, col)
			}
		}
	}
	return strings.Join(cols, ", ")
}

// selectByID is the read of one row of table by id.
func selectByID(table, columns string) string {
	return "SELECT " + columns + " FROM " + table + " WHERE id = ?"
}

// lockByID is the read of one row by id that lockedUpdate runs, locked against concurrent
// updates on PostgreSQL; SQLite runs one transaction at a time and has no row locks.
func lockByID(table, columns string) query {
	s := selectByID(table, columns)
	return query{sql: s, pg: numbered(s + " FOR UPDATE")}
}

// rowRead is a single-row read that a transaction's opener runs right after its first
// statements, in the same round trip as BEGIN on PostgreSQL.
type rowRead struct {
	statement
	dest []any
	err  error // sql.ErrNoRows when there was no row; the transaction is still open
}

// settle records the outcome of running r: no row is an outcome (the caller's not-found);
// any other error is returned, as the transaction's failure.
func (r *rowRead) settle(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		r.err = err
		return nil
	}
	return err
}
