package application

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// Call is a state-changing call as its idempotency sees it: the partner's key (the envelope
// id) and what was asked (endpoint and a fingerprint of the params). The same key, endpoint
// and params again get the stored outcome, the use case's result or refusal; the same key with
// anything else is ErrRequestIDReused.
type Call struct {
	PartnerID uuid.UUID
	// Key is the key in its canonical form (an envelope id in lower case).
	Key string
	// ID, when set, is the key as the caller wrote it: the step stores it with the outcome and,
	// on a replay, sets it to the one the first call wrote, which the edge echoes, so that a
	// replay is the first answer byte for byte.
	ID *string
	// Replayed, when set, is set to true when the outcome returned is a stored one (a replay),
	// which the edge marks (Idempotent-Replayed); a first answer leaves it false.
	Replayed *bool
	Endpoint string
	// Fingerprints are keyed hashes of the endpoint and params (DESIGN §5: never a plain hash,
	// which trying every PAN or SMS code would reverse): the first, under the current data key,
	// is stored; a stored record matches any of them (a retired key's, an older form's).
	Fingerprints [][]byte
}

// ErrRequestIDReused is a request id used before with other params or another endpoint.
var ErrRequestIDReused = errors.New("request id was already used with other params or another endpoint; use a new id")

// requests is the idempotency step of every state-changing use case: it claims the call's key,
// runs the use case in the unit of work, stores the outcome (a result, or a business refusal:
// domain.RefusalName) with its effects, and on a retry returns that outcome again. Nothing is
// rendered here: the edge renders fresh and replayed outcomes alike.
type requests struct {
	uow   ports.UnitOfWork
	store ports.IdempotencyStore
}

// claim is the call's claim on its key.
func (c Call) claim() ports.IdempotencyRecord {
	var fp []byte
	if len(c.Fingerprints) > 0 {
		fp = c.Fingerprints[0]
	}
	return ports.IdempotencyRecord{PartnerID: c.PartnerID, Key: c.Key, Endpoint: c.Endpoint,
		Fingerprint: fp, CreatedAt: time.Now()}
}

// claimed says whether rec was claimed by this call: the same endpoint and params.
func (c Call) claimed(rec *ports.IdempotencyRecord) bool {
	if rec.Endpoint != c.Endpoint {
		return false
	}
	for _, fp := range c.Fingerprints {
		if bytes.Equal(rec.Fingerprint, fp) {
			return true
		}
	}
	return false
}

// outcomeOf is what is stored of a use case's end: its result, or its business refusal; false
// when err is neither (a field, system or gateway error), which is not stored, so that a
// corrected or later retry with the same id runs.
func outcomeOf[R any](call Call, res R, err error) (ports.Outcome, bool) {
	var id string
	if call.ID != nil {
		id = *call.ID
	}
	if err == nil {
		return ports.Outcome{ID: id, Result: res}, true
	}
	name, ok := domain.RefusalName(err)
	if !ok {
		return ports.Outcome{}, false
	}
	return ports.Outcome{ID: id, Refusal: name, Message: err.Error()}, true
}

// replayed is a stored outcome as the use case returned it. An answer stored before outcomes
// were is returned as the *ports.SentAnswer error, which the edge sends as it is.
func replayed[R any](rq requests, call Call, rec *ports.IdempotencyRecord) (R, error) {
	var res R
	o := rec.Outcome
	if call.ID != nil && o.ID != "" {
		*call.ID = o.ID
	}
	if call.Replayed != nil {
		*call.Replayed = true
	}
	switch {
	case o.Sent != nil:
		return res, o.Sent
	case o.Refusal != "":
		if err, ok := domain.RefusalNamed(o.Refusal, o.Message); ok {
			return res, err
		}
		return res, fmt.Errorf("request %s: stored refusal %q is unknown to this version", rec.Key, o.Refusal)
	}
	enc, ok := o.Result.(ports.EncodedResult)
	if !ok {
		return res, fmt.Errorf("request %s: stored result is %T, not encoded", rec.Key, o.Result)
	}
	if err := rq.store.DecodeResult(enc, &res); err != nil {
		return res, fmt.Errorf("request %s: stored result: %w", rec.Key, err)
	}
	return res, nil
}

// A request's last transaction is fresh when it is also its first (a use case whose effects
// fit one transaction: the claim is inserted with the outcome, at the end, and a duplicate
// running at the same time waits on that insert until the first commits, then gets the stored
// outcome), or resumed under the claim an earlier step took (begin).
const (
	fresh   = false
	resumed = true
)

// finish runs the transaction that ends a request: it runs fn and stores the outcome with fn's
// effects, claiming the key with it, or, when resume is set, under the claim an earlier step
// of the same request took (locked first). A refusal rolls fn's effects back, unless fn kept
// them (keep), and stores its outcome alone; an error that is not an outcome (validation,
// system) leaves nothing behind.
func finish[R any](ctx context.Context, rq requests, call Call, resume bool, fn func(ctx context.Context) (R, error)) (R, error) {
	var res R
	var refusal error
	err := rq.uow.Do(ctx, func(ctx context.Context) error {
		if resume {
			rec, err := rq.store.Resume(ctx, call.PartnerID, call.Key)
			if err != nil {
				return err
			}
			if rec.Answered { // another run of this request ended it first
				res, refusal = replayed[R](rq, call, rec)
				return errAnswered
			}
		}
		r, err := fn(ctx)
		o, stored := outcomeOf(call, r, err)
		var k keptError
		if err != nil && (!errors.As(err, &k) || !stored) {
			return err
		}
		res, refusal = r, err
		if resume {
			return rq.store.Answer(ctx, call.PartnerID, call.Key, o)
		}
		rec := call.claim()
		rec.Answered, rec.Outcome = true, o
		return rq.store.Claim(ctx, rec)
	})
	switch {
	case err == nil, errors.Is(err, errAnswered):
		return res, refusal
	case errors.Is(err, ports.ErrDuplicateRequest):
		return replay[R](ctx, rq, call)
	}
	// A refusal, from fn or from the commit (a constraint the store checks there), rolled
	// fn's effects back; its outcome is stored alone.
	var zero R
	var k keptError
	if _, stored := outcomeOf(call, zero, err); stored && !errors.As(err, &k) {
		return finish(ctx, rq, call, resume, func(context.Context) (R, error) { return zero, keep(err) })
	}
	return zero, err
}

// errAnswered stops a resumed request's last step that another run of it has ended.
var errAnswered = errors.New("request answered by another run")

// keptError is a refusal whose effects are kept, committed with its outcome (a wrong SMS code
// counts an attempt).
type keptError struct{ error }

func (k keptError) Unwrap() error { return k.error }

// keep marks err as a refusal whose effects commit with its outcome.
func keep(err error) error { return keptError{err} }

// replay returns the outcome of a request whose key was claimed before: what prior finds, or
// ErrRequestInProgress while the claim has no outcome.
func replay[R any](ctx context.Context, rq requests, call Call) (R, error) {
	if res, done, _, err := prior[R](ctx, rq, call); done {
		return res, err
	}
	var zero R
	return zero, ports.ErrRequestInProgress
}

// prior is what a use case that calls a gateway looks at first, so that a replay never calls
// the gateway again: the stored outcome (done, with res or err), or whether an earlier run
// claimed the key and stopped before its last step (resume).
func prior[R any](ctx context.Context, rq requests, call Call) (res R, done, resume bool, err error) {
	rec, err := rq.store.Lookup(ctx, call.PartnerID, call.Key)
	switch {
	case err != nil:
		return res, true, false, err
	case rec == nil:
		return res, false, false, nil
	case !call.claimed(rec):
		return res, true, false, ErrRequestIDReused
	case !rec.Answered:
		return res, false, true, nil
	}
	res, err = replayed[R](rq, call, rec)
	return res, true, false, err
}

// refuse ends the call with err, a refusal found before any effect: a business refusal is
// claimed and stored as the outcome, anything else is only returned.
func refuse[R any](ctx context.Context, rq requests, call Call, err error) (R, error) {
	return finish(ctx, rq, call, fresh, func(context.Context) (R, error) {
		var zero R
		return zero, keep(err)
	})
}

// begin runs the first step of a request that ends after a gateway call (finish with resume
// ends it): one transaction claims the key and runs fn, whose effects commit with the claim
// and no outcome yet (done false). A refusal from fn is the outcome (done true): stored alone,
// or with fn's effects when fn kept them (keep). A duplicate whose run claimed the key first
// gets that run's outcome, or, while it has none, goes on from the gateway call too (done
// false): the gateway answers the same key the same way, and finish stores one outcome.
func begin[R any](ctx context.Context, rq requests, call Call, fn func(ctx context.Context) error) (res R, done bool, err error) {
	var refusal error
	err = rq.uow.Do(ctx, func(ctx context.Context) error {
		if err := rq.store.Claim(ctx, call.claim()); err != nil {
			return err
		}
		err := fn(ctx)
		var k keptError
		if errors.As(err, &k) {
			var zero R
			if o, stored := outcomeOf(call, zero, err); stored {
				done, refusal = true, err
				return rq.store.Answer(ctx, call.PartnerID, call.Key, o)
			}
		}
		return err
	})
	switch {
	case err == nil:
		return res, done, refusal
	case errors.Is(err, ports.ErrDuplicateRequest):
		res, done, _, err = prior[R](ctx, rq, call)
		return res, done, err
	}
	res, err = refuse[R](ctx, rq, call, err)
	return res, true, err
}
