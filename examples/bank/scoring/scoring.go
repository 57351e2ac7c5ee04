// Package scoring is a Go adapter of tiyin's Scoring port for a bank whose scoring engine
// speaks a line protocol over TCP (see package fakebank for the protocol). It is the worked
// example of docs/gateways.md: a port implemented in the bank's own module, checked by tiyin's
// exported contract suite (ports/porttest) and started by the bank's own main.
//
// What the port's contract asks of it, and how it is met here:
//   - It returns when the context ends: the connection's deadline follows the context, and a
//     cancelled context closes the connection at once.
//   - Every failure wraps one of the port's errors: a connection never made, or ERR BUSY,
//     is ports.ErrGatewayNotReached (nothing happened at the bank); a lost or garbled answer is
//     ports.ErrGatewayTransient (the bank may have acted; tiyin asks again with the same key).
//   - It keeps no state: each call is one connection, and the idempotency key goes with it.
//   - It logs nothing, so it cannot log personal data.
package scoring

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// Adapter implements ports.Scoring against the engine at an address.
type Adapter struct {
	addr   string
	dialer net.Dialer
}

// New returns the adapter of the engine listening at addr (host:port).
func New(addr string) *Adapter { return &Adapter{addr: addr} }

var _ ports.Scoring = (*Adapter)(nil)

// RequestPreScore implements ports.Scoring.
func (a *Adapter) RequestPreScore(ctx context.Context, req ports.PreScoreRequest) error {
	answer, err := a.call(ctx, "PRE", req.IdempotencyKey, req.ClientData.PINFL())
	if err != nil {
		return err
	}
	switch answer[0] {
	case "ACK":
		return nil
	case "REFUSED":
		return fmt.Errorf("%w: %s", ports.ErrGatewayRefused, rest(answer))
	}
	return unexpected(answer)
}

// PreScoreResult implements ports.Scoring. An engine that lost the request (UNKNOWN) is sent
// it again, and the answer is pending.
func (a *Adapter) PreScoreResult(ctx context.Context, req ports.PreScoreRequest) (ports.PreScoreAnswer, error) {
	answer, err := a.call(ctx, "PRERESULT", req.IdempotencyKey, req.ClientData.PINFL())
	if err != nil {
		return ports.PreScoreAnswer{}, err
	}
	switch answer[0] {
	case "PENDING":
		return ports.PreScoreAnswer{Answer: ports.Answer{Status: ports.AnswerPending}}, nil
	case "UNKNOWN":
		if err := a.RequestPreScore(ctx, req); err != nil {
			return ports.PreScoreAnswer{}, err
		}
		return ports.PreScoreAnswer{Answer: ports.Answer{Status: ports.AnswerPending}}, nil
	case "DECLINED":
		return ports.PreScoreAnswer{Answer: ports.Answer{Status: ports.AnswerDeclined, Reason: rest(answer)}}, nil
	case "APPROVED":
		if len(answer) != 4 {
			return ports.PreScoreAnswer{}, unexpected(answer)
		}
		limit, err1 := strconv.ParseInt(answer[1], 10, 64)
		hundredths, err2 := strconv.ParseInt(answer[2], 10, 64)
		months, err3 := strconv.Atoi(answer[3])
		percent, err4 := domain.PercentFromHundredths(hundredths)
		if err := errors.Join(err1, err2, err3, err4); err != nil || limit <= 0 || months <= 0 {
			return ports.PreScoreAnswer{}, unexpected(answer)
		}
		return ports.PreScoreAnswer{Answer: ports.Answer{Status: ports.AnswerApproved},
			Result: domain.PreScoreResult{AmountLimit: limit, Percent: percent, MonthPeriod: months}}, nil
	}
	return ports.PreScoreAnswer{}, unexpected(answer)
}

// PostScore implements ports.Scoring.
func (a *Adapter) PostScore(ctx context.Context, req ports.PostScoreRequest) (domain.PostScoreResult, error) {
	o := req.Offer
	answer, err := a.call(ctx, "POST", req.IdempotencyKey, req.ClientData.PINFL(), strconv.FormatInt(o.Amount.Tiyin(), 10),
		strconv.FormatInt(o.Percent.Hundredths(), 10), strconv.Itoa(o.MonthPeriod))
	if err != nil {
		return domain.PostScoreResult{}, err
	}
	switch {
	case answer[0] == "APPROVED" && len(answer) == 1:
		return domain.PostScoreResult{Approved: true}, nil
	case answer[0] == "APPROVED" && len(answer) == 3 && answer[1] == "CALL":
		return domain.PostScoreResult{Approved: true, PhoneCallRequired: true, CallCentrePhone: answer[2]}, nil
	case answer[0] == "DECLINED":
		return domain.PostScoreResult{Reason: rest(answer)}, nil
	}
	return domain.PostScoreResult{}, unexpected(answer)
}

// call sends one request line on a connection of its own and reads the answer line, split
// into its unescaped fields. ERR answers are returned as errors.
func (a *Adapter) call(ctx context.Context, verb string, fields ...string) ([]string, error) {
	conn, err := a.dialer.DialContext(ctx, "tcp", a.addr)
	if err != nil {
		return nil, fmt.Errorf("%w: scoring engine: %w", ports.ErrGatewayNotReached, err)
	}
	defer func() { _ = conn.Close() }()
	if d, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(d)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) }) // unblock at once
	defer stop()

	line := verb
	for _, f := range fields {
		line += " " + url.QueryEscape(f)
	}
	if _, err := conn.Write([]byte(line + "\n")); err != nil {
		// Part of the line may have gone: the engine may have acted on it.
		return nil, fmt.Errorf("%w: scoring engine: sending %s: %w", ports.ErrGatewayTransient, verb, err)
	}
	text, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("%w: scoring engine: no answer to %s: %w", ports.ErrGatewayTransient, verb, err)
	}
	answer := strings.Fields(text)
	if len(answer) == 0 {
		return nil, fmt.Errorf("%w: scoring engine: an empty answer to %s", ports.ErrGatewayTransient, verb)
	}
	for i, f := range answer {
		if answer[i], err = url.QueryUnescape(f); err != nil {
			return nil, unexpected(answer)
		}
	}
	if answer[0] == "ERR" {
		if len(answer) == 2 && answer[1] == "BUSY" {
			return nil, fmt.Errorf("%w: scoring engine busy, %s not processed", ports.ErrGatewayNotReached, verb)
		}
		return nil, fmt.Errorf("%w: scoring engine: %s", ports.ErrGatewayTransient, rest(answer))
	}
	return answer, nil
}

// rest is an answer's text after its first word.
func rest(answer []string) string { return strings.Join(answer[1:], " ") }

// unexpected is an answer the protocol does not have: its outcome is unknown.
func unexpected(answer []string) error {
	return fmt.Errorf("%w: scoring engine: unexpected answer %q", ports.ErrGatewayTransient, strings.Join(answer, " "))
}
