// Package store is tiyin's persistence adapter: GORM repositories over PostgreSQL or an
// embedded SQLite file, one code path for both, with dialect-specific goose migrations.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/glebarez/sqlite"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/migrations"
	"github.com/tiyin/tiyin/ports"
)

// Dialect names the SQL database in use.
type Dialect string

// The two supported databases.
const (
	Postgres Dialect = "postgres"
	SQLite   Dialect = "sqlite"
)

// requestLockTimeout is how long a statement waits for a row lock (PostgreSQL's lock_timeout
// on every connection, SQLite's busy timeout): a duplicate request waits this long for its
// first, and any other wait this long is answered "retry" (code 10).
const requestLockTimeout = 5 * time.Second

// Config selects and sizes the database.
type Config struct {
	// DatabaseURL is a PostgreSQL URL; empty selects SQLite.
	DatabaseURL string
	// SQLitePath is the SQLite file used when DatabaseURL is empty.
	SQLitePath string
	// MaxConns is the PostgreSQL pool size; SQLite always uses one connection.
	MaxConns int32
	// EventBody renders an event as the body its webhook delivery sends; the webhook adapter owns
	// that form. Without it, storing a change that recorded an event fails.
	EventBody func(domain.Event) ([]byte, error)
	// Sealer seals clientData and blinds PINFLs at rest. Without it, storing or reading
	// personal data fails.
	Sealer ports.Sealer
	// Tracer sees every statement sent to PostgreSQL (tests use it to EXPLAIN them); nil in
	// production.
	Tracer pgx.QueryTracer
	// RequireUnitOfWork makes a repository write with no unit of work ErrNoTransaction instead
	// of a transaction of its own: repositories never commit. Package server sets it; the
	// store's contract suite, which calls repositories directly, does not.
	RequireUnitOfWork bool
}

// DB is an open database: GORM for the repositories and, on PostgreSQL, the pgx pool that the
// job queue shares with GORM.
type DB struct {
	Gorm    *gorm.DB
	SQL     *sql.DB
	Pool    *pgxpool.Pool
	Dialect Dialect
	// RequireUnitOfWork is Config.RequireUnitOfWork.
	RequireUnitOfWork bool
	// EventBody is Config.EventBody.
	EventBody func(domain.Event) ([]byte, error)
	// Sealer is Config.Sealer.
	Sealer ports.Sealer
}

// Open connects to PostgreSQL when cfg.DatabaseURL is set, else opens the SQLite file.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	var db *DB
	var err error
	if cfg.DatabaseURL != "" {
		db, err = openPostgres(ctx, cfg)
	} else {
		db, err = openSQLite(cfg.SQLitePath)
	}
	if err != nil {
		return nil, err
	}
	db.EventBody, db.Sealer, db.RequireUnitOfWork = cfg.EventBody, cfg.Sealer, cfg.RequireUnitOfWork
	return db, nil
}

func gormConfig() *gorm.Config {
	// A fresh config per open: GORM keeps per-connection state in it.
	return &gorm.Config{
		Logger:                 logger.Discard, // SQL may carry personal data; never log it
		SkipDefaultTransaction: true,
		PrepareStmt:            false,
		NowFunc:                func() time.Time { return time.Now().UTC() },
	}
}

func openPostgres(ctx context.Context, cfg Config) (*DB, error) {
	pc, err := pgxpool.ParseConfig(cfg.DatabaseURL)
	if err != nil {
		return nil, fmt.Errorf("TIYIN_DATABASE_URL: not a PostgreSQL URL (postgres://user:password@host:5432/database): %w",
			redactURL(err, cfg.DatabaseURL))
	}
	if cfg.MaxConns > 0 {
		pc.MaxConns = cfg.MaxConns
	}
	pc.ConnConfig.RuntimeParams["timezone"] = "UTC"
	pc.ConnConfig.Tracer = cfg.Tracer
	// No statement waits for a lock longer than a duplicate request may wait for its first:
	// past that the caller answers "in progress" (code 9) instead of hanging.
	pc.ConnConfig.RuntimeParams["lock_timeout"] = fmt.Sprint(requestLockTimeout.Milliseconds())
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", redactURL(err, cfg.DatabaseURL))
	}
	sqlDB := stdlib.OpenDBFromPool(pool)
	g, err := gorm.Open(postgres.New(postgres.Config{Conn: sqlDB}), gormConfig())
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("TIYIN_DATABASE_URL: cannot connect to PostgreSQL at %s: %w", redactedURL(cfg.DatabaseURL),
			redactURL(err, cfg.DatabaseURL))
	}
	return &DB{Gorm: g, SQL: sqlDB, Pool: pool, Dialect: Postgres}, nil
}

func openSQLite(path string) (*DB, error) {
	if path == "" {
		path = "tiyin.db"
	}
	// The file holds partners' data: readable by tiyin's user only. SQLite gives its -wal and
	// -shm files the database file's mode.
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600) //nolint:gosec // the operator's TIYIN_SQLITE_PATH
	if err != nil {
		// SQLite itself would say "out of memory (14)" of a missing directory.
		return nil, fmt.Errorf("TIYIN_SQLITE_PATH: cannot open or create the database file: %w", err)
	}
	_ = f.Close()
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	q.Set("_time_format", "sqlite")
	g, err := gorm.Open(sqlite.Open("file:"+path+"?"+q.Encode()), gormConfig())
	if err != nil {
		return nil, fmt.Errorf("open SQLite %s: %w", path, err)
	}
	sqlDB, err := g.DB()
	if err != nil {
		return nil, err
	}
	// One connection: SQLite has one writer, and the job queue's driver wants it so. Inside a
	// transaction every query must go through the transaction's handle (see conn).
	sqlDB.SetMaxOpenConns(1)
	sqlDB.SetConnMaxIdleTime(0)
	sqlDB.SetConnMaxLifetime(0)
	return &DB{Gorm: g, SQL: sqlDB, Dialect: SQLite}, nil
}

// Close releases the database.
func (db *DB) Close() error {
	err := db.SQL.Close()
	if db.Pool != nil {
		db.Pool.Close()
	}
	return err
}

func (db *DB) migrations() (*goose.Provider, error) {
	dialect, dir := goose.DialectPostgres, "postgres"
	if db.Dialect == SQLite {
		dialect, dir = goose.DialectSQLite3, "sqlite"
	}
	sub, err := fs.Sub(migrations.FS, dir)
	if err != nil {
		return nil, err
	}
	return goose.NewProvider(dialect, db.SQL, sub)
}

// migrationLock is the first key of the PostgreSQL advisory lock a migration holds (tiyin's
// own value, "tiyn"); the second is the schema's, so installations sharing a database in
// schemas of their own do not wait for each other.
const migrationLock = 0x7469_796e

// WithMigrationLock runs fn holding the database's migration lock: on PostgreSQL a session
// advisory lock, waited for (not polled), so any number of nodes and commands may start at once
// and migrate one after another, each finding the work of the one before done. SQLite, one
// node's file, needs none.
func (db *DB) WithMigrationLock(ctx context.Context, fn func() error) error {
	if db.Dialect != Postgres {
		return fn()
	}
	conn, err := db.SQL.Conn(ctx)
	if err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	defer func() { _ = conn.Close() }()
	// The connection's lock_timeout (requestLockTimeout) is a request's; a node waits for
	// another's migration as long as a migration may take, and the connection then goes back to
	// the pool with its own setting again (RESET: the value it was opened with).
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("SET lock_timeout = %d", migrationLockWait.Milliseconds())); err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	_, err = conn.ExecContext(ctx, "SELECT pg_advisory_lock($1, hashtext(current_schema()))", int32(migrationLock))
	if _, reset := conn.ExecContext(context.WithoutCancel(ctx), "RESET lock_timeout"); err == nil && reset != nil {
		err = reset
	}
	if err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	defer func() {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1, hashtext(current_schema()))", int32(migrationLock))
	}()
	return fn()
}

// migrationLockWait is how long a node waits for another node's migration to end: a fresh
// schema's migrations take seconds, and a large table's index build longer (a request's
// lock_timeout, requestLockTimeout, failed concurrent starts on a loaded machine).
const migrationLockWait = 15 * time.Minute

// Migrate applies every pending migration of tiyin's schema, then seals the record of where
// the audit chain began (migration 00027's row) when it is not yet sealed, which needs the data
// key (the Sealer).
func (db *DB) Migrate(ctx context.Context) error {
	p, err := db.migrations()
	if err != nil {
		return err
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	if db.Sealer == nil {
		return nil
	}
	if err := NewAuditLog(db).sealStart(ctx); err != nil {
		return fmt.Errorf("record where the audit chain began: %w", err)
	}
	return nil
}

// SchemaVersion is the schema's version in the database (0 for an empty one) and the newest
// this build knows; pending names the migrations this build would apply. It only reads: on a
// database without tiyin's schema it does not create the migrations' table (goose's Status
// would), so a check run against the wrong database leaves it as it was.
func (db *DB) SchemaVersion(ctx context.Context) (current, latest int64, pending []string, err error) {
	p, err := db.migrations()
	if err != nil {
		return 0, 0, nil, err
	}
	exists, err := db.versionTableExists(ctx)
	if err != nil {
		return 0, 0, nil, fmt.Errorf("read the schema's version: %w", err)
	}
	pending = []string{}
	if !exists {
		for _, s := range p.ListSources() {
			latest = max(latest, s.Version)
			pending = append(pending, filepath.Base(s.Path))
		}
		return 0, latest, pending, nil
	}
	st, err := p.Status(ctx)
	if err != nil {
		return 0, 0, nil, fmt.Errorf("read the schema's version: %w", err)
	}
	for _, m := range st {
		latest = max(latest, m.Source.Version)
		if m.State == goose.StatePending {
			pending = append(pending, filepath.Base(m.Source.Path))
		} else {
			current = max(current, m.Source.Version)
		}
	}
	return current, latest, pending, nil
}

// versionTableExists says whether the database (on PostgreSQL, the schema the connection
// searches) holds the table where the migrations record their versions.
func (db *DB) versionTableExists(ctx context.Context) (bool, error) {
	var exists bool
	var err error
	if db.Dialect == SQLite {
		err = db.SQL.QueryRowContext(ctx, "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = ?", goose.DefaultTablename).Scan(&exists)
	} else {
		err = db.SQL.QueryRowContext(ctx, "SELECT to_regclass($1) IS NOT NULL", goose.DefaultTablename).Scan(&exists)
	}
	return exists, err
}

// Ready reports whether the database answers and every migration is applied.
func (db *DB) Ready(ctx context.Context) error {
	if err := db.SQL.PingContext(ctx); err != nil {
		return fmt.Errorf("database unreachable: %w", err)
	}
	p, err := db.migrations()
	if err != nil {
		return err
	}
	pending, err := p.HasPending(ctx)
	if err != nil {
		return err
	}
	if pending {
		return fmt.Errorf("migrations pending")
	}
	return nil
}

// gormExpr is an SQL expression for an update.
func gormExpr(sql string, args ...any) clause.Expr { return gorm.Expr(sql, args...) }
