package server

import (
	"strings"
	"testing"

	"github.com/tiyin/tiyin/adapters/gateway/httpgw"
)

// TestOutsideTheSandboxGatewaysAreHTTPS: outside the sandbox a bank's gateway is called over
// TLS only; a plain http URL, or a port with no real adapter, stops tiyin before it starts.
func TestOutsideTheSandboxGatewaysAreHTTPS(t *testing.T) {
	t.Parallel()
	gw := func(port, url string) gateway {
		return gateway{port: port, urlVar: "TIYIN_" + port + "_URL", cfg: httpgw.Config{URL: url}}
	}
	if err := missingGateways([]gateway{gw("SCORING", "https://scoring.bank.example"), gw("CORE", "HTTPS://core.bank.example")}); err != nil {
		t.Fatalf("https gateways refused: %v", err)
	}
	err := missingGateways([]gateway{gw("SCORING", "http://scoring.bank.example"), gw("CORE", "https://core.bank.example")})
	if err == nil || !strings.Contains(err.Error(), "TIYIN_SCORING_URL not https") || strings.Contains(err.Error(), "TIYIN_CORE_URL") {
		t.Fatalf("a plain http gateway: %v", err)
	}
	if err := missingGateways([]gateway{gw("SMS", "")}); err == nil || !strings.Contains(err.Error(), "no real adapter") {
		t.Fatalf("a gateway with no adapter: %v", err)
	}
}
