// Package httpgw is the HTTP/JSON adapter of every gateway port: a bank that puts its systems
// behind the small protocol of gateway.yaml (Protocol; docs/gateways.md) switches a port
// from the sandbox to its system with one variable (TIYIN_SCORING_URL, TIYIN_CORE_BANKING_URL,
// TIYIN_PROCESSING_URL, TIYIN_SMS_URL, TIYIN_CARD_ISSUER_URL, TIYIN_GENERAL_LEDGER_URL) and its
// token.
//
// Every call is POST {base}/{operation} with a JSON body, the bearer token, and the
// Idempotency-Key header when the operation changes something. The answer is classified as the
// ports' contract says: 200 with {"result": …} is a success; 200 with {"error": {"kind", "message"}}
// is the error of that kind; 408, 425, 429 and 5xx, a reset connection, a body that is not the
// protocol's (garbage, empty, cut short) or no answer before the deadline are transient (the
// outcome is unknown); any other status is a final technical failure. Transient failures are
// retried within the call's deadline with exponential backoff and full jitter, and a circuit
// breaker per gateway stops calling a system that keeps failing, answering transient at once
// until it lets a probe through.
package httpgw

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// Config is one gateway's endpoint.
type Config struct {
	// URL is the base URL of the bank's system (https://scoring.bank.uz/tiyin/v1).
	URL string
	// Token is sent as "Authorization: Bearer <Token>" when set.
	Token string
	// Retries is how many times a transient failure is retried within the call's deadline
	// (0: the default, 2; negative: none).
	Retries int
	// Backoff is the first retry's longest wait; each next one doubles it (default 100 ms).
	Backoff time.Duration
	// BreakAfter is how many consecutive transient failures open the circuit (default 5), and
	// BreakFor how long it stays open before a probe (default 10 s).
	BreakAfter int
	BreakFor   time.Duration
	// HTTP is the client (default: one with its own connection pool; the deadline comes from
	// the call's context).
	HTTP *http.Client
}

// client calls one gateway.
type client struct {
	name    string
	cfg     Config
	breaker *gobreaker.CircuitBreaker[[]byte]
}

func newClient(name string, cfg Config) *client {
	if cfg.Retries == 0 {
		cfg.Retries = 2
	}
	if cfg.Backoff == 0 {
		cfg.Backoff = 100 * time.Millisecond
	}
	if cfg.BreakAfter == 0 {
		cfg.BreakAfter = 5
	}
	if cfg.BreakFor == 0 {
		cfg.BreakFor = 10 * time.Second
	}
	if cfg.HTTP == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = 64
		cfg.HTTP = &http.Client{Transport: t, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	cfg.URL = strings.TrimRight(cfg.URL, "/")
	breakAfter := uint32(cfg.BreakAfter) //nolint:gosec // a small positive setting
	return &client{name: name, cfg: cfg, breaker: gobreaker.NewCircuitBreaker[[]byte](gobreaker.Settings{
		Name:        name,
		Timeout:     cfg.BreakFor,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= breakAfter },
		// Only a system that fails to answer counts against it; a refusal is an answer.
		IsSuccessful: func(err error) bool { return err == nil || !unanswered(err) },
	})}
}

// errorBody is the protocol's error answer.
type errorBody struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// The error kinds of the protocol and the port errors they are.
var kinds = map[string]error{
	"TRANSIENT":      ports.ErrGatewayTransient,
	"NOT_PROCESSED":  ports.ErrGatewayNotReached,
	"FAILED":         ports.ErrGatewayFailed,
	"REFUSED":        ports.ErrGatewayRefused,
	"CARD_REJECTED":  domain.ErrCardRejected,
	"DEBIT_REJECTED": domain.ErrDebitRejected,
	"SMS_NOT_SENT":   domain.ErrSMSNotSent,
}

// maxAnswer bounds an answer's body: the protocol's answers are small.
const maxAnswer = 1 << 20

// call sends req to the operation and decodes the result into out (nil: no result expected).
// retry says whether a transient failure may be sent again (the operation has an idempotency
// key, or only reads).
func (c *client) call(ctx context.Context, op, key string, retry bool, req, out any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("%w: %s %s: encode: %w", ports.ErrGatewayFailed, c.name, op, err)
	}
	attempts := 1
	if retry {
		attempts += max(c.cfg.Retries, 0)
	}
	var result []byte
	// mayHaveActed is set once an attempt went unanswered with an unknown outcome: from then on
	// the run's outcome is unknown, whatever later attempts meet.
	mayHaveActed := false
	unknown := func(err error) error {
		if mayHaveActed || !errors.Is(err, ports.ErrGatewayNotReached) {
			return ports.ErrGatewayTransient
		}
		return ports.ErrGatewayNotReached
	}
	for i := range attempts {
		if i > 0 {
			// Full jitter: a random wait up to the doubled backoff, so clients that failed
			// together do not come back together.
			wait := time.Duration(rand.Int64N(int64(c.cfg.Backoff << (i - 1)))) //nolint:gosec // jitter, not a secret
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				//nolint:errorlint // the last attempt's error is told, not wrapped: the run's kind is unknown(err)
				return fmt.Errorf("%w: %s %s: %w (after %d attempts: %v)", unknown(err), c.name, op, ctx.Err(), i, err)
			}
		}
		result, err = c.breaker.Execute(func() ([]byte, error) { return c.once(ctx, op, key, body) })
		if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
			return fmt.Errorf("%w: %s is failing: circuit open, nothing sent", unknown(ports.ErrGatewayNotReached), c.name)
		}
		if err == nil || !unanswered(err) || ctx.Err() != nil {
			break
		}
		mayHaveActed = mayHaveActed || errors.Is(err, ports.ErrGatewayTransient)
	}
	if unanswered(err) && mayHaveActed && !errors.Is(err, ports.ErrGatewayTransient) {
		//nolint:errorlint // told, not wrapped: an earlier attempt may have reached it, so it is not "not reached"
		return fmt.Errorf("%w: %v", ports.ErrGatewayTransient, err)
	}
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(result, out); err != nil {
		return fmt.Errorf("%w: %s %s: the result is not the protocol's: %w", ports.ErrGatewayTransient, c.name, op, err)
	}
	return nil
}

// once is one attempt: the result's raw JSON, or the classified error.
func (c *client) once(ctx context.Context, op, key string, body []byte) ([]byte, error) {
	transient := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s %s: %s", ports.ErrGatewayTransient, c.name, op, fmt.Sprintf(format, a...))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.URL+"/"+op, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %s %s: %w", ports.ErrGatewayFailed, c.name, op, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.cfg.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.Token)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := c.cfg.HTTP.Do(req)
	var opErr *net.OpError
	switch {
	case errors.As(err, &opErr) && opErr.Op == "dial":
		//nolint:errorlint // told, not wrapped: a dial error's own deadline is not a context's
		return nil, fmt.Errorf("%w: %s %s: no connection: %v", ports.ErrGatewayNotReached, c.name, op, opErr.Err)
	case err != nil:
		return nil, transient("no answer: %v", errors.Unwrap(err))
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	switch {
	case err != nil:
		return nil, transient("the answer was cut: %v", err)
	case len(raw) > maxAnswer:
		return nil, transient("the answer is larger than %d bytes", maxAnswer)
	case resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode == http.StatusTooEarly ||
		resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return nil, transient("HTTP %d", resp.StatusCode)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%w: %s %s: HTTP %d", ports.ErrGatewayFailed, c.name, op, resp.StatusCode)
	}
	var answer struct {
		Result json.RawMessage `json:"result"`
		Error  *errorBody      `json:"error"`
	}
	if err := json.Unmarshal(raw, &answer); err != nil {
		return nil, transient("the answer is not the protocol's JSON")
	}
	if answer.Error != nil {
		kind, ok := kinds[answer.Error.Kind]
		if !ok {
			return nil, transient("unknown error kind %q", answer.Error.Kind)
		}
		return nil, fmt.Errorf("%w: %s", kind, answer.Error.Message)
	}
	if len(answer.Result) == 0 || string(answer.Result) == "null" {
		return nil, transient("the answer has neither a result nor an error")
	}
	return answer.Result, nil
}

// unanswered reports an attempt that got no answer: its outcome is unknown, or it never
// reached the system. Either may be sent again, and counts against the system's breaker.
func unanswered(err error) bool {
	return errors.Is(err, ports.ErrGatewayTransient) || errors.Is(err, ports.ErrGatewayNotReached)
}
