// Package e2e drives the built tiyin binary over real HTTP, on SQLite and on PostgreSQL, the
// way a partner's backend does.
package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
	"github.com/tiyin/tiyin/test/apicheck"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tiyin-e2e")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "tiyin")
	build := exec.Command("go", "build", "-o", binary, "../../cmd/tiyin")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build tiyin:", err)
		os.Exit(1)
	}
	code := m.Run()
	reportScan()
	if code == 0 {
		code = replayThroughPrism()
	}
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// server is a running tiyin process.
type server struct {
	url, key string
	env      []string
	cmd      *exec.Cmd
	out      *lockedBuffer
	check    *apicheck.Validator
	secrets  secrets
}

const sandboxKey = "e2e-sandbox-key-0123456789"

func freeAddr(t *testing.T) string {
	t.Helper()
	handedOut.Lock()
	defer handedOut.Unlock()
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		_ = l.Close()
		// The system hands a closed port out again: never give the same one to two listeners
		// of this run (a server's API and its console would collide).
		if !handedOut.addrs[addr] {
			handedOut.addrs[addr] = true
			return addr
		}
	}
}

// handedOut are the addresses freeAddr gave this run.
var handedOut = struct {
	sync.Mutex
	addrs map[string]bool
}{addrs: map[string]bool{}}

// start runs `tiyin serve` on a fresh database of the dialect and waits until it is ready.
func start(t *testing.T, d store.Dialect, extraEnv ...string) *server {
	t.Helper()
	dbURL, sqlitePath := storetest.URL(t, d)
	addr := freeAddr(t)
	env := append(os.Environ(), "TIYIN_HTTP_ADDR="+addr, "TIYIN_ADMIN_ADDR=127.0.0.1:0", "TIYIN_SANDBOX=true", "TIYIN_SANDBOX_API_KEY="+sandboxKey,
		"TIYIN_DATABASE_URL="+dbURL, "TIYIN_SQLITE_PATH="+sqlitePath)
	env = append(env, extraEnv...)
	s := &server{url: "http://" + addr, key: sandboxKey, env: env, out: &lockedBuffer{}, check: apicheck.New(t)}
	s.launch(t)
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Errorf("tiyin did not stop cleanly: %v\n%s", err, s.out)
		}
		s.secrets.scan(t, s.out.String())
		if t.Failed() {
			t.Logf("server output:\n%s", s.out)
		}
	})
	s.waitReady(t)
	return s
}

// stop sends SIGTERM and waits up to 30 s for a clean exit; past that it kills the process.
func (s *server) stop() error {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		return errors.New("no exit within 30 s of SIGTERM")
	}
}

// launch starts `tiyin serve` with the server's environment; the caller waits for it.
func (s *server) launch(t *testing.T) {
	t.Helper()
	s.cmd = exec.Command(binary, "serve")
	s.cmd.Env = s.env
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
}

// waitReady waits until the server answers /readyz.
func (s *server) waitReady(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get(s.url + "/readyz")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
	}
	t.Fatalf("tiyin never became ready:\n%s", s.out)
}

type answer struct {
	Status int
	Header http.Header
	Raw    []byte
	Result map[string]any `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (a answer) code() int {
	if a.Error == nil {
		return 0
	}
	return a.Error.Code
}

func (s *server) callWith(t *testing.T, key, id, path string, params any) answer {
	t.Helper()
	return s.send(t, http.MethodPost, key, id, path, params)
}

func (s *server) send(t *testing.T, method, key, id, path string, params any) answer {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"id": id, "params": params})
	var generic any
	_ = json.Unmarshal(body, &generic)
	s.secrets.remember(key, generic)
	req, _ := http.NewRequest(method, s.url+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	s.check.Check(t, req, body, resp.StatusCode, resp.Header, b)
	record(method, path, key, body, resp.StatusCode, b)
	a := answer{Status: resp.StatusCode, Header: resp.Header, Raw: b}
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatalf("%s: not JSON: %s", path, b)
	}
	return a
}

func (s *server) call(t *testing.T, path string, params any) answer {
	t.Helper()
	return s.callWith(t, s.key, uuid.NewString(), path, params)
}

func (s *server) must(t *testing.T, path string, params any) map[string]any {
	t.Helper()
	a := s.call(t, path, params)
	if a.code() != 0 {
		t.Fatalf("%s: %s", path, a.Raw)
	}
	return a.Result
}

func clientData(pinfl string) map[string]any {
	return map[string]any{
		"pinfl": pinfl, "lastName": "Karimov", "firstName": "Aziz", "middleName": "Bahodirovich", "birthDate": "1990-05-17",
		"gender": "MALE", "inn": "123456789", "email": "aziz@example.uz",
		"document": map[string]any{"type": "PASSPORT", "series": "AA", "number": "1234567",
			"issuedBy": "Toshkent IIB", "issuedDate": "2020-01-10", "expiryDate": "2035-01-09"},
		"address": map[string]any{"region": "Toshkent", "district": "Chilonzor", "address": "Bunyodkor 1"},
		"phone":   "998901234567",
	}
}

func (s *server) register(t *testing.T, pinfl string) string {
	t.Helper()
	r := s.must(t, "/microloans/applications/pre-scoring/register", map[string]any{
		"externalId": uuid.NewString(), "isAgreementAccepted": true, "phoneNumber": "998901234567", "clientData": clientData(pinfl)})
	return r["applicationId"].(string)
}

type appInfo struct {
	Status, Stage string
	ErrorCode     float64
	Result        map[string]any
}

func (s *server) info(t *testing.T, id string) appInfo {
	t.Helper()
	r := s.must(t, "/microloans/applications/info", map[string]any{"applicationId": id})
	last := r["lastTask"].(map[string]any)
	code, _ := last["errorCode"].(float64)
	return appInfo{Status: r["status"].(string), Stage: last["name"].(string) + "/" + last["status"].(string), ErrorCode: code, Result: r}
}

// waitFor polls application info until the status is reached, calling each in between.
func (s *server) waitFor(t *testing.T, id, status string, each func()) appInfo {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	var last appInfo
	for time.Now().Before(deadline) {
		last = s.info(t, id)
		if last.Status == status {
			return last
		}
		if each != nil {
			each()
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("application %s never reached %s; last %+v", id, status, last)
	return last
}

// tiyin runs a one-shot command on the server's database and returns what it printed on
// stdout; its notes (the database it used) go to stderr, shown only when it fails, so --json
// stays parseable.
func (s *server) tiyin(t *testing.T, args ...string) string {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(binary, args...)
	cmd.Env, cmd.Stderr = s.env, &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tiyin %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return string(out)
}

// issuedLoan registers, verifies and issues an application of 500 000 000 tiyin at 28 % over
// 12 months for the client pinfl, and returns it once its loan is issued.
func (s *server) issuedLoan(t *testing.T, pinfl string) string {
	t.Helper()
	id := s.register(t, pinfl)
	s.waitFor(t, id, "PENDING", nil)
	s.must(t, "/microloans/applications/verify", verifyParams(id, 500_000_000))
	s.must(t, "/microloans/applications/issue", map[string]any{"applicationId": id, "clientData": clientData(pinfl)})
	s.waitFor(t, id, "COMPLETED", nil)
	return id
}

func verifyParams(id string, amount int64) map[string]any {
	return map[string]any{"applicationId": id, "amount": amount, "percent": 28.0, "monthPeriod": 12, "backupPhone": "998911112233"}
}

func forEachDialect(t *testing.T, fn func(t *testing.T, d store.Dialect)) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			fn(t, d)
		})
	}
}

func TestMicroloanApplicationFlows(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, d store.Dialect) {
		s := start(t, d)
		t.Run("register, verify, issue, completed", func(t *testing.T) {
			t.Parallel()
			id := s.register(t, "31234567890123")
			got := s.waitFor(t, id, "PENDING", nil)
			pre := got.Result["preScoreResult"].(map[string]any)
			if got.Stage != "PRE_SCORING_INFO/COMPLETED" || pre["amountLimit"].(float64) != 5_000_000_000 || pre["percent"].(float64) != 28 || pre["monthPeriod"].(float64) != 12 {
				t.Fatalf("pre-scoring: %+v", got)
			}
			r := s.must(t, "/microloans/applications/verify", verifyParams(id, 300_000_000))
			if r["phoneCallRequired"] != false || r["phoneNumber"] != "" {
				t.Fatalf("verify: %v", r)
			}
			s.must(t, "/microloans/applications/issue", map[string]any{"applicationId": id, "clientData": clientData("31234567890123")})
			if got := s.waitFor(t, id, "COMPLETED", nil); got.Stage != "GET_LOAN_ISSUANCE_RESULT/COMPLETED" || got.ErrorCode != 0 {
				t.Fatalf("issued: %+v", got)
			}
		})
		t.Run("pre-scoring declined", func(t *testing.T) {
			t.Parallel()
			id := s.register(t, "31234567890000")
			got := s.waitFor(t, id, "REJECTED", nil)
			if got.Stage != "PRE_SCORING_INFO/REJECTED" || got.ErrorCode != 1024 || got.Result["preScoreResult"] != nil {
				t.Fatalf("got %+v", got)
			}
		})
		t.Run("slow pre-scoring is polled", func(t *testing.T) {
			t.Parallel()
			id := s.register(t, "31234567891111")
			seen := false
			s.waitFor(t, id, "PENDING", func() {
				if i := s.info(t, id); i.Status == "IN_PROGRESS" && i.Stage == "PRE_SCORING_INFO/IN_PROGRESS" {
					seen = true
				}
			})
			if !seen {
				t.Fatal("never saw PRE_SCORING_INFO/IN_PROGRESS while the answer was pending")
			}
		})
		t.Run("phone call required", func(t *testing.T) {
			t.Parallel()
			id := s.register(t, "31234567890123")
			s.waitFor(t, id, "PENDING", nil)
			r := s.must(t, "/microloans/applications/verify", verifyParams(id, 2_000_000_000))
			if r["phoneCallRequired"] != true || r["phoneNumber"] == "" {
				t.Fatalf("verify: %v", r)
			}
			if a := s.call(t, "/microloans/applications/issue", map[string]any{"applicationId": id, "clientData": clientData("31234567890123")}); a.code() != 1002 {
				t.Fatalf("issue before the call: %s", a.Raw)
			}
			s.must(t, "/sandbox/applications/verification/complete", map[string]any{"applicationId": id})
			s.must(t, "/microloans/applications/issue", map[string]any{"applicationId": id, "clientData": clientData("31234567890123")})
			s.waitFor(t, id, "COMPLETED", nil)
		})
		t.Run("post-scoring declined", func(t *testing.T) {
			t.Parallel()
			id := s.register(t, "31234567892222")
			s.waitFor(t, id, "PENDING", nil)
			s.must(t, "/microloans/applications/verify", verifyParams(id, 1000))
			if got := s.info(t, id); got.Status != "REJECTED" || got.Stage != "POST_SCORING/REJECTED" || got.ErrorCode != 1025 {
				t.Fatalf("got %+v", got)
			}
		})
		t.Run("core banking refuses", func(t *testing.T) {
			t.Parallel()
			id := s.register(t, "31234567893333")
			s.waitFor(t, id, "PENDING", nil)
			s.must(t, "/microloans/applications/verify", verifyParams(id, 1000))
			s.must(t, "/microloans/applications/issue", map[string]any{"applicationId": id, "clientData": clientData("31234567893333")})
			if got := s.waitFor(t, id, "REJECTED", nil); got.Stage != "OPEN_ACCOUNT/REJECTED" || got.ErrorCode != 1026 {
				t.Fatalf("got %+v", got)
			}
		})
		t.Run("cancel by client while choosing, then by nobody", func(t *testing.T) {
			t.Parallel()
			id := s.register(t, "31234567890123")
			s.waitFor(t, id, "PENDING", nil)
			s.must(t, "/microloans/applications/cancel", map[string]any{"applicationId": id, "initiator": "CLIENT"})
			if got := s.info(t, id); got.Status != "CANCELED" || got.Stage != "PRE_SCORING_INFO/COMPLETED" {
				t.Fatalf("got %+v", got)
			}
			if a := s.call(t, "/microloans/applications/cancel", map[string]any{"applicationId": id, "initiator": "PARTNER"}); a.code() != 1002 {
				t.Fatalf("cancel twice: %s", a.Raw)
			}
		})
		t.Run("partner cancels during issuance", func(t *testing.T) {
			t.Parallel()
			id := s.register(t, "31234567894444") // core banking cannot be reached
			s.waitFor(t, id, "PENDING", nil)
			s.must(t, "/microloans/applications/verify", verifyParams(id, 1000))
			s.must(t, "/microloans/applications/issue", map[string]any{"applicationId": id, "clientData": clientData("31234567894444")})
			if a := s.call(t, "/microloans/applications/cancel", map[string]any{"applicationId": id, "initiator": "CLIENT"}); a.code() != 1003 {
				t.Fatalf("client during issuance: %s", a.Raw)
			}
			s.must(t, "/microloans/applications/cancel", map[string]any{"applicationId": id, "initiator": "PARTNER"})
			if got := s.info(t, id); got.Status != "CANCELED" {
				t.Fatalf("got %+v", got)
			}
		})
		t.Run("racing duplicates make one application", func(t *testing.T) {
			t.Parallel()
			reqID, ext := uuid.NewString(), uuid.NewString()
			params := map[string]any{"externalId": ext, "isAgreementAccepted": true, "phoneNumber": "998901234567", "clientData": clientData("31234567890123")}
			const n = 12
			answers := make([]answer, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					answers[i] = s.callWith(t, s.key, reqID, "/microloans/applications/pre-scoring/register", params)
				}()
			}
			wg.Wait()
			for _, a := range answers {
				if a.code() != 0 || !bytes.Equal(a.Raw, answers[0].Raw) {
					t.Fatalf("answers differ:\n%s\n%s", answers[0].Raw, a.Raw)
				}
			}
			// Exactly one application holds the externalId: a new request id with it is refused.
			if a := s.call(t, "/microloans/applications/pre-scoring/register", params); a.code() != 1011 {
				t.Fatalf("second application with the same externalId: %s", a.Raw)
			}
		})
	})
}

// TestFlowsDrivenByTheClock moves the sandbox clock, so each dialect gets a server of its own.
func TestFlowsDrivenByTheClock(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, d store.Dialect) {
		s := start(t, d)
		advance := func(dur string) { s.must(t, "/sandbox/clock/advance", map[string]any{"duration": dur}) }

		failing := s.register(t, "31234567894444")
		s.waitFor(t, failing, "PENDING", nil)
		s.must(t, "/microloans/applications/verify", verifyParams(failing, 1000))
		s.must(t, "/microloans/applications/issue", map[string]any{"applicationId": failing, "clientData": clientData("31234567894444")})
		// Retries wait on the clock: moving it makes them due at once.
		got := s.waitFor(t, failing, "FAILED", func() { advance("2m") })
		if got.Stage != "OPEN_ACCOUNT/FAILED" || got.ErrorCode != 1027 {
			t.Fatalf("got %+v", got)
		}

		// The contract number appears once the clock passes 30 minutes after issuance.
		issued := s.register(t, "31234567890123")
		s.waitFor(t, issued, "PENDING", nil)
		s.must(t, "/microloans/applications/verify", verifyParams(issued, 500_000_000))
		s.must(t, "/microloans/applications/issue", map[string]any{"applicationId": issued, "clientData": clientData("31234567890123")})
		s.waitFor(t, issued, "COMPLETED", nil)
		if r := s.must(t, "/microloans/info", map[string]any{"applicationId": issued}); r["loanId"] != nil || r["totalResidue"].(float64) != 500_000_000 {
			t.Fatalf("just issued: %v", r)
		}
		advance("31m")
		var loanID string
		deadline := time.Now().Add(20 * time.Second)
		for loanID == "" && time.Now().Before(deadline) {
			if id, ok := s.must(t, "/microloans/info", map[string]any{"applicationId": issued})["loanId"].(string); ok {
				loanID = id
			}
			time.Sleep(100 * time.Millisecond)
		}
		if loanID == "" {
			t.Fatal("loanId never appeared")
		}
		sched := s.must(t, "/microloans/schedule", map[string]any{"loanId": loanID})["schedule"].([]any)
		var principal float64
		for _, it := range sched {
			principal += it.(map[string]any)["loanRepaymentAmount"].(float64)
		}
		if len(sched) != 12 || principal != 500_000_000 {
			t.Fatalf("schedule: %d items, principal %v", len(sched), principal)
		}

		waiting := s.register(t, "31234567890123")
		s.waitFor(t, waiting, "PENDING", nil)
		advance("71h")
		if got := s.info(t, waiting); got.Status != "PENDING" {
			t.Fatalf("expired early: %+v", got)
		}
		advance("2h")
		if got := s.waitFor(t, waiting, "EXPIRED", nil); got.Stage != "PRE_SCORING_INFO/EXPIRED" {
			t.Fatalf("got %+v", got)
		}
	})
}

func TestPartnerCommands(t *testing.T) {
	t.Parallel()
	s := start(t, store.SQLite)
	// run returns what a command printed on stdout; its notes (the database it used) go to
	// stderr, so --json stays parseable.
	var stderr bytes.Buffer
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(binary, args...)
		cmd.Env = s.env
		stderr.Reset()
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("tiyin %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
		}
		return string(out)
	}
	var created struct{ ID, Name, APIKey string }
	if err := json.Unmarshal([]byte(run("partner", "create", "--name", "acme bank", "--json")), &created); err != nil || created.APIKey == "" {
		t.Fatalf("create: %+v %v", created, err)
	}
	info := map[string]any{"applicationId": uuid.NewString()}
	if a := s.callWith(t, created.APIKey, uuid.NewString(), "/microloans/applications/info", info); a.code() != 1001 {
		t.Fatalf("new key: %s", a.Raw)
	}
	if out := run("partner", "list"); !strings.Contains(out, "acme bank") || !strings.Contains(out, "sandbox") {
		t.Fatalf("list: %s", out)
	}
	// A rotation keeps the old key working for its overlap (24 h unless told), so a partner
	// moves to the new key without a gap; --overlap 0 stops the old key at once.
	var overlapped struct{ APIKey, OldKeyUntil string }
	if err := json.Unmarshal([]byte(run("partner", "rotate-key", "acme bank", "--json")), &overlapped); err != nil || overlapped.OldKeyUntil == "" {
		t.Fatalf("rotate-key: %+v %v", overlapped, err)
	}
	if until, err := time.Parse(time.RFC3339, overlapped.OldKeyUntil); err != nil || time.Until(until) < 23*time.Hour {
		t.Fatalf("the old key's overlap ends %q, want about 24 h from now", overlapped.OldKeyUntil)
	}
	for _, key := range []string{created.APIKey, overlapped.APIKey} {
		if a := s.callWith(t, key, uuid.NewString(), "/microloans/applications/info", info); a.code() != 1001 {
			t.Fatalf("during the overlap: %s", a.Raw)
		}
	}
	newKey := strings.TrimSpace(run("partner", "rotate-key", "acme bank", "--overlap", "0", "--json"))
	var rotated struct{ APIKey string }
	_ = json.Unmarshal([]byte(newKey), &rotated)
	// Keys are cached for up to 5 s: a rotated or disabled key stops working within that time.
	eventually := func(key string, code int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			a := s.callWith(t, key, uuid.NewString(), "/microloans/applications/info", info)
			if a.code() == code {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("want code %d, still %s", code, a.Raw)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	eventually(created.APIKey, 2)
	eventually(overlapped.APIKey, 2)
	run("partner", "disable", "acme bank")
	eventually(rotated.APIKey, 3)
	nobody := exec.Command(binary, "partner", "disable", "nobody")
	nobody.Env = s.env
	if out, err := nobody.CombinedOutput(); err == nil || !strings.Contains(string(out), `no partner named "nobody"`) {
		t.Fatalf("unknown partner: %v %s", err, out)
	}
	bad := exec.Command(binary, "partner", "set-webhook", "acme bank", "--url", "ftp://partner.example/hook")
	bad.Env = s.env
	if out, err := bad.CombinedOutput(); err == nil || !strings.Contains(string(out), "webhook URL must be an absolute http") {
		t.Fatalf("a bad webhook URL: %v %s", err, out)
	}
	if out := run("partner", "set-webhook", "acme bank", "--url", "https://partner.example/hook"); !strings.Contains(out, "signing secret (shown once") {
		t.Fatalf("set-webhook: %s", out)
	}
	if out := run("partner", "list"); !strings.Contains(out, "https://partner.example/hook") {
		t.Fatalf("list does not show the webhook: %s", out)
	}
	// Each change made above is in the audit log, by the command line: create, two rotations,
	// disable, set-webhook.
	if out := run("audit", "verify"); !strings.HasPrefix(out, "5 entries") {
		t.Fatalf("the command line's partner changes are not all audited: %s", out)
	}
	// Every command names its database; a command pointed at a SQLite file that is not there
	// refuses rather than create an empty one.
	run("partner", "list")
	if !strings.Contains(stderr.String(), "tiyin: database SQLite ") {
		t.Fatalf("partner list does not name its database: %s", stderr.Bytes())
	}
	missing := filepath.Join(t.TempDir(), "elsewhere.db")
	lost := exec.Command(binary, "partner", "list")
	lost.Env = append(os.Environ(), "TIYIN_SQLITE_PATH="+missing, "TIYIN_DATABASE_URL=")
	if out, err := lost.CombinedOutput(); err == nil || !strings.Contains(string(out), "no database at "+missing) {
		t.Fatalf("partner list on a missing database: %v %s", err, out)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("partner list created %s: %v", missing, err)
	}
	if out := run("version"); !strings.HasPrefix(out, "tiyin ") || !strings.Contains(out, "go1.") {
		t.Fatalf("version: %s", out)
	}
}

func TestMoneyFlows(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, d store.Dialect) {
		s := start(t, d)
		issued := func(t *testing.T, amount int64) string {
			t.Helper()
			id := s.register(t, "31234567890123")
			s.waitFor(t, id, "PENDING", nil)
			s.must(t, "/microloans/applications/verify", verifyParams(id, amount))
			s.must(t, "/microloans/applications/issue", map[string]any{"applicationId": id, "clientData": clientData("31234567890123")})
			s.waitFor(t, id, "COMPLETED", nil)
			return id
		}
		transfer := func(app, pan, network string, amount int64) (map[string]any, answer) {
			p := map[string]any{"externalId": uuid.NewString(), "applicationId": app, "pan": pan,
				"receiverCardType": network, "cardHolderName": "AZIZ KARIMOV", "amount": amount}
			return p, s.call(t, "/transfers/account-to-card/create", p)
		}
		t.Run("transfer to a card", func(t *testing.T) {
			t.Parallel()
			app := issued(t, 300_000_000)
			p, a := transfer(app, "8600123456789012", "UZCARD", 300_000_000)
			if a.code() != 0 {
				t.Fatalf("create: %s", a.Raw)
			}
			ref := map[string]any{"externalId": p["externalId"], "transactionId": a.Result["transactionId"]}
			if r := s.must(t, "/transfers/account-to-card/confirm", ref); r["status"] != "SUCCESS" {
				t.Fatalf("confirm: %v", r)
			}
			if r := s.must(t, "/transfers/check-status", ref); r["status"] != "SUCCESS" || r["transactionId"] != a.Result["transactionId"] {
				t.Fatalf("check: %v", r)
			}
			if _, a := transfer(app, "8600123456789012", "UZCARD", 1); a.code() != 1014 {
				t.Fatalf("nothing left: %s", a.Raw)
			}
		})
		t.Run("concurrent transfers never overdraw", func(t *testing.T) {
			t.Parallel()
			app := issued(t, 1_000_000)
			const n = 10
			codes := make([]int, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, a := transfer(app, "9860123456789012", "HUMO", 150_000)
					codes[i] = a.code()
				}()
			}
			wg.Wait()
			ok := 0
			for _, c := range codes {
				if c == 0 {
					ok++
				} else if c != 1014 {
					t.Fatalf("codes %v", codes)
				}
			}
			if ok != 6 {
				t.Fatalf("%d transfers held, want 6: %v", ok, codes)
			}
		})
		t.Run("refused credit", func(t *testing.T) {
			t.Parallel()
			app := issued(t, 1_000_000)
			p, a := transfer(app, "8600000000000014", "UZCARD", 1_000_000)
			ref := map[string]any{"externalId": p["externalId"], "transactionId": a.Result["transactionId"]}
			if r := s.must(t, "/transfers/account-to-card/confirm", ref); r["status"] != "FAILED" {
				t.Fatalf("confirm: %v", r)
			}
			if _, a := transfer(app, "8600123456789012", "UZCARD", 1_000_000); a.code() != 0 {
				t.Fatalf("released amount: %s", a.Raw)
			}
		})
		// Not parallel: it moves the clock, so it runs before the parallel subtests resume.
		t.Run("repayment to a closed loan", func(t *testing.T) {
			app := issued(t, 300_000_000)
			s.must(t, "/sandbox/clock/advance", map[string]any{"duration": "31m"})
			var loanID string
			for deadline := time.Now().Add(20 * time.Second); loanID == ""; time.Sleep(200 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("no contract number 31 minutes after issuance")
				}
				if id, ok := s.must(t, "/microloans/info", map[string]any{"applicationId": app})["loanId"].(string); ok {
					loanID = id
				}
			}
			s.must(t, "/sandbox/clock/advance", map[string]any{"duration": "240h"})
			c := s.must(t, "/repayment/loans/check", map[string]any{"loanId": loanID})
			pay := func(c map[string]any, typ string, amount any) map[string]any {
				return s.must(t, "/repayment/loans/pay", map[string]any{"loanId": loanID, "paymentType": typ,
					"requestId": c["requestId"], "debitId": "DBT-" + uuid.NewString(), "amount": amount, "processingType": "HUMO"})
			}
			if r := pay(c, "EARLY", 100_000_000); r["status"] != "SUCCESS" {
				t.Fatalf("pay: %v", r)
			}
			if st := s.must(t, "/repayment/loans/status", map[string]any{"requestId": c["requestId"]}); st["requestStatus"] != "SUCCESS" || st["transactionId"] == nil {
				t.Fatalf("status: %v", st)
			}
			c = s.must(t, "/repayment/loans/check", map[string]any{"loanId": loanID})
			if r := pay(c, "TERM", c["maxAmount"]); r["status"] != "SUCCESS" {
				t.Fatalf("payoff: %v", r)
			}
			if l := s.must(t, "/microloans/info", map[string]any{"applicationId": app}); l["totalResidue"] != float64(0) {
				t.Fatalf("closed loan: %v", l)
			}
			if p := s.must(t, "/microloans/payments", map[string]any{"loanId": loanID})["payments"].([]any); len(p) != 2 {
				t.Fatalf("payments: %v", p)
			}
			if a := s.call(t, "/repayment/loans/check", map[string]any{"loanId": loanID}); a.code() != 1013 {
				t.Fatalf("check on a closed loan: %s", a.Raw)
			}
		})
		// Cleanups run after every subtest, parallel ones included, and before the server stops.
		t.Cleanup(func() {
			cmd := exec.Command(binary, "ledger", "check")
			cmd.Env = s.env
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "ledger consistent") || strings.Contains(string(out), "debits 0,") {
				t.Errorf("ledger check: %v\n%s", err, out)
			}
			t.Logf("%s", out)
		})
	})
}

func TestCards(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, d store.Dialect) {
		s := start(t, d)
		t.Run("attach, concurrent confirms, block", func(t *testing.T) {
			t.Parallel()
			card := s.must(t, "/cards/attach", map[string]any{"pan": "9860123456789012", "expiry": "3012",
				"processingType": "HUMO", "phoneNumber": "998909876543"})["cardId"]
			msgs := s.must(t, "/sandbox/sms/outbox", map[string]any{"phoneNumber": "998909876543"})["messages"].([]any)
			code := msgs[0].(map[string]any)["code"]
			codes := make([]int, 4)
			var wg sync.WaitGroup
			for i := range codes {
				wg.Go(func() {
					codes[i] = s.call(t, "/cards/attach/confirm", map[string]any{"cardId": card, "otpCode": code}).code()
				})
			}
			wg.Wait()
			ok := 0
			for _, c := range codes {
				if c == 0 {
					ok++
				} else if c != 1010 {
					t.Fatalf("codes %v", codes)
				}
			}
			if ok != 1 {
				t.Fatalf("codes %v: want exactly one success", codes)
			}
			a := s.send(t, http.MethodPut, s.key, uuid.NewString(), "/cards/status", map[string]any{"cardId": card, "status": "BLOCKED", "reason": "lost"})
			if a.code() != 0 || a.Result["status"] != "BLOCKED" {
				t.Fatalf("block: %s", a.Raw)
			}
		})
		t.Run("order and replace", func(t *testing.T) {
			t.Parallel()
			order := func(ext string) string {
				return s.must(t, "/cards/order", map[string]any{"externalId": ext, "phoneNumber": "998901234567",
					"clientData": clientData("31234567890777"), "privacyPolicyAccepted": true, "termsAndConditionsAccepted": true})["orderId"].(string)
			}
			completed := func(id string) map[string]any {
				for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
					r := s.must(t, "/cards/order/info", map[string]any{"orderId": id})
					if r["order"].(map[string]any)["status"] == "COMPLETED" {
						return r["card"].(map[string]any)
					}
				}
				t.Fatalf("order %s not completed", id)
				return nil
			}
			first := completed(order("E2E-" + uuid.NewString()))
			second := completed(order("E2E-" + uuid.NewString()))
			if first["id"] == second["id"] {
				t.Fatal("the replacement is the same card")
			}
			if st := s.must(t, "/cards/status", map[string]any{"cardId": first["id"]}); st["status"] != "CLOSED" {
				t.Fatalf("replaced card: %v", st)
			}
		})
	})
}
