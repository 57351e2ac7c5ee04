package e2e

import (
	"context"
	"encoding/hex"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tiyin/tiyin/adapters/gateway/httpgw"
	"github.com/tiyin/tiyin/adapters/gateway/sandbox"
	"github.com/tiyin/tiyin/adapters/gateway/sandbox/sandboxtest"
	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/test/tiyintest"
)

// flowCaller lets tiyintest.Flow drive an end-to-end server.
type flowCaller struct {
	t *testing.T
	s *server
}

func (c flowCaller) Call(path string, params any, _ bool) (map[string]any, int, error) {
	a := c.s.call(c.t, path, params)
	return a.Result, a.code(), nil
}

// bankStub is the bank's systems behind the gateway protocol: the sandbox gateways served by
// httpgw.Stub, counting the calls per operation and checking the token.
func bankStub(t *testing.T) (url string, calls func() map[string]int) {
	t.Helper()
	var mu sync.Mutex
	seen := map[string]int{}
	s := &httpgw.Stub{Scoring: sandbox.NewScoring(), CoreBanking: sandbox.NewCoreBanking(), Processing: sandbox.NewProcessing(),
		CardIssuer: sandbox.NewCardIssuer(sandboxtest.Clock{}), Token: "bank-token",
		Fault: func(op string) httpgw.Misbehaviour {
			mu.Lock()
			defer mu.Unlock()
			seen[op]++
			return httpgw.Behave
		}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL, func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := map[string]int{}
		for k, v := range seen {
			out[k] = v
		}
		return out
	}
}

// TestGatewaysOverHTTP: with four ports switched to the HTTP adapter by configuration, a whole
// microloan flow runs against the bank's systems behind the protocol; the SMS port stays on
// the sandbox (its codes are read from the sandbox outbox). Each port's adapter is logged.
func TestGatewaysOverHTTP(t *testing.T) {
	t.Parallel()
	url, calls := bankStub(t)
	s := start(t, store.SQLite, "TIYIN_LOAN_CONTRACT_DELAY=1s",
		"TIYIN_SCORING_URL="+url, "TIYIN_SCORING_TOKEN=bank-token", "TIYIN_CORE_BANKING_URL="+url, "TIYIN_CORE_BANKING_TOKEN=bank-token",
		"TIYIN_PROCESSING_URL="+url, "TIYIN_PROCESSING_TOKEN=bank-token", "TIYIN_CARD_ISSUER_URL="+url, "TIYIN_CARD_ISSUER_TOKEN=bank-token")
	o := tiyintest.Flow(flowCaller{t, s}, 100*time.Millisecond)
	if o.Err != nil || o.TransferStatus != "SUCCESS" || o.Repayment != "SUCCESS" || o.Card != "ACTIVE" {
		t.Fatalf("flow over HTTP gateways: %+v", o)
	}
	got := calls()
	for _, op := range []string{"pre-score/request", "pre-score/result", "post-score", "accounts/open", "loan-applications/open",
		"loans/issue", "loans/contract-number", "credits/prepare", "credits/execute", "debits/lookup", "cards/lookup", "cards/tokenise"} {
		if got[op] == 0 {
			t.Errorf("the bank's %s was never called: %v", op, got)
		}
	}
	for _, line := range []string{`"port":"scoring","adapter":"http"`, `"port":"processing","adapter":"http"`, `"port":"sms","adapter":"sandbox"`} {
		if !strings.Contains(s.out.String(), line) {
			t.Errorf("no log line with %s", line)
		}
	}
	if strings.Contains(s.out.String(), "bank-token") {
		t.Error("a gateway token is in the log")
	}
}

// TestRefusesToStartWithoutRealGateways: outside the sandbox, tiyin does not start while any
// port lacks a real adapter, and names each one with its variable.
func TestRefusesToStartWithoutRealGateways(t *testing.T) {
	t.Parallel()
	url, _ := bankStub(t)
	cmd := exec.CommandContext(context.Background(), binary, "serve")
	cmd.Env = append(os.Environ(), "TIYIN_SANDBOX=false", "TIYIN_DATA_KEY="+hex.EncodeToString(make([]byte, 32)),
		"TIYIN_SQLITE_PATH="+filepath.Join(t.TempDir(), "t.db"), "TIYIN_HTTP_ADDR="+freeAddr(t), "TIYIN_ADMIN_ADDR=127.0.0.1:0",
		"TIYIN_SCORING_URL="+url, "TIYIN_PROCESSING_URL="+url)
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("tiyin started without real gateways")
	}
	if err == nil {
		t.Fatalf("exit 0 without real gateways:\n%s", out)
	}
	for _, want := range []string{"core_banking (TIYIN_CORE_BANKING_URL)", "sms (TIYIN_SMS_URL)", "card_issuer (TIYIN_CARD_ISSUER_URL)"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the refusal does not name %s:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "scoring (TIYIN_SCORING_URL)") {
		t.Errorf("the refusal names scoring, which has its URL:\n%s", out)
	}
}
