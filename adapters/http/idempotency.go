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
}

// written is a write's answer before it is sent: the use case's Reply with its result rendered
// for the envelope, and the replay mark, the id to echo and an answer stored as it was sent as
// the use case returned them.
type written = application.Reply[any]

// rendered is the use case's reply, and its refusal or error, with the result rendered for the
// envelope by render; a reply without a result (a refusal, an answer stored as it was sent)
// renders nothing.
func rendered[R, T any](reply application.Reply[R], err error, render func(R) T) (written, error) {
	w := written{Replayed: reply.Replayed, ID: reply.ID, Sent: reply.Sent}
	if err == nil && reply.Sent == nil {
		w.Result = render(reply.Result)
	}
	return w, err
}

func (w write) ctx() context.Context    { return w.c.Request().Context() }
func (w write) params() json.RawMessage { return w.req.params }

// call is w's idempotency key: the partner, the envelope id, the endpoint and the keyed
// fingerprints of the params.
func (w write) call() application.Call {
	return application.Call{PartnerID: w.partner.ID, Key: w.req.key, ID: w.req.id, Endpoint: w.path,
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
