package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/test/tiyintest"
)

// client calls tiyin as a partner's backend does: keep-alive connections, one key.
type client struct {
	http *http.Client
	base string
	key  string
}

func newClient(base, key string) *client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns, t.MaxIdleConnsPerHost = 2048, 2048
	return &client{http: &http.Client{Transport: t, Timeout: 60 * time.Second}, base: base, key: key}
}

var errAnswer = errors.New("answered with an error")

// post sends params under a fresh id and returns the answer's result, undecoded, and error
// code. The measured scenarios stop there, as a load generator should: decoding every answer
// into maps would spend the machine's CPU on the generator instead of on tiyin.
func (c *client) post(ctx context.Context, path string, params any) (json.RawMessage, int, error) {
	body, _ := json.Marshal(map[string]any{"id": uuid.NewString(), "params": params})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, 0, err
	}
	var env struct {
		Result json.RawMessage
		Error  *struct{ Code int }
	}
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, 0, fmt.Errorf("%s: HTTP %d, not an envelope", path, resp.StatusCode)
	}
	if env.Error != nil {
		return nil, env.Error.Code, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("%s: HTTP %d", path, resp.StatusCode)
	}
	return env.Result, 0, nil
}

// op is a request whose answer must be a success.
func (c *client) op(path string, params func() any) op {
	return func(ctx context.Context) error {
		_, code, err := c.post(ctx, path, params())
		if err == nil && code != 0 {
			err = fmt.Errorf("%s: code %d: %w", path, code, errAnswer)
		}
		return err
	}
}

// Call is tiyintest.Caller, for the lifecycle flows: they read the answers' fields.
func (c *client) Call(path string, params any, _ bool) (map[string]any, int, error) {
	raw, code, err := c.post(context.Background(), path, params)
	if err != nil || code != 0 {
		return nil, code, err
	}
	var result map[string]any
	if err := json.Unmarshal(raw, &result); err != nil {
		return nil, 0, fmt.Errorf("%s: result: %w", path, err)
	}
	return result, 0, nil
}

// issued is an application walked to a loan with its contract number.
type issued struct{ app, loan string }

// loanPool is issued loans that requests take turns on, as a partner's many clients would: a
// bench hammering one loan would measure the contention on its row, not the endpoint.
type loanPool struct {
	all  []issued
	turn atomic.Uint64
}

func (l *loanPool) next() issued { return l.all[l.turn.Add(1)%uint64(len(l.all))] }

// byApp and byLoan are the params of a request for the next loan.
func (l *loanPool) byApp() any  { return map[string]any{"applicationId": l.next().app} }
func (l *loanPool) byLoan() any { return map[string]any{"loanId": l.next().loan} }

// issuedLoans walks n applications to loans at once (tiyin runs with a short contract delay).
func (c *client) issuedLoans(n int) (*loanPool, error) {
	l := &loanPool{all: make([]issued, max(n, 1))}
	errs := make([]error, len(l.all))
	var wg sync.WaitGroup
	for i := range l.all {
		wg.Go(func() {
			o := tiyintest.Flow(c, 20*time.Millisecond)
			if o.Err != nil {
				errs[i] = fmt.Errorf("a flow to have a loan to read: %w", o.Err)
			}
			l.all[i] = issued{app: o.App, loan: o.LoanID}
		})
	}
	wg.Wait()
	return l, errors.Join(errs...)
}
