package http_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/tiyin/tiyin/adapters/gateway/guard"
	"github.com/tiyin/tiyin/adapters/observe"
)

func TestRateLimitAnswersCode7PerPartnerAndARetryRuns(t *testing.T) {
	t.Parallel()
	h := setupWith(t, false, func(s *harnessSetup) { s.http.RateLimit = 2 })
	clock := map[string]any{"duration": "0s"}
	var limited answer
	for i := range 20 { // the bucket holds 4; it refills 2 a second
		a := h.callAs(t, h.key, uuid.NewString(), "/sandbox/clock/advance", clock)
		if a.code() == 7 {
			limited = a
			if i < 4 {
				t.Fatalf("refused after %d requests; the burst is 4", i)
			}
			break
		}
	}
	if limited.code() != 7 || limited.Status != http.StatusTooManyRequests || !strings.Contains(limited.Error.Message, "2 requests per second") {
		t.Fatalf("20 requests at once were never refused: %s", limited.Raw)
	}
	if a := h.callAs(t, h.otherKey, uuid.NewString(), "/sandbox/clock/advance", clock); a.code() != 0 {
		t.Fatalf("another partner has its own bucket: %s", a.Raw)
	}
	id := uuid.NewString()
	if a := h.callAs(t, h.key, id, "/sandbox/clock/advance", clock); a.code() != 7 || *a.ID != id {
		t.Fatalf("still over the limit, and the id echoed: %s", a.Raw)
	}
	time.Sleep(600 * time.Millisecond)
	if a := h.callAs(t, h.key, id, "/sandbox/clock/advance", clock); a.code() != 0 {
		t.Fatalf("the same id once the bucket refilled: %s", a.Raw)
	}
}

// hangingFaults makes every gateway call hang until its timeout while on.
type hangingFaults struct{ on *atomic.Bool }

func (f hangingFaults) Before(ctx context.Context) error {
	if f.on.Load() {
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}
func (hangingFaults) After(context.Context) error { return nil }

func TestGatewayThatHangsAnswersCode10WithinTheTimeoutAndIsCounted(t *testing.T) {
	t.Parallel()
	var on atomic.Bool
	on.Store(true)
	m := observe.New()
	h := setupWith(t, true, func(s *harnessSetup) {
		g := guard.New(guard.Config{Timeout: 300 * time.Millisecond, Faults: hangingFaults{&on}}, m)
		s.gateways.Scoring = g.Scoring(s.gateways.Scoring)
		s.metrics = m
	})
	on.Store(false)
	id := h.register(t) // pre-scoring runs while the gateway answers
	on.Store(true)
	req := uuid.NewString()
	start := time.Now()
	a := h.callAs(t, h.key, req, "/microloans/applications/verify", verifyParams(id, 100_000_000))
	if took := time.Since(start); a.code() != 10 || a.Status != http.StatusServiceUnavailable || took > 2*time.Second {
		t.Fatalf("gateway hangs: code %d after %s: %s", a.code(), took, a.Raw)
	}
	// Code 10 is the partner's to retry: a warning for the operator, not an error.
	failed := h.logs.FilterMessage("request failed").All()
	if len(failed) != 1 || failed[0].Level != zap.WarnLevel || failed[0].ContextMap()["code"] != int64(10) {
		t.Errorf("the code 10 answer was logged %+v, want one warning with its code", failed)
	}
	on.Store(false)
	if a := h.callAs(t, h.key, req, "/microloans/applications/verify", verifyParams(id, 100_000_000)); a.code() != 0 {
		t.Fatalf("the retry with the same id once the gateway is back: %s", a.Raw)
	}
	body := scrape(t, m)
	for _, want := range []string{
		`tiyin_gateway_call_duration_seconds_count{gateway="scoring",op="PostScore",outcome="timeout"} 1`,
		`tiyin_gateway_call_duration_seconds_count{gateway="scoring",op="PostScore",outcome="ok"} 1`,
		`tiyin_http_requests_total{code="10",endpoint="POST /microloans/applications/verify",status="503"} 1`,
		`tiyin_http_requests_total{code="0",endpoint="POST /microloans/applications/verify",status="200"} 1`,
		`tiyin_http_request_duration_seconds_count{endpoint="POST /microloans/applications/verify"} 2`,
		`go_goroutines`, `process_resident_memory_bytes`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

func TestUnknownPathsShareOneMetricsLabel(t *testing.T) {
	t.Parallel()
	m := observe.New()
	h := setupWith(t, false, func(s *harnessSetup) { s.metrics = m })
	for _, p := range []string{"/a", "/b/c", "/microloans/nope"} {
		h.raw(t, http.MethodPost, p, h.key, "application/json", []byte(`{}`))
	}
	body := scrape(t, m)
	if !strings.Contains(body, `tiyin_http_requests_total{code="6",endpoint="unmatched",status="404"} 3`) || strings.Contains(body, "/b/c") {
		t.Fatalf("unknown paths in /metrics:\n%s", grepLines(body, "tiyin_http_requests_total"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for l := range strings.SplitSeq(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// scrape reads the metrics as the admin listener serves them.
func scrape(t *testing.T, m *observe.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("metrics: %d", rec.Code)
	}
	return rec.Body.String()
}

// TestMetricsAreNotOnThePartnersListener: traffic figures and partner names are for the
// operator's admin listener, never for whoever reaches the API.
func TestMetricsAreNotOnThePartnersListener(t *testing.T) {
	t.Parallel()
	h := setupWith(t, false, func(s *harnessSetup) { s.metrics = observe.New() })
	for _, key := range []string{"", h.key} {
		req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/metrics", nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK || strings.Contains(string(b), "tiyin_http_requests_total") {
			t.Fatalf("/metrics with key %q: %d %s", key, resp.StatusCode, b)
		}
	}
}

// TestReadyzKeepsItsCauseForTheLog: anyone may ask /readyz; the database error (an address,
// a user name) goes to the operator's log only.
func TestReadyzKeepsItsCauseForTheLog(t *testing.T) {
	t.Parallel()
	cause := errors.New("dial tcp 10.1.2.3:5432: password authentication failed for user \"tiyin\"")
	h := setupWith(t, false, func(s *harnessSetup) { s.ready = func(context.Context) error { return cause } })
	resp, err := http.Get(h.srv.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || string(b) != "not ready\n" {
		t.Fatalf("/readyz: %d %q", resp.StatusCode, b)
	}
	if logged := h.logs.FilterMessage("not ready").All(); len(logged) != 1 || !strings.Contains(fmt.Sprint(logged[0].Context), "10.1.2.3") {
		t.Fatalf("the cause was not logged: %v", logged)
	}
}
