package application_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/ports"
)

// fakeRequests is an idempotency store in memory whose writes take effect when the mock unit
// of work commits (commit) and vanish when it rolls back (rollback).
type fakeRequests struct {
	mu      sync.Mutex
	records map[string]ports.IdempotencyRecord
	pending map[string]ports.IdempotencyRecord
}

func newFakeRequests() *fakeRequests {
	return &fakeRequests{records: map[string]ports.IdempotencyRecord{}, pending: map[string]ports.IdempotencyRecord{}}
}

func (f *fakeRequests) Lookup(_ context.Context, partnerID uuid.UUID, key string) (*ports.IdempotencyRecord, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rec, ok := f.records[partnerID.String()+key]
	if !ok {
		return nil, nil
	}
	return &rec, nil
}

func (f *fakeRequests) Claim(_ context.Context, rec ports.IdempotencyRecord) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := rec.PartnerID.String() + rec.Key
	if _, ok := f.records[k]; ok {
		return ports.ErrDuplicateRequest
	}
	if rec.Answered {
		var err error
		if rec.Outcome, err = encodeOutcome(rec.Outcome); err != nil {
			return err
		}
	}
	f.pending[k] = rec
	return nil
}

func (f *fakeRequests) Resume(_ context.Context, partnerID uuid.UUID, key string) (*ports.IdempotencyRecord, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rec, ok := f.records[partnerID.String()+key]
	if !ok {
		return nil, errors.New("never claimed")
	}
	return &rec, nil
}

func (f *fakeRequests) Answer(_ context.Context, partnerID uuid.UUID, key string, o ports.Outcome) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := partnerID.String() + key
	rec, ok := f.pending[k]
	if !ok {
		if rec, ok = f.records[k]; !ok {
			return errors.New("never claimed")
		}
	}
	enc, err := encodeOutcome(o)
	if err != nil {
		return err
	}
	rec.Answered, rec.Outcome = true, enc
	f.pending[k] = rec
	return nil
}

// encodeOutcome stores a result as the store does: encoded, so that a replay decodes it.
func encodeOutcome(o ports.Outcome) (ports.Outcome, error) {
	if o.Refusal != "" || o.Sent != nil {
		return o, nil
	}
	b, err := json.Marshal(o.Result)
	o.Result = ports.EncodedResult(b)
	return o, err
}

func (f *fakeRequests) DecodeResult(enc ports.EncodedResult, into any) error {
	return json.Unmarshal(enc, into)
}

func (f *fakeRequests) Purge(context.Context, time.Time) (int64, error) { return 0, nil }

// commit makes the transaction's writes take effect; it reports whether the transaction
// stored a refusal's answer.
func (f *fakeRequests) commit() (refusal bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, rec := range f.pending {
		f.records[k] = rec
		refusal = refusal || rec.Answered && rec.Outcome.Refusal != ""
	}
	clear(f.pending)
	return refusal
}

// answered returns the codes of the outcomes stored, in no order: 0 for a result, 1000 for a
// business refusal.
func (f *fakeRequests) answered() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	var codes []int
	for _, rec := range f.records {
		switch {
		case rec.Answered && rec.Outcome.Refusal != "":
			codes = append(codes, 1000)
		case rec.Answered:
			codes = append(codes, 0)
		}
	}
	return codes
}

func (f *fakeRequests) rollback() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.pending)
}

// run calls a write use case as the edge does, under a new request id, and returns the result
// it ended with, or the error it refused with.
func run[C, R any](d *deps, handle func(context.Context, application.Call, C) (application.Reply[R], error), cmd C) (R, error) {
	reply, err := handle(context.Background(), application.Call{PartnerID: d.partner, Key: uuid.NewString(), Endpoint: "/test",
		Fingerprints: [][]byte{[]byte("params")}}, cmd)
	return reply.Result, err
}

// runErr is run for a use case whose outcome has no result of its own.
func runErr[C any](d *deps, handle func(context.Context, application.Call, C) (application.Reply[struct{}], error), cmd C) error {
	_, err := run(d, handle, cmd)
	return err
}
