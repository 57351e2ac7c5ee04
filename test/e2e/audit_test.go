package e2e

import (
	"database/sql"
	"os/exec"
	"strings"
	"testing"

	_ "github.com/glebarez/go-sqlite" // the SQLite driver tiyin's store uses, to tamper as the file's owner could

	"github.com/tiyin/tiyin/adapters/store"
)

// TestAuditVerifyNamesTheFirstBrokenEntry (issue 33): `tiyin audit verify` passes an intact
// audit log, and fails, naming the entry, once a line is edited with SQL by someone who can
// drop the append-only triggers (the SQLite file's owner).
func TestAuditVerifyNamesTheFirstBrokenEntry(t *testing.T) {
	t.Parallel()
	s := startConsole(t, store.SQLite)
	s.operator(t, "alice", "officer")
	s.operator(t, "bob", "viewer")
	verify := func() (string, error) {
		cmd := exec.Command(binary, "audit", "verify")
		cmd.Env = s.env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := verify(); err != nil || !strings.Contains(out, "audit log intact") {
		t.Fatalf("the untouched log: %v\n%s", err, out)
	}
	var path string
	for _, kv := range s.env {
		if p, ok := strings.CutPrefix(kv, "TIYIN_SQLITE_PATH="); ok {
			path = p
		}
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	for _, q := range []string{"DROP TRIGGER audit_log_no_update", "UPDATE audit_log SET object = 'operator:mallory' WHERE id = 1"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := verify(); err == nil || !strings.Contains(out, "entry #1 does not match its chain") {
		t.Fatalf("the edited log: %v\n%s", err, out)
	}
}
