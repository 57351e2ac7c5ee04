package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
)

// TestConcurrentMigrationsOnAFreshDatabase starts 8 `tiyin migrate` at once on a fresh
// PostgreSQL schema, 20 times: every one succeeds (the migration lock makes them take turns,
// each finding the work of the one before done).
func TestConcurrentMigrationsOnAFreshDatabase(t *testing.T) {
	t.Parallel()
	for round := range 20 {
		url, _ := storetest.URL(t, store.Postgres)
		env := append(os.Environ(), "TIYIN_DATABASE_URL="+url, "TIYIN_SANDBOX=true")
		var wg sync.WaitGroup
		errs := make([]error, 8)
		outs := make([][]byte, 8)
		for i := range 8 {
			wg.Go(func() {
				cmd := exec.Command(binary, "migrate")
				cmd.Env = env
				outs[i], errs[i] = cmd.CombinedOutput()
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, process %d: %v\n%s", round+1, i+1, err, outs[i])
			}
		}
	}
}

// TestCommandsCheckTheSchemaUnlessToldToMigrate: on a fresh database with TIYIN_MIGRATE=false,
// serve and a one-shot command refuse to start and name `tiyin migrate`; `tiyin migrate status`
// lists what is pending and exits 1; after `tiyin migrate` it says the schema is this build's
// and exits 0, and the command works.
func TestCommandsCheckTheSchemaUnlessToldToMigrate(t *testing.T) {
	t.Parallel()
	url, _ := storetest.URL(t, store.Postgres)
	env := append(os.Environ(), "TIYIN_DATABASE_URL="+url, "TIYIN_SANDBOX=true", "TIYIN_MIGRATE=false",
		"TIYIN_HTTP_ADDR="+freeAddr(t), "TIYIN_ADMIN_ADDR=off")
	run := func(args ...string) (string, error) {
		cmd := exec.Command(binary, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, args := range [][]string{{"serve"}, {"partner", "list"}} {
		out, err := run(args...)
		if err == nil || !strings.Contains(out, "run tiyin migrate first") || !strings.Contains(out, "pending") {
			t.Fatalf("tiyin %v on an empty database: %v\n%s", args, err, out)
		}
	}
	type status struct {
		Current, Latest int64
		Pending         []string
	}
	read := func(out string) status {
		var s status
		if err := json.Unmarshal([]byte(out[:strings.Index(out, "}")+1]), &s); err != nil {
			t.Fatalf("migrate status printed %q: %v", out, err)
		}
		return s
	}
	out, err := run("migrate", "status", "--json")
	before := read(out[strings.Index(out, "{"):])
	if err == nil || before.Current != 0 || before.Latest < 24 || len(before.Pending) != int(before.Latest) || before.Pending[0] != "00001_foundation.sql" {
		t.Fatalf("status of an empty database: %+v, %v\n%s", before, err, out)
	}
	if out, err := run("migrate"); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	out, err = run("migrate", "status", "--json")
	after := read(out[strings.Index(out, "{"):])
	if err != nil || after.Current != before.Latest || len(after.Pending) != 0 {
		t.Fatalf("status after migrate: %+v, %v\n%s", after, err, out)
	}
	if out, err := run("partner", "list"); err != nil {
		t.Fatalf("partner list after migrate: %v\n%s", err, out)
	}
}
