package server

import (
	"strings"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/tiyin/tiyin/ports"
)

// TestTheGraphProvidesEveryCapability: serve's graph, as production builds it, in the sandbox
// and outside it, provides what every capability's use cases take, the workers and both
// listeners' servers: a port left without a provider fails here, not at a deployment.
func TestTheGraphProvidesEveryCapability(t *testing.T) {
	t.Parallel()
	for _, sandbox := range []bool{true, false} {
		cfg := config{Sandbox: sandbox, DataKey: sandboxDataKey, SQLitePath: t.TempDir() + "/tiyin.db", AdminAddr: "127.0.0.1:0"}
		gs, _ := loadGateways(settings{})
		cfg.Gateways = gs
		if err := fx.ValidateApp(graph(cfg, zap.NewNop(), options{}), fx.Supply(listeners{}), fx.Invoke(run, startAdmin)); err != nil {
			t.Errorf("sandbox=%v: %v", sandbox, err)
		}
	}
}

// TestAMissingPortFailsTheGraph: the check above fails when a port has no provider (here a
// port no adapter implements).
func TestAMissingPortFailsTheGraph(t *testing.T) {
	t.Parallel()
	cfg := config{Sandbox: true, DataKey: sandboxDataKey}
	err := fx.ValidateApp(graph(cfg, zap.NewNop(), options{}), fx.Invoke(func(unprovided) {}))
	if err == nil || !strings.Contains(err.Error(), "missing type") {
		t.Fatalf("got %v, want a missing type", err)
	}
}

// unprovided is a port nothing provides.
type unprovided interface{ ports.Clock }
