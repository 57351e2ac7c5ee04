package e2e

import (
	"bufio"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"gopkg.in/yaml.v3"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
)

// TestSlowClientIsCutOff: a client that opens a connection and sends its headers slowly does
// not hold the server: the connection is closed once the read-header timeout (5 s) passes.
func TestSlowClientIsCutOff(t *testing.T) {
	t.Parallel()
	s := start(t, store.SQLite)
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	if _, err := conn.Write([]byte("POST /microloans/applications/info HTTP/1.1\r\nHost: x\r\n")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	line, err := bufio.NewReader(conn).ReadString('\n')
	took := time.Since(start)
	// The server either answers 408 or just closes; either way it does so at the timeout, not
	// at the 20 s the client would wait.
	if took < 4*time.Second || took > 10*time.Second {
		t.Fatalf("the half-sent request was held %s (answer %q, %v)", took, line, err)
	}
}

// TestShutdownFinishesRequestsInFlight: SIGTERM while a request waits for a slow gateway lets
// the request finish with its answer, then the process exits cleanly.
func TestShutdownFinishesRequestsInFlight(t *testing.T) {
	t.Parallel()
	s := start(t, store.SQLite, "TIYIN_SANDBOX_FAULTS=latency=1500ms")
	done := make(chan answer, 1)
	go func() {
		done <- s.call(t, "/cards/attach", map[string]any{"pan": "8600123456789012", "expiry": "3012",
			"processingType": "UZCARD", "phoneNumber": "998901234567"})
	}()
	time.Sleep(500 * time.Millisecond) // the attach is waiting for the network
	stopped := make(chan error, 1)
	go func() { stopped <- s.stop() }()
	select {
	case a := <-done:
		if a.code() != 0 || a.Result["cardId"] == nil {
			t.Fatalf("the request in flight at SIGTERM: %s", a.Raw)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the request in flight never got its answer")
	}
	if err := <-stopped; err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, s.out)
	}
	if !strings.Contains(s.out.String(), "shutting down: draining requests and jobs") {
		t.Fatalf("no drain logged:\n%s", s.out)
	}
	s.launch(t) // the cleanup stops a running process
	s.waitReady(t)
}

// TestATakenPortStopsTiyinBeforeItStarts: a tiyin whose partner port (TIYIN_HTTP_ADDR) or
// admin port (TIYIN_ADMIN_ADDR; its default, 9090, is also Prometheus's) is taken says so in
// one line naming the setting that moves it, and exits with an error before its banner, having
// started nothing that outlives it (no worker polling a closed database, no stack trace).
func TestATakenPortStopsTiyinBeforeItStarts(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	taken := ln.Addr().String()
	for _, c := range []struct{ name, httpAddr, adminAddr, variable string }{
		{"partner port", taken, "127.0.0.1:0", "TIYIN_HTTP_ADDR"},
		{"admin port", "127.0.0.1:0", taken, "TIYIN_ADMIN_ADDR"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dbURL, sqlitePath := storetest.URL(t, store.SQLite)
			cmd := exec.Command(binary, "serve")
			cmd.Env = append(os.Environ(), "TIYIN_HTTP_ADDR="+c.httpAddr, "TIYIN_ADMIN_ADDR="+c.adminAddr, "TIYIN_SANDBOX=true",
				"TIYIN_SANDBOX_API_KEY="+sandboxKey, "TIYIN_DATABASE_URL="+dbURL, "TIYIN_SQLITE_PATH="+sqlitePath)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() == 0 {
				t.Fatalf("tiyin on a taken port: %v\n%s", err, out)
			}
			said := strings.TrimSpace(string(out))
			if !strings.Contains(said, "listen on "+c.variable+" "+taken) || !strings.Contains(said, "set "+c.variable) || strings.Contains(said, "\n") {
				t.Errorf("not one line naming the port and the setting that changes it:\n%s", out)
			}
			for _, bad := range []string{"running", "jobs", "database is closed", "panic", "stacktrace", "goroutine"} {
				if strings.Contains(said, bad) {
					t.Errorf("output mentions %q:\n%s", bad, out)
				}
			}
		})
	}
}

// TestTheLogTellsWhatFailedInTheBackground: an application that fails after five calls core
// banking never received, and webhook deliveries to a closed port, each write a log line with
// the partner, the object, the event, the target and the attempt; the application's line
// carries the id of the partner's issue request, which its answer names in X-Request-Id. The
// webhook's token (in its query) is in no line.
func TestTheLogTellsWhatFailedInTheBackground(t *testing.T) {
	t.Parallel()
	s := start(t, store.SQLite)
	hook := exec.Command(binary, "partner", "set-webhook", "sandbox", "--url", "http://127.0.0.1:9/hook?token=hook-token-0123456789")
	hook.Env = s.env
	if out, err := hook.CombinedOutput(); err != nil {
		t.Fatalf("set-webhook: %v\n%s", err, out)
	}
	s.secrets.add("hook-token-0123456789", "a webhook URL's token")
	const pinfl = "31234567894444" // core banking refuses the connection
	id := s.register(t, pinfl)
	s.waitFor(t, id, "PENDING", nil)
	s.must(t, "/microloans/applications/verify", verifyParams(id, 1000))
	requestID := uuid.NewString()
	if a := s.callWith(t, s.key, requestID, "/microloans/applications/issue", map[string]any{"applicationId": id, "clientData": clientData(pinfl)}); a.code() != 0 ||
		a.Header.Get("X-Request-Id") != requestID {
		t.Fatalf("issue: %s, X-Request-Id %q", a.Raw, a.Header.Get("X-Request-Id"))
	}
	s.waitFor(t, id, "FAILED", func() { s.must(t, "/sandbox/clock/advance", map[string]any{"duration": "2m"}) })
	type line struct {
		Level, Msg, Object, Detail, Target, Reason string
		PartnerID                                  string `json:"partner_id"`
		RequestID                                  string `json:"request_id"`
		Attempt                                    int
		Final                                      bool
	}
	var failed, webhook *line
	for end := time.Now().Add(20 * time.Second); (failed == nil || webhook == nil) && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		for _, raw := range strings.Split(s.out.String(), "\n") {
			var l line
			if json.Unmarshal([]byte(raw), &l) != nil {
				continue
			}
			switch {
			case l.Msg == "application.failed" && l.Object == "application:"+id:
				failed = &l
			case l.Msg == "webhook.failed":
				webhook = &l
			}
		}
	}
	if failed == nil || failed.Level != "error" || failed.RequestID != requestID || failed.PartnerID == "" || failed.Detail != "OPEN_ACCOUNT" ||
		failed.Target != "core_banking" || failed.Attempt != 5 || !failed.Final || failed.Reason == "" {
		t.Errorf("the failed application's line: %+v", failed)
	}
	if webhook == nil || webhook.Level != "warn" || webhook.Target != "127.0.0.1:9" || webhook.Attempt < 1 || !strings.HasPrefix(webhook.Object, "event:") {
		t.Errorf("the failed webhook's line: %+v", webhook)
	}
	if strings.Contains(s.out.String(), "hook-token-0123456789") {
		t.Error("the webhook's token is in the log")
	}
}

// TestTheContainerChecksItself: `tiyin healthcheck`, the image's HEALTHCHECK, says ready for a
// running tiyin (found by its TIYIN_HTTP_ADDR) and fails where none listens; the Dockerfile
// runs it, and compose publishes the admin listener on loopback only and gives the database
// URL and password as secret files that exist.
func TestTheContainerChecksItself(t *testing.T) {
	t.Parallel()
	s := start(t, store.SQLite)
	check := func(env ...string) (string, error) {
		cmd := exec.Command(binary, "healthcheck")
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	addr := strings.TrimPrefix(s.url, "http://")
	if out, err := check("TIYIN_HTTP_ADDR=" + addr); err != nil || !strings.Contains(out, "ready") {
		t.Fatalf("healthcheck of a running tiyin: %v\n%s", err, out)
	}
	if out, err := check("TIYIN_HTTP_ADDR=" + freeAddr(t)); err == nil {
		t.Fatalf("healthcheck where nothing listens passed:\n%s", out)
	}
	dockerfile, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(dockerfile), `HEALTHCHECK `) || !strings.Contains(string(dockerfile), `CMD ["/usr/local/bin/tiyin", "healthcheck"]`) {
		t.Error("the Dockerfile's HEALTHCHECK does not run tiyin healthcheck")
	}
	compose, err := os.ReadFile("../../compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Services map[string]struct {
			Environment map[string]string
			Ports       []string
			Secrets     []string
		}
		Secrets map[string]struct{ File string }
	}
	if err := yaml.Unmarshal(compose, &c); err != nil {
		t.Fatal(err)
	}
	tiyin := c.Services["tiyin"]
	if !slices.Contains(tiyin.Ports, "127.0.0.1:9090:9090") || slices.Contains(tiyin.Ports, "9090:9090") {
		t.Errorf("compose publishes the admin listener as %v, want on loopback only", tiyin.Ports)
	}
	if tiyin.Environment["TIYIN_DATABASE_URL"] != "" || tiyin.Environment["TIYIN_DATABASE_URL_FILE"] == "" {
		t.Errorf("compose gives the database URL in the environment: %v", tiyin.Environment)
	}
	for name, sec := range c.Secrets {
		if _, err := os.Stat(filepath.Join("../..", sec.File)); err != nil {
			t.Errorf("compose's secret %s: %v", name, err)
		}
	}
}
