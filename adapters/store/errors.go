package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"github.com/tiyin/tiyin/ports"
)

// constraintErrors maps the unique and check constraints a partner can hit to their domain
// errors. The key is the constraint name (on SQLite, a unique constraint is named by the column
// list its message gives).
type constraintErrors map[string]error

// interpretError translates a driver error into the errors the ports promise: a unique
// violation into the caller's domain error, a lock wait past its limit or a lost connection
// into ErrUnavailable (the caller may retry; Claim tells a wait for a duplicate apart). Other
// errors pass unchanged.
func interpretError(err error, notFound error, unique constraintErrors) error {
	if err == nil {
		return nil
	}
	if notFound != nil && (errors.Is(err, gorm.ErrRecordNotFound) || errors.Is(err, sql.ErrNoRows)) {
		return notFound
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505", "23514": // unique_violation, check_violation
			if e, ok := unique[pgErr.ConstraintName]; ok {
				return e
			}
		case "55P03": // lock_not_available: lock_timeout elapsed
			return fmt.Errorf("%w: %w", ports.ErrUnavailable, errLockTimeout)
		case "57P01", "57P02", "57P03", "53300": // shutdown, too many connections
			return fmt.Errorf("%w: %w", ports.ErrUnavailable, err)
		}
		return err
	}
	msg := err.Error()
	if strings.Contains(msg, "UNIQUE constraint failed: ") {
		cols := msg[strings.Index(msg, "UNIQUE constraint failed: ")+len("UNIQUE constraint failed: "):]
		cols, _, _ = strings.Cut(cols, " (")
		if e, ok := unique[strings.TrimSpace(cols)]; ok {
			return e
		}
		return err
	}
	if _, name, ok := strings.Cut(msg, "CHECK constraint failed: "); ok {
		name, _, _ = strings.Cut(name, " (")
		if e, ok := unique[strings.TrimSpace(name)]; ok {
			return e
		}
		return err
	}
	if strings.Contains(msg, "database is locked") || strings.Contains(msg, "SQLITE_BUSY") {
		return fmt.Errorf("%w: %w", ports.ErrUnavailable, errLockTimeout)
	}
	var netErr net.Error
	if errors.As(err, &netErr) || errors.Is(err, driver.ErrBadConn) || pgconn.SafeToRetry(err) {
		return fmt.Errorf("%w: %w", ports.ErrUnavailable, err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: %w", ports.ErrUnavailable, err)
	}
	return err
}

// errLockTimeout is a wait for a lock (a row's, or SQLite's database lock) past
// requestLockTimeout.
var errLockTimeout = errors.New("waited too long for a lock held by a concurrent request")

// errNoAccount is a ledger account that does not exist: a programming error, never input.
func errNoAccount(key string) error { return fmt.Errorf("ledger account %s does not exist", key) }
