package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// Faults make the sandbox gateways misbehave on purpose (TIYIN_SANDBOX_FAULTS), so a partner or
// a test can watch tiyin under a failing bank: every gateway call first waits Latency, then
// fails with probability ErrorRate before reaching the gateway, or, with probability
// TimeoutRate, reaches it and then never answers (the call runs into its timeout: the outcome
// is unknown to tiyin, as with a real network that loses a reply).
//
// The network's journal (its statements) can disagree with what it answered, to try
// reconciliation (docs/reconciliation.md): with LostCredit a credit is not journalled, with
// DoubleCredit it is journalled twice, with AmountDrift one tiyin less; with ReversedDebit a
// debit is journalled as reversed. Which line takes which is decided by its id alone
// (JournalFault), so a test knows.
type Faults struct {
	ErrorRate   float64
	TimeoutRate float64
	Latency     time.Duration

	LostCredit, DoubleCredit, AmountDrift, ReversedDebit float64
}

// The journal faults, as JournalFault names them.
const (
	FaultLostCredit    = "lost-credit"
	FaultDoubleCredit  = "double-credit"
	FaultAmountDrift   = "amount-drift"
	FaultReversedDebit = "reversed-debit"
)

// JournalFault is the fault the journal takes for a line of kind and id, "" for none: the
// line's id, hashed, falls in one rate's share of [0, 1).
func (f Faults) JournalFault(kind domain.LineKind, id string) string {
	sum := sha256.Sum256([]byte(id))
	u := float64(binary.BigEndian.Uint64(sum[:8])>>11) / (1 << 53)
	if kind == domain.LineDebit {
		if u < f.ReversedDebit {
			return FaultReversedDebit
		}
		return ""
	}
	for _, r := range []struct {
		name string
		rate float64
	}{{FaultLostCredit, f.LostCredit}, {FaultDoubleCredit, f.DoubleCredit}, {FaultAmountDrift, f.AmountDrift}} {
		if u < r.rate {
			return r.name
		}
		u -= r.rate
	}
	return ""
}

// ParseFaults reads "error=0.2,timeout=0.05,latency=150ms,lost-credit=0.1"; every part is
// optional.
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
		case FaultLostCredit:
			f.LostCredit, err = parseRate(value)
		case FaultDoubleCredit:
			f.DoubleCredit, err = parseRate(value)
		case FaultAmountDrift:
			f.AmountDrift, err = parseRate(value)
		case FaultReversedDebit:
			f.ReversedDebit, err = parseRate(value)
		default:
			return Faults{}, fmt.Errorf("unknown fault %q: want error=RATE, timeout=RATE, latency=DURATION, lost-credit=RATE, "+
				"double-credit=RATE, amount-drift=RATE or reversed-debit=RATE", name)
		}
		if err != nil {
			return Faults{}, fmt.Errorf("fault %q: %w", part, err)
		}
	}
	if f.ErrorRate+f.TimeoutRate > 1 {
		return Faults{}, fmt.Errorf("error and timeout rates add up to more than 1")
	}
	if f.LostCredit+f.DoubleCredit+f.AmountDrift > 1 {
		return Faults{}, fmt.Errorf("lost-credit, double-credit and amount-drift rates add up to more than 1")
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
func (f Faults) Active() bool {
	return f.ErrorRate > 0 || f.TimeoutRate > 0 || f.Latency > 0 || f.LostCredit > 0 || f.DoubleCredit > 0 || f.AmountDrift > 0 ||
		f.ReversedDebit > 0
}

// String renders the faults as ParseFaults reads them.
func (f Faults) String() string {
	return fmt.Sprintf("error=%g,timeout=%g,latency=%s,lost-credit=%g,double-credit=%g,amount-drift=%g,reversed-debit=%g",
		f.ErrorRate, f.TimeoutRate, f.Latency, f.LostCredit, f.DoubleCredit, f.AmountDrift, f.ReversedDebit)
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
