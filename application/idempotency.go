package application

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/ports"
)

// Request is a state-changing call as its idempotency sees it: the partner's key (the
// envelope id), what was asked (endpoint and a fingerprint of the params), and how the
// outcome is answered. The same key, endpoint and params again get the stored answer, byte
// for byte; the same key with anything else is ErrRequestIDReused.
type Request[R any] struct {
	PartnerID uuid.UUID
	Key       string
	Endpoint  string
	// Fingerprints are keyed hashes of the endpoint and params (DESIGN §5: never a plain hash,
	// which trying every PAN or SMS code would reverse): the first, under the current data key,
	// is stored; a stored record matches any of them (a retired key's, an older form's).
	Fingerprints [][]byte
	// Render turns the use case's outcome, its result or the error that refused it, into the
	// answer the partner gets. The edge that took the call owns the answer's form; the use case
	// stores what Render returns in the transaction of its effects.
	Render func(result R, err error) Answer
}

// Answer is what a partner is answered: the envelope code (0 for a success) and the body, as
// sent.
type Answer struct {
	Code int
	Body []byte
}

// stored reports whether the answer is kept and replayed: a success or a business refusal
// (code 1000 and up). Validation and system errors are not, so a corrected or later retry with
// the same id runs.
func (a Answer) stored() bool { return a.Code == 0 || a.Code >= 1000 }

// ErrRequestIDReused is a request id used before with other params or another endpoint.
var ErrRequestIDReused = errors.New("request id was already used with other params or another endpoint; use a new id")

// requests is the idempotency step of every state-changing use case.
type requests struct {
	uow   ports.UnitOfWork
	store ports.IdempotencyStore
}

// claimFor is req's claim on its key.
func claimFor[R any](req Request[R]) ports.IdempotencyRecord {
	var fp []byte
	if len(req.Fingerprints) > 0 {
		fp = req.Fingerprints[0]
	}
	return ports.IdempotencyRecord{PartnerID: req.PartnerID, Key: req.Key, Endpoint: req.Endpoint,
		Fingerprint: fp, CreatedAt: time.Now()}
}

// sameRequest says whether rec was claimed by req: the same endpoint and params.
func sameRequest[R any](rec *ports.IdempotencyRecord, req Request[R]) bool {
	if rec.Endpoint != req.Endpoint {
		return false
	}
	for _, fp := range req.Fingerprints {
		if bytes.Equal(rec.Fingerprint, fp) {
			return true
		}
	}
	return false
}

// once runs a use case whose effects fit one transaction: it runs fn and, with fn's effects,
// claims the key with its answer, in one insert at the end. A duplicate running at the same
// time waits on that insert until the first commits, and its transaction is rolled back: it
// gets the stored answer.
func once[R any](ctx context.Context, rq requests, req Request[R], fn func(ctx context.Context) (R, error)) Answer {
	return finish(ctx, rq, req, false, fn)
}

// finish runs the transaction that ends a request: it runs fn and stores the answer with fn's
// effects, claiming the key with it, or, when resume is set, under the claim an earlier step
// of the same request took (locked first). A refusal rolls fn's effects back, unless fn kept
// them (keep), and stores its answer alone; an error that is not stored (validation, system)
// leaves nothing behind.
func finish[R any](ctx context.Context, rq requests, req Request[R], resume bool, fn func(ctx context.Context) (R, error)) Answer {
	var ans Answer
	err := rq.uow.Do(ctx, func(ctx context.Context) error {
		if resume {
			rec, err := rq.store.Resume(ctx, req.PartnerID, req.Key)
			if err != nil {
				return err
			}
			if rec.Answered { // another run of this request ended it first
				ans = Answer{Code: rec.Code, Body: rec.Body}
				return errAnswered
			}
		}
		res, err := fn(ctx)
		ans = req.Render(res, err)
		var k keptError
		if err != nil && (!errors.As(err, &k) || !ans.stored()) {
			return err
		}
		if resume {
			return rq.store.Answer(ctx, req.PartnerID, req.Key, ans.Code, ans.Body)
		}
		rec := claimFor(req)
		rec.Answered, rec.Code, rec.Body = true, ans.Code, ans.Body
		return rq.store.Claim(ctx, rec)
	})
	switch {
	case err == nil, errors.Is(err, errAnswered):
		return ans
	case errors.Is(err, ports.ErrDuplicateRequest):
		return replay(ctx, rq, req)
	}
	// A refusal, from fn or from the commit (a constraint the store checks there), rolled
	// fn's effects back; its answer is stored alone.
	var zero R
	var k keptError
	if ans = req.Render(zero, err); ans.stored() && !errors.As(err, &k) {
		return finish(ctx, rq, req, resume, func(context.Context) (R, error) { return zero, keep(err) })
	}
	return ans
}

// errAnswered stops a resumed request's last step that another run of it has ended.
var errAnswered = errors.New("request answered by another run")

// keptError is a refusal whose effects are kept, committed with its answer (a wrong SMS code
// counts an attempt).
type keptError struct{ error }

func (k keptError) Unwrap() error { return k.error }

// keep marks err as a refusal whose effects commit with its answer.
func keep(err error) error { return keptError{err} }

// replay answers a request whose key was claimed before: what prior finds, or
// ErrRequestInProgress while the claim has no answer.
func replay[R any](ctx context.Context, rq requests, req Request[R]) Answer {
	if ans, done, _ := prior(ctx, rq, req); done {
		return ans
	}
	var zero R
	return req.Render(zero, ports.ErrRequestInProgress)
}

// prior is what a use case that calls a gateway looks at first, so that a replay never calls
// the gateway again: the stored answer (done), or whether an earlier run claimed the key and
// stopped before its last step (resume).
func prior[R any](ctx context.Context, rq requests, req Request[R]) (ans Answer, done, resume bool) {
	rec, err := rq.store.Lookup(ctx, req.PartnerID, req.Key)
	var zero R
	switch {
	case err != nil:
		return req.Render(zero, err), true, false
	case rec == nil:
		return Answer{}, false, false
	case !sameRequest(rec, req):
		return req.Render(zero, ErrRequestIDReused), true, false
	case !rec.Answered:
		return Answer{}, false, true
	}
	return Answer{Code: rec.Code, Body: rec.Body}, true, false
}

// refuse answers req with err, a refusal found before any effect: a business refusal is
// claimed and stored as the answer, anything else is only answered.
func refuse[R any](ctx context.Context, rq requests, req Request[R], err error) Answer {
	return once(ctx, rq, req, func(context.Context) (R, error) {
		var zero R
		return zero, keep(err)
	})
}

// begin runs the first step of a request that ends after a gateway call (finish with resume
// ends it): one transaction claims the key and runs fn, whose effects commit with the claim
// and no answer yet (done false). A refusal from fn is the answer (done true): stored alone,
// or with fn's effects when fn kept them (keep). A duplicate whose run claimed the key first
// gets that run's answer, or, while it has none, goes on from the gateway call too (done
// false): the gateway answers the same key the same way, and finish stores one answer.
func begin[R any](ctx context.Context, rq requests, req Request[R], fn func(ctx context.Context) error) (ans Answer, done bool) {
	err := rq.uow.Do(ctx, func(ctx context.Context) error {
		if err := rq.store.Claim(ctx, claimFor(req)); err != nil {
			return err
		}
		err := fn(ctx)
		var k keptError
		if errors.As(err, &k) {
			var zero R
			if ans = req.Render(zero, err); ans.stored() {
				done = true
				return rq.store.Answer(ctx, req.PartnerID, req.Key, ans.Code, ans.Body)
			}
		}
		return err
	})
	switch {
	case err == nil:
		return ans, done
	case errors.Is(err, ports.ErrDuplicateRequest):
		ans, done, _ = prior(ctx, rq, req)
		return ans, done
	}
	return refuse(ctx, rq, req, err), true
}
