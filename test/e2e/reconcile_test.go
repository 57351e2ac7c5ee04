package e2e

import (
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/test/tiyintest"
)

// TestReconcileADayFromTheCommandLine runs a whole microloan flow, then `tiyin reconcile` for
// the day: the sandbox network's journal (its own table, written by the server's process) and
// tiyin's records agree line for line, so the day has no break; a second run records nothing
// new.
func TestReconcileADayFromTheCommandLine(t *testing.T) {
	t.Parallel()
	s := start(t, store.SQLite, "TIYIN_LOAN_CONTRACT_DELAY=1s")
	if o := tiyintest.Flow(flowCaller{t, s}, 100*time.Millisecond); o.Err != nil || o.TransferStatus != "SUCCESS" {
		t.Fatalf("flow: %+v", o)
	}
	day := time.Now().In(domain.Tashkent).Format(time.DateOnly)
	type result struct {
		Ours, Theirs, Matched, New int
		Breaks                     map[string]int
	}
	run := func() map[string]result {
		cmd := exec.Command(binary, "reconcile", "--date", day, "--json")
		cmd.Env = s.env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("tiyin reconcile: %v: %s", err, out)
		}
		var r map[string]result
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("tiyin reconcile printed %q: %v", out, err)
		}
		return r
	}
	first := run()
	uz := first["UZCARD"]
	if uz.Ours < 2 || uz.Theirs != uz.Ours || uz.Matched != uz.Ours || len(uz.Breaks) != 0 || first["HUMO"].Ours != 0 {
		t.Fatalf("the day's reconciliation: %+v", first)
	}
	if again := run(); again["UZCARD"].New != 0 || again["UZCARD"].Matched != uz.Matched {
		t.Fatalf("the second run: %+v", again)
	}
}
