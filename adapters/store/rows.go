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
	if st != nil && st.tx != nil {
		if err := st.flush(ctx); err != nil {
			return failedRow{err}
		}
		return st.tx.Statement.ConnPool.QueryRowContext(ctx, db.text(q), args...)
	}
	return db.SQL.QueryRowContext(ctx, db.text(q), args...)
}

// text is q in db's dialect.
func (db *DB) text(q query) string {
	if db.Dialect == Postgres {
		return q.pg
	}
	return q.sql
}

// failedRow is a read that could not be sent.
type failedRow struct{ err error }

func (r failedRow) Scan(...any) error { return r.err }

// execBehind writes s behind (txState.writeBehind) when a transaction is open, else runs it
// now.
func (db *DB) execBehind(ctx context.Context, s statement) error {
	if stateFrom(ctx).writeBehind(s) {
		return nil
	}
	return db.exec(ctx, s)
}

// exec runs s where queryRow runs a read: on the context's transaction, else on the pool. When
// s opens its unit of work's transaction it travels with the BEGIN (and the request's claim),
// and its error is returned as it would be in an open transaction.
func (db *DB) exec(ctx context.Context, s statement) error {
	st := stateFrom(ctx)
	if st.opening() {
		return st.opener.begin(ctx, st, nil, s)
	}
	if st != nil && st.tx != nil {
		if err := st.flush(ctx); err != nil {
			return err
		}
		_, err := st.tx.Statement.ConnPool.ExecContext(ctx, db.text(s.query), s.args...)
		return err
	}
	_, err := db.SQL.ExecContext(ctx, db.text(s.query), s.args...)
	return err
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
	fielder
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

// table is the statements on one model's table that skip the ORM, written once from the
// model's gorm tags and table name (the model's first column must be its id): the read of a row by id, the
// locked read of an update, the insert of a whole row and the update of every column but the id.
type table struct {
	columns                      string
	byID, locked, insert, update query
	behind                       bool // its updates are written behind (updatesBehind)
}

func tableOf(m interface{ TableName() string }) table {
	name, columns := m.TableName(), columnsOf(m)
	cols := strings.Split(columns, ", ")
	if cols[0] != "id" {
		panic("store: the first column of " + name + " is not its id")
	}
	sel := "SELECT " + columns + " FROM " + name + " WHERE id = ?"
	return table{
		columns: columns,
		byID:    newQuery(sel),
		// Locked against concurrent updates on PostgreSQL; SQLite runs one transaction at a
		// time and has no row locks.
		locked: query{sql: sel, pg: numbered(sel + " FOR UPDATE")},
		insert: newQuery("INSERT INTO " + name + " (" + columns + ") VALUES (" + strings.Repeat("?, ", len(cols)-1) + "?)"),
		update: newQuery("UPDATE " + name + " SET " + strings.Join(cols[1:], " = ?, ") + " = ? WHERE id = ?"),
	}
}

// updatesBehind marks t's updates as writes behind (txState.writeBehind), sent with the
// transaction's COMMIT: for a table with no constraint that an update could break.
func (t table) updatesBehind() table {
	t.behind = true
	return t
}

// fielder is a row whose fields method points at its fields in declaration order.
type fielder interface{ fields() []any }

// insertOf is the insert of m's whole row.
func (t table) insertOf(m fielder) statement { return statement{t.insert, values(m)} }

// updateOf is the update of every column of m's row but its id.
func (t table) updateOf(m fielder) statement {
	v := values(m)
	return statement{t.update, append(v[1:], v[0])}
}

// values are the values of m's fields, in column order.
func values(m fielder) []any {
	ptrs := m.fields()
	for i, p := range ptrs {
		ptrs[i] = reflect.ValueOf(p).Elem().Interface()
	}
	return ptrs
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
