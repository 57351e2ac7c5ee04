package guard_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tiyin/tiyin/adapters/gateway/guard"
	"github.com/tiyin/tiyin/adapters/gateway/sandbox"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// stubCore answers OpenAccount after a delay, with a result or an error.
type stubCore struct {
	ports.CoreBanking
	delay time.Duration
	err   error
	calls int
}

func (s *stubCore) OpenAccount(ctx context.Context, _ ports.OpenAccountRequest) (string, error) {
	s.calls++
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return "", ctx.Err()
	}
	return "20208000900000000001", s.err
}

func TestGuardedCall(t *testing.T) {
	t.Parallel()
	refused := errors.Join(ports.ErrGatewayRefused, errors.New("client blacklisted"))
	tests := []struct {
		name       string
		delay      time.Duration
		err        error
		faults     sandbox.Faults
		wantErr    error
		wantCalls  int
		wantWithin time.Duration
	}{
		{"answers in time", 0, nil, sandbox.Faults{}, nil, 1, time.Second},
		{"business refusal passes through", 0, refused, sandbox.Faults{}, ports.ErrGatewayRefused, 1, time.Second},
		{"hangs past the timeout: transient", time.Hour, nil, sandbox.Faults{}, ports.ErrGatewayTransient, 1, time.Second},
		{"fault before the call: never reaches the gateway", 0, nil, sandbox.Faults{ErrorRate: 1}, ports.ErrGatewayNotReached, 0, time.Second},
		{"answer lost after the call: transient at the timeout", 0, nil, sandbox.Faults{TimeoutRate: 1}, ports.ErrGatewayTransient, 1, time.Second},
		{"latency longer than the timeout", 0, nil, sandbox.Faults{Latency: time.Hour}, ports.ErrGatewayTransient, 0, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			core := &stubCore{delay: tt.delay, err: tt.err}
			cfg := guard.Config{Timeout: 200 * time.Millisecond}
			if tt.faults.Active() {
				cfg.Faults = tt.faults
			}
			start := time.Now()
			acc, err := guard.New(cfg, nil).CoreBanking(core).OpenAccount(context.Background(), ports.OpenAccountRequest{})
			if took := time.Since(start); took > tt.wantWithin {
				t.Errorf("took %s", took)
			}
			if tt.wantErr == nil && (err != nil || acc == "") {
				t.Fatalf("got %q, %v", acc, err)
			}
			if tt.wantErr != nil && (!errors.Is(err, tt.wantErr) || acc != "") {
				t.Fatalf("got %q, %v; want %v", acc, err, tt.wantErr)
			}
			if core.calls != tt.wantCalls {
				t.Errorf("gateway called %d times, want %d", core.calls, tt.wantCalls)
			}
		})
	}
}

func TestCallerCancellationIsNotCountedAsTheGatewaysTimeout(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := guard.New(guard.Config{Timeout: time.Minute}, nil).CoreBanking(&stubCore{delay: time.Hour}).
		OpenAccount(ctx, ports.OpenAccountRequest{})
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ports.ErrGatewayTransient) {
		t.Fatalf("got %v", err)
	}
}

func TestDomainErrorsKeepTheirIdentity(t *testing.T) {
	t.Parallel()
	p := guard.New(guard.Config{}, nil).Processing(sandbox.NewProcessing())
	_, err := p.LookupCard(context.Background(), ports.CardQuery{PAN: must(domain.ParsePAN(sandbox.PANBlocked)),
		Expiry: must(domain.ParseExpiry("3012", time.Now())), Network: domain.NetworkHumo, Phone: must(domain.ParsePhone("998901234567"))})
	if !errors.Is(err, domain.ErrCardRejected) {
		t.Fatalf("got %v, want the card rejected", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestACallerThatHasGoneCallsNothing: a call whose context has already ended does not reach
// the adapter (its error is transient, as for a caller gone during the call).
func TestACallerThatHasGoneCallsNothing(t *testing.T) {
	t.Parallel()
	stub := &stubCore{}
	core := guard.New(guard.Config{Timeout: time.Second}, nil).CoreBanking(stub)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := core.OpenAccount(ctx, ports.OpenAccountRequest{})
	if stub.calls != 0 || !errors.Is(err, ports.ErrGatewayTransient) || !errors.Is(err, context.Canceled) {
		t.Fatalf("calls %d, error %v", stub.calls, err)
	}
}
