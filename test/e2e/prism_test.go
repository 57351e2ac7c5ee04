package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
)

// prismVersion is the independent validator: Stoplight Prism's validating proxy, from npm.
const prismVersion = "@stoplight/prism-cli@5.14.2"

// lockedBuffer is a process's output, read while the process writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// prismProxy starts Prism as a validating proxy in front of s, with the project's document:
// with --errors, any request or answer the document does not allow becomes Prism's own error.
// Without npx it skips, except in CI, where the independent check must run.
func prismProxy(t *testing.T, s *server) string {
	t.Helper()
	if _, err := exec.LookPath("npx"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("npx is missing: CI validates answers with Prism from npm")
		}
		t.Skip("SKIPPED: npx is not installed, so Prism cannot run")
	}
	addr := freeAddr(t)
	port := addr[strings.LastIndex(addr, ":")+1:]
	cmd := exec.Command("npx", "--yes", prismVersion, "proxy", "--errors", "../../adapters/http/openapi.yaml", s.url,
		"--host", "127.0.0.1", "--port", port)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // npx starts node: stop them together
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("prism output:\n%s", out)
		}
	})
	for deadline := time.Now().Add(3 * time.Minute); !strings.Contains(out.String(), "Prism is listening"); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("prism never started:\n%s", out)
		}
	}
	return "http://" + addr
}

// TestAnswersHoldUnderAnIndependentValidator runs the whole process (tiyin demo) and the answers
// most likely to break a document (nulls before a result exists, refusals, the events list)
// through Prism: none may break the document.
func TestAnswersHoldUnderAnIndependentValidator(t *testing.T) {
	t.Parallel()
	s := start(t, store.SQLite)
	proxy := prismProxy(t, s)

	demo := exec.Command(binary, "demo", "--url", proxy, "--key", s.key)
	if out, err := demo.CombinedOutput(); err != nil || !strings.Contains(string(out), "demo complete") {
		t.Fatalf("demo through prism: %v\n%s", err, out)
	}

	call := func(path string, params any) map[string]any {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"id": uuid.NewString(), "params": params})
		req, _ := http.NewRequest(http.MethodPost, proxy+path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+s.key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		b, _ := io.ReadAll(resp.Body)
		var answer map[string]any
		if err := json.Unmarshal(b, &answer); err != nil || answer["type"] != nil {
			t.Fatalf("%s through prism: HTTP %d %s", path, resp.StatusCode, b) // Prism's own error: a violation
		}
		return answer
	}
	// A slow pre-scoring: preScoreResult is null while the application is in progress.
	app := call("/microloans/applications/pre-scoring/register", map[string]any{"externalId": uuid.NewString(),
		"isAgreementAccepted": true, "phoneNumber": "998901234567", "clientData": clientData("31234567891111")})
	id := app["result"].(map[string]any)["applicationId"]
	// The sandbox holds a 1111 answer back for its first 3 polls, 2 s apart: the null is there.
	if info := call("/microloans/applications/info", map[string]any{"applicationId": id}); info["result"].(map[string]any)["preScoreResult"] != nil {
		t.Fatalf("pre-scoring answered before the first info, so the null case was not checked: %v", info)
	}
	// A card order before the card exists: card is null.
	order := call("/cards/order", map[string]any{"externalId": "PRISM-" + uuid.NewString(), "phoneNumber": "998901234567",
		"clientData": clientData("31234567890777"), "privacyPolicyAccepted": true, "termsAndConditionsAccepted": true})
	call("/cards/order/info", map[string]any{"orderId": order["result"].(map[string]any)["orderId"]})
	// Refusals: an unknown application, a cancel of a canceled one, an unknown loan.
	for _, c := range []struct {
		path   string
		params map[string]any
		code   float64
	}{
		{"/microloans/applications/info", map[string]any{"applicationId": uuid.NewString()}, 1001},
		{"/microloans/applications/cancel", map[string]any{"applicationId": id, "initiator": "PARTNER"}, 0},
		{"/microloans/applications/cancel", map[string]any{"applicationId": id, "initiator": "PARTNER"}, 1002},
		{"/microloans/info", map[string]any{"applicationId": uuid.NewString()}, 1012},
		{"/repayment/loans/check", map[string]any{"loanId": "1234567"}, 1012},
	} {
		a := call(c.path, c.params)
		code := 0.0
		if e, ok := a["error"].(map[string]any); ok {
			code = e["code"].(float64)
		}
		if code != c.code {
			t.Fatalf("%s: %v, want code %v", c.path, a, c.code)
		}
	}
	call("/sandbox/events/test", map[string]any{})
	time.Sleep(1500 * time.Millisecond) // numbered by the next delivery pass
	if evs := call("/events/list", map[string]any{"afterSequence": 0})["result"].(map[string]any)["events"].([]any); len(evs) == 0 {
		t.Fatal("no events listed")
	}
}

// exchange is one call of the end-to-end tests and the answer tiyin gave.
type exchange struct {
	method, path, key string
	body, answer      []byte
	status            int
}

// recorded holds every exchange of the end-to-end tests, for replayThroughPrism.
var recorded struct {
	sync.Mutex
	list []exchange
}

func record(method, path, key string, body []byte, status int, answer []byte) {
	recorded.Lock()
	defer recorded.Unlock()
	recorded.list = append(recorded.list, exchange{method: method, path: path, key: key, body: body, status: status, answer: answer})
}

// replayThroughPrism shows Prism every answer the end-to-end tests got: a stand-in server
// answers each recorded call as tiyin did, behind Prism's validating proxy, and the recorded
// calls are sent again through the proxy. An answer the document does not allow is a failure;
// a call the document itself refuses (the tests send invalid requests on purpose) is counted
// and left to the project's own checker. It runs after the tests, once, so one Prism serves
// them all.
func replayThroughPrism() int {
	recorded.Lock()
	list := recorded.list
	recorded.Unlock()
	if len(list) == 0 {
		return 0 // the tests run made no call of their own
	}
	if _, err := exec.LookPath("npx"); err != nil {
		if os.Getenv("CI") != "" {
			fmt.Fprintln(os.Stderr, "prism replay: npx is missing; CI validates every answer with Prism")
			return 1
		}
		fmt.Println("prism replay: SKIPPED, npx is not installed")
		return 0
	}
	stand := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i, err := strconv.Atoi(r.Header.Get("X-Replay"))
		if err != nil || i < 0 || i >= len(list) {
			w.WriteHeader(http.StatusTeapot)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(list[i].status)
		_, _ = w.Write(list[i].answer)
	}))
	defer stand.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "prism replay:", err)
		return 1
	}
	addr := l.Addr().String()
	_ = l.Close()
	cmd := exec.Command("npx", "--yes", prismVersion, "proxy", "--errors", "../../adapters/http/openapi.yaml", stand.URL,
		"--host", "127.0.0.1", "--port", addr[strings.LastIndex(addr, ":")+1:])
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "prism replay:", err)
		return 1
	}
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	for deadline := time.Now().Add(3 * time.Minute); !strings.Contains(out.String(), "Prism is listening"); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "prism replay: prism never started:\n%s", out)
			return 1
		}
	}
	var checked, refused int
	var violations []string
	for i, x := range list {
		req, _ := http.NewRequest(x.method, "http://"+addr+x.path, bytes.NewReader(x.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+x.key)
		req.Header.Set("X-Replay", strconv.Itoa(i))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Fprintln(os.Stderr, "prism replay:", err)
			return 1
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		var problem struct {
			Type       string
			Validation []struct {
				Location []string
				Message  string
			}
		}
		_ = json.Unmarshal(b, &problem)
		switch {
		case strings.HasSuffix(problem.Type, "#VIOLATIONS"):
			for _, v := range problem.Validation {
				if len(v.Location) > 0 && v.Location[0] == "response" {
					violations = append(violations, fmt.Sprintf("%s %s (HTTP %d): %s: %s", x.method, x.path, x.status,
						strings.Join(v.Location, "."), v.Message))
				}
			}
			checked++
		case problem.Type != "":
			refused++ // the request itself is one the document refuses
		default:
			checked++
		}
	}
	fmt.Printf("prism replay: %d answers of the end-to-end tests checked by Prism, %d calls the document refuses left to the project's checker, %d violations\n",
		checked, refused, len(violations))
	for _, v := range violations {
		fmt.Fprintln(os.Stderr, "prism replay: violation:", v)
	}
	if len(violations) > 0 || checked == 0 {
		return 1
	}
	return 0
}
