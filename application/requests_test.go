package application_test

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
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

func (f *fakeRequests) Answer(_ context.Context, partnerID uuid.UUID, key string, code int, body []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := partnerID.String() + key
	rec, ok := f.pending[k]
	if !ok {
		if rec, ok = f.records[k]; !ok {
			return errors.New("never claimed")
		}
	}
	rec.Answered, rec.Code, rec.Body = true, code, body
	f.pending[k] = rec
	return nil
}

func (f *fakeRequests) Purge(context.Context, time.Time) (int64, error) { return 0, nil }

// commit makes the transaction's writes take effect; it reports whether the transaction
// stored a refusal's answer.
func (f *fakeRequests) commit() (refusal bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, rec := range f.pending {
		f.records[k] = rec
		refusal = refusal || rec.Answered && rec.Code >= 1000
	}
	clear(f.pending)
	return refusal
}

// answered returns the codes of the answers stored, in no order.
func (f *fakeRequests) answered() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	var codes []int
	for _, rec := range f.records {
		if rec.Answered {
			codes = append(codes, rec.Code)
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
// it answered with, or the error it refused with.
func run[C, R any](d *deps, handle func(context.Context, application.Request[R], C) application.Answer, cmd C) (R, error) {
	var res R
	var err error
	handle(context.Background(), application.Request[R]{PartnerID: d.partner, Key: uuid.NewString(), Endpoint: "/test",
		Fingerprints: [][]byte{[]byte("params")}, Render: func(r R, e error) application.Answer {
			res, err = r, e
			return application.Answer{Code: testCode(e), Body: []byte("answer")}
		}}, cmd)
	return res, err
}

// runErr is run for a use case whose answer has no result of its own.
func runErr[C any](d *deps, handle func(context.Context, application.Request[struct{}], C) application.Answer, cmd C) error {
	_, err := run(d, handle, cmd)
	return err
}

// testCode stands in for the edge's code table: 0 for a success, 4 for a validation error, 10
// for an unavailable gateway or database, 9 for a request in progress, 1000 for any other
// refusal (a business error, stored).
func testCode(err error) int {
	var ve *domain.ValidationError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ve):
		return 4
	case errors.Is(err, ports.ErrUnavailable):
		return 10
	case errors.Is(err, ports.ErrRequestInProgress):
		return 9
	}
	return 1000
}
