package http

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/labstack/echo/v4"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
)

// write is a state-changing call as the edge hands it to its use case: the use case claims
// its envelope id (application.Call), runs, and stores its outcome with its effects; the edge
// opens and commits nothing, and renders the outcome, fresh or replayed, the same way.
type write struct {
	s       *Server
	c       echo.Context
	partner domain.Partner
	path    string
	req     request
	// echo is the id the answer echoes: this request's as sent, or, on a replay, the first
	// request's as it sent it.
	echo *string
	// replayed is set when the answer is a stored one: it is sent with Idempotent-Replayed.
	replayed *bool
}

func (w write) ctx() context.Context    { return w.c.Request().Context() }
func (w write) params() json.RawMessage { return w.req.params }

// call is w's idempotency key: the partner, the envelope id, the endpoint and the keyed
// fingerprints of the params.
func (w write) call() application.Call {
	return application.Call{PartnerID: w.partner.ID, Key: w.req.key, ID: w.echo, Replayed: w.replayed, Endpoint: w.path,
		Fingerprints: application.Fingerprints(w.s.d.Sealer, w.path, canonicalJSON(w.req.params))}
}

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
