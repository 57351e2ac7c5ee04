package http

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// idempotent runs a state-changing call once per (partner, id): a stored answer is replayed
// byte for byte; otherwise the call runs in a request-owned transaction that stores its answer
// (a success or a business error) together with its effects. The transaction's first statement
// claims the id: a duplicate finds the stored answer when its claim conflicts, or, for an
// operation that calls a gateway first, by looking before it starts.
func (s *Server) idempotent(c echo.Context, ep endpoint, partner domain.Partner, req request) error {
	ctx := c.Request().Context()
	fp := fingerprint(ep.path, req.params)
	if ep.access == callsGateway {
		if done, err := s.replay(c, partner, req.id, ep.path, fp, false); done {
			return err
		}
	}
	tctx, scope := s.d.Idempotency.Begin(ctx, ports.IdempotencyRecord{
		PartnerID: partner.ID, Key: req.id, Endpoint: ep.path, Fingerprint: fp, CreatedAt: time.Now(),
	})
	defer scope.Rollback()
	res, err := ep.serve(tctx, partner, req.params)
	if errors.Is(err, ports.ErrDuplicateRequest) {
		scope.Rollback()
		_, err := s.replay(c, partner, req.id, ep.path, fp, true)
		return err
	}
	code, status, msg := 0, http.StatusOK, ""
	if err != nil {
		code, status, msg = s.classify(c, err)
	}
	body := encodeResponse(req.id, res, code, msg)
	if code == 0 || isBusiness(code) {
		if err := scope.Commit(tctx, status, body); err != nil {
			if errors.Is(err, ports.ErrDuplicateRequest) {
				_, err := s.replay(c, partner, req.id, ep.path, fp, true)
				return err
			}
			return s.answer(c, req.id, nil, err)
		}
	}
	c.Set(ctxCode, code)
	return writeJSON(c, status, body)
}

// replay answers from a stored record. It reports whether it answered; after a lost race
// (must) it always answers, with code 9 when the winner's answer is not readable yet.
func (s *Server) replay(c echo.Context, partner domain.Partner, id, endpoint string, fp []byte, must bool) (bool, error) {
	rec, err := s.d.Idempotency.Lookup(c.Request().Context(), partner.ID, id)
	if err != nil {
		return true, s.answer(c, id, nil, err)
	}
	if rec == nil {
		if must {
			return true, s.answer(c, id, nil, ports.ErrRequestInProgress)
		}
		return false, nil
	}
	if rec.Endpoint != endpoint || !bytes.Equal(rec.Fingerprint, fp) {
		return true, s.answer(c, id, nil, &apiError{codeIDReused, http.StatusConflict,
			"request id " + id + " was already used with other params or another endpoint; use a new id"})
	}
	var env struct {
		Error *struct{ Code int } `json:"error"`
	}
	_ = json.Unmarshal(rec.Body, &env)
	if env.Error != nil {
		c.Set(ctxCode, env.Error.Code)
	}
	return true, writeJSON(c, rec.HTTPStatus, rec.Body)
}

// fingerprint identifies an endpoint and its params regardless of key order and spacing.
func fingerprint(endpoint string, params json.RawMessage) []byte {
	var v any
	d := json.NewDecoder(bytes.NewReader(params))
	d.UseNumber()
	canonical := []byte(params)
	if d.Decode(&v) == nil {
		if b, err := json.Marshal(v); err == nil {
			canonical = b
		}
	}
	h := sha256.New()
	h.Write([]byte(endpoint))
	h.Write([]byte{0})
	h.Write(canonical)
	return h.Sum(nil)
}
