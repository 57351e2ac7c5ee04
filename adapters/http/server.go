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
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"go.uber.org/fx"
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

// Deps are what the edge calls; fx provides them as they are declared here (Module).
type Deps struct {
	fx.In
	App   *application.App
	Clock ports.Clock
	Log   *zap.Logger
	// Ready reports whether the service can take traffic (/readyz).
	Ready ReadyFunc
	// Sealer keys the idempotency fingerprints under the data key.
	Sealer ports.Sealer
	// Metrics records requests (the admin listener serves them); nil records nothing.
	Metrics *observe.Metrics `optional:"true"`
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

// publicPaths need no API key. A browser asks for /favicon.ico on its own: it gets the 404
// any unknown path gets, not a demand for a key.
var publicPaths = map[string]bool{"/healthz": true, "/readyz": true, "/openapi.yaml": true,
	"/docs": true, "/docs/": true, "/docs/redoc.standalone.js": true, "/docs/try": true, "/docs/try/": true, "/docs/elements.web-components.min.js": true,
	"/docs/elements.styles.min.css": true, "/favicon.ico": true}

// public routes a page that needs no key for GET and for HEAD, which answers the same headers
// without the body (a load balancer's or a monitor's check).
func public(e *echo.Echo, path string, h echo.HandlerFunc) {
	e.GET(path, h)
	e.HEAD(path, h)
}

// New builds the server and its routes.
func New(d Deps, cfg Config) *Server {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	s := &Server{e: e, d: d, cfg: cfg, limit: newLimiter(cfg.RateLimit)}
	e.HTTPErrorHandler = s.httpError
	e.Use(noSniff, s.accessLog, s.recoverPanic, s.authenticate, s.rateLimit)
	public(e, "/healthz", func(c echo.Context) error { return c.String(http.StatusOK, "ok\n") })
	public(e, "/readyz", s.readyz)
	public(e, "/openapi.yaml", func(c echo.Context) error { return c.Blob(http.StatusOK, "application/yaml", OpenAPI) })
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

// endpoint is one API operation: a read (serve), which changes nothing and stores nothing, or
// a write, idempotent on the envelope id. A write's params that do not validate are answered
// by the edge (its error); anything else is the use case's answer.
type endpoint struct {
	method, path string
	serve        func(ctx context.Context, p domain.Partner, params json.RawMessage) (any, error)
	write        func(w write) (written, error)
}

func reads(method, path string, serve func(context.Context, domain.Partner, json.RawMessage) (any, error)) endpoint {
	return endpoint{method: method, path: path, serve: serve}
}

func writes(method, path string, write func(write) (written, error)) endpoint {
	return endpoint{method: method, path: path, write: write}
}

func (s *Server) endpoints() []endpoint {
	eps := []endpoint{
		writes(http.MethodPost, "/microloans/applications/pre-scoring/register", s.registerApplication),
		writes(http.MethodPost, "/microloans/applications/cancel", s.cancelApplication),
		writes(http.MethodPost, "/microloans/applications/verify", s.verifyApplication),
		writes(http.MethodPost, "/microloans/applications/issue", s.issueApplication),
		reads(http.MethodPost, "/microloans/applications/info", s.getApplication),
		reads(http.MethodPost, "/microloans/applications/find", s.findApplication),
		writes(http.MethodPost, "/transfers/account-to-card/create", s.createTransfer),
		writes(http.MethodPost, "/transfers/account-to-card/confirm", s.confirmTransfer),
		reads(http.MethodPost, "/transfers/check-status", s.checkTransfer),
		reads(http.MethodPost, "/microloans/info", s.getLoan),
		reads(http.MethodPost, "/microloans/schedule", s.getSchedule),
		reads(http.MethodPost, "/microloans/payments", s.listPayments),
		writes(http.MethodPost, "/repayment/loans/check", s.checkRepayment),
		writes(http.MethodPost, "/repayment/loans/pay", s.payRepayment),
		reads(http.MethodPost, "/repayment/loans/status", s.getRepayment),
		writes(http.MethodPost, "/cards/order", s.orderCard),
		reads(http.MethodPost, "/cards/order/info", s.getCardOrder),
		reads(http.MethodPost, "/cards/status", s.getCardStatus),
		writes(http.MethodPut, "/cards/status", s.changeCardStatus),
		writes(http.MethodPost, "/cards/attach", s.attachCard),
		writes(http.MethodPost, "/cards/attach/confirm", s.confirmCard),
		reads(http.MethodPost, "/events/list", s.listEvents),
	}
	if s.cfg.Sandbox {
		eps = append(eps,
			writes(http.MethodPost, "/sandbox/clock/advance", s.advanceClock),
			reads(http.MethodPost, "/sandbox/sms/outbox", s.smsOutbox),
			writes(http.MethodPost, "/sandbox/applications/verification/complete", s.completeVerification),
			writes(http.MethodPost, "/sandbox/events/test", s.sendTestEvent),
			writes(http.MethodPost, "/sandbox/reset", s.resetSandbox),
		)
	}
	return eps
}

func (s *Server) handle(ep endpoint) echo.HandlerFunc {
	return func(c echo.Context) error {
		req, err := readRequest(c)
		if req.id != "" {
			c.Set(ctxID, req.id)
		}
		if err != nil {
			return s.answer(c, req.id, nil, err)
		}
		partner, _ := c.Get(ctxPartner).(domain.Partner)
		if ep.write == nil {
			res, err := ep.serve(c.Request().Context(), partner, req.params)
			return s.answer(c, req.id, res, err)
		}
		// The background work a write causes carries its id on (ports.RequestID); a read
		// causes none, so it pays nothing for it.
		c.SetRequest(c.Request().WithContext(ports.WithRequestID(c.Request().Context(), req.id)))
		out, err := ep.write(write{s: s, c: c, partner: partner, path: ep.path, req: req})
		if out.Replayed {
			c.Response().Header().Set(headerReplayed, "true")
		}
		// A replay echoes the id as the first request wrote it.
		id := req.id
		if out.ID != "" {
			id = out.ID
		}
		if out.Sent != nil {
			return s.answerAsSent(c, id, out.Sent)
		}
		return s.answer(c, id, out.Result, err)
	}
}

// answerAsSent sends an answer stored as it was sent, before outcomes were stored, as it is.
func (s *Server) answerAsSent(c echo.Context, id string, sent *ports.SentAnswer) error {
	if id != "" {
		c.Response().Header().Set(headerRequestID, id)
	}
	c.Set(ctxCode, sent.Code)
	return writeJSON(c, statusOf(sent.Code), sent.Body)
}

// answer writes a result or an error envelope.
func (s *Server) answer(c echo.Context, id string, res any, err error) error {
	if id != "" {
		c.Response().Header().Set(headerRequestID, id)
	}
	code, status, msg := 0, http.StatusOK, ""
	if err != nil {
		code, status, msg = s.classify(c, err)
	}
	c.Set(ctxCode, code)
	return writeJSON(c, status, encodeResponse(id, res, code, msg))
}

// headerReplayed marks an answer that is a replay of a stored one, as Stripe's API does: the
// same envelope id again gets the first answer, byte for byte, with this header.
const headerReplayed = "Idempotent-Replayed"

// headerRequestID answers the request's id (its envelope id), as the log lines of the request
// and of the background work it caused name it (request_id).
const headerRequestID = "X-Request-Id"

// classify maps err and logs the unexpected ones with the request id: an internal error at
// error level; a gateway or the database unavailable (code 10, which the partner retries) at
// warn level.
func (s *Server) classify(c echo.Context, err error) (int, int, string) {
	code, status, msg := classify(err)
	if code == codeInternal || code == codeUnavailable {
		id, _ := c.Get(ctxID).(string)
		log := s.d.Log.Error
		if code == codeUnavailable {
			log = s.d.Log.Warn
		}
		log("request failed", zap.String("request_id", id), zap.String("path", c.Path()), zap.Int("code", code), zap.Error(err))
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
		if m := c.Request().Method; (m == http.MethodGet || m == http.MethodHead) && publicPaths[c.Request().URL.Path] {
			return next(c)
		}
		h := c.Request().Header.Get(echo.HeaderAuthorization)
		key, ok := strings.CutPrefix(h, "Bearer ")
		if !ok {
			key = ""
		}
		// The peer's address, not a forwarded header a caller could make up.
		addr, _, _ := net.SplitHostPort(c.Request().RemoteAddr)
		p, err := s.d.App.Partners.Authenticate.Handle(c.Request().Context(), strings.TrimSpace(key), addr)
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

// noSniff tells browsers to take every answer as the type it names (a scanner's first check).
// Neither echo nor net/http names itself in a Server header.
func noSniff(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Set(echo.HeaderXContentTypeOptions, "nosniff")
		return next(c)
	}
}

// accessLog writes one line per request (request id, partner, method, endpoint, HTTP status,
// code and latency) and counts it in the metrics; no body, so no personal data. The public
// pages (health, readiness, the document) are neither logged nor counted.
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
			// The cause is for the operator's log, not for whoever asks.
			s.d.Log.Warn("not ready", zap.Error(err))
			return c.String(http.StatusServiceUnavailable, "not ready\n")
		}
	}
	return c.String(http.StatusOK, "ready\n")
}
