package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tiyin/tiyin/adapters/gateway/sandbox"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

func TestParseFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    sandbox.Faults
		wantErr bool
	}{
		{"", sandbox.Faults{}, false},
		{"error=0.2", sandbox.Faults{ErrorRate: 0.2}, false},
		{" error=0.2 , timeout=0.05,latency=150ms ", sandbox.Faults{ErrorRate: 0.2, TimeoutRate: 0.05, Latency: 150 * time.Millisecond}, false},
		{"error=1", sandbox.Faults{ErrorRate: 1}, false},
		{"error=1.5", sandbox.Faults{}, true},
		{"error=-0.1", sandbox.Faults{}, true},
		{"error=NaN", sandbox.Faults{}, true},
		{"error=0.6,timeout=0.6", sandbox.Faults{}, true},
		{"latency=-1s", sandbox.Faults{}, true},
		{"latency=soon", sandbox.Faults{}, true},
		{"explode=1", sandbox.Faults{}, true},
		{"error", sandbox.Faults{}, true},
	}
	for _, tt := range tests {
		got, err := sandbox.ParseFaults(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseFaults(%q) = %+v, %v; want %+v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestFaultRatesAreHonoured(t *testing.T) {
	t.Parallel()
	f := sandbox.Faults{ErrorRate: 0.3}
	failed := 0
	const n = 4000
	for range n {
		if err := f.Before(context.Background()); err != nil {
			if !errors.Is(err, ports.ErrGatewayNotReached) || errors.Is(err, ports.ErrGatewayTransient) {
				t.Fatalf("a fault before the call never reached the gateway: %v", err)
			}
			failed++
		}
	}
	if rate := float64(failed) / n; rate < 0.25 || rate > 0.35 {
		t.Fatalf("error rate %.3f, want about 0.3", rate)
	}
}

// The journal faults: parsed with the others, their credit rates within 1, and each line's
// fault decided by its id alone, in its rate's share.
func TestJournalFaults(t *testing.T) {
	t.Parallel()
	if _, err := sandbox.ParseFaults("lost-credit=0.6,double-credit=0.5"); err == nil {
		t.Fatal("credit rates over 1 were taken")
	}
	f, err := sandbox.ParseFaults("lost-credit=0.25,double-credit=0.25,amount-drift=0.25,reversed-debit=1")
	if err != nil || !f.Active() {
		t.Fatalf("%+v, %v", f, err)
	}
	counts := map[string]int{}
	for i := range 4000 {
		id := fmt.Sprintf("t%d:CREDIT", i)
		got := f.JournalFault(domain.LineCredit, id)
		if again := f.JournalFault(domain.LineCredit, id); again != got {
			t.Fatalf("%s takes %q, then %q", id, got, again)
		}
		counts[got]++
		if d := f.JournalFault(domain.LineDebit, id); d != sandbox.FaultReversedDebit {
			t.Fatalf("a debit at rate 1 takes %q", d)
		}
	}
	for _, k := range []string{"", sandbox.FaultLostCredit, sandbox.FaultDoubleCredit, sandbox.FaultAmountDrift} {
		if counts[k] < 850 || counts[k] > 1150 {
			t.Errorf("%q took %d of 4000 lines, want about 1000", k, counts[k])
		}
	}
}
