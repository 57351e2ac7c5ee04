package httpgw_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/gateway/httpgw"
	"github.com/tiyin/tiyin/adapters/gateway/sandbox"
	"github.com/tiyin/tiyin/adapters/gateway/sandbox/sandboxtest"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/ports/porttest"
)

// stub serves the sandbox gateways over the protocol, misbehaving on every call as fault says.
func stub(t *testing.T, fault porttest.Fault) (httpgw.Config, *atomic.Int64) {
	t.Helper()
	calls := &atomic.Int64{}
	s := &httpgw.Stub{Scoring: sandbox.NewScoring(), CoreBanking: sandbox.NewCoreBanking(), Processing: sandbox.NewProcessing(),
		SMS: sandbox.NewSMSSender(sandboxtest.Outbox{}, sandboxtest.Clock{}), CardIssuer: sandbox.NewCardIssuer(sandboxtest.Clock{}), GL: sandbox.NewGeneralLedger(), Token: "test-token",
		Fault: func(string) httpgw.Misbehaviour {
			calls.Add(1)
			return map[porttest.Fault]httpgw.Misbehaviour{porttest.Healthy: httpgw.Behave, porttest.FailTransiently: httpgw.Unavailable,
				porttest.Hang: httpgw.Hang}[fault]
		}}
	var h http.Handler = s
	if fault == porttest.Healthy {
		h = conforming(t, s)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return httpgw.Config{URL: srv.URL, Token: "test-token", Backoff: 5 * time.Millisecond}, calls
}

var (
	protocolOnce   sync.Once
	protocolRouter routers.Router
	protocolErr    error
)

// conforming checks every exchange against gateway.yaml: what the adapters send and what the
// stub answers.
func conforming(t *testing.T, next http.Handler) http.Handler {
	protocolOnce.Do(func() {
		doc, err := openapi3.NewLoader().LoadFromData(httpgw.Protocol)
		if err == nil {
			err = doc.Validate(context.Background())
		}
		if err != nil {
			protocolErr = err
			return
		}
		doc.Servers = nil
		protocolRouter, protocolErr = gorillamux.NewRouter(doc)
	})
	if protocolErr != nil {
		t.Fatalf("gateway.yaml: %v", protocolErr)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		route, params, err := protocolRouter.FindRoute(r)
		if err != nil {
			t.Errorf("%s is not in gateway.yaml: %v", r.URL.Path, err)
		} else {
			opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true, MultiError: true}
			r2 := r.Clone(context.Background())
			r2.Body = io.NopCloser(bytes.NewReader(body))
			in := &openapi3filter.RequestValidationInput{Request: r2, PathParams: params, Route: route, Options: opts}
			if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
				t.Errorf("%s: the adapter's request breaks gateway.yaml: %v\n%s", r.URL.Path, err, body)
			}
			out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: rec.Code, Header: rec.Header(),
				Body: io.NopCloser(bytes.NewReader(rec.Body.Bytes())), Options: opts}
			if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
				t.Errorf("%s: the stub's answer breaks gateway.yaml: %v\n%s", r.URL.Path, err, rec.Body.Bytes())
			}
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// The HTTP adapters keep every port's contract, talking to the sandbox through the stub.

func TestProcessingContract(t *testing.T) {
	porttest.RunProcessing(t, func(t *testing.T, f porttest.Fault) ports.Processing {
		cfg, _ := stub(t, f)
		return httpgw.NewProcessing(cfg)
	}, sandboxtest.ProcessingCases())
}

func TestScoringContract(t *testing.T) {
	porttest.RunScoring(t, func(t *testing.T, f porttest.Fault) ports.Scoring {
		cfg, _ := stub(t, f)
		return httpgw.NewScoring(cfg)
	}, sandboxtest.ScoringCases())
}

func TestCoreBankingContract(t *testing.T) {
	porttest.RunCoreBanking(t, func(t *testing.T, f porttest.Fault) ports.CoreBanking {
		cfg, _ := stub(t, f)
		return httpgw.NewCoreBanking(cfg)
	}, sandboxtest.CoreBankingCases())
}

func TestSMSSenderContract(t *testing.T) {
	porttest.RunSMSSender(t, func(t *testing.T, f porttest.Fault) ports.SMSSender {
		cfg, _ := stub(t, f)
		return httpgw.NewSMSSender(cfg)
	}, sandboxtest.SMSCases())
}

func TestCardIssuerContract(t *testing.T) {
	porttest.RunCardIssuer(t, func(t *testing.T, f porttest.Fault) ports.CardIssuer {
		cfg, _ := stub(t, f)
		return httpgw.NewCardIssuer(cfg)
	}, sandboxtest.CardIssuerCases())
}

func TestGeneralLedgerContract(t *testing.T) {
	porttest.RunGeneralLedger(t, func(t *testing.T, f porttest.Fault) ports.GeneralLedger {
		cfg, _ := stub(t, f)
		return httpgw.NewGeneralLedger(cfg)
	}, sandboxtest.GeneralLedgerCases())
}

// TestBadAnswersAreClassified: every way a system can answer badly is transient (the outcome
// is unknown: asked again with the same key) or final, as the ports' contract says.
func TestBadAnswersAreClassified(t *testing.T) {
	tests := []struct {
		m         httpgw.Misbehaviour
		want      error
		calls     int64 // attempts the adapter made: transient ones are retried
		timeoutOK bool
	}{
		{httpgw.Unavailable, ports.ErrGatewayTransient, 3, false},
		{httpgw.Garbage, ports.ErrGatewayTransient, 3, false},
		{httpgw.EmptyBody, ports.ErrGatewayTransient, 3, false},
		{httpgw.ResetConn, ports.ErrGatewayTransient, 3, false},
		{httpgw.Hang, ports.ErrGatewayTransient, 1, true},
		{httpgw.SlowDrip, ports.ErrGatewayTransient, 1, true},
		{httpgw.ErrorInside, ports.ErrGatewayFailed, 1, false},
		{httpgw.BadRequest, ports.ErrGatewayFailed, 1, false},
	}
	for _, tt := range tests {
		t.Run(map[httpgw.Misbehaviour]string{httpgw.Unavailable: "503", httpgw.Garbage: "garbage", httpgw.EmptyBody: "empty body",
			httpgw.ResetConn: "connection reset", httpgw.Hang: "no answer", httpgw.SlowDrip: "slow drip",
			httpgw.ErrorInside: "200 with an error inside", httpgw.BadRequest: "400"}[tt.m], func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int64
			srv := httptest.NewServer(&httpgw.Stub{Processing: sandbox.NewProcessing(), Fault: func(string) httpgw.Misbehaviour {
				calls.Add(1)
				return tt.m
			}})
			defer srv.Close()
			p := httpgw.NewProcessing(httpgw.Config{URL: srv.URL, Backoff: 5 * time.Millisecond})
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			start := time.Now()
			req := sandboxtest.ProcessingCases().Credit
			req.IdempotencyKey = "k"
			_, err := p.PrepareCredit(ctx, req)
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if took := time.Since(start); took > 2*time.Second {
				t.Fatalf("took %v: the deadline was not kept", took)
			}
			if got := calls.Load(); got != tt.calls && (!tt.timeoutOK || got < 1) {
				t.Fatalf("%d attempts, want %d", got, tt.calls)
			}
		})
	}
}

// TestRetryThenSuccess: a transient failure is retried with the same idempotency key and
// token, and the retry's answer is the call's.
func TestRetryThenSuccess(t *testing.T) {
	var calls atomic.Int64
	var keys sync.Map
	s := &httpgw.Stub{CoreBanking: sandbox.NewCoreBanking(), Token: "secret", Fault: func(string) httpgw.Misbehaviour {
		if calls.Add(1) == 1 {
			return httpgw.Unavailable
		}
		return httpgw.Behave
	}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		keys.Store(r.Header.Get("Idempotency-Key"), true)
		s.ServeHTTP(w, r)
	}))
	defer srv.Close()
	cb := httpgw.NewCoreBanking(httpgw.Config{URL: srv.URL, Token: "secret", Backoff: 5 * time.Millisecond})
	n, err := cb.OpenAccount(context.Background(), ports.OpenAccountRequest{IdempotencyKey: "app:OPEN_ACCOUNT", ApplicationID: uuid.New(),
		Phone: sandboxtest.Phone, ClientData: sandboxtest.Client("31234567890123")})
	if err != nil || n == "" || calls.Load() != 2 {
		t.Fatalf("OpenAccount: %q, %v after %d attempts; want an account after 2", n, err, calls.Load())
	}
	if _, ok := keys.Load("app:OPEN_ACCOUNT"); !ok {
		t.Fatal("the Idempotency-Key header was not sent")
	}
}

// TestCircuitBreaker: after five transient failures in a row the adapter stops calling the
// system and answers transient at once; after BreakFor it lets a probe through.
func TestCircuitBreaker(t *testing.T) {
	var calls atomic.Int64
	var down atomic.Bool
	down.Store(true)
	srv := httptest.NewServer(&httpgw.Stub{Processing: sandbox.NewProcessing(), Fault: func(string) httpgw.Misbehaviour {
		calls.Add(1)
		if down.Load() {
			return httpgw.Unavailable
		}
		return httpgw.Behave
	}})
	defer srv.Close()
	p := httpgw.NewProcessing(httpgw.Config{URL: srv.URL, Retries: -1, BreakAfter: 5, BreakFor: 200 * time.Millisecond})
	ref := func() error {
		_, err := p.LookupDebit(context.Background(), ports.DebitQuery{DebitID: "DBT-1", Network: domain.NetworkUzcard, Amount: 1})
		return err
	}
	for range 5 {
		if err := ref(); !errors.Is(err, ports.ErrGatewayTransient) {
			t.Fatalf("while down: %v", err)
		}
	}
	before := calls.Load()
	start := time.Now()
	// Nothing is sent while the circuit is open: nothing happened at the system.
	if err := ref(); !errors.Is(err, ports.ErrGatewayNotReached) || errors.Is(err, ports.ErrGatewayTransient) ||
		calls.Load() != before || time.Since(start) > 50*time.Millisecond {
		t.Fatalf("open circuit: %v, the system called %d more times", err, calls.Load()-before)
	}
	down.Store(false)
	time.Sleep(250 * time.Millisecond)
	if err := ref(); err != nil {
		t.Fatalf("probe after the break: %v", err)
	}
}

// TestAConnectionNeverMadeIsNotReached: a system that cannot be connected to never got the
// call, so nothing happened there: ErrGatewayNotReached, not an unknown outcome.
func TestAConnectionNeverMadeIsNotReached(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close() // nothing listens there now
	p := httpgw.NewProcessing(httpgw.Config{URL: "http://" + addr, Retries: 1, Backoff: time.Millisecond, BreakAfter: 5, BreakFor: time.Second})
	_, err = p.LookupDebit(context.Background(), ports.DebitQuery{DebitID: "DBT-1", Network: domain.NetworkUzcard, Amount: 1})
	if !errors.Is(err, ports.ErrGatewayNotReached) || errors.Is(err, ports.ErrGatewayTransient) {
		t.Fatalf("no connection: %v, want ports.ErrGatewayNotReached alone", err)
	}
}

// TestAJournalAcknowledgedWithoutItsTotalsIsNotTheProtocols: an acknowledgement that gives the
// posting's reference but not the debits and credits posted is not the protocol's answer: the
// outcome is unknown (transient), and the journal is sent again later.
func TestAJournalAcknowledgedWithoutItsTotalsIsNotTheProtocols(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"result": {"ref": "GL-1"}}`))
	}))
	defer srv.Close()
	gl := httpgw.NewGeneralLedger(httpgw.Config{URL: srv.URL, Backoff: time.Millisecond})
	j := sandboxtest.GeneralLedgerCases().Journal
	j.Sequence, j.IdempotencyKey = 1, ports.GLKey(j.Day, 1)
	if ack, err := gl.PostJournal(context.Background(), j); !errors.Is(err, ports.ErrGatewayTransient) {
		t.Fatalf("an acknowledgement without totals: %+v, %v; want ErrGatewayTransient", ack, err)
	}
}
