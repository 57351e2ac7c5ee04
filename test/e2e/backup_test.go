package e2e

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
	"github.com/tiyin/tiyin/test/tiyintest"
)

// TestBackupAndRestoreOfALiveDatabase is docs/operations.md's restore, done: a whole microloan
// flow on a database of its own, pg_dump while tiyin serves, pg_restore into a new database,
// then the ledger check and the schema's status on the copy, and a tiyin started on it (without
// migrating) answers the partner as the original did.
func TestBackupAndRestoreOfALiveDatabase(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"pg_dump", "pg_restore"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed (Debian: postgresql-client): %v", tool, err)
		}
	}
	live, restored := database(t, "live"), database(t, "restored")
	s := start(t, store.Postgres, "TIYIN_DATABASE_URL="+live, "TIYIN_LOAN_CONTRACT_DELAY=1s")
	o := tiyintest.Flow(flowCaller{t, s}, 100*time.Millisecond)
	if o.Err != nil || o.LoanID == "" {
		t.Fatalf("flow: %+v", o)
	}
	reads := func(s *server) string {
		info := s.call(t, "/microloans/info", map[string]any{"applicationId": o.App})
		payments := s.call(t, "/microloans/payments", map[string]any{"loanId": o.LoanID})
		return string(info.Raw[strings.Index(string(info.Raw), `"result"`):]) + string(payments.Raw[strings.Index(string(payments.Raw), `"result"`):])
	}
	before := reads(s)
	dump := filepath.Join(t.TempDir(), "tiyin.dump")
	if out, err := exec.Command("pg_dump", "--format=custom", "--file="+dump, "--dbname="+live).CombinedOutput(); err != nil {
		t.Fatalf("pg_dump: %v\n%s", err, out)
	}
	if out, err := exec.Command("pg_restore", "--no-owner", "--exit-on-error", "--dbname="+restored, dump).CombinedOutput(); err != nil {
		t.Fatalf("pg_restore: %v\n%s", err, out)
	}
	env := append(os.Environ(), "TIYIN_DATABASE_URL="+restored, "TIYIN_SANDBOX=true", "TIYIN_MIGRATE=false")
	for _, c := range []struct {
		args []string
		want string
	}{{[]string{"ledger", "check"}, "ledger consistent"}, {[]string{"migrate", "status"}, "schema version"}} {
		cmd := exec.Command(binary, c.args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), c.want) {
			t.Fatalf("tiyin %v on the restored database: %v\n%s", c.args, err, out)
		}
	}
	copyOf := start(t, store.Postgres, "TIYIN_DATABASE_URL="+restored, "TIYIN_MIGRATE=false")
	if after := reads(copyOf); after != before {
		t.Fatalf("the restored tiyin answers\n%s\nthe original\n%s", after, before)
	}
}

// database creates a PostgreSQL database of its own for the test, dropped after it, and
// returns its URL.
func database(t *testing.T, name string) string {
	t.Helper()
	base := storetest.PostgresURL(t)
	db := "tiyin_" + name + "_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }()
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), base)
		if err != nil {
			return
		}
		defer func() { _ = c.Close(context.Background()) }()
		_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)")
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + db
	return u.String()
}
