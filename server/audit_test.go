package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
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

// checkpoint runs `tiyin audit checkpoint` and returns the head it printed.
func checkpoint(t *testing.T) string {
	t.Helper()
	status, out, errs := runCLI(t, "audit", "checkpoint")
	head := strings.TrimSpace(out)
	if status != 0 || strings.Count(head, ":") != 1 {
		t.Fatalf("checkpoint: %d\n%s%s", status, out, errs)
	}
	return head
}

// TestAnAnchorHoldsUntilTheLogUpToItChanges (issue 46): `tiyin audit verify --anchor` of a
// checkpoint's head passes while the log still holds that head and everything before it, and
// fails, naming what differs, once the owner cuts or changes any of it: even when the owner
// rolls the log and the verifications back to an earlier moment, which the database alone
// cannot tell from that moment.
func TestAnAnchorHoldsUntilTheLogUpToItChanges(t *testing.T) {
	for _, d := range storetest.Dialects {
		for _, c := range []struct {
			name string
			sql  []string
			// plain is plain verify's exit status after the rewrite; want is what --anchor names.
			plain int
			want  string
		}{
			{"nothing changed", nil, 0, ""},
			{"the log rolled back to before the verification, which is deleted",
				[]string{"DELETE FROM audit_log WHERE id >= 5", lastVerificationDeleted}, 0, "entry #7"},
			{"the anchored entry cut", []string{"DELETE FROM audit_log WHERE id = 7"}, 0, "entry #7"},
			{"an entry before it changed", []string{"UPDATE audit_log SET detail = 'EARLY 1' WHERE id = 2"}, 1, "entry #2"},
			{"the first entries cut", []string{"DELETE FROM audit_log WHERE id <= 2"}, 1, "entry #3"},
		} {
			t.Run(string(d)+"/"+c.name, func(t *testing.T) {
				db := cliDB(t, d)
				appendAudit(t, db, reviewedLog...)
				if status, out, errs := runCLI(t, "audit", "verify"); status != 0 {
					t.Fatalf("verify: %d\n%s%s", status, out, errs)
				}
				appendAudit(t, db, reviewedLog[0])
				head := checkpoint(t)
				if !strings.HasPrefix(head, "7:") {
					t.Fatalf("the head is %s, want entry #7's", head)
				}
				storetest.Tamper(t, db, c.sql...)
				if status, out, errs := runCLI(t, "audit", "verify"); status != c.plain {
					t.Fatalf("plain verify: exit %d, want %d\n%s%s", status, c.plain, out, errs)
				}
				status, out, errs := runCLI(t, "audit", "verify", "--anchor", head)
				switch {
				case c.want == "" && (status != 0 || !strings.Contains(out, fmt.Sprintf("anchor %s holds", head))):
					t.Fatalf("the untouched log against its anchor: %d\n%s%s", status, out, errs)
				case c.want != "" && (status != 1 || !strings.Contains(errs, c.want)):
					t.Fatalf("exit %d, want 1 naming %s\n%s%s", status, c.want, out, errs)
				}
			})
		}
	}
}

// TestACheckpointIsALogLineThenAPost (issue 46): `tiyin audit checkpoint` prints the head and
// always writes it as a warn line (audit.checkpoint) before it POSTs it, with the bearer token,
// to TIYIN_AUDIT_CHECKPOINT_URL; a POST the SIEM refuses fails the command after the line was
// written, never showing the token; a log level that would drop the line refuses to start.
func TestACheckpointIsALogLineThenAPost(t *testing.T) {
	db := cliDB(t, store.SQLite)
	appendAudit(t, db, reviewedLog...)
	type post struct {
		auth, contentType string
		body              struct {
			Event, Head, Hash string
			Seq               int64
			At                time.Time
		}
	}
	var (
		mu     sync.Mutex
		posts  []post
		answer = http.StatusOK
	)
	sent := func() []post { mu.Lock(); defer mu.Unlock(); return slices.Clone(posts) }
	siem := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		var p post
		p.auth, p.contentType = r.Header.Get("Authorization"), r.Header.Get("Content-Type")
		if err := json.NewDecoder(r.Body).Decode(&p.body); err != nil || r.Method != http.MethodPost || r.URL.Path != "/hec" {
			t.Errorf("%s %s: %v", r.Method, r.URL, err)
		}
		posts = append(posts, p)
		w.WriteHeader(answer)
	}))
	defer siem.Close()
	t.Setenv("TIYIN_AUDIT_CHECKPOINT_URL", siem.URL+"/hec")
	t.Setenv("TIYIN_AUDIT_CHECKPOINT_TOKEN", "siem-token-0123456789")
	logLine := func(stderr, head string) int {
		for i, l := range strings.Split(stderr, "\n") {
			var line struct{ Level, Msg, Event, Head string }
			if json.Unmarshal([]byte(l), &line) == nil && line.Level == "warn" && line.Msg == "audit.checkpoint" &&
				line.Event == "audit.checkpoint" && line.Head == head {
				return i
			}
		}
		return -1
	}

	head := checkpoint(t)
	_, _, errs := runCLI(t, "audit", "checkpoint")
	if !strings.HasPrefix(head, "5:") || logLine(errs, head) < 0 {
		t.Fatalf("the head %s, and no log line of it:\n%s", head, errs)
	}
	if posts := sent(); len(posts) != 2 || posts[0].auth != "Bearer siem-token-0123456789" || posts[0].contentType != "application/json" ||
		posts[0].body.Event != "audit.checkpoint" || posts[0].body.Head != head || posts[0].body.Seq != 5 ||
		!strings.HasSuffix(head, ":"+posts[0].body.Hash) || time.Since(posts[0].body.At) > time.Minute {
		t.Fatalf("the SIEM got %+v", posts)
	}

	mu.Lock()
	answer = http.StatusServiceUnavailable
	mu.Unlock()
	status, out, errs := runCLI(t, "audit", "checkpoint")
	refusal := strings.Index(errs, "tiyin: the checkpoint was not taken")
	if status != 1 || strings.TrimSpace(out) != head || logLine(errs, head) < 0 || refusal < 0 ||
		strings.Index(errs, `"msg":"audit.checkpoint"`) > refusal || strings.Contains(errs, "siem-token") {
		t.Fatalf("a refused POST: exit %d, want 1 after the log line\n%s%s", status, out, errs)
	}

	t.Setenv("TIYIN_LOG_LEVEL", "error")
	if status, _, errs := runCLI(t, "audit", "checkpoint"); status != 1 || !strings.Contains(errs, "TIYIN_LOG_LEVEL=error") || len(sent()) != 3 {
		t.Fatalf("at level error: exit %d, %d posts\n%s", status, len(sent()), errs)
	}
}

// TestTheCheckpointURLIsHTTPSOutsideTheSandbox: as the gateways' URLs, the checkpoint URL is
// http(s) without credentials, and https outside the sandbox, or tiyin does not start.
func TestTheCheckpointURLIsHTTPSOutsideTheSandbox(t *testing.T) {
	for _, c := range []struct {
		url, sandbox, refusal string
	}{
		{"https://siem.bank.uz/hec", "false", ""},
		{"http://siem.bank.uz/hec", "false", "TIYIN_AUDIT_CHECKPOINT_URL not https"},
		{"http://127.0.0.1:8088/hec", "true", ""},
		{"https://user:pw@siem.bank.uz/hec", "true", "without credentials"},
		{"siem.bank.uz", "true", "want an http(s) URL"},
	} {
		t.Setenv("TIYIN_SANDBOX", c.sandbox)
		t.Setenv("TIYIN_AUDIT_CHECKPOINT_URL", c.url)
		_, err := loadConfig()
		switch {
		case c.refusal == "" && err != nil && strings.Contains(err.Error(), "TIYIN_AUDIT_CHECKPOINT_URL"):
			t.Errorf("%s (sandbox %s): %v", c.url, c.sandbox, err)
		case c.refusal != "" && (err == nil || !strings.Contains(err.Error(), c.refusal) || strings.Contains(err.Error(), "pw")):
			t.Errorf("%s (sandbox %s): %v, want %q", c.url, c.sandbox, err, c.refusal)
		}
	}
}
