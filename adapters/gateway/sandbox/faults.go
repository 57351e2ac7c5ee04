package sandbox

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/tiyin/tiyin/ports"
)

// Faults make the sandbox gateways misbehave on purpose (TIYIN_SANDBOX_FAULTS), so a partner or
// a test can watch tiyin under a failing bank: every gateway call first waits Latency, then
// fails with probability ErrorRate before reaching the gateway, or, with probability
// TimeoutRate, reaches it and then never answers (the call runs into its timeout: the outcome
// is unknown to tiyin, as with a real network that loses a reply).
type Faults struct {
	ErrorRate   float64
	TimeoutRate float64
	Latency     time.Duration
}

// ParseFaults reads "error=0.2,timeout=0.05,latency=150ms"; every part is optional.
func ParseFaults(s string) (Faults, error) {
	var f Faults
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, value, _ := strings.Cut(part, "=")
		var err error
		switch strings.TrimSpace(name) {
		case "error":
			f.ErrorRate, err = parseRate(value)
		case "timeout":
			f.TimeoutRate, err = parseRate(value)
		case "latency":
			f.Latency, err = time.ParseDuration(strings.TrimSpace(value))
			if err == nil && f.Latency < 0 {
				err = fmt.Errorf("negative")
			}
		default:
			return Faults{}, fmt.Errorf("unknown fault %q: want error=RATE, timeout=RATE or latency=DURATION", name)
		}
		if err != nil {
			return Faults{}, fmt.Errorf("fault %q: %w", part, err)
		}
	}
	if f.ErrorRate+f.TimeoutRate > 1 {
		return Faults{}, fmt.Errorf("error and timeout rates add up to more than 1")
	}
	return f, nil
}

func parseRate(s string) (float64, error) {
	r, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || r < 0 || r > 1 || r != r {
		return 0, fmt.Errorf("want a rate from 0 to 1")
	}
	return r, nil
}

// Active reports whether any fault is configured.
func (f Faults) Active() bool { return f.ErrorRate > 0 || f.TimeoutRate > 0 || f.Latency > 0 }

// String renders the faults as ParseFaults reads them.
func (f Faults) String() string {
	return fmt.Sprintf("error=%g,timeout=%g,latency=%s", f.ErrorRate, f.TimeoutRate, f.Latency)
}

// Before runs ahead of a gateway call: the latency, then maybe an error.
func (f Faults) Before(ctx context.Context) error {
	if f.Latency > 0 {
		t := time.NewTimer(f.Latency)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if f.ErrorRate > 0 && rand.Float64() < f.ErrorRate { //nolint:gosec // fault injection, not a secret
		return fmt.Errorf("%w: sandbox fault: the gateway could not be reached", ports.ErrGatewayNotReached)
	}
	return nil
}

// After runs once the gateway answered: maybe the answer is lost and the call hangs until its
// deadline.
func (f Faults) After(ctx context.Context) error {
	if f.TimeoutRate > 0 && rand.Float64() < f.TimeoutRate/(1-f.ErrorRate) { //nolint:gosec // fault injection
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}
