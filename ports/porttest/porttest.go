// Package porttest is the contract of every gateway port as executable suites: a bank team
// runs them against its own adapter, from its own module, to show that the adapter keeps the
// contract written on the port (ports/gateways.go):
//
//	func TestMyProcessing(t *testing.T) {
//		porttest.RunProcessing(t, func(t *testing.T, f porttest.Fault) ports.Processing {
//			return myadapter.New(stubOrTestSystem(t, f))
//		}, myCases)
//	}
//
// Each suite checks success, each refusal the port names, a repeated call with the same
// idempotency key, a call whose context has already ended, a transient failure and a timeout. The last two need the system behind the
// adapter to misbehave: the constructor receives the Fault the system must show on every call
// (a test double, a stub server, a test switch of the bank's system); it returns nil when it
// cannot, and those cases are skipped, loudly.
package porttest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tiyin/tiyin/ports"
)

// Fault is how the system behind an adapter misbehaves for a case.
type Fault int

// The faults.
const (
	// Healthy: the system answers as it should.
	Healthy Fault = iota
	// FailTransiently: every call fails in a way that says nothing about the outcome (an HTTP
	// 503, a reset connection, garbage instead of an answer).
	FailTransiently
	// Hang: every call is accepted and never answered.
	Hang
)

func (f Fault) String() string {
	return [...]string{"healthy", "failing transiently", "hanging"}[f]
}

// Constructor makes an adapter whose system shows fault; nil when it cannot.
type Constructor[P any] func(t *testing.T, fault Fault) P

// hangDeadline is the deadline the timeout case gives a call; the call must return within
// hangSlack of it.
const (
	hangDeadline = 300 * time.Millisecond
	hangSlack    = 2 * time.Second
)

// promptly is how soon a call whose context has already ended must return.
const promptly = 100 * time.Millisecond

// faults runs the ended-context, transient and timeout cases of one representative call.
func faults[P comparable](t *testing.T, newAdapter Constructor[P], call func(ctx context.Context, p P) error) {
	var zero P
	t.Run("a call whose context has ended returns at once, with an error", func(t *testing.T) {
		p := healthy(t, newAdapter)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		start := time.Now()
		err := call(ctx, p)
		if took := time.Since(start); took > promptly {
			t.Fatalf("returned after %v, want within %v", took, promptly)
		}
		if err == nil {
			t.Fatal("a call whose context had ended succeeded: it must not act")
		}
	})
	t.Run("a transient failure is ErrGatewayTransient or ErrGatewayNotReached, not both", func(t *testing.T) {
		p := newAdapter(t, FailTransiently)
		if p == zero {
			t.Skip("SKIPPED: the constructor cannot make the system fail transiently")
		}
		err := call(context.Background(), p)
		if errors.Is(err, ports.ErrGatewayTransient) == errors.Is(err, ports.ErrGatewayNotReached) {
			t.Fatalf("error %v, want one wrapping ports.ErrGatewayTransient (outcome unknown) or ports.ErrGatewayNotReached (nothing happened)", err)
		}
	})
	t.Run("a hanging system is left when the context ends", func(t *testing.T) {
		p := newAdapter(t, Hang)
		if p == zero {
			t.Skip("SKIPPED: the constructor cannot make the system hang")
		}
		ctx, cancel := context.WithTimeout(context.Background(), hangDeadline)
		defer cancel()
		start := time.Now()
		err := call(ctx, p)
		if took := time.Since(start); took > hangDeadline+hangSlack {
			t.Fatalf("returned %v after the deadline", took-hangDeadline)
		}
		if err == nil {
			t.Fatal("a call that got no answer succeeded")
		}
		if errors.Is(err, ports.ErrGatewayFailed) || errors.Is(err, ports.ErrGatewayRefused) {
			t.Fatalf("error %v: an unanswered call's outcome is unknown, so it must not be final", err)
		}
	})
}

// healthy makes the adapter for the success and refusal cases.
func healthy[P comparable](t *testing.T, newAdapter Constructor[P]) P {
	t.Helper()
	var zero P
	p := newAdapter(t, Healthy)
	if p == zero {
		t.Fatal("the constructor made no healthy adapter")
	}
	return p
}

// eventually polls ask until it reports done, for up to 10 s; the answers of an asynchronous
// system may be pending for a while.
func eventually(t *testing.T, what string, ask func() (done bool, err error)) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		done, err := ask()
		if err != nil && !errors.Is(err, ports.ErrGatewayTransient) {
			t.Fatalf("%s: %v", what, err)
		}
		if done {
			return
		}
	}
	t.Fatalf("%s: still not answered after 10 s", what)
}

// key is a fresh idempotency key in tiyin's form.
func key(t *testing.T, suffix string) string {
	return t.Name() + ":" + time.Now().Format("150405.000000000") + ":" + suffix
}
