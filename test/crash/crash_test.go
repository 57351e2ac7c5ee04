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
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
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

// node is one tiyin process.
type node struct {
	mu   sync.Mutex
	url  string
	env  []string
	cmd  *exec.Cmd
	out  *bytes.Buffer
	bin  string
	down atomic.Bool
}

func (n *node) start(t *testing.T) {
	n.mu.Lock()
	n.out = &bytes.Buffer{}
	n.cmd = exec.Command(n.bin, "serve")
	n.cmd.Env, n.cmd.Stdout, n.cmd.Stderr = n.env, n.out, n.out
	if err := n.cmd.Start(); err != nil {
		n.mu.Unlock()
		t.Fatal(err)
	}
	n.mu.Unlock()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(n.url + "/readyz"); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				n.down.Store(false)
				return
			}
		}
	}
	t.Fatalf("tiyin never became ready:\n%s", n.out)
}

func (n *node) kill() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.down.Store(true)
	_ = n.cmd.Process.Signal(syscall.SIGKILL)
	_ = n.cmd.Wait()
}

func (n *node) stop(t *testing.T) {
	n.mu.Lock()
	defer n.mu.Unlock()
	_ = n.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- n.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("graceful stop: %v", err)
		}
	case <-time.After(30 * time.Second):
		_ = n.cmd.Process.Kill()
		t.Error("tiyin did not stop within 30 s of SIGTERM")
	}
}

// cluster is the nodes and what the flows saw.
type cluster struct {
	nodes    []*node
	replays  atomic.Int64
	retries  atomic.Int64
	answered sync.Map // request id → first answer body
}

var errGaveUp = errors.New("no answer within 3 minutes")

// call sends one request, to a random node; a write's id is kept across retries: on a lost
// connection, a 503 (code 10) or a 409 code 9, the same request goes again, to any node,
// until it is answered. Some answered writes are replayed at once, and the replay must be
// byte-for-byte the first answer.
func (c *cluster) call(t *testing.T, path string, params any, write bool) (map[string]any, int, error) {
	id := uuid.NewString()
	body, _ := json.Marshal(map[string]any{"id": id, "params": params})
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); {
		n := c.nodes[rand.IntN(len(c.nodes))]
		resp, err := client.Post(n.url+path, "application/json", bytes.NewReader(body))
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
				t.Errorf("%s %s: a retry got another answer:\n  first %s\n  now   %s", path, id, first, b)
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

func digits(n int) string {
	var b strings.Builder
	for range n {
		b.WriteByte(byte('0' + rand.IntN(10)))
	}
	return b.String()
}

func clientData(pinfl string) map[string]any {
	return map[string]any{
		"pinfl": pinfl, "lastName": "Karimov", "firstName": "Aziz", "birthDate": "1990-05-17",
		"document": map[string]any{"type": "PASSPORT", "series": "AA", "number": "1234567",
			"issuedBy": "Toshkent IIB", "issuedDate": "2020-01-10", "expiryDate": "2035-01-09"},
		"address": map[string]any{"region": "Toshkent", "district": "Chilonzor", "address": "Bunyodkor 1"},
		"phone":   "998901234567",
	}
}

// outcome is how one flow ended.
type outcome struct {
	app, loanID, transferStatus, repayment, card string
	err                                          error
}

// flow walks one client through everything: application, issuance, transfer, repayment, card.
func (c *cluster) flow(t *testing.T) (o outcome) {
	fail := func(format string, a ...any) outcome { o.err = fmt.Errorf(format, a...); return o }
	pinfl := "3" + digits(9) + "7" + digits(3)
	r, code, err := c.call(t, "/microloans/applications/pre-scoring/register", map[string]any{"externalId": uuid.NewString(),
		"isAgreementAccepted": true, "phoneNumber": "998901234567", "clientData": clientData(pinfl)}, true)
	if err != nil || code != 0 {
		return fail("register: %d %v", code, err)
	}
	o.app = r["applicationId"].(string)
	if st := c.waitStatus(t, o.app, "PENDING"); st != "PENDING" {
		return fail("pre-scoring ended %s", st)
	}
	if _, code, err = c.call(t, "/microloans/applications/verify", map[string]any{"applicationId": o.app, "amount": 100_000_000,
		"percent": 28, "monthPeriod": 12, "backupPhone": "998911112233"}, true); err != nil || code != 0 {
		return fail("verify: %d %v", code, err)
	}
	if _, code, err = c.call(t, "/microloans/applications/issue", map[string]any{"applicationId": o.app, "clientData": clientData(pinfl)}, true); err != nil || code != 0 {
		return fail("issue: %d %v", code, err)
	}
	if st := c.waitStatus(t, o.app, "COMPLETED"); st != "COMPLETED" {
		return fail("issuance ended %s", st)
	}
	ext := uuid.NewString()
	r, code, err = c.call(t, "/transfers/account-to-card/create", map[string]any{"externalId": ext, "applicationId": o.app,
		"pan": "8600" + digits(11) + "9", "receiverCardType": "UZCARD", "cardHolderName": "AZIZ KARIMOV", "amount": 60_000_000}, true)
	if err != nil || code != 0 {
		return fail("transfer: %d %v", code, err)
	}
	ref := map[string]any{"externalId": ext, "transactionId": r["transactionId"]}
	if _, code, err = c.call(t, "/transfers/account-to-card/confirm", ref, true); err != nil || (code != 0 && code != 1016) {
		return fail("confirm: %d %v", code, err)
	}
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(300 * time.Millisecond) {
		if r, _, _ = c.call(t, "/transfers/check-status", ref, false); r != nil && (r["status"] == "SUCCESS" || r["status"] == "FAILED") {
			o.transferStatus = r["status"].(string)
			break
		}
	}
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end) && o.loanID == ""; time.Sleep(300 * time.Millisecond) {
		if r, _, _ = c.call(t, "/microloans/info", map[string]any{"applicationId": o.app}, false); r != nil && r["loanId"] != nil {
			o.loanID = r["loanId"].(string)
		}
	}
	if o.loanID == "" {
		return fail("no loanId after 2 minutes")
	}
	chk, code, err := c.call(t, "/repayment/loans/check", map[string]any{"loanId": o.loanID}, true)
	if err != nil || code != 0 {
		return fail("check: %d %v", code, err)
	}
	r, code, err = c.call(t, "/repayment/loans/pay", map[string]any{"loanId": o.loanID, "paymentType": "EARLY", "requestId": chk["requestId"],
		"debitId": "DBT-" + uuid.NewString(), "amount": 10_000_000, "processingType": "UZCARD"}, true)
	if err != nil || code != 0 {
		return fail("pay: %d %v", code, err)
	}
	o.repayment = r["status"].(string)
	phone := "99890" + digits(7)
	r, code, err = c.call(t, "/cards/attach", map[string]any{"pan": "8600" + digits(11) + "7", "expiry": "3012",
		"processingType": "UZCARD", "phoneNumber": phone}, true)
	if err != nil || code != 0 {
		return fail("attach: %d %v", code, err)
	}
	card := r["cardId"]
	box, _, err := c.call(t, "/sandbox/sms/outbox", map[string]any{"phoneNumber": phone}, false)
	if err != nil || len(box["messages"].([]any)) == 0 {
		return fail("no SMS code: %v", err)
	}
	otp := box["messages"].([]any)[0].(map[string]any)["code"]
	if _, code, err = c.call(t, "/cards/attach/confirm", map[string]any{"cardId": card, "otpCode": otp}, true); err != nil || code != 0 {
		return fail("confirm card: %d %v", code, err)
	}
	r, _, _ = c.call(t, "/cards/status", map[string]any{"cardId": card}, false)
	o.card, _ = r["status"].(string)
	return o
}

// waitStatus polls an application until it reaches want or a final status.
func (c *cluster) waitStatus(t *testing.T, app, want string) string {
	st := ""
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		r, _, err := c.call(t, "/microloans/applications/info", map[string]any{"applicationId": app}, false)
		if err != nil || r == nil {
			continue
		}
		st, _ = r["status"].(string)
		if st == want || st == "REJECTED" || st == "FAILED" || st == "CANCELLED" || st == "EXPIRED" {
			return st
		}
	}
	return st
}

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
	bin = filepath.Join(t.TempDir(), "tiyin")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/tiyin").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	c = &cluster{}
	for range nodes {
		l, _ := net.Listen("tcp", "127.0.0.1:0")
		addr := l.Addr().String()
		_ = l.Close()
		n := &node{url: "http://" + addr, bin: bin, env: append(append(os.Environ(), "TIYIN_HTTP_ADDR="+addr, "TIYIN_SANDBOX=true",
			"TIYIN_SANDBOX_API_KEY="+key, "TIYIN_DATABASE_URL="+dbURL, "TIYIN_LOAN_CONTRACT_DELAY=1s", "TIYIN_RATE_LIMIT=0",
			"TIYIN_DB_MAX_CONNS=8", "TIYIN_LOG_LEVEL=warn"), env...)}
		n.start(t)
		c.nodes = append(c.nodes, n)
	}
	return c, bin, dbURL
}

// run keeps workers flows going while during runs, then lets the ones under way finish.
func (c *cluster) run(t *testing.T, workers int, during func()) []outcome {
	ctx, stopFlows := context.WithCancel(context.Background())
	var (
		mu       sync.Mutex
		outcomes []outcome
		wg       sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				o := c.flow(t)
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
// failed issuance counts as ended when failedOK (it is a documented end: FAILED, 1027).
func (c *cluster) verify(t *testing.T, outcomes []outcome, bin, dbURL string, failedOK bool) (finished, failed int, ledger string) {
	t.Helper()
	for _, o := range outcomes {
		switch {
		case failedOK && o.err != nil && strings.Contains(o.err.Error(), "issuance ended FAILED"):
			failed++
		case o.err != nil:
			t.Errorf("flow %s: %v", o.app, o.err)
		case o.transferStatus != "SUCCESS" || o.repayment != "SUCCESS" || o.card != "ACTIVE":
			t.Errorf("flow %s ended transfer %s, repayment %s, card %s", o.app, o.transferStatus, o.repayment, o.card)
		default:
			finished++
			p, _, err := c.call(t, "/microloans/payments", map[string]any{"loanId": o.loanID}, false)
			if err != nil || len(p["payments"].([]any)) != 1 {
				t.Errorf("loan %s: payments %v, %v; want exactly one", o.loanID, p, err)
			}
		}
	}
	for _, n := range c.nodes {
		n.stop(t)
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
	kills, workers, nodes := setting("TIYIN_CRASH_KILLS", 4), setting("TIYIN_CRASH_WORKERS", 6), setting("TIYIN_CRASH_NODES", 2)
	c, bin, dbURL := setup(t, nodes)
	outcomes := c.run(t, workers, func() {
		for i := range kills {
			time.Sleep(time.Duration(800+rand.IntN(2500)) * time.Millisecond)
			n := c.nodes[rand.IntN(len(c.nodes))]
			n.kill()
			time.Sleep(time.Duration(rand.IntN(500)) * time.Millisecond)
			n.start(t)
			t.Logf("kill %d of %d survived", i+1, kills)
		}
	})
	finished, _, ledger := c.verify(t, outcomes, bin, dbURL, false)
	fmt.Fprintf(os.Stderr, "crash harness: %d nodes, %d SIGKILLs survived, %d flows finished of %d, %d requests retried after a kill, %d answers replayed byte-for-byte; %s\n",
		nodes, kills, finished, len(outcomes), c.retries.Load(), c.replays.Load(), ledger)
}

// TestUnderGatewayFaults: with the sandbox gateways failing and hanging at random, every
// request that meets a fault answers code 10 within the gateway timeout and its retry with the
// same id goes through; background stages retry and every flow ends (issuance COMPLETED, or
// FAILED after its retries), nothing stuck, the ledger consistent.
func TestUnderGatewayFaults(t *testing.T) {
	c, bin, dbURL := setup(t, 1, "TIYIN_SANDBOX_FAULTS=error=0.2,timeout=0.05,latency=5ms", "TIYIN_GATEWAY_TIMEOUT=400ms")
	outcomes := c.run(t, 6, func() { time.Sleep(12 * time.Second) })
	finished, failed, ledger := c.verify(t, outcomes, bin, dbURL, true)
	if finished == 0 || c.retries.Load() == 0 {
		t.Fatalf("%d flows finished, %d requests met a fault: the faults did not reach the requests", finished, c.retries.Load())
	}
	fmt.Fprintf(os.Stderr, "gateway faults (error 20%%, timeout 5%%): %d flows finished, %d issuances FAILED after their retries, %d requests answered code 10 and retried with the same id; %s\n",
		finished, failed, c.retries.Load(), ledger)
}
