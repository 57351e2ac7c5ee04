// Package guard wraps every gateway port, whatever adapter implements it, so that each call is
// bounded by a timeout, timed into the metrics, and, in the sandbox, put through the configured
// faults. A call that runs out of time is an unknown outcome (ports.ErrGatewayTransient), which
// the use cases answer with code 10 and the workers retry with the same idempotency key.
package guard

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/fx"

	"github.com/tiyin/tiyin/adapters/observe"
	"github.com/tiyin/tiyin/ports"
)

// DefaultTimeout bounds one gateway call when TIYIN_GATEWAY_TIMEOUT is not set.
const DefaultTimeout = 5 * time.Second

// Faults is what the sandbox injects around a call (sandbox.Faults).
type Faults interface {
	Before(ctx context.Context) error
	After(ctx context.Context) error
}

// Config sets the guard.
type Config struct {
	// Timeout bounds each call; 0 = DefaultTimeout.
	Timeout time.Duration
	// Faults, when set, are injected around each call (sandbox only).
	Faults Faults
}

// Guard runs gateway calls.
type Guard struct {
	timeout time.Duration
	faults  Faults
	metrics *observe.Metrics
}

// New returns a guard; metrics may be nil.
func New(cfg Config, metrics *observe.Metrics) *Guard {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	return &Guard{timeout: cfg.Timeout, faults: cfg.Faults, metrics: metrics}
}

// Module decorates the gateway ports that another module provides. It is plain options, not
// an fx.Module: a module's decorations reach only its own scope, and these must reach every
// use case.
var Module = fx.Options(
	fx.Provide(New),
	fx.Decorate((*Guard).Scoring, (*Guard).CoreBanking, (*Guard).Processing, (*Guard).SMSSender, (*Guard).CardIssuer,
		(*Guard).GeneralLedger),
)

// Scoring returns s guarded.
func (g *Guard) Scoring(s ports.Scoring) ports.Scoring { return scoring{g, s} }

// CoreBanking returns c guarded.
func (g *Guard) CoreBanking(c ports.CoreBanking) ports.CoreBanking { return coreBanking{g, c} }

// Processing returns p guarded.
func (g *Guard) Processing(p ports.Processing) ports.Processing { return processing{g, p} }

// SMSSender returns s guarded.
func (g *Guard) SMSSender(s ports.SMSSender) ports.SMSSender { return smsSender{g, s} }

// CardIssuer returns c guarded.
func (g *Guard) CardIssuer(c ports.CardIssuer) ports.CardIssuer { return cardIssuer{g, c} }

// GeneralLedger returns l guarded.
func (g *Guard) GeneralLedger(l ports.GeneralLedger) ports.GeneralLedger { return generalLedger{g, l} }

// call runs fn under the guard.
func call[T any](ctx context.Context, g *Guard, gateway, op string, fn func(context.Context) (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		// The caller has gone: the adapter is not called, so nothing happens at the bank. The
		// error is still transient, as for a caller gone during a call: a stage stopped by a
		// shutdown is not an attempt that never reached the bank, and a retry asks again.
		g.metrics.GatewayCall(gateway, op, "canceled", 0)
		return zero, fmt.Errorf("%w: %s.%s not called: %w", ports.ErrGatewayTransient, gateway, op, err)
	}
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	var (
		v   T
		err error
	)
	if g.faults != nil {
		err = g.faults.Before(cctx)
	}
	if err == nil {
		v, err = fn(cctx)
	}
	if err == nil && g.faults != nil {
		err = g.faults.After(cctx)
	}
	outcome := "ok"
	switch {
	case err == nil:
	case cctx.Err() != nil && ctx.Err() == nil:
		outcome = "timeout"
		err = fmt.Errorf("%w: %s.%s gave no answer within %s", ports.ErrGatewayTransient, gateway, op, g.timeout)
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		outcome = "timeout"
		err = fmt.Errorf("%w: %s.%s: %w", ports.ErrGatewayTransient, gateway, op, err)
	default:
		outcome = "error"
	}
	g.metrics.GatewayCall(gateway, op, outcome, time.Since(start))
	if err != nil {
		return zero, err
	}
	return v, nil
}

// none adapts a call without a result.
func none(fn func(context.Context) error) func(context.Context) (struct{}, error) {
	return func(ctx context.Context) (struct{}, error) { return struct{}{}, fn(ctx) }
}
