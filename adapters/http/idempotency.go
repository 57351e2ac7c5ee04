package http

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
)

// write is a state-changing call as the edge hands it to its use case: the use case claims
// its envelope id, runs, and stores the answer with its effects (application.Request); the
// edge opens and commits nothing.
type write struct {
	s       *Server
	c       echo.Context
	partner domain.Partner
	path    string
	req     request
}

func (w write) ctx() context.Context    { return w.c.Request().Context() }
func (w write) params() json.RawMessage { return w.req.params }

// requestOf is w's idempotency request for a use case whose result is an R; result maps it to
// the wire's result object. The answer is rendered here, in the form partners read, and the
// use case stores it as rendered, so a replay is the same bytes.
func requestOf[R any](w write, result func(R) any) application.Request[R] {
	return application.Request[R]{
		PartnerID: w.partner.ID, Key: w.req.key, Endpoint: w.path, Fingerprints: application.Fingerprints(w.s.d.Sealer, w.path, canonicalJSON(w.req.params)),
		Render: func(res R, err error) application.Answer {
			if err != nil {
				code, _, msg := w.s.classify(w.c, err)
				return application.Answer{Code: code, Body: encodeResponse(w.req.id, nil, code, msg)}
			}
			return application.Answer{Body: encodeResponse(w.req.id, result(res), 0, "")}
		},
	}
}

// statusOf is the HTTP status of an answer with that code, from the code table: a stored
// answer keeps its code, not a status.
func statusOf(code int) int {
	if code == 0 {
		return http.StatusOK
	}
	if status, ok := httpStatus[code]; ok {
		return status
	}
	return http.StatusInternalServerError
}

var httpStatus = func() map[int]int {
	m := make(map[int]int, len(ErrorCodes))
	for _, c := range ErrorCodes {
		status, err := strconv.Atoi(strings.SplitN(c.HTTP, "/", 2)[0])
		if err != nil {
			status = http.StatusInternalServerError // codes reported only in lastTask
		}
		m[c.Code] = status
	}
	return m
}()

// canonicalJSON is params with its keys sorted and no spacing; params that do not decode are
// taken as they are.
func canonicalJSON(params json.RawMessage) []byte {
	var v any
	d := json.NewDecoder(bytes.NewReader(params))
	d.UseNumber()
	if d.Decode(&v) == nil {
		if b, err := json.Marshal(v); err == nil {
			return b
		}
	}
	return params
}
