package server

import (
	"context"
	"fmt"
	"path/filepath"

	"go.uber.org/fx"
	"go.uber.org/zap"
)

// Swap replaces what tiyin's graph provides of type T with value, for everything that takes a
// T: a test's double of a port (the clock, a repository, the work queue) or of a setting
// (application.Config). A gateway port's adapter is replaced as a bank replaces it, with
// WithScoring and the like, so the gateway guard wraps the double as it wraps a bank's.
func Swap[T any](value T) Option {
	return func(o *options) {
		o.swaps = append(o.swaps, fx.Decorate(func() T { return value }))
	}
}

// Build builds tiyin's graph as serve and the commands build it, in the sandbox, with opts
// applied, and fills each of targets (pointers to what the graph provides: *application.App,
// *store.SandboxClock) from it. It is the tests' way to the use cases production runs: their
// doubles go in through opts. What nothing swapped needs a database for is kept in an empty
// SQLite file in dir. stop releases what the graph opened.
func Build(dir string, opts []Option, targets ...any) (stop func() error, err error) {
	o := applied(opts)
	gs, errs := loadGateways(settings{})
	if len(errs) > 0 {
		return nil, errs[0]
	}
	cfg := config{Sandbox: true, DataKey: sandboxDataKey, SQLitePath: filepath.Join(dir, "tiyin.db"), Gateways: gs}
	if cfg.Gateways, err = withGoAdapters(cfg.Gateways, o.gateways); err != nil {
		return nil, err
	}
	app := fx.New(graph(cfg, zap.NewNop(), o), fx.Populate(targets...))
	ctx := context.Background()
	if err := app.Start(ctx); err != nil {
		return nil, fmt.Errorf("build tiyin's graph: %w", rootCause(err))
	}
	return func() error { return app.Stop(ctx) }, nil
}
