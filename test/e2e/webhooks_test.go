package e2e

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/webhook"
	"github.com/tiyin/tiyin/client"
	"github.com/tiyin/tiyin/test/apicheck"
)

// event is a webhook body as a partner receives it.
type event struct {
	ID        string         `json:"id"`
	Type      string         `json:"type"`
	Sequence  int64          `json:"sequence"`
	CreatedAt string         `json:"createdAt"`
	Data      map[string]any `json:"data"`
}

// receiver is a partner's webhook: it verifies every signature, validates every body against
// the document, fails each event's first failFirst deliveries, and keeps each event once.
type receiver struct {
	t         *testing.T
	check     *apicheck.Validator
	mu        sync.Mutex
	secret    []byte
	failFirst int
	down      bool
	refused   int
	tries     map[string]int
	events    []event
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.down {
		r.refused++
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	if err := webhook.Verify(r.secret, body, req.Header.Get(webhook.SignatureHeader), time.Now(), 5*time.Minute); err != nil {
		r.t.Errorf("webhook signature: %v", err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if err := client.VerifyWebhook(string(r.secret), body, req.Header, time.Now()); err != nil {
		r.t.Errorf("Standard Webhooks signature: %v", err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	r.check.CheckEvent(r.t, body)
	var e event
	if err := json.Unmarshal(body, &e); err != nil || req.Header.Get("X-Tiyin-Event-Id") != e.ID {
		r.t.Errorf("webhook body %s: %v", body, err)
	}
	r.tries[e.ID]++
	if r.tries[e.ID] <= r.failFirst {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	if r.tries[e.ID] == r.failFirst+1 {
		r.events = append(r.events, e)
	}
	w.WriteHeader(http.StatusNoContent)
}

// await waits up to 30 s for the events about subject (a value of one of their data fields)
// until want says they are all there, and returns them.
func (r *receiver) await(t *testing.T, subject string, want func([]event) bool) []event {
	t.Helper()
	return r.awaitWithin(t, 30*time.Second, subject, want)
}

func (r *receiver) awaitWithin(t *testing.T, wait time.Duration, subject string, want func([]event) bool) []event {
	t.Helper()
	var got []event
	for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		r.mu.Lock()
		got = got[:0]
		for _, e := range r.events {
			for _, v := range e.Data {
				if v == subject {
					got = append(got, e)
					break
				}
			}
		}
		r.mu.Unlock()
		if want(got) {
			return got
		}
	}
	t.Fatalf("events about %s: %+v", subject, got)
	return nil
}

// statuses lists the events' types with their data's status.
func statuses(evs []event) []string {
	var out []string
	for _, e := range evs {
		s := e.Type
		if st, ok := e.Data["status"].(string); ok {
			s += " " + st
		}
		out = append(out, s)
	}
	return out
}

func has(want ...string) func([]event) bool {
	return func(evs []event) bool {
		got := statuses(evs)
		for _, w := range want {
			if !slices.Contains(got, w) {
				return false
			}
		}
		return true
	}
}

// restart kills the server with SIGKILL and starts it again on the same database.
func (s *server) restart(t *testing.T) {
	t.Helper()
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	_ = s.cmd.Wait()
	s.launch(t)
	s.waitReady(t)
}

func TestWebhooks(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, d store.Dialect) {
		s := start(t, d)
		rec := &receiver{t: t, check: s.check, failFirst: 2, tries: map[string]int{}}
		hook := httptest.NewServer(rec)
		t.Cleanup(hook.Close)
		cmd := exec.Command(binary, "partner", "set-webhook", "sandbox", "--url", hook.URL+"/tiyin", "--json")
		cmd.Env = s.env
		out, err := cmd.Output()
		var set struct{ Secret string }
		if err != nil || json.Unmarshal(out, &set) != nil || !strings.HasPrefix(set.Secret, "whsec_") {
			t.Fatalf("set-webhook: %v %s", err, out)
		}
		// whsec_ and the standard base64 of 32 random bytes, as Standard Webhooks makes them.
		if key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(set.Secret, "whsec_")); err != nil || len(key) != 32 {
			t.Fatalf("set-webhook's secret is not whsec_ and the base64 of 32 bytes: %v", err)
		}
		rec.mu.Lock()
		rec.secret = []byte(set.Secret)
		rec.mu.Unlock()

		// The whole process, each event refused twice by the webhook, then taken.
		app := s.register(t, "31234567890123")
		s.waitFor(t, app, "PENDING", nil)
		s.must(t, "/microloans/applications/verify", verifyParams(app, 300_000_000))
		s.must(t, "/microloans/applications/issue", map[string]any{"applicationId": app, "clientData": clientData("31234567890123")})
		s.waitFor(t, app, "COMPLETED", nil)
		ext := uuid.NewString()
		tr := s.must(t, "/transfers/account-to-card/create", map[string]any{"externalId": ext, "applicationId": app,
			"pan": "8600123456789012", "receiverCardType": "UZCARD", "cardHolderName": "AZIZ KARIMOV", "amount": 100_000_000})
		s.must(t, "/transfers/account-to-card/confirm", map[string]any{"externalId": ext, "transactionId": tr["transactionId"]})
		s.must(t, "/sandbox/clock/advance", map[string]any{"duration": "31m"})
		var loanID string
		for deadline := time.Now().Add(20 * time.Second); loanID == ""; time.Sleep(200 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("no contract number 31 minutes after issuance")
			}
			loanID, _ = s.must(t, "/microloans/info", map[string]any{"applicationId": app})["loanId"].(string)
		}
		c := s.must(t, "/repayment/loans/check", map[string]any{"loanId": loanID})
		s.must(t, "/repayment/loans/pay", map[string]any{"loanId": loanID, "paymentType": "EARLY", "requestId": c["requestId"],
			"debitId": "DBT-" + uuid.NewString(), "amount": 50_000_000, "processingType": "UZCARD"})
		card := s.must(t, "/cards/attach", map[string]any{"pan": "9860123456789012", "expiry": "3012",
			"processingType": "HUMO", "phoneNumber": "998909876543"})["cardId"].(string)
		msgs := s.must(t, "/sandbox/sms/outbox", map[string]any{"phoneNumber": "998909876543"})["messages"].([]any)
		s.must(t, "/cards/attach/confirm", map[string]any{"cardId": card, "otpCode": msgs[0].(map[string]any)["code"]})
		order := s.must(t, "/cards/order", map[string]any{"externalId": "ORDER-" + uuid.NewString(), "phoneNumber": "998901234567",
			"clientData": clientData("31234567890777"), "privacyPolicyAccepted": true, "termsAndConditionsAccepted": true})["orderId"].(string)

		evs := rec.await(t, app, func(evs []event) bool { return len(evs) >= 7 })
		// One object's events arrive in the order they happened, each refused twice first: the
		// application's (and its contract's), numbered upwards; the repayment is another object.
		var got []string
		var last int64
		for _, e := range evs {
			if e.Type == "REPAYMENT_STATUS_CHANGED" {
				continue
			}
			got = append(got, statuses([]event{e})...)
			if e.Sequence <= last {
				t.Errorf("event %s numbered %d after %d", e.Type, e.Sequence, last)
			}
			last = e.Sequence
		}
		if want := []string{"APPLICATION_STATUS_CHANGED IN_PROGRESS", "APPLICATION_STATUS_CHANGED PENDING",
			"APPLICATION_STATUS_CHANGED PENDING", "APPLICATION_STATUS_CHANGED IN_PROGRESS", "APPLICATION_STATUS_CHANGED LOAN_ISSUED",
			"LOAN_CONTRACT_ASSIGNED"}; !slices.Equal(got, want) {
			t.Errorf("events about the application, as they arrived: %q\nwant %q", got, want)
		}
		for _, e := range evs {
			if e.Type == "LOAN_CONTRACT_ASSIGNED" && e.Data["loanId"] != loanID {
				t.Errorf("contract event %+v, loanId %s", e, loanID)
			}
		}
		if got := statuses(rec.await(t, ext, has("TRANSFER_STATUS_CHANGED PROCESSING", "TRANSFER_STATUS_CHANGED SUCCESS"))); got[0] != "TRANSFER_STATUS_CHANGED PROCESSING" {
			t.Errorf("the transfer's events arrived as %q", got)
		}
		evs = rec.await(t, c["requestId"].(string), has("REPAYMENT_STATUS_CHANGED SUCCESS"))
		if evs[0].Data["loanId"] != loanID || evs[0].Data["amount"] != float64(50_000_000) || evs[0].Data["loanClosed"] != false {
			t.Errorf("repayment event %+v", evs[0])
		}
		evs = rec.await(t, card, has("CARD_ATTACHED"))
		if evs[0].Data["maskedPan"] != "986012******9012" || evs[0].Data["processingType"] != "HUMO" {
			t.Errorf("attach event %+v", evs[0])
		}
		rec.await(t, order, has("CARD_ORDER_STATUS_CHANGED IN_PROGRESS", "CARD_ORDER_STATUS_CHANGED COMPLETED"))

		rec.mu.Lock()
		for id, n := range rec.tries {
			if n < 3 {
				t.Errorf("event %s taken after %d deliveries; the receiver refused the first two", id, n)
			}
		}
		// The webhook goes down, an event is recorded, and tiyin is killed before it got through.
		rec.down = true
		rec.mu.Unlock()
		lost := s.register(t, "31234567890123")
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			rec.mu.Lock()
			refused := rec.refused
			rec.mu.Unlock()
			if refused > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no delivery tried while the webhook was down")
			}
		}
		s.restart(t)
		rec.mu.Lock()
		rec.down = false
		rec.mu.Unlock()
		// Events whose delivery was under way when tiyin was killed are left to that delivery
		// for its lease (30 s from when they were taken), then sent again.
		rec.awaitWithin(t, 45*time.Second, lost, has("APPLICATION_STATUS_CHANGED IN_PROGRESS", "APPLICATION_STATUS_CHANGED PENDING"))
	})
}

// TestTheDemoWalksThroughGatewayErrors: against a sandbox whose gateway calls fail three in
// ten (TIYIN_SANDBOX_FAULTS=error=0.3, as docs/integration.md suggests), the demo repeats each
// code 10 with the same envelope id, as the Go client does, and completes, three runs in three.
func TestTheDemoWalksThroughGatewayErrors(t *testing.T) {
	t.Parallel()
	s := start(t, store.SQLite, "TIYIN_SANDBOX_FAULTS=error=0.3")
	for run := range 3 {
		out, err := exec.Command(binary, "demo", "--url", s.url, "--key", s.key).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "demo complete") {
			t.Fatalf("demo run %d under error=0.3: %v\n%s", run+1, err, out)
		}
	}
}

func TestDemo(t *testing.T) {
	t.Parallel()
	s := start(t, store.SQLite)
	cmd := exec.Command(binary, "demo", "--url", s.url, "--key", s.key)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "demo complete") {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	for _, step := range []string{"pre-scoring register", "verify", "issue", "transfer to a card", "advance clock, loan info",
		"schedule", "repayment check", "repayment pay", "payments", "card order", "card attach", "card attach confirm"} {
		if !strings.Contains(string(out), step) {
			t.Errorf("demo printed no %q step:\n%s", step, out)
		}
	}
	// A second run on the same server meets nothing of the first.
	if out, err := exec.Command(binary, "demo", "--url", s.url, "--key", s.key).CombinedOutput(); err != nil {
		t.Fatalf("second demo: %v\n%s", err, out)
	}
	bad := exec.Command(binary, "demo", "--url", s.url)
	bad.Env = append(bad.Environ(), "TIYIN_KEY=not-a-key")
	if out, err := bad.CombinedOutput(); err == nil || !strings.Contains(string(out), "code 2") {
		t.Fatalf("a wrong key must fail the demo: %v\n%s", err, out)
	}
}
