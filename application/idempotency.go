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
	// ID is the key as the caller wrote it: the step stores it with the outcome, and a replay
	// returns the one the first call wrote (Reply.ID), which the edge echoes, so that a replay
	// is the first answer byte for byte.
	ID       string
	Endpoint string
	// Fingerprints are keyed hashes of the endpoint and params (DESIGN §5: never a plain hash,
	// which trying every PAN or SMS code would reverse): the first, under the current data key,
	// is stored; a stored record matches any of them (a retired key's, an older form's).
	Fingerprints [][]byte
}

// Reply is what a write use case returns to the edge: its result and what the idempotency
// step learnt of the request. A refusal is the error returned beside it, and the Reply still
// says whether that refusal is a replay and which id it echoes, so that the edge renders a
// replayed refusal as it rendered the first.
type Reply[R any] struct {
	// Result is the use case's result; zero when it refused, or when Sent is the answer.
	Result R
	// Replayed is set when the outcome is a stored one (a replay), which the edge marks
	// (Idempotent-Replayed); a first answer leaves it false.
	Replayed bool
	// ID, on a replay, is the id the first call wrote (its Call.ID), which the edge echoes;
	// empty when the answer echoes the id of the call being answered.
	ID string
	// Sent, on a replay of an answer stored before outcomes were (by 0.1.0 and earlier), is
	// that answer as it was sent, which the edge sends as it is.
	Sent *ports.SentAnswer
}

// ErrRequestIDReused is a request id used before with other params or another endpoint.
var ErrRequestIDReused = errors.New("request id was already used with other params or another endpoint; use a new id")

// requests is the idempotency step of every state-changing use case: it claims the call's key,
// runs the use case in the unit of work, stores the outcome (a result, or a business refusal:
// domain.RefusalName) with its effects, and on a retry returns that outcome again. Nothing is
// rendered here: the edge renders fresh and replayed outcomes alike.
//
// A use case whose effects fit one transaction ends with finish; one that calls a gateway
// first looks its key up (lookup), so that a replay never calls the gateway again, and refuses
// what it can before the call (refuse); one that calls a gateway between two transactions
// claims its key in the first (begin) and stores its outcome in the second (resume).
type Requests struct {
	UoW   ports.UnitOfWork
	Store ports.IdempotencyStore
}

// finish runs the transaction that ends a request whose effects fit one: fn's effects commit
// with the call's claim on its key, which carries the outcome. A duplicate running at the same
// time waits on that claim until the first commits, then gets the stored outcome. A refusal
// rolls fn's effects back, unless fn kept them (keep), and a second transaction stores its
// outcome alone; an error that is not an outcome (validation, system) leaves nothing behind.
func finish[R any](ctx context.Context, rq Requests, call Call, fn func(ctx context.Context) (R, error)) (Reply[R], error) {
	end, err := claimWith(ctx, rq, call, fn)
	if storedAlone(err) {
		end, err = claimWith(ctx, rq, call, refusing[R](err))
	}
	switch {
	case err == nil:
		return end.reply, end.refusal
	case errors.Is(err, ports.ErrDuplicateRequest):
		return replay[R](ctx, rq, call)
	}
	return Reply[R]{}, err
}

// claimWith is one transaction of finish: fn, and the claim on the key carrying fn's outcome.
func claimWith[R any](ctx context.Context, rq Requests, call Call, fn func(ctx context.Context) (R, error)) (ending[R], error) {
	var end ending[R]
	err := rq.UoW.Do(ctx, func(ctx context.Context) error {
		res, err := fn(ctx)
		if end, err = endOf(call, res, err); err != nil {
			return err
		}
		return rq.Store.Claim(ctx, call.answered(end.outcome))
	})
	return end, err
}

// refuse ends the call with err, a refusal found before any effect: a business refusal is
// claimed and stored as the outcome, anything else is only returned.
func refuse[R any](ctx context.Context, rq Requests, call Call, err error) (Reply[R], error) {
	return finish(ctx, rq, call, refusing[R](err))
}

// lookup is what a use case that calls a gateway looks at first, so that a replay never calls
// the gateway again: the stored outcome (ended, replayed), or whether an earlier run claimed
// the key and stopped before its last step (resume). Its error is the stored refusal, or why
// the call cannot go on (ErrRequestIDReused, a failed lookup).
func lookup[R any](ctx context.Context, rq Requests, call Call) (standing[R], error) {
	rec, err := rq.Store.Lookup(ctx, call.PartnerID, call.Key)
	switch {
	case err != nil:
		return standing[R]{}, err
	case rec == nil:
		return standing[R]{}, nil
	case !call.claimed(rec):
		return standing[R]{}, ErrRequestIDReused
	case !rec.Answered:
		return standing[R]{resume: true}, nil
	}
	reply, err := replayed[R](rq, rec)
	return standing[R]{ended: true, reply: reply}, err
}

// standing is where a request stands after a step that may end it (lookup, begin).
type standing[R any] struct {
	// ended is set when the request has its outcome: reply is the answer, and the step's
	// error is the refusal returned with it.
	ended bool
	reply Reply[R]
	// resume is set by lookup when an earlier run claimed the key and stopped before its
	// last step: this run resumes it.
	resume bool
}

// replay returns the outcome of a request whose key was claimed before: what lookup finds, or
// ErrRequestInProgress while the claim has no outcome.
func replay[R any](ctx context.Context, rq Requests, call Call) (Reply[R], error) {
	prior, err := lookup[R](ctx, rq, call)
	if err != nil || prior.ended {
		return prior.reply, err
	}
	return Reply[R]{}, ports.ErrRequestInProgress
}

// begin runs the first step of a request that ends after a gateway call (resume ends it): one
// transaction claims the key and runs fn, whose effects commit with the claim and no outcome
// yet (not ended). A refusal from fn is the outcome (ended): stored alone, or with fn's effects
// when fn kept them (keep). A duplicate whose run claimed the key first gets that run's
// outcome, or, while it has none, goes on from the gateway call too (not ended): the gateway
// answers the same key the same way, and resume stores one outcome.
func begin[R any](ctx context.Context, rq Requests, call Call, fn func(ctx context.Context) error) (standing[R], error) {
	var end ending[R]
	var refused bool
	err := rq.UoW.Do(ctx, func(ctx context.Context) error {
		if err := rq.Store.Claim(ctx, call.claim()); err != nil {
			return err
		}
		err := fn(ctx)
		if err == nil {
			return nil
		}
		var zero R
		if end, err = endOf(call, zero, err); err != nil {
			return err
		}
		refused = true
		return rq.Store.Answer(ctx, call.PartnerID, call.Key, end.outcome)
	})
	switch {
	case err == nil && !refused:
		return standing[R]{}, nil
	case err == nil:
		return standing[R]{ended: true, reply: end.reply}, end.refusal
	case errors.Is(err, ports.ErrDuplicateRequest):
		prior, err := lookup[R](ctx, rq, call)
		return standing[R]{ended: prior.ended, reply: prior.reply}, err
	}
	reply, err := refuse[R](ctx, rq, call, err)
	return standing[R]{ended: true, reply: reply}, err
}

// resume runs the transaction that ends a request an earlier step claimed (begin): it locks
// the claim, and when another run of the request ended it first, that run's outcome is the
// answer; otherwise fn's outcome is stored under the claim with fn's effects. A refusal rolls
// fn's effects back, unless fn kept them (keep), and a second transaction stores its outcome
// alone; an error that is not an outcome leaves the claim for a retry to resume.
func resume[R any](ctx context.Context, rq Requests, call Call, fn func(ctx context.Context) (R, error)) (Reply[R], error) {
	end, err := answerWith(ctx, rq, call, fn)
	if storedAlone(err) {
		end, err = answerWith(ctx, rq, call, refusing[R](err))
	}
	if err != nil {
		return Reply[R]{}, err
	}
	return end.reply, end.refusal
}

// answerWith is one transaction of resume: the claim locked, then fn and its outcome stored
// under the claim, or the outcome another run stored first.
func answerWith[R any](ctx context.Context, rq Requests, call Call, fn func(ctx context.Context) (R, error)) (ending[R], error) {
	var end ending[R]
	err := rq.UoW.Do(ctx, func(ctx context.Context) error {
		rec, err := rq.Store.Resume(ctx, call.PartnerID, call.Key)
		if err != nil {
			return err
		}
		if rec.Answered {
			end.reply, end.refusal = replayed[R](rq, rec)
			return errAnswered
		}
		res, err := fn(ctx)
		if end, err = endOf(call, res, err); err != nil {
			return err
		}
		return rq.Store.Answer(ctx, call.PartnerID, call.Key, end.outcome)
	})
	if errors.Is(err, errAnswered) {
		return end, nil
	}
	return end, err
}

// errAnswered rolls back the transaction of a resumed request that another run of it ended
// first: it has nothing to commit.
var errAnswered = errors.New("request answered by another run")

// ending is how a use case ended its request: the reply and the refusal returned with it, and
// the outcome stored of them.
type ending[R any] struct {
	reply   Reply[R]
	refusal error
	outcome ports.Outcome
}

// endOf is how the use case's end (res, err) ends the request when it commits with the use
// case's effects: a result, or a refusal the use case kept (keep). Anything else is returned
// as the error, which rolls the effects back: a refusal the use case did not keep (stored
// alone afterwards, see storedAlone), or an error that is not an outcome.
func endOf[R any](call Call, res R, err error) (ending[R], error) {
	var k keptError
	if err != nil && !errors.As(err, &k) {
		return ending[R]{}, err
	}
	o, ok := outcomeOf(call, res, err)
	if !ok {
		return ending[R]{}, err
	}
	return ending[R]{reply: Reply[R]{Result: res}, refusal: err, outcome: o}, nil
}

// storedAlone says whether err, which rolled a use case's effects back, is a business refusal
// to be stored alone, by a transaction of its own: one the use case did not keep, from the use
// case or from the commit (a constraint the store checks there).
func storedAlone(err error) bool {
	var k keptError
	_, refusal := domain.RefusalName(err)
	return refusal && !errors.As(err, &k)
}

// keptError is a refusal whose effects are kept, committed with its outcome (a wrong SMS code
// counts an attempt).
type keptError struct{ error }

func (k keptError) Unwrap() error { return k.error }

// keep marks err as a refusal whose effects commit with its outcome.
func keep(err error) error { return keptError{err} }

// refusing is a use case that has no effect and ends with err, kept: what stores a refusal
// alone.
func refusing[R any](err error) func(context.Context) (R, error) {
	return func(context.Context) (R, error) {
		var zero R
		return zero, keep(err)
	}
}

// replayed is a stored outcome as the use case returned it, marked as a replay: its result,
// or its refusal as the error. An answer stored before outcomes were is returned as it was
// sent (Reply.Sent).
func replayed[R any](rq Requests, rec *ports.IdempotencyRecord) (Reply[R], error) {
	o := rec.Outcome
	reply := Reply[R]{Replayed: true, ID: o.ID, Sent: o.Sent}
	switch {
	case o.Sent != nil:
		return reply, nil
	case o.Refusal != "":
		if err, ok := domain.RefusalNamed(o.Refusal, o.Message); ok {
			return reply, err
		}
		return reply, fmt.Errorf("request %s: stored refusal %q is unknown to this version", rec.Key, o.Refusal)
	}
	enc, ok := o.Result.(ports.EncodedResult)
	if !ok {
		return reply, fmt.Errorf("request %s: stored result is %T, not encoded", rec.Key, o.Result)
	}
	if err := rq.Store.DecodeResult(enc, &reply.Result); err != nil {
		return reply, fmt.Errorf("request %s: stored result: %w", rec.Key, err)
	}
	return reply, nil
}

// outcomeOf is what is stored of a use case's end: its result, or its business refusal; false
// when err is neither (a field, system or gateway error), which is not stored, so that a
// corrected or later retry with the same id runs.
func outcomeOf[R any](call Call, res R, err error) (ports.Outcome, bool) {
	if err == nil {
		return ports.Outcome{ID: call.ID, Result: res}, true
	}
	name, ok := domain.RefusalName(err)
	if !ok {
		return ports.Outcome{}, false
	}
	return ports.Outcome{ID: call.ID, Refusal: name, Message: err.Error()}, true
}

// claim is the call's claim on its key, with no outcome yet.
func (c Call) claim() ports.IdempotencyRecord {
	var fp []byte
	if len(c.Fingerprints) > 0 {
		fp = c.Fingerprints[0]
	}
	return ports.IdempotencyRecord{PartnerID: c.PartnerID, Key: c.Key, Endpoint: c.Endpoint,
		Fingerprint: fp, CreatedAt: time.Now()}
}

// answered is the call's claim on its key, carrying o, its outcome.
func (c Call) answered(o ports.Outcome) ports.IdempotencyRecord {
	rec := c.claim()
	rec.Answered, rec.Outcome = true, o
	return rec
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
