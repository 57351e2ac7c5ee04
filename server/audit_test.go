package server

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
	"github.com/tiyin/tiyin/ports"
)

// cliDB points the command line at a fresh, migrated database of dialect d in the sandbox (its
// data key), through the variables every command reads, and returns the owner's handle on it.
func cliDB(t *testing.T, d store.Dialect) *store.DB {
	t.Helper()
	u, path := storetest.URL(t, d)
	t.Setenv("TIYIN_SANDBOX", "true")
	t.Setenv("TIYIN_DATABASE_URL", u)
	t.Setenv("TIYIN_SQLITE_PATH", path)
	if status, out, errs := runCLI(t, "migrate"); status != 0 {
		t.Fatalf("migrate: %d\n%s%s", status, out, errs)
	}
	db, err := store.Open(context.Background(), store.Config{DatabaseURL: u, SQLitePath: path, MaxConns: 2,
		Sealer: config{DataKey: sandboxDataKey}.keyring()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// runCLI runs tiyin's command line in this process and returns its exit status, stdout and stderr.
func runCLI(t *testing.T, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	dir := t.TempDir()
	out, err := os.Create(dir + "/stdout")
	if err != nil {
		t.Fatal(err)
	}
	errs, err := os.Create(dir + "/stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = out.Close(); _ = errs.Close() }()
	keep, keepErr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = out, errs
	status = Run(args)
	os.Stdout, os.Stderr = keep, keepErr
	o, _ := os.ReadFile(out.Name())
	e, _ := os.ReadFile(errs.Name())
	return status, string(o), string(e)
}

// reviewedLog is the log the reviewer rewrote: two officers, one proposing, the other
// approving (#3), between admins' logins.
var reviewedLog = []ports.AuditEntry{
	{Operator: "adm1", Address: "10.0.0.1", Action: "login", Object: "operator:adm1"},
	{Operator: "off1", Address: "10.0.0.2", Action: "loan_action.propose", Object: "loan:42", Detail: "EARLY 1000000"},
	{Operator: "off2", Address: "10.0.0.3", Action: "proposal.approve", Object: "loan:42", Detail: "EARLY 1000000"},
	{Operator: "adm2", Address: "10.0.0.4", Action: "login", Object: "operator:adm2"},
	{Operator: "adm1", Address: "10.0.0.1", Action: "logout", Object: "operator:adm1"},
}

// appendAudit appends entries to db's audit log, a second apart.
func appendAudit(t *testing.T, db *store.DB, entries ...ports.AuditEntry) {
	t.Helper()
	log := store.NewAuditLog(db)
	for i, e := range entries {
		e.At = time.Date(2026, 11, 22, 9, 0, i, 0, time.UTC)
		if err := log.Append(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
}

// lastVerificationDeleted removes the newest verification, in either dialect.
const lastVerificationDeleted = "DELETE FROM audit_verifications WHERE id = (SELECT max(id) FROM audit_verifications)"

// TestAuditVerifyFailsAfterTheReviewersRewrites (issue 46, finding 2): `tiyin audit verify`
// said "intact", exit 0, after each of the reviewer's rewrites as the database's owner
// (PostgreSQL with session_replication_role = replica, SQLite with the triggers dropped). Each
// now fails it, exit 1, naming the first entry or verification that gives the rewrite away.
func TestAuditVerifyFailsAfterTheReviewersRewrites(t *testing.T) {
	for _, d := range storetest.Dialects {
		for _, c := range []struct {
			name string
			// more entries are written after the verification, before the rewrite.
			more []ports.AuditEntry
			sql  []string
			want string
		}{
			{"the latest rows the verification saw cut, and the verification deleted", nil,
				[]string{"DELETE FROM audit_log WHERE id IN (4, 5)", lastVerificationDeleted}, "entry #6"},
			{"the rows written since the verification cut, and the verification deleted", reviewedLog[:2],
				[]string{"DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log ORDER BY id DESC LIMIT 2)", lastVerificationDeleted},
				"entry #6"},
			{"the latest rows cut, and a verification of what is left added", nil,
				[]string{"DELETE FROM audit_log WHERE id IN (4, 5)",
					"INSERT INTO audit_verifications (at, entries, chained, last_id, head, broken_id, problem) " +
						"SELECT at, 3, 3, 3, (SELECT chain FROM audit_log WHERE id = 3), 0, '' FROM audit_verifications"},
				"verification #2"},
			{"every chain emptied and the approval rewritten as adm2's login", nil,
				[]string{"UPDATE audit_log SET chain = NULL",
					"UPDATE audit_log SET operator = 'adm2', address = '10.0.0.4', action = 'login', object = 'operator:adm2', detail = '' " +
						"WHERE action = 'proposal.approve'",
					"DELETE FROM audit_verifications"},
				"entry #1"},
		} {
			t.Run(string(d)+"/"+c.name, func(t *testing.T) {
				db := cliDB(t, d)
				appendAudit(t, db, reviewedLog...)
				if status, out, errs := runCLI(t, "audit", "verify"); status != 0 || !strings.Contains(out, "audit log intact") {
					t.Fatalf("the untouched log: %d\n%s%s", status, out, errs)
				}
				appendAudit(t, db, c.more...)
				storetest.Tamper(t, db, c.sql...)
				status, out, errs := runCLI(t, "audit", "verify")
				if status != 1 || !strings.Contains(errs, c.want) {
					t.Fatalf("after the rewrite: exit %d, want 1 naming %s\n%s%s", status, c.want, out, errs)
				}
			})
		}
	}
}
