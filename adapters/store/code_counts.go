package store

import (
	"context"
	"time"

	"github.com/tiyin/tiyin/ports"
)

// CodeCounter counts attach's SMS codes in attach_code_counts, one row per scope, subject and
// day.
type CodeCounter struct{ db *DB }

// NewCodeCounter returns the counter on db.
func NewCodeCounter(db *DB) *CodeCounter { return &CodeCounter{db: db} }

// takeCodeSQL counts one code unless the row holds the limit already. The upsert takes the
// row's lock (PostgreSQL) or runs under the immediate transaction's (SQLite), and its WHERE
// reads the count as committed by any transaction that held the lock first: two attaches at
// once never both take the last code. No row comes back when the limit was reached.
const takeCodeSQL = `INSERT INTO attach_code_counts (scope, subject, day, sent) VALUES (?, ?, ?, 1)
ON CONFLICT (scope, subject, day) DO UPDATE SET sent = attach_code_counts.sent + 1 WHERE attach_code_counts.sent < ?
RETURNING sent`

// Take implements ports.CodeCounter.
func (c *CodeCounter) Take(ctx context.Context, n ports.CodeCount) (bool, error) {
	var sent []int
	err := c.db.conn(ctx).Raw(takeCodeSQL, n.Scope.String(), n.Key, n.Day.Format(time.DateOnly), n.Limit).Scan(&sent).Error
	if err != nil {
		return false, interpretError(err, nil, nil)
	}
	return len(sent) == 1, nil
}

// GiveBack implements ports.CodeCounter.
func (c *CodeCounter) GiveBack(ctx context.Context, n ports.CodeCount) error {
	res := c.db.conn(ctx).Exec(`UPDATE attach_code_counts SET sent = sent - 1 WHERE scope = ? AND subject = ? AND day = ? AND sent > 0`,
		n.Scope.String(), n.Key, n.Day.Format(time.DateOnly))
	return interpretError(res.Error, nil, nil)
}

// Purge implements ports.CodeCounter.
func (c *CodeCounter) Purge(ctx context.Context, day time.Time) (int64, error) {
	res := c.db.conn(ctx).Exec(`DELETE FROM attach_code_counts WHERE day < ?`, day.Format(time.DateOnly))
	return res.RowsAffected, interpretError(res.Error, nil, nil)
}

var _ ports.CodeCounter = (*CodeCounter)(nil)
