// Package testkit builds tiyin for a test from the server's own graph: the use cases, the
// store and the gateways serve runs, with the test's doubles swapped in through the options a
// bank gives its own adapters (server.WithScoring and the like) and server.Swap. The HTTP,
// console and application suites build here, so what they test is what production wires.
package testkit

import (
	"testing"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/server"
)

// Option changes what the graph provides: a double in place of an adapter or a setting.
type Option = server.Option

// Swap replaces what the graph provides of type T with value (server.Swap).
func Swap[T any](value T) Option { return server.Swap(value) }

// Gateways are a test's gateway adapters, given to the graph as a bank gives its own: a nil
// one stays the sandbox's.
type Gateways struct {
	Scoring     ports.Scoring
	CoreBanking ports.CoreBanking
	Processing  ports.Processing
	SMS         ports.SMSSender
	CardIssuer  ports.CardIssuer
}

// Options are the bank's options (server.WithScoring and the like) for the gateways given.
func (g Gateways) Options() []Option {
	var opts []Option
	if g.Scoring != nil {
		opts = append(opts, server.WithScoring(func(server.Deps) (ports.Scoring, error) { return g.Scoring, nil }))
	}
	if g.CoreBanking != nil {
		opts = append(opts, server.WithCoreBanking(func(server.Deps) (ports.CoreBanking, error) { return g.CoreBanking, nil }))
	}
	if g.Processing != nil {
		opts = append(opts, server.WithProcessing(func(server.Deps) (ports.Processing, error) { return g.Processing, nil }))
	}
	if g.SMS != nil {
		opts = append(opts, server.WithSMSSender(func(server.Deps) (ports.SMSSender, error) { return g.SMS, nil }))
	}
	if g.CardIssuer != nil {
		opts = append(opts, server.WithCardIssuer(func(server.Deps) (ports.CardIssuer, error) { return g.CardIssuer, nil }))
	}
	return opts
}

// Build builds the server's graph with opts and fills targets (pointers) from it; what it
// opened is released when the test ends.
func Build(t testing.TB, opts []Option, targets ...any) {
	t.Helper()
	stop, err := server.Build(t.TempDir(), opts, targets...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
	})
}

// Console is the operator console's use cases as the server's graph builds them, with opts
// applied.
func Console(t testing.TB, opts ...Option) console.Console {
	t.Helper()
	var c console.Console
	Build(t, opts, &c)
	return c
}

// App is every capability's use cases as the server's graph builds them, with opts applied.
func App(t testing.TB, opts ...Option) *application.App {
	t.Helper()
	var app *application.App
	Build(t, opts, &app)
	return app
}
