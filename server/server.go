// Package server is tiyin as a library: a bank's own main, in its own module, starts the whole
// of tiyin (serve, migrate, partner, ledger and the rest of the command line) with Go adapters
// of its own in place of any gateway port's, and start hooks of its own beside tiyin's. Its API
// is tiyin's own types and the standard library's: options, Main and Run, the ports.
//
//	func main() {
//		server.Main(server.WithScoring(func(d server.Deps) (ports.Scoring, error) {
//			return bankscoring.New(os.Getenv("BANK_SCORING_ADDR")), nil
//		}))
//	}
//
// Everything not replaced works as the tiyin binary does (cmd/tiyin is this package's Main
// with no options, beside its own `tiyin demo`): the TIYIN_* configuration, the sandbox, the
// HTTP gateway adapters for the ports given a TIYIN_<PORT>_URL. A Go adapter is wrapped in the
// gateway guard like any other (TIYIN_GATEWAY_TIMEOUT, metrics, TIYIN_SANDBOX_FAULTS; the
// circuit breaker is the HTTP adapter's own), and counts as a real adapter: outside the
// sandbox tiyin refuses to start while a port has neither a Go adapter nor a URL, and refuses
// a port given both. What an adapter must and must not do is
// written on the ports (ports/gateways.go) and checked by ports/porttest.
//
// This package, ports, ports/porttest and the domain types they use are the API bank teams
// build on; docs/gateways.md ("Stability") says what is promised, and api/tiyin.txt lists it.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"

	"github.com/tiyin/tiyin/ports"
)

// Deps is what tiyin hands a Go adapter's constructor, or a start hook, when serve starts. An
// adapter reads its own settings itself (os.Getenv), under names of the bank's outside the
// TIYIN_ prefix.
type Deps struct {
	// Log is tiyin's logger (JSON lines at TIYIN_LOG_LEVEL), named for the port. An adapter
	// must never log personal data (client data, card numbers, phone numbers, SMS codes).
	Log *slog.Logger
	// Sandbox is TIYIN_SANDBOX: the adapter may be run against a test system.
	Sandbox bool
	// Lifecycle takes the adapter's start and stop hooks (open a pool, close it on stop).
	Lifecycle Lifecycle
}

// Lifecycle takes start and stop hooks: starts run in the order they were added when serve
// starts, stops in reverse when it stops (after the listener has drained its requests).
type Lifecycle interface {
	OnStart(fn func(ctx context.Context) error)
	OnStop(fn func(ctx context.Context) error)
}

// fxLifecycle is fx's lifecycle as a Lifecycle.
type fxLifecycle struct{ lc fx.Lifecycle }

func (l fxLifecycle) OnStart(fn func(context.Context) error) { l.lc.Append(fx.Hook{OnStart: fn}) }
func (l fxLifecycle) OnStop(fn func(context.Context) error)  { l.lc.Append(fx.Hook{OnStop: fn}) }

// deps is the Deps of what is named name.
func deps(log *zap.Logger, name string, sandbox bool, lc fx.Lifecycle) Deps {
	return Deps{Log: slog.New(zapslog.NewHandler(log.Named(name).Core())), Sandbox: sandbox, Lifecycle: fxLifecycle{lc}}
}

// Option changes how tiyin is built.
type Option func(*options)

type options struct {
	gateways map[string]fx.Option // a Go adapter's provider, by port
	fx       []fx.Option
	swaps    []fx.Option // a test's doubles (Swap), in every graph
}

// WithScoring replaces the Scoring port's adapter.
func WithScoring(newAdapter func(Deps) (ports.Scoring, error)) Option {
	return withGateway("scoring", newAdapter)
}

// WithCoreBanking replaces the CoreBanking port's adapter.
func WithCoreBanking(newAdapter func(Deps) (ports.CoreBanking, error)) Option {
	return withGateway("core_banking", newAdapter)
}

// WithProcessing replaces the Processing port's adapter (UZCARD and HUMO).
func WithProcessing(newAdapter func(Deps) (ports.Processing, error)) Option {
	return withGateway("processing", newAdapter)
}

// WithSMSSender replaces the SMSSender port's adapter.
func WithSMSSender(newAdapter func(Deps) (ports.SMSSender, error)) Option {
	return withGateway("sms", newAdapter)
}

// WithCardIssuer replaces the CardIssuer port's adapter.
func WithCardIssuer(newAdapter func(Deps) (ports.CardIssuer, error)) Option {
	return withGateway("card_issuer", newAdapter)
}

// WithGeneralLedger replaces the GeneralLedger port's adapter (the bank's general ledger, where
// each closed day's journal is posted).
func WithGeneralLedger(newAdapter func(Deps) (ports.GeneralLedger, error)) Option {
	return withGateway("general_ledger", newAdapter)
}

// WithStart adds a hook of the bank's own beside tiyin's: fn runs once serve has started (the
// schema applied, the workers and the listener running), with Deps named name: a start line
// naming the build, an exporter started and stopped through d.Lifecycle. An error stops serve.
func WithStart(name string, fn func(ctx context.Context, d Deps) error) Option {
	return func(o *options) {
		o.fx = append(o.fx, fx.Invoke(func(log *zap.Logger, cfg config, lc fx.Lifecycle) {
			d := deps(log, name, cfg.Sandbox, lc)
			lc.Append(fx.Hook{OnStart: func(ctx context.Context) error {
				if err := fn(ctx, d); err != nil {
					return fmt.Errorf("the %s start hook: %w", name, err)
				}
				return nil
			}})
		}))
	}
}

func withGateway[P any](port string, newAdapter func(Deps) (P, error)) Option {
	return func(o *options) {
		o.gateways[port] = fx.Provide(func(log *zap.Logger, cfg config, lc fx.Lifecycle) (P, error) {
			p, err := newAdapter(deps(log, port, cfg.Sandbox, lc))
			if err == nil && any(p) == nil {
				err = errors.New("the constructor returned no adapter")
			}
			if err != nil {
				return p, fmt.Errorf("the %s adapter: %w", port, err)
			}
			return p, nil
		})
	}
}

func applied(opts []Option) options {
	o := options{gateways: map[string]fx.Option{}}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// Run runs tiyin's command line (serve, migrate, partner, operator, audit, ledger, books,
// reconcile, reseal, healthcheck, version) on args with opts applied, and returns its exit status: 0 on success, 2 for a
// command line it does not understand, 1 for any other failure.
func Run(args []string, opts ...Option) int { return execute(rootCmd(applied(opts)), args) }

// Main runs tiyin's command line on os.Args with opts applied and exits with Run's status.
func Main(opts ...Option) {
	os.Exit(Run(os.Args[1:], opts...))
}
