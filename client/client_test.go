package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/tiyin/tiyin/client"
)

// fakeTiyin answers each call with the next of answers (HTTP status and body), and records the
// envelope ids it was sent.
type fakeTiyin struct {
	mu      sync.Mutex
	answers []answer
	ids     []string
}

type answer struct {
	status int
	body   string
}

func (f *fakeTiyin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var env struct{ ID string }
	_ = jsonDecode(r, &env)
	f.mu.Lock()
	f.ids = append(f.ids, env.ID)
	a := f.answers[0]
	if len(f.answers) > 1 {
		f.answers = f.answers[1:]
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Request-Id", env.ID)
	w.WriteHeader(a.status)
	_, _ = fmt.Fprint(w, a.body)
}

func newClient(t *testing.T, answers ...answer) (*client.ClientWithResponses, *fakeTiyin) {
	t.Helper()
	f := &fakeTiyin{answers: answers}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := client.NewClientWithResponses(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return c, f
}

const unavailable = `{"id":"00000000-0000-4000-8000-000000000000","result":null,"error":{"code":10,"message":"core banking is unavailable"}}`

// An answer's error is an *APIError that errors.Is matches to its code, with the request id;
// a success is nil.
func TestCheckMakesTheAnswersErrorACode(t *testing.T) {
	t.Parallel()
	c, _ := newClient(t, answer{404, `{"id":"00000000-0000-4000-8000-000000000000","result":null,"error":{"code":1012,"message":"loan not found"}}`},
		answer{200, `{"id":"00000000-0000-4000-8000-000000000000","result":{"applicationId":"01a2c1a4-0000-7000-8000-000000000001","lastTask":{"name":"PRE_SCORING","status":"NEW"},"status":"NEW"},"error":null}`})
	id := client.UUID{}
	r, err := c.GetLoanWithResponse(context.Background(), client.GetLoanJSONRequestBody{Id: id})
	err = client.Check(r, err)
	var api *client.APIError
	if !errors.Is(err, client.CodeLoanNotFound) || errors.Is(err, client.CodeApplicationNotFound) || !errors.As(err, &api) ||
		api.Status != 404 || api.Message != "loan not found" || api.RequestID == "" || client.Retryable(err) {
		t.Fatalf("a 1012 answer: %#v", err)
	}
	r2, err := c.GetApplicationWithResponse(context.Background(), client.GetApplicationRequest{Id: id})
	if err := client.Check(r2, err); err != nil {
		t.Fatalf("a success: %v", err)
	}
}

// Do repeats a call that answered code 10 with the same envelope id until it succeeds, and
// stops at once on a business code.
func TestDoRetriesWithTheSameID(t *testing.T) {
	t.Parallel()
	ok := `{"id":"00000000-0000-4000-8000-000000000000","result":{"loanId":"1","requestId":"01a2c1a4-0000-7000-8000-000000000002","status":"SUCCESS","message":"paid"},"error":null}`
	c, f := newClient(t, answer{503, unavailable}, answer{503, unavailable}, answer{200, ok})
	calls := 0
	err := client.Do(context.Background(), client.Retry{First: time.Millisecond}, func(ctx context.Context, id client.UUID) error {
		calls++
		r, err := c.PayRepaymentWithResponse(ctx, client.PayRepaymentRequest{Id: id})
		return client.Check(r, err)
	})
	if err != nil || calls != 3 || len(f.ids) != 3 || f.ids[0] != f.ids[1] || f.ids[1] != f.ids[2] || f.ids[0] == "" {
		t.Fatalf("err %v after %d calls with ids %v", err, calls, f.ids)
	}
	c, f = newClient(t, answer{422, `{"id":"00000000-0000-4000-8000-000000000000","result":null,"error":{"code":1014,"message":"insufficient funds"}}`})
	err = client.Do(context.Background(), client.Retry{First: time.Millisecond}, func(ctx context.Context, id client.UUID) error {
		r, err := c.PayRepaymentWithResponse(ctx, client.PayRepaymentRequest{Id: id})
		return client.Check(r, err)
	})
	if !errors.Is(err, client.CodeInsufficientFunds) || len(f.ids) != 1 {
		t.Fatalf("a business refusal: %v after %d calls", err, len(f.ids))
	}
	// Always unavailable: the attempts run out, and the last error is the answer's.
	c, f = newClient(t, answer{503, unavailable})
	err = client.Do(context.Background(), client.Retry{Attempts: 3, First: time.Millisecond}, func(ctx context.Context, id client.UUID) error {
		r, err := c.PayRepaymentWithResponse(ctx, client.PayRepaymentRequest{Id: id})
		return client.Check(r, err)
	})
	if !errors.Is(err, client.CodeUnavailable) || len(f.ids) != 3 {
		t.Fatalf("always unavailable: %v after %d calls", err, len(f.ids))
	}
}

// A transport error (no answer) is retried: tiyin may have acted, and the same id is safe.
func TestDoRetriesATransportError(t *testing.T) {
	t.Parallel()
	c, err := client.NewClientWithResponses("http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	err = client.Do(context.Background(), client.Retry{Attempts: 2, First: time.Millisecond}, func(ctx context.Context, id client.UUID) error {
		calls++
		r, err := c.PayRepaymentWithResponse(ctx, client.PayRepaymentRequest{Id: id})
		return client.Check(r, err)
	})
	if err == nil || calls != 2 || !client.Retryable(err) {
		t.Fatalf("%v after %d calls", err, calls)
	}
}
