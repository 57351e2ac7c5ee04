package sandbox_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tiyin/tiyin/adapters/gateway/guard"
	"github.com/tiyin/tiyin/adapters/gateway/sandbox"
	"github.com/tiyin/tiyin/adapters/gateway/sandbox/sandboxtest"
	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/ports/porttest"
)

// The sandbox gateways keep the ports' contracts. Their faults come from the gateway guard's
// fault injection, the same that TIYIN_SANDBOX_FAULTS switches on.

// guarded wraps an adapter as tiyin runs it, the system showing fault.
func guarded[P any](wrap func(*guard.Guard, P) P, p P, fault porttest.Fault) P {
	var f sandbox.Faults
	switch fault {
	case porttest.FailTransiently:
		f.ErrorRate = 1
	case porttest.Hang:
		f.TimeoutRate = 1
	}
	return wrap(guard.New(guard.Config{Timeout: 5 * time.Second, Faults: f}, nil), p)
}

func TestProcessingContract(t *testing.T) {
	porttest.RunProcessing(t, func(_ *testing.T, f porttest.Fault) ports.Processing {
		return guarded((*guard.Guard).Processing, ports.Processing(sandbox.NewProcessing()), f)
	}, sandboxtest.ProcessingCases())
}

func TestScoringContract(t *testing.T) {
	porttest.RunScoring(t, func(_ *testing.T, f porttest.Fault) ports.Scoring {
		return guarded((*guard.Guard).Scoring, ports.Scoring(sandbox.NewScoring()), f)
	}, sandboxtest.ScoringCases())
}

func TestCoreBankingContract(t *testing.T) {
	porttest.RunCoreBanking(t, func(_ *testing.T, f porttest.Fault) ports.CoreBanking {
		return guarded((*guard.Guard).CoreBanking, ports.CoreBanking(sandbox.NewCoreBanking()), f)
	}, sandboxtest.CoreBankingCases())
}

func TestSMSSenderContract(t *testing.T) {
	porttest.RunSMSSender(t, func(_ *testing.T, f porttest.Fault) ports.SMSSender {
		return guarded((*guard.Guard).SMSSender, ports.SMSSender(sandbox.NewSMSSender(sandboxtest.Outbox{}, sandboxtest.Clock{})), f)
	}, sandboxtest.SMSCases())
}

func TestCardIssuerContract(t *testing.T) {
	porttest.RunCardIssuer(t, func(_ *testing.T, f porttest.Fault) ports.CardIssuer {
		return guarded((*guard.Guard).CardIssuer, ports.CardIssuer(sandbox.NewCardIssuer(sandboxtest.Clock{})), f)
	}, sandboxtest.CardIssuerCases())
}

func TestGeneralLedgerContract(t *testing.T) {
	porttest.RunGeneralLedger(t, func(_ *testing.T, f porttest.Fault) ports.GeneralLedger {
		return guarded((*guard.Guard).GeneralLedger, ports.GeneralLedger(sandbox.NewGeneralLedger()), f)
	}, sandboxtest.GeneralLedgerCases())
}

// forgetful acts twice on a repeated key: its second Credit with the same key is a new credit,
// refused for lack of funds.
type forgetful struct {
	ports.Processing
	mu   sync.Mutex
	seen map[string]bool
}

func (f *forgetful) Credit(ctx context.Context, o ports.CreditOrder) (ports.CreditResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.seen[o.IdempotencyKey] {
		return ports.CreditResult{Reason: "insufficient funds"}, nil
	}
	f.seen[o.IdempotencyKey] = true
	return f.Processing.Credit(ctx, o)
}

// TestContractCatchesABrokenAdapter runs the Processing suite on an adapter that breaks the
// idempotency contract, in a child test process, and wants it to fail saying so: the suites
// can fail.
func TestContractCatchesABrokenAdapter(t *testing.T) {
	if os.Getenv("TIYIN_BROKEN_ADAPTER") == "1" {
		porttest.RunProcessing(t, func(*testing.T, porttest.Fault) ports.Processing {
			return &forgetful{Processing: sandbox.NewProcessing(), seen: map[string]bool{}}
		}, sandboxtest.ProcessingCases())
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestContractCatchesABrokenAdapter$")
	cmd.Env = append(os.Environ(), "TIYIN_BROKEN_ADAPTER=1")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Credit with the same key") {
		t.Fatalf("the suite passed a forgetful adapter (%v):\n%s", err, out)
	}
}
