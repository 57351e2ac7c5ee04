package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"example.com/bank/fakebank"
)

// TestTheBanksTiyinScoresWithTheBanksEngine builds this module's main, starts it in the
// sandbox with the fake engine behind the Scoring port, registers an application and reads
// the engine's own offer range (not the sandbox scoring's) once pre-scoring is done.
func TestTheBanksTiyinScoresWithTheBanksEngine(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bank")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	engine, err := fakebank.Start(fakebank.Healthy)
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close()

	addr := freeAddr(t)
	const key = "bank-example-key-0123456789abcdef"
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "TIYIN_SANDBOX=true", "TIYIN_HTTP_ADDR="+addr, "TIYIN_ADMIN_ADDR=127.0.0.1:0",
		"TIYIN_SQLITE_PATH="+filepath.Join(dir, "tiyin.db"), "TIYIN_SANDBOX_API_KEY="+key, "BANK_SCORING_ADDR="+engine.Addr())
	var logs syncBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("tiyin's log:\n%s", logs.String())
		}
	}()
	base := "http://" + addr
	waitReady(t, base)

	var reg struct{ ApplicationID string }
	call(t, base, key, "/microloans/applications/pre-scoring/register", map[string]any{
		"externalId": uuid.NewString(), "isAgreementAccepted": true, "phoneNumber": "998901234567",
		"clientData": map[string]any{"pinfl": "31234567890123", "lastName": "Karimov", "firstName": "Aziz",
			"birthDate": "1990-05-17", "phone": "998901234567",
			"address": map[string]any{"region": "Toshkent", "district": "Chilonzor", "address": "Bunyodkor 1"},
			"document": map[string]any{"type": "PASSPORT", "series": "AA", "number": "1234567", "issuedBy": "Toshkent IIB",
				"issuedDate": "2020-01-10", "expiryDate": "2035-01-09"}},
	}, &reg)
	var info struct {
		Status         string
		PreScoreResult *struct {
			AmountLimit int64
			MonthPeriod int
		}
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		call(t, base, key, "/microloans/applications/info", map[string]any{"applicationId": reg.ApplicationID}, &info)
		if info.Status != "NEW" && info.Status != "IN_PROGRESS" {
			break
		}
	}
	if info.Status != "PENDING" || info.PreScoreResult == nil || info.PreScoreResult.AmountLimit != fakebank.Limit ||
		info.PreScoreResult.MonthPeriod != fakebank.Months {
		t.Fatalf("the application after pre-scoring: %+v %+v, want PENDING with the engine's limit %d for %d months",
			info, info.PreScoreResult, fakebank.Limit, fakebank.Months)
	}
	if !strings.Contains(logs.String(), `"port":"scoring","adapter":"go"`) {
		t.Errorf("the start log does not name the Go adapter of scoring")
	}
	if !strings.Contains(logs.String(), `"msg":"bank build"`) {
		t.Errorf("the bank's own fx option did not run")
	}
}

// syncBuffer is the process's output, written by its copying goroutines and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func call(t *testing.T, base, key, path string, params map[string]any, result any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"id": uuid.NewString(), "params": params})
	req, _ := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	var env struct {
		Result json.RawMessage
		Error  *struct {
			Code    int
			Message string
		}
	}
	if err := json.NewDecoder(res.Body).Decode(&env); err != nil || env.Error != nil {
		t.Fatalf("%s: %v %+v", path, err, env.Error)
	}
	if err := json.Unmarshal(env.Result, result); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func waitReady(t *testing.T, base string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if res, err := http.Get(base + "/readyz"); err == nil {
			_ = res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
	}
	t.Fatal("tiyin did not become ready in 30 s")
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	return fmt.Sprint(ln.Addr())
}
