package server

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/tiyin/tiyin/adapters/gateway/guard"
	"github.com/tiyin/tiyin/adapters/gateway/sandbox"
	"github.com/tiyin/tiyin/adapters/observe"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// env is settings with the URLs given, nothing else.
func env(urls map[string]string) settings {
	return settings{ScoringURL: urls["TIYIN_SCORING_URL"], CoreBankingURL: urls["TIYIN_CORE_BANKING_URL"],
		ProcessingURL: urls["TIYIN_PROCESSING_URL"], SMSURL: urls["TIYIN_SMS_URL"], CardIssuerURL: urls["TIYIN_CARD_ISSUER_URL"]}
}

// TestAGoAdapterIsARealAdapter: outside the sandbox a port with a Go adapter needs no URL; the
// ports with neither are still named.
func TestAGoAdapterIsARealAdapter(t *testing.T) {
	t.Parallel()
	gs, _ := loadGateways(env(map[string]string{"TIYIN_CORE_BANKING_URL": "https://core", "TIYIN_PROCESSING_URL": "https://proc",
		"TIYIN_SMS_URL": "https://sms"}))
	o := applied([]Option{WithScoring(func(Deps) (ports.Scoring, error) { return sandbox.NewScoring(), nil })})
	gs, err := withGoAdapters(gs, o.gateways)
	if err != nil {
		t.Fatal(err)
	}
	err = missingGateways(gs)
	if err == nil || strings.Contains(err.Error(), "scoring") || !strings.Contains(err.Error(), "card_issuer (TIYIN_CARD_ISSUER_URL)") {
		t.Fatalf("got %v, want card_issuer alone named", err)
	}
}

// TestAPortGivenBothAGoAdapterAndAURLIsRefused: one of them would be silently ignored.
func TestAPortGivenBothAGoAdapterAndAURLIsRefused(t *testing.T) {
	t.Parallel()
	gs, _ := loadGateways(env(map[string]string{"TIYIN_SMS_URL": "https://sms"}))
	o := applied([]Option{WithSMSSender(func(Deps) (ports.SMSSender, error) { return nil, nil })})
	if _, err := withGoAdapters(gs, o.gateways); err == nil || !strings.Contains(err.Error(), "TIYIN_SMS_URL") {
		t.Fatalf("got %v", err)
	}
}

// scoringSpy is a Go adapter that blocks until its context ends.
type scoringSpy struct{ ports.Scoring }

func (scoringSpy) PostScore(ctx context.Context, _ ports.PostScoreRequest) (domain.PostScoreResult, error) {
	<-ctx.Done()
	return domain.PostScoreResult{}, ctx.Err()
}

// TestAGoAdapterIsBuiltWithItsDepsAndGuarded: the constructor gets the deps, its error stops
// the start naming the port (as does a nil adapter), and what tiyin calls is the adapter behind the gateway guard (a
// call past TIYIN_GATEWAY_TIMEOUT is transient whatever the adapter returns).
func TestAGoAdapterIsBuiltWithItsDepsAndGuarded(t *testing.T) {
	t.Parallel()
	var got Deps
	ok := WithScoring(func(d Deps) (ports.Scoring, error) { got = d; return scoringSpy{}, nil })
	failing := WithScoring(func(Deps) (ports.Scoring, error) { return nil, errors.New("no engine at BANK_ADDR") })
	gs, _ := loadGateways(env(nil))
	graph := func(opt Option, into *ports.Scoring) error {
		o := applied([]Option{opt})
		gs, err := withGoAdapters(gs, o.gateways)
		if err != nil {
			return err
		}
		return fx.New(fx.NopLogger, fx.Supply(config{Sandbox: true}, zap.NewNop(), guard.Config{Timeout: 50 * time.Millisecond}),
			fx.Provide(observe.New), gatewaysModule(gs, domain.Percent{}), guard.Module, fx.Populate(into)).Err()
	}
	var s ports.Scoring
	if err := graph(ok, &s); err != nil {
		t.Fatal(err)
	}
	if got.Log == nil || !got.Sandbox || got.Lifecycle == nil {
		t.Fatalf("deps %+v", got)
	}
	if _, err := s.PostScore(context.Background(), ports.PostScoreRequest{}); !errors.Is(err, ports.ErrGatewayTransient) {
		t.Fatalf("a call past the guard's timeout: %v, want ErrGatewayTransient", err)
	}
	if err := graph(failing, &s); err == nil || !strings.Contains(err.Error(), "the scoring adapter: no engine at BANK_ADDR") {
		t.Fatalf("got %v", err)
	}
	none := WithScoring(func(Deps) (ports.Scoring, error) { return nil, nil })
	if err := graph(none, &s); err == nil || !strings.Contains(err.Error(), "the scoring adapter: the constructor returned no adapter") {
		t.Fatalf("a nil adapter: got %v", err)
	}
}
