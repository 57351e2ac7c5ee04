package store

import (
	"context"
	"database/sql"
)

// The hot single-row reads (an application's info, a loan's schedule, the repayment check)
// skip the ORM: the statement is written once, and the row is scanned straight into the
// model's fields through its fields method, whose order its columns constant follows
// (TestScannedColumnsMatchTheModels holds the two together). The ORM's statement building and
// reflective scanning were a tenth of such a request's CPU and a quarter of its garbage.

// queryRow runs q on the context's transaction when there is one, else on the pool.
func (db *DB) queryRow(ctx context.Context, q query, args ...any) *sql.Row {
	text := q.sql
	if db.Dialect == Postgres {
		text = q.pg
	}
	if st := stateFrom(ctx); st != nil && st.tx != nil {
		return st.tx.Statement.ConnPool.QueryRowContext(ctx, text, args...)
	}
	return db.SQL.QueryRowContext(ctx, text, args...)
}
