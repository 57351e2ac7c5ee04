package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/test/tiyintest"
)

// The pre-scoring register rows measure what a partner's burst does, the way the project's
// shared write scripts do (wrk, 32 connections, fresh ids): the registrations are counted in the
// database, not by the sender, and the end-to-end row waits until every application is
// pre-scored. Two rows, because a build can accept requests faster by leaving more work behind:
//
//   - accepted: registrations committed per second while the load runs;
//   - end to end: all the load's registrations ÷ the seconds from its start until the last one
//     left NEW and IN_PROGRESS (the pre-scoring worker's work counted).
const (
	registerAccepted = "pre-scoring register (accepted)"
	registerEndToEnd = "pre-scoring end to end (pre-scored)"
)

// registerBody is a registration with fresh ids, built as text: a load generator that marshals
// maps per request spends the two cores on itself (wrk's Lua does no more than this).
func registerBody() []byte {
	pinfl := tiyintest.PINFL()
	var b strings.Builder
	b.Grow(640)
	b.WriteString(`{"id":"`)
	b.WriteString(uuid.NewString())
	b.WriteString(`","params":{"externalId":"`)
	b.WriteString(uuid.NewString())
	b.WriteString(`","isAgreementAccepted":true,"phoneNumber":"998901234567","clientData":{"pinfl":"`)
	b.WriteString(pinfl)
	b.WriteString(`","lastName":"Karimov","firstName":"Aziz","birthDate":"1990-05-17",` +
		`"document":{"type":"PASSPORT","series":"AA","number":"1234567","issuedBy":"Toshkent IIB","issuedDate":"2020-01-10","expiryDate":"2035-01-09"},` +
		`"address":{"region":"Toshkent","district":"Chilonzor","address":"Bunyodkor 1"},"phone":"998901234567"}}}`)
	return []byte(b.String())
}

// register sends one registration; the answer is read to the end (keep-alive) and not decoded:
// what counts is the row in the database.
func (c *client) register(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/microloans/applications/pre-scoring/register",
		bytes.NewReader(registerBody()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.key)
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	_, err = io.Copy(io.Discard, resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("register: HTTP %d", resp.StatusCode)
	}
	return err
}

// registerRows measures the two register rows (see registerAccepted).
func (e *environment) registerRows(cfg config) ([]row, error) {
	ctx := context.Background()
	count := func() (int, error) { n, err := e.raw.Applications(ctx, false); return int(n), err }

	// Accepted: the load window only; its background work is drained before the next row.
	before, err := count()
	if err != nil {
		return nil, err
	}
	m := startCPU(e.node.PID())
	s := saturate(cfg.conc, cfg.dur, e.api.register)
	after, err := count()
	if err != nil {
		return nil, err
	}
	s.Done = after - before
	accepted := row{Scenario: registerAccepted, Kind: kindWrite, Max: s}
	rate, ok := cfg.halfRates[registerAccepted]
	if !ok {
		rate = s.Rate() / 2
	}
	if err := e.settle(ctx, 10*time.Minute); err != nil {
		return nil, err
	}
	accepted.CPU = m.per(s.Done) // the CPU of the whole work, pre-scoring included, per registration
	half := pace(rate, cfg.dur, e.api.register)
	accepted.Half = &half
	if err := e.settle(ctx, 10*time.Minute); err != nil {
		return nil, err
	}

	// End to end: twice as long a load (as the shared script's 20 s to its 10 s), then the clock
	// runs until nothing is left NEW or IN_PROGRESS.
	if before, err = count(); err != nil {
		return nil, err
	}
	start := time.Now()
	s = saturate(cfg.conc, 2*cfg.dur, e.api.register)
	load := time.Since(start)
	if err := e.settle(ctx, 10*time.Minute); err != nil {
		return nil, err
	}
	if after, err = count(); err != nil {
		return nil, err
	}
	s.Done, s.Elapsed, s.CatchUp = after-before, time.Since(start), time.Since(start)-load
	return []row{accepted, {Scenario: registerEndToEnd, Kind: kindEndToEnd, Max: s}}, nil
}

// settle waits until no application is NEW or IN_PROGRESS, and the job queue is empty.
func (e *environment) settle(ctx context.Context, limit time.Duration) error {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		n, err := e.raw.Applications(ctx, true)
		if err != nil {
			return err
		}
		if n == 0 {
			return e.drain()
		}
	}
	return fmt.Errorf("applications still waiting for pre-scoring after %s", limit)
}
