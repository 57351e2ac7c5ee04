package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/client/internal/api"
)

// Client calls tiyin's partner API as one partner. Its fields group the calls by resource,
// one per tag of the API document: c.Applications.Register, c.Loans.Schedule,
// c.Repayments.Pay, and so on. A Client is safe for concurrent use; make one and share it.
type Client struct {
	// Applications are microloan applications: pre-scoring, the offer, issuance, cancel, info.
	Applications *Applications
	// Transfers move a loan's money from the client's demand account to a card.
	Transfers *Transfers
	// Loans read an issued loan, its schedule and the payments made.
	Loans *Loans
	// Repayments check what a loan owes, pay it with a card debit and read a payment.
	Repayments *Repayments
	// Cards attach a client's card with an SMS code, and read and change a card's status.
	Cards *Cards
	// CardOrders order a card from the bank's issuer and follow the order.
	CardOrders *CardOrders
	// Events list the partner's events, the same the webhook is sent.
	Events *Events
	// Sandbox holds the test controls of a sandbox server: its clock, SMS outbox, a test
	// event and the call centre's side of a phone verification.
	Sandbox *Sandbox

	api       *api.Client
	key       string
	userAgent string
	retry     Retry
}

// Option sets up a Client in New.
type Option func(*settings) error

// settings are what the options set, before New builds the Client from them.
type settings struct {
	http      *http.Client
	timeout   time.Duration
	userAgent string
	retry     Retry
}

// WithHTTPClient sends the calls through h (its transport, proxy, TLS settings) instead of a
// client of New's own.
func WithHTTPClient(h *http.Client) Option {
	return func(s *settings) error {
		if h == nil {
			return errors.New("tiyin client: WithHTTPClient(nil)")
		}
		s.http = h
		return nil
	}
}

// defaultTimeout bounds an attempt when no option sets a bound.
const defaultTimeout = 30 * time.Second

// WithTimeout bounds each attempt of a call: an attempt that times out is repeated as any
// other that got no answer (see Retry). Without it an attempt has WithHTTPClient's client's
// Timeout, or 30 s when that is none. The context given to a call bounds the call, every
// attempt and wait included.
func WithTimeout(d time.Duration) Option {
	return func(s *settings) error {
		if d <= 0 {
			return fmt.Errorf("tiyin client: WithTimeout(%s): must be positive", d)
		}
		s.timeout = d
		return nil
	}
}

// WithUserAgent names the partner's software in the User-Agent of every call, before this
// package's own name and version ("acme-loans/2.1 tiyin-go/0.2.0"): the bank's logs then
// tell the partner's releases apart.
func WithUserAgent(ua string) Option {
	return func(s *settings) error {
		s.userAgent = strings.TrimSpace(ua)
		return nil
	}
}

// WithRetry replaces the default retry policy (Retry{}: 5 attempts from 200 ms doubling to
// 5 s). Retry{Attempts: 1} sends each call once.
func WithRetry(r Retry) Option {
	return func(s *settings) error {
		if r.Attempts < 0 || r.First < 0 || r.Max < 0 {
			return fmt.Errorf("tiyin client: WithRetry(%+v): negative", r)
		}
		s.retry = r
		return nil
	}
}

// New makes a client of the tiyin server at baseURL ("https://tiyin.bank.uz", or
// "http://localhost:8080" for `make run`'s sandbox) that sends key, the partner's API key,
// as a bearer token with every call.
func New(baseURL, key string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("tiyin client: base URL %q: want http(s)://host[:port][/path]", baseURL)
	}
	key = strings.TrimSpace(key)
	if key == "" {
		return nil, errors.New("tiyin client: no API key")
	}
	var s settings
	for _, o := range opts {
		if err := o(&s); err != nil {
			return nil, err
		}
	}
	h := &http.Client{}
	if s.http != nil {
		cp := *s.http // the caller's client stays as it was
		h = &cp
	}
	if s.timeout > 0 {
		h.Timeout = s.timeout
	} else if h.Timeout == 0 {
		h.Timeout = defaultTimeout
	}
	g, err := api.NewClient(strings.TrimRight(baseURL, "/"), api.WithHTTPClient(h))
	if err != nil {
		return nil, fmt.Errorf("tiyin client: %w", err)
	}
	ua := "tiyin-go/" + Version
	if s.userAgent != "" {
		ua = s.userAgent + " " + ua
	}
	c := &Client{api: g, key: key, userAgent: ua, retry: s.retry}
	c.Applications = &Applications{c}
	c.Transfers = &Transfers{c}
	c.Loans = &Loans{c}
	c.Repayments = &Repayments{c}
	c.Cards = &Cards{c}
	c.CardOrders = &CardOrders{c}
	c.Events = &Events{c}
	c.Sandbox = &Sandbox{c}
	return c, nil
}

// CallOption sets up one call.
type CallOption func(*callSettings)

type callSettings struct {
	id uuid.UUID
}

// WithEnvelopeID sends the call with id as its envelope id, tiyin's idempotency key, instead
// of a new random one. Keep the id before a call that moves money and give it again when the
// call's outcome is unknown (the process stopped, every attempt went unanswered): tiyin answers
// the repeat with the first call's answer, or finishes what the first started, so money moves
// once.
func WithEnvelopeID(id UUID) CallOption {
	return func(s *callSettings) { s.id = id }
}

// send is one operation of the generated layer: an api.Client method <Operation>WithBody.
type send func(ctx context.Context, contentType string, body io.Reader, editors ...api.RequestEditorFn) (*http.Response, error)

// maxAnswer bounds an answer read into memory: a page of 100 events is far below it.
const maxAnswer = 16 << 20

// do sends params in a new envelope through op and decodes the answer's result into out,
// repeating the call with the same envelope id while Retryable says a repeat may succeed.
func (c *Client) do(ctx context.Context, op send, params any, out any, opts []CallOption) error {
	cs := callSettings{}
	for _, o := range opts {
		o(&cs)
	}
	if cs.id == uuid.Nil {
		cs.id = uuid.New()
	}
	if params == nil {
		params = struct{}{}
	}
	body, err := json.Marshal(struct {
		ID     uuid.UUID `json:"id"`
		Params any       `json:"params"`
	}{cs.id, params})
	if err != nil {
		return fmt.Errorf("tiyin client: encoding the params: %w", err)
	}
	return c.retry.run(ctx, func() error { return c.once(ctx, op, body, out) })
}

// once sends body one time and reads its answer.
func (c *Client) once(ctx context.Context, op send, body []byte, out any) error {
	resp, err := op(ctx, "application/json", bytes.NewReader(body), c.edit)
	if err != nil {
		return &transportError{err: err}
	}
	defer func() { _ = resp.Body.Close() }()
	where := resp.Request.Method + " " + resp.Request.URL.Path
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return &transportError{where: where, err: err}
	}
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &env); err != nil || (env.Error == nil && resp.StatusCode != http.StatusOK) {
		// Not tiyin's envelope: a proxy's page, or a server that is not tiyin.
		return &statusError{where: where, status: resp.StatusCode}
	}
	if env.Error != nil {
		return &Error{Code: Code(env.Error.Code), Message: env.Error.Message, Status: resp.StatusCode,
			RequestID: resp.Header.Get("X-Request-Id"), Path: resp.Request.URL.Path}
	}
	if err := json.Unmarshal(env.Result, out); err != nil {
		return fmt.Errorf("tiyin client: %s: reading the result: %w", where, err)
	}
	return nil
}

// edit puts the key and the user agent on every request.
func (c *Client) edit(_ context.Context, r *http.Request) error {
	r.Header.Set("Authorization", "Bearer "+c.key)
	r.Header.Set("User-Agent", c.userAgent)
	r.Header.Set("Accept", "application/json")
	return nil
}

// call is one typed call: params in, the result as R.
func call[R any](ctx context.Context, c *Client, op send, params any, opts []CallOption) (*R, error) {
	var r R
	if err := c.do(ctx, op, params, &r, opts); err != nil {
		return nil, err
	}
	return &r, nil
}
