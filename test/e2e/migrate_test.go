package e2e

import (
	"os"
	"os/exec"
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
