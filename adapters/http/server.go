// Package http is tiyin's HTTP edge: the JSON envelope on every endpoint and every error,
// API-key authentication, idempotent replay of state-changing calls, and the mapping of
// errors to codes.
package http

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"go.uber.org/zap"

	"github.com/tiyin/tiyin/adapters/observe"
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// OpenAPI is the API document, served at /openapi.yaml.
//
//go:embed openapi.yaml
var OpenAPI []byte

// Config switches parts of the edge.
type Config struct {
	// Sandbox exposes the /sandbox/* endpoints.
	Sandbox bool
	// RateLimit is each partner's requests per second (bursts of twice that); 0 = no limit.
	RateLimit int
}

// Deps are what the edge calls.
type Deps struct {
	App         *application.App
	Idempotency ports.IdempotencyStore
	Clock       ports.Clock
	Log         *zap.Logger
	// Ready reports whether the service can take traffic (/readyz).
	Ready ReadyFunc
	// Metrics records requests; nil records nothing and serves no /metrics.
	Metrics *observe.Metrics
}

// Server is the echo application.
type Server struct {
	e     *echo.Echo
	d     Deps
	cfg   Config
	limit *limiter
	// routes are the metrics labels of the registered routes, "METHOD /path".
	routes map[string]bool
}

const (
	ctxPartner = "tiyin.partner"
	ctxID      = "tiyin.id"
	ctxCode    = "tiyin.code"
)

// publicPaths need no API key.
var publicPaths = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true, "/openapi.yaml": true,
	"/docs": true, "/docs/redoc.standalone.js": true}

// New builds the server and its routes.
func New(d Deps, cfg Config) *Server {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	s := &Server{e: e, d: d, cfg: cfg, limit: newLimiter(cfg.RateLimit)}
	e.HTTPErrorHandler = s.httpError
	e.Use(s.accessLog, s.recoverPanic, s.authenticate, s.rateLimit)
	e.GET("/healthz", func(c echo.Context) error { return c.String(http.StatusOK, "ok\n") })
	e.GET("/readyz", s.readyz)
	if d.Metrics != nil {
		e.GET("/metrics", echo.WrapHandler(d.Metrics.Handler()))
	}
	e.GET("/openapi.yaml", func(c echo.Context) error { return c.Blob(http.StatusOK, "application/yaml", OpenAPI) })
	s.docsRoutes(e)
	for _, ep := range s.endpoints() {
		e.Add(ep.method, ep.path, s.handle(ep))
	}
	s.routes = map[string]bool{}
	for _, r := range e.Routes() {
		s.routes[r.Method+" "+r.Path] = true
	}
	return s
}

// Handler returns the HTTP handler.
func (s *Server) Handler() http.Handler { return s.e }

// endpoint is one API operation.
type endpoint struct {
	method, path string
	access       access
	serve        func(ctx context.Context, p domain.Partner, params json.RawMessage) (any, error)
}

// access is what an operation does to state.
type access int

const (
	// reads changes nothing.
	reads access = iota
	// writes changes state, idempotent on the envelope id: its transaction starts by claiming
	// the id, and a stored answer is found when that claim conflicts (one round trip less for
	// every first request than looking first).
	writes
	// callsGateway is a write that calls a gateway before its transaction: a stored answer is
	// looked up first, so a replay never calls the gateway again.
	callsGateway
)

func (s *Server) endpoints() []endpoint {
	eps := []endpoint{
		{http.MethodPost, "/microloans/applications/pre-scoring/register", writes, s.registerApplication},
		{http.MethodPost, "/microloans/applications/cancel", writes, s.cancelApplication},
		{http.MethodPost, "/microloans/applications/verify", callsGateway, s.verifyApplication},
		{http.MethodPost, "/microloans/applications/issue", writes, s.issueApplication},
		{http.MethodPost, "/microloans/applications/info", reads, s.getApplication},
		{http.MethodPost, "/transfers/account-to-card/create", callsGateway, s.createTransfer},
		{http.MethodPost, "/transfers/account-to-card/confirm", callsGateway, s.confirmTransfer},
		{http.MethodPost, "/transfers/check-status", reads, s.checkTransfer},
		{http.MethodPost, "/microloans/info", reads, s.getLoan},
		{http.MethodPost, "/microloans/schedule", reads, s.getSchedule},
		{http.MethodPost, "/microloans/payments", reads, s.listPayments},
		{http.MethodPost, "/repayment/loans/check", writes, s.checkRepayment},
		{http.MethodPost, "/repayment/loans/pay", callsGateway, s.payRepayment},
		{http.MethodPost, "/repayment/loans/status", reads, s.getRepayment},
		{http.MethodPost, "/cards/order", writes, s.orderCard},
		{http.MethodPost, "/cards/order/info", reads, s.getCardOrder},
		{http.MethodPost, "/cards/status", reads, s.getCardStatus},
		{http.MethodPut, "/cards/status", callsGateway, s.changeCardStatus},
		{http.MethodPost, "/cards/attach", callsGateway, s.attachCard},
		{http.MethodPost, "/cards/attach/confirm", callsGateway, s.confirmCard},
	}
	if s.cfg.Sandbox {
		eps = append(eps,
			endpoint{http.MethodPost, "/sandbox/clock/advance", writes, s.advanceClock},
			endpoint{http.MethodPost, "/sandbox/sms/outbox", reads, s.smsOutbox},
			endpoint{http.MethodPost, "/sandbox/applications/verification/complete", writes, s.completeVerification},
		)
	}
	return eps
}

// envelopeIDKey carries the envelope id to the handlers that record it.
type envelopeIDKey struct{}

// envelopeID returns the request's envelope id (a UUID, checked by readRequest).
func envelopeID(ctx context.Context) uuid.UUID {
	id, _ := ctx.Value(envelopeIDKey{}).(string)
	u, _ := uuid.Parse(id)
	return u
}

func (s *Server) handle(ep endpoint) echo.HandlerFunc {
	return func(c echo.Context) error {
		req, err := readRequest(c)
		if req.id != "" {
			c.Set(ctxID, req.id)
			c.SetRequest(c.Request().WithContext(context.WithValue(c.Request().Context(), envelopeIDKey{}, req.id)))
		}
		if err != nil {
			return s.answer(c, req.id, nil, err)
		}
		partner, _ := c.Get(ctxPartner).(domain.Partner)
		if ep.access == reads {
			res, err := ep.serve(c.Request().Context(), partner, req.params)
			return s.answer(c, req.id, res, err)
		}
		return s.idempotent(c, ep, partner, req)
	}
}

// answer writes a result or an error envelope.
func (s *Server) answer(c echo.Context, id string, res any, err error) error {
	code, status, msg := 0, http.StatusOK, ""
	if err != nil {
		code, status, msg = s.classify(c, err)
	}
	c.Set(ctxCode, code)
	return writeJSON(c, status, encodeResponse(id, res, code, msg))
}

// classify maps err and logs the unexpected ones with the request id.
func (s *Server) classify(c echo.Context, err error) (int, int, string) {
	code, status, msg := classify(err)
	if code == codeInternal || code == codeUnavailable {
		id, _ := c.Get(ctxID).(string)
		s.d.Log.Error("request failed", zap.String("request_id", id), zap.String("path", c.Path()), zap.Error(err))
	}
	return code, status, msg
}

// httpError answers echo's own errors (unknown path, wrong method) in the envelope.
func (s *Server) httpError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		switch he.Code {
		case http.StatusNotFound:
			err = &apiError{codeNoRoute, http.StatusNotFound, "unknown path " + c.Request().URL.Path}
		case http.StatusMethodNotAllowed:
			err = &apiError{codeNoRoute, http.StatusMethodNotAllowed, "method " + c.Request().Method + " is not allowed on " + c.Request().URL.Path}
		case http.StatusRequestEntityTooLarge:
			err = malformed("request body is larger than 64 KiB")
		}
	}
	_ = s.answer(c, "", nil, err)
}

func (s *Server) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if c.Request().Method == http.MethodGet && publicPaths[c.Request().URL.Path] {
			return next(c)
		}
		h := c.Request().Header.Get(echo.HeaderAuthorization)
		key, ok := strings.CutPrefix(h, "Bearer ")
		if !ok {
			key = ""
		}
		p, err := s.d.App.Authenticate.Handle(c.Request().Context(), strings.TrimSpace(key))
		if err != nil {
			return s.refuse(c, err)
		}
		c.Set(ctxPartner, p)
		return next(c)
	}
}

// refuse answers a request turned away before its body was read, echoing its id if it has one.
func (s *Server) refuse(c echo.Context, err error) error {
	id := peekID(c)
	c.Set(ctxID, id)
	return s.answer(c, id, nil, err)
}

// peekID reads the envelope id of a request refused before its body was read, so the error
// can echo it.
func peekID(c echo.Context) string {
	body, err := io.ReadAll(io.LimitReader(c.Request().Body, maxBody))
	if err != nil {
		return ""
	}
	c.Request().Body = io.NopCloser(bytes.NewReader(body))
	var env struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(body, &env) != nil || !isUUID(env.ID) {
		return ""
	}
	return env.ID
}

func (s *Server) recoverPanic(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				id, _ := c.Get(ctxID).(string)
				s.d.Log.Error("panic", zap.String("request_id", id), zap.String("path", c.Path()),
					zap.Any("panic", r), zap.ByteString("stack", debug.Stack()))
				if !c.Response().Committed {
					c.Set(ctxCode, codeInternal)
					err = writeJSON(c, http.StatusInternalServerError, encodeResponse(id, nil, codeInternal, "internal error"))
				}
			}
		}()
		return next(c)
	}
}

// accessLog writes one line per request: request id, partner, endpoint, code and latency; no
// body, so no personal data.
func (s *Server) accessLog(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		if publicPaths[c.Request().URL.Path] {
			return nil
		}
		took := time.Since(start)
		id, _ := c.Get(ctxID).(string)
		code, _ := c.Get(ctxCode).(int)
		s.d.Metrics.Request(s.routeOf(c), c.Response().Status, code, took)
		partner, _ := c.Get(ctxPartner).(domain.Partner)
		s.d.Log.Info("request",
			zap.String("request_id", id),
			zap.String("partner", partner.Name),
			zap.String("method", c.Request().Method),
			zap.String("endpoint", c.Request().URL.Path),
			zap.Int("status", c.Response().Status),
			zap.Int("code", code),
			zap.Duration("latency", took),
		)
		return nil
	}
}

// routeOf is the endpoint label of a request: its route, or "unmatched" for an unknown path,
// so that random paths cannot grow the metrics without bound.
func (s *Server) routeOf(c echo.Context) string {
	if key := c.Request().Method + " " + c.Path(); s.routes[key] {
		return key
	}
	return "unmatched"
}

func (s *Server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if s.d.Ready != nil {
		if err := s.d.Ready(ctx); err != nil {
			return c.String(http.StatusServiceUnavailable, "not ready: "+err.Error()+"\n")
		}
	}
	return c.String(http.StatusOK, "ready\n")
}
