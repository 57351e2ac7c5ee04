// Package crash is tiyin's crash-safety harness: it runs several `tiyin serve` processes on one
// PostgreSQL, drives many concurrent full flows through them, kills the processes with SIGKILL
// at random moments and restarts them, and then proves that every flow finished exactly once,
// no money was lost or duplicated, no work is stuck, and every retried request got its
// original answer. `make crash-test` runs the long version; `make test` a short one.
package crash

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
	"github.com/tiyin/tiyin/test/tiyintest"
)

const key = "crash-sandbox-key-0123456789"

// settings: TIYIN_CRASH_KILLS (SIGKILLs, default 4), TIYIN_CRASH_WORKERS (concurrent flows,
// default 6), TIYIN_CRASH_NODES (processes on the one database, default 2).
func setting(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// cluster is the nodes and what the flows saw.
type cluster struct {
	t        *testing.T
	nodes    []*tiyintest.Node
	replays  atomic.Int64
	retries  atomic.Int64
	answered sync.Map // request id → first answer body
}

var errGaveUp = errors.New("no answer within 3 minutes")

// call sends one request, to a random node; a write's id is kept across retries: on a lost
// connection, a 503 (code 10) or a 409 code 9, the same request goes again, to any node,
// until it is answered. Some answered writes are replayed at once, and the replay must be
// byte-for-byte the first answer.
func (c *cluster) Call(path string, params any, write bool) (map[string]any, int, error) {
	id := uuid.NewString()
	body, _ := json.Marshal(map[string]any{"id": id, "params": params})
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); {
		n := c.nodes[rand.IntN(len(c.nodes))]
		resp, err := client.Post(n.URL+path, "application/json", bytes.NewReader(body))
		if err != nil {
			c.retries.Add(1)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		var env struct {
			Result map[string]any
			Error  *struct{ Code int }
		}
		if json.Unmarshal(b, &env) != nil {
			c.retries.Add(1) // a response cut by the kill
			continue
		}
		code := 0
		if env.Error != nil {
			code = env.Error.Code
		}
		if code == 10 || code == 9 || code == 1 {
			c.retries.Add(1)
			time.Sleep(200 * time.Millisecond)
			continue
		}
		if write {
			if first, loaded := c.answered.LoadOrStore(id, string(b)); loaded && first.(string) != string(b) {
				c.t.Errorf("%s %s: a retry got another answer:\n  first %s\n  now   %s", path, id, first, b)
			}
			if rand.IntN(4) == 0 {
				c.replays.Add(1)
				continue // replay it: the loop sends the same request again
			}
		}
		return env.Result, code, nil
	}
	return nil, 0, errGaveUp
}

// keyed sends the sandbox partner's key with every request.
type keyed struct{ http.RoundTripper }

func (k keyed) RoundTrip(r *http.Request) (*http.Response, error) {
	r.Header.Set("Authorization", "Bearer "+key)
	return k.RoundTripper.RoundTrip(r)
}

// client is the partner's HTTP client: keyed, and bounded so a killed node cannot hang it.
var client = &http.Client{Transport: keyed{http.DefaultTransport}, Timeout: 20 * time.Second}

// setup builds the binary and starts nodes processes on a fresh PostgreSQL schema.
func setup(t *testing.T, nodes int, env ...string) (c *cluster, bin, dbURL string) {
	t.Helper()
	if testing.Short() {
		t.Skip("crash harness: not in -short")
	}
	dbURL, _ = storetest.URL(t, store.Postgres)
	if dbURL == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("the crash harness needs PostgreSQL: set TIYIN_TEST_DATABASE_URL")
		}
		t.Skip("SKIPPED LOUDLY: the crash harness needs PostgreSQL (TIYIN_TEST_DATABASE_URL)")
	}
	bin, err := tiyintest.Build("../..", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c = &cluster{t: t}
	for range nodes {
		n := tiyintest.NewNode(bin, append([]string{"TIYIN_SANDBOX=true", "TIYIN_SANDBOX_API_KEY=" + key, "TIYIN_DATABASE_URL=" + dbURL,
			"TIYIN_LOAN_CONTRACT_DELAY=1s", "TIYIN_RATE_LIMIT=0", "TIYIN_DB_MAX_CONNS=8", "TIYIN_LOG_LEVEL=warn"}, env...)...)
		if err := n.Start(); err != nil {
			t.Fatal(err)
		}
		c.nodes = append(c.nodes, n)
	}
	return c, bin, dbURL
}

// run keeps workers flows going while during runs, then lets the ones under way finish.
func (c *cluster) run(workers int, during func()) []tiyintest.Outcome {
	ctx, stopFlows := context.WithCancel(context.Background())
	var (
		mu       sync.Mutex
		outcomes []tiyintest.Outcome
		wg       sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				o := tiyintest.Flow(c, 250*time.Millisecond)
				mu.Lock()
				outcomes = append(outcomes, o)
				mu.Unlock()
			}
		}()
	}
	during()
	stopFlows()
	wg.Wait()
	return outcomes
}

// verify checks how the flows ended and what the database holds, once the nodes stopped; a
// failed issuance or pre-scoring counts as ended when failedOK (a documented end: FAILED, 1027,
// after 5 calls in a row never reached the bank, which under 20 % injected errors befalls about
// one stage in 3 000).
func (c *cluster) verify(t *testing.T, outcomes []tiyintest.Outcome, bin, dbURL string, failedOK bool) (finished, failed int, ledger string) {
	t.Helper()
	for _, o := range outcomes {
		switch {
		case failedOK && o.Err != nil && (strings.Contains(o.Err.Error(), "issuance ended FAILED") ||
			strings.Contains(o.Err.Error(), "pre-scoring ended FAILED")):
			failed++
		case o.Err != nil:
			t.Errorf("flow %s: %v", o.App, o.Err)
		case o.TransferStatus != "SUCCESS" || o.Repayment != "SUCCESS" || o.Card != "ACTIVE":
			t.Errorf("flow %s ended transfer %s, repayment %s, card %s", o.App, o.TransferStatus, o.Repayment, o.Card)
		default:
			finished++
			p, _, err := c.Call("/microloans/payments", map[string]any{"loanId": o.LoanID}, false)
			if err != nil || len(p["payments"].([]any)) != 1 {
				t.Errorf("loan %s: payments %v, %v; want exactly one", o.LoanID, p, err)
			}
		}
	}
	for _, n := range c.nodes {
		if err := n.Stop(); err != nil {
			t.Error(err)
		}
	}
	// No money lost or duplicated, no work stuck.
	check := exec.Command(bin, "ledger", "check")
	check.Env = append(os.Environ(), "TIYIN_DATABASE_URL="+dbURL, "TIYIN_SANDBOX=true")
	out, err := check.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ledger consistent") {
		t.Errorf("ledger check: %v\n%s", err, out)
	}
	db, err := store.Open(context.Background(), store.Config{DatabaseURL: dbURL, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	stuck := map[string]string{
		"applications in progress": "SELECT count(*) FROM applications WHERE task_status = 'IN_PROGRESS'",
		"transfers not settled":    "SELECT count(*) FROM transfers WHERE status NOT IN ('SUCCESS', 'FAILED')",
		"loans without contract":   "SELECT count(*) FROM loans WHERE contract_number IS NULL OR contract_number = ''",
		"unconfirmed cards":        "SELECT count(*) FROM cards WHERE status = 'UNVERIFIED'",
	}
	for what, q := range stuck {
		var n int64
		if err := db.Gorm.Raw(q).Scan(&n).Error; err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if n > 0 {
			t.Errorf("%d %s", n, what)
		}
	}
	return finished, failed, strings.ReplaceAll(strings.TrimSpace(string(out)), "\n", "; ")
}

func TestCrashSafety(t *testing.T) {
	crashRun(t, "")
}

// TestCrashSafetyUnderCPUHog is the same run with the machine's cores saturated by busy
// loops the test runs itself, one per core, for at most five minutes and never past the test:
// kills land while every step is slow, where races between steps and nodes show.
func TestCrashSafetyUnderCPUHog(t *testing.T) {
	if testing.Short() {
		t.Skip("crash harness: not in -short")
	}
	ctx, stop := context.WithTimeout(context.Background(), 5*time.Minute)
	var (
		hogs   sync.WaitGroup
		rounds atomic.Int64
	)
	for range runtime.NumCPU() {
		hogs.Go(func() {
			for n := 1; ctx.Err() == nil; rounds.Add(int64(n & 1)) {
				for range 1 << 16 { // spin between looks at the deadline
					n ^= n<<1 + 1
				}
			}
		})
	}
	t.Cleanup(func() {
		stop()
		hogs.Wait()
	})
	crashRun(t, fmt.Sprintf(" under a CPU hog on %d cores", runtime.NumCPU()))
	if rounds.Load() == 0 {
		t.Fatal("the CPU hog did not run")
	}
}

func crashRun(t *testing.T, under string) {
	kills, workers, nodes := setting("TIYIN_CRASH_KILLS", 4), setting("TIYIN_CRASH_WORKERS", 6), setting("TIYIN_CRASH_NODES", 2)
	c, bin, dbURL := setup(t, nodes)
	outcomes := c.run(workers, func() {
		for i := range kills {
			time.Sleep(time.Duration(800+rand.IntN(2500)) * time.Millisecond)
			n := c.nodes[rand.IntN(len(c.nodes))]
			n.Kill()
			time.Sleep(time.Duration(rand.IntN(500)) * time.Millisecond)
			if err := n.Start(); err != nil {
				t.Fatal(err)
			}
			t.Logf("kill %d of %d survived", i+1, kills)
		}
	})
	finished, _, ledger := c.verify(t, outcomes, bin, dbURL, false)
	fmt.Fprintf(os.Stderr, "crash harness%s: %d nodes, %d SIGKILLs survived, %d flows finished of %d, %d requests retried after a kill, %d answers replayed byte-for-byte; %s\n",
		under, nodes, kills, finished, len(outcomes), c.retries.Load(), c.replays.Load(), ledger)
}

// TestUnderGatewayFaults: with the sandbox gateways failing and hanging at random, every
// request that meets a fault answers code 10 within the gateway timeout and its retry with the
// same id goes through; background stages retry and every flow ends (issuance COMPLETED, or
// FAILED after its retries), nothing stuck, the ledger consistent.
func TestUnderGatewayFaults(t *testing.T) {
	c, bin, dbURL := setup(t, 1, "TIYIN_SANDBOX_FAULTS=error=0.2,timeout=0.05,latency=5ms", "TIYIN_GATEWAY_TIMEOUT=400ms")
	outcomes := c.run(6, func() { time.Sleep(12 * time.Second) })
	finished, failed, ledger := c.verify(t, outcomes, bin, dbURL, true)
	if finished == 0 || c.retries.Load() == 0 {
		t.Fatalf("%d flows finished, %d requests met a fault: the faults did not reach the requests", finished, c.retries.Load())
	}
	fmt.Fprintf(os.Stderr, "gateway faults (error 20%%, timeout 5%%): %d flows finished, %d applications FAILED after their retries, %d requests answered code 10 and retried with the same id; %s\n",
		finished, failed, c.retries.Load(), ledger)
}
