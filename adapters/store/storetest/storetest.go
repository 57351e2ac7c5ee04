// Package storetest opens throw-away databases for tests: an SQLite file in a temporary
// directory, or a fresh schema in the PostgreSQL of TIYIN_TEST_DATABASE_URL.
package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"gorm.io/gorm"

	"github.com/tiyin/tiyin/adapters/keyring"
	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
)

// Dialects lists the databases a contract suite runs on.
var Dialects = []store.Dialect{store.SQLite, store.Postgres}

// PostgresURL returns the test PostgreSQL URL. Without one the test is skipped loudly, except
// under CI, where a missing PostgreSQL is a failure.
func PostgresURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("TIYIN_TEST_DATABASE_URL")
	if u == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TIYIN_TEST_DATABASE_URL is not set: CI must run the PostgreSQL tests")
		}
		t.Skip("SKIPPED: PostgreSQL tests need TIYIN_TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)")
	}
	return u
}

// URL returns a database URL for the dialect: an empty one selects SQLite (see Open's
// SQLitePath), and on PostgreSQL a URL whose search_path is a fresh schema dropped at the end.
func URL(t testing.TB, d store.Dialect) (databaseURL, sqlitePath string) {
	t.Helper()
	if d == store.SQLite {
		return "", filepath.Join(t.TempDir(), "tiyin.db")
	}
	base := PostgresURL(t)
	schema := "t_" + strings.ReplaceAll(uuid.NewString(), "-", "")
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to test PostgreSQL: %v", err)
	}
	defer func() { _ = conn.Close(ctx) }()
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		// TIYIN_TEST_KEEP_SCHEMA keeps it, to EXPLAIN a bench's statements on its rows.
		if os.Getenv("TIYIN_TEST_KEEP_SCHEMA") != "" {
			t.Logf("TIYIN_TEST_KEEP_SCHEMA: schema %s kept", schema)
			return
		}
		c, err := pgx.Connect(context.Background(), base)
		if err != nil {
			return
		}
		defer func() { _ = c.Close(context.Background()) }()
		_, _ = c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), ""
}

// Open returns a migrated database of the dialect, closed at the end of the test.
func Open(t testing.TB, d store.Dialect) *store.DB {
	t.Helper()
	return OpenWith(t, d, func(*store.Config) {})
}

// OpenWith is Open with the store's configuration changed by change first.
func OpenWith(t testing.TB, d store.Dialect, change func(*store.Config)) *store.DB {
	t.Helper()
	dbURL, path := URL(t, d)
	cfg := store.Config{DatabaseURL: dbURL, SQLitePath: path, MaxConns: 8, EventBody: EventBody, Sealer: Sealer}
	change(&cfg)
	db, err := store.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("open %s: %v", d, err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("migrate %s: %v", d, err)
	}
	return db
}

// Sealer is the tests' keyring.
var Sealer = must(keyring.New([]byte("tiyin-test-data-key-0123456789ab")))

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// EventBody is a plain rendering of an event for the store's tests, which do not depend on the
// webhook adapter that owns the real one (webhook.Body). Like it, it leaves "sequence" 0 just
// before "type", for the outbox to number.
func EventBody(e domain.Event) ([]byte, error) {
	return json.Marshal(map[string]any{"id": e.ID.String(), "sequence": 0, "type": e.Type().String(), "data": fmt.Sprintf("%+v", e.Data)})
}

// Tamper runs statements as the database's owner may, past the audit tables' append-only
// guards: on PostgreSQL in one session with session_replication_role = replica (no trigger
// fires; a superuser or the tables' owner may set it), on SQLite after dropping the audit
// tables' triggers (the file's owner may). Tests show with it that the chain, not the guards,
// reveals what the owner changed.
func Tamper(t testing.TB, db *store.DB, statements ...string) {
	t.Helper()
	err := db.Gorm.Connection(func(g *gorm.DB) error {
		if db.Dialect == store.Postgres {
			if err := g.Exec("SET session_replication_role = replica").Error; err != nil {
				return err
			}
			defer g.Exec("SET session_replication_role = origin")
		} else {
			var triggers []string
			if err := g.Raw("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name LIKE 'audit%'").Scan(&triggers).Error; err != nil {
				return err
			}
			for _, name := range triggers {
				if err := g.Exec("DROP TRIGGER " + name).Error; err != nil {
					return err
				}
			}
		}
		for _, q := range statements {
			if err := g.Exec(q).Error; err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("tamper as the owner: %v", err)
	}
}
