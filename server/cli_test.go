package server

import (
	"context"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tiyin/tiyin/adapters/gateway/sandbox"
	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
	"github.com/tiyin/tiyin/ports"
)

// TestTheCLIRunsTheServersGraphWithoutItsListener: a one-shot command gets every use case of
// the server's own graph, the bank's Go adapters included, and neither listens on the API's
// port (taken here) nor needs it.
func TestTheCLIRunsTheServersGraphWithoutItsListener(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = taken.Close() }()
	t.Setenv("TIYIN_SANDBOX", "true")
	t.Setenv("TIYIN_SQLITE_PATH", filepath.Join(t.TempDir(), "tiyin.db"))
	t.Setenv("TIYIN_HTTP_ADDR", taken.Addr().String())
	built := false
	o := applied([]Option{WithScoring(func(Deps) (ports.Scoring, error) { built = true; return sandbox.NewScoring(), nil })})
	ran := false
	err = openDB(context.Background(), o, schemaApply, func(_ context.Context, in cli) error {
		ran = true
		if in.db == nil || in.app == nil {
			t.Fatal("no database or use cases")
		}
		for _, missing := range nilFields(reflect.ValueOf(*in.app), "App") {
			t.Errorf("%s is nil", missing)
		}
		for _, missing := range nilFields(reflect.ValueOf(in.console), "Console") {
			t.Errorf("%s is nil", missing)
		}
		return nil
	})
	if err != nil || !ran {
		t.Fatalf("openDB: %v (ran: %v)", err, ran)
	}
	if !built {
		t.Error("the bank's Go adapter was not built into the command's graph")
	}
}

// nilFields names the nil pointers and interfaces among v's fields, through nested structs.
func nilFields(v reflect.Value, path string) []string {
	var out []string
	for i := range v.NumField() {
		f, name := v.Field(i), path+"."+v.Type().Field(i).Name
		switch f.Kind() {
		case reflect.Struct:
			out = append(out, nilFields(f, name)...)
		case reflect.Pointer, reflect.Interface:
			if f.IsNil() {
				out = append(out, name)
			}
		}
	}
	return out
}

// TestABadDatabaseURLNamesItsSetting: a command given a database it cannot reach, or a URL it
// cannot read, says TIYIN_DATABASE_URL is the setting to fix, never the password.
func TestABadDatabaseURLNamesItsSetting(t *testing.T) {
	for _, u := range []string{"postgres://tiyin:s3cret-pw@127.0.0.1:1/tiyin?connect_timeout=2", "postgres://tiyin:s3cret-pw@%zz/tiyin",
		"postgres://tiyin@127.0.0.1:1/tiyin?connect_timeout=2&password=s3cret-pw", "host=127.0.0.1 port=1 user=tiyin password=s3cret-pw connect_timeout=2",
		"host=127.0.0.1 port=1 password='s3cret-pw"} {
		t.Setenv("TIYIN_DATABASE_URL", u)
		t.Setenv("TIYIN_SANDBOX", "true")
		err := openDB(context.Background(), applied(nil), schemaApply, func(context.Context, cli) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "TIYIN_DATABASE_URL") || strings.Contains(err.Error(), "s3cret-pw") {
			t.Errorf("%s: %v", u, err)
		}
	}
}

// TestASQLitePathInAMissingDirectoryNamesItsSetting: a database file tiyin cannot create says
// TIYIN_SQLITE_PATH and why, where SQLite said "out of memory (14)".
func TestASQLitePathInAMissingDirectoryNamesItsSetting(t *testing.T) {
	t.Setenv("TIYIN_DATABASE_URL", "")
	t.Setenv("TIYIN_SQLITE_PATH", filepath.Join(t.TempDir(), "missing", "tiyin.db"))
	t.Setenv("TIYIN_SANDBOX", "true")
	err := openDB(context.Background(), applied(nil), schemaApply, func(context.Context, cli) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "TIYIN_SQLITE_PATH") || !strings.Contains(err.Error(), "no such file or directory") ||
		strings.Contains(err.Error(), "out of memory") {
		t.Errorf("a missing directory: %v", err)
	}
}

// readOnlyCommands are the commands that only read the database (audit verify and checkpoint
// record no more than their own result): none may apply the schema.
var readOnlyCommands = [][]string{{"ledger", "check"}, {"audit", "verify"}, {"audit", "checkpoint"}, {"partner", "list"},
	{"operator", "list"}, {"books", "trial-balance", "--date", "2026-01-02"}, {"books", "journal", "--date", "2026-01-02"},
	{"books", "report", "--date", "2026-01-02"}}

// aPassword is the password the test's PostgreSQL URLs carry, which no output may show.
const aPassword = "s3cret-pw"

// withPasswords are the PostgreSQL URL u as an operator may write it with a password tiyin must
// never print: as a ?password= parameter, and as a key=value string (host=… password=…). The
// password is aPassword, or the one u has (moved to the parameter), which the database checks.
func withPasswords(t *testing.T, u string) (urls []string, password string) {
	t.Helper()
	parsed, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	password = aPassword
	if pw, ok := parsed.User.Password(); ok {
		password = pw
	}
	parsed.User = url.User(parsed.User.Username())
	q := parsed.Query()
	q.Set("password", password)
	parsed.RawQuery = q.Encode()
	kv := []string{"host=" + parsed.Hostname(), "user=" + parsed.User.Username(), "dbname=" + strings.TrimPrefix(parsed.Path, "/")}
	if parsed.Port() != "" {
		kv = append(kv, "port="+parsed.Port())
	}
	for k, vs := range q {
		kv = append(kv, k+"='"+strings.ReplaceAll(vs[0], "'", `\'`)+"'")
	}
	return []string{parsed.String(), strings.Join(kv, " ")}, password
}

// TestDescribeDatabaseHidesEveryPassword: the database named in a refusal and in the
// `tiyin started` line never shows a password, wherever the URL holds it.
func TestDescribeDatabaseHidesEveryPassword(t *testing.T) {
	for _, c := range []struct{ url, want string }{
		{"postgres://tiyin:s3cret-pw@db:5432/tiyin?sslmode=require", "PostgreSQL postgres://tiyin:xxxxx@db:5432/tiyin?sslmode=require"},
		{"postgres://tiyin@db/tiyin?sslmode=disable&password=s3cret-pw", "PostgreSQL postgres://tiyin@db/tiyin?sslmode=disable&password=xxxxx"},
		{"postgresql://db/tiyin?user=tiyin&Password=s3cret%2Dpw&sslpassword=s3cret-pw", "PostgreSQL postgresql://db/tiyin?user=tiyin&Password=xxxxx&sslpassword=xxxxx"},
		{"host=db port=5432 user=tiyin password=s3cret-pw dbname=tiyin", "PostgreSQL host=db port=5432 user=tiyin password=xxxxx dbname=tiyin"},
		{"host=db password = 's3cret pw\\' x' dbname=tiyin sslpassword=s3cret-pw", "PostgreSQL host=db password = xxxxx dbname=tiyin sslpassword=xxxxx"},
		{"postgres://tiyin:s3cret-pw@%zz/tiyin", "PostgreSQL (an unreadable TIYIN_DATABASE_URL)"},
		{"host=db password='s3cret-pw dbname=tiyin", "PostgreSQL host=db password=xxxxx"},
		{"host=db password=", "PostgreSQL host=db password=xxxxx"},
	} {
		if got := describeDatabase(config{DatabaseURL: c.url}); got != c.want || strings.Contains(got, "s3cret") {
			t.Errorf("%s: %q, want %q", c.url, got, c.want)
		}
	}
}

// TestReadOnlyCommandsRefuseADatabaseWithoutTiyinsSchema: pointed at an empty database (a
// restore into the wrong one), every read-only command exits 1 naming it without its password
// and leaves it empty, whatever TIYIN_MIGRATE says; on a schema one migration behind it exits 1
// naming tiyin migrate, and on this build's schema it works.
func TestReadOnlyCommandsRefuseADatabaseWithoutTiyinsSchema(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			u, path := storetest.URL(t, d)
			if d == store.SQLite {
				if err := os.WriteFile(path, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("TIYIN_SANDBOX", "true")
			t.Setenv("TIYIN_DATABASE_URL", u)
			t.Setenv("TIYIN_SQLITE_PATH", path)
			t.Setenv("TIYIN_MIGRATE", "true")
			db, err := store.Open(context.Background(), store.Config{DatabaseURL: u, SQLitePath: path, MaxConns: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = db.Close() }()
			tables := func() int {
				q := "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()"
				if d == store.SQLite {
					q = "SELECT count(*) FROM sqlite_master"
				}
				var n int
				if err := db.SQL.QueryRow(q).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			// On PostgreSQL, the same database is also named with a password in the URL's
			// query and as a key=value string: neither refusal may show it (issue 48).
			forms, password := []string{u}, aPassword
			if d == store.Postgres {
				forms, password = withPasswords(t, u)
			}
			for _, form := range forms {
				t.Setenv("TIYIN_DATABASE_URL", form)
				named := describeDatabase(config{DatabaseURL: form, SQLitePath: path})
				for _, args := range readOnlyCommands {
					status, _, errs := runCLI(t, args...)
					if status != 1 || !strings.Contains(errs, named+" has no tiyin schema") || strings.Contains(errs, "ledger consistent") ||
						strings.Contains(errs, password) {
						t.Errorf("tiyin %s on an empty database (%s): exit %d\n%s", strings.Join(args, " "), named, status, errs)
					}
				}
			}
			t.Setenv("TIYIN_DATABASE_URL", u)
			named := describeDatabase(config{DatabaseURL: u, SQLitePath: path})
			if n := tables(); n != 0 {
				t.Fatalf("the read-only commands left %d tables in the empty database", n)
			}
			if status, out, errs := runCLI(t, "migrate"); status != 0 {
				t.Fatalf("migrate: %d\n%s%s", status, out, errs)
			}
			if status, out, errs := runCLI(t, "ledger", "check"); status != 0 || !strings.Contains(out, "ledger consistent") {
				t.Fatalf("ledger check on this build's schema: %d\n%s%s", status, out, errs)
			}
			if _, err := db.SQL.Exec("DELETE FROM goose_db_version WHERE version_id = (SELECT max(version_id) FROM goose_db_version)"); err != nil {
				t.Fatal(err)
			}
			for _, args := range readOnlyCommands {
				status, _, errs := runCLI(t, args...)
				if status != 1 || !strings.Contains(errs, named+" has tiyin's schema at version") || !strings.Contains(errs, "run tiyin migrate first") {
					t.Errorf("tiyin %s on an older schema: exit %d\n%s", strings.Join(args, " "), status, errs)
				}
			}
		})
	}
}

// TestACommandLineTiyinDoesNotUnderstandExits2: an unknown command or flag, a wrong number of
// arguments and a missing required flag exit 2 naming the --help to read, as
// docs/operations.md says; a command line understood whose work fails exits 1.
func TestACommandLineTiyinDoesNotUnderstandExits2(t *testing.T) {
	t.Setenv("TIYIN_SANDBOX", "true")
	t.Setenv("TIYIN_SQLITE_PATH", filepath.Join(t.TempDir(), "absent.db"))
	for _, c := range []struct {
		name   string
		args   []string
		status int
		says   string
	}{
		{"unknown command", []string{"ledgr"}, 2, "tiyin --help"},
		{"unknown subcommand", []string{"ledger", "chek"}, 2, "tiyin ledger --help"},
		{"unknown flag", []string{"ledger", "check", "--fast"}, 2, "tiyin ledger check --help"},
		{"an argument too many", []string{"ledger", "check", "now"}, 2, "tiyin ledger check --help"},
		{"missing required flag", []string{"reconcile"}, 2, `required flag(s) "date" not set (see tiyin reconcile --help)`},
		{"missing required flag after a name", []string{"operator", "create", "alice"}, 2, `required flag(s) "role" not set`},
		{"set-webhook with neither --url nor --remove", []string{"partner", "set-webhook", "sandbox"}, 2,
			"[url remove] is required (see tiyin partner set-webhook --help)"},
		{"set-webhook with both --url and --remove", []string{"partner", "set-webhook", "sandbox", "--url", "https://partner.example/e", "--remove"}, 2,
			"none of the others can be; [remove url] were all set (see tiyin partner set-webhook --help)"},
		{"set-webhook with an empty --url", []string{"partner", "set-webhook", "sandbox", "--url", ""}, 2,
			"give either --url URL or --remove (see tiyin partner set-webhook --help)"},
		{"understood, but no database", []string{"reconcile", "--date", "2026-01-02"}, 1, "no database at"},
		{"set-webhook understood, but no database", []string{"partner", "set-webhook", "sandbox", "--remove"}, 1, "no database at"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, _, errs := runCLI(t, c.args...)
			if status != c.status || !strings.Contains(errs, c.says) {
				t.Errorf("tiyin %s: exit %d, want %d saying %q\n%s", strings.Join(c.args, " "), status, c.status, c.says, errs)
			}
		})
	}
}

// TestMigrateStatusSaysNoneIsPendingWithAnEmptyList: `migrate status --json` on this build's
// schema gives "pending": [], never null, so a script can take its length.
func TestMigrateStatusSaysNoneIsPendingWithAnEmptyList(t *testing.T) {
	t.Setenv("TIYIN_SANDBOX", "true")
	t.Setenv("TIYIN_DATABASE_URL", "")
	t.Setenv("TIYIN_SQLITE_PATH", filepath.Join(t.TempDir(), "tiyin.db"))
	if status, out, errs := runCLI(t, "migrate"); status != 0 {
		t.Fatalf("migrate: %d\n%s%s", status, out, errs)
	}
	status, out, errs := runCLI(t, "migrate", "status", "--json")
	if status != 0 || !strings.Contains(out, `"pending":[]`) || !strings.Contains(out, `"operatorsToRename":[]`) {
		t.Fatalf("migrate status --json: exit %d\n%s%s", status, out, errs)
	}
}
