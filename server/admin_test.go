package server

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestAnAdminListenerBeyondLoopbackMustBeMeant(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		addr   string
		public bool
		ok     bool
	}{
		{"127.0.0.1:9090", false, true},
		{"[::1]:9090", false, true},
		{"localhost:9090", false, true},
		{"off", false, true},
		{"0.0.0.0:9090", false, false},
		{":9090", false, false},
		{"10.0.0.5:9090", false, false},
		{"10.0.0.5:9090", true, true},
		{"nonsense", false, false},
	} {
		if err := checkAdminAddr(tt.addr, tt.public); (err == nil) != tt.ok {
			t.Errorf("%q public=%v: %v", tt.addr, tt.public, err)
		}
	}
}

func TestOutsideTheSandboxGatewaysAreHTTPS(t *testing.T) {
	t.Parallel()
	gs, errs := loadGateways(func(name, def string) string {
		if strings.HasSuffix(name, "_URL") {
			if name == "TIYIN_SCORING_URL" {
				return "http://bank.internal/scoring"
			}
			return "https://bank.internal/" + name
		}
		return def
	})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	err := missingGateways(gs)
	if err == nil || !strings.Contains(err.Error(), "TIYIN_SCORING_URL not https") || strings.Contains(err.Error(), "no real adapter") {
		t.Fatalf("got %v", err)
	}
}

// TestAMistypedCommandIsAUsageError: an unknown subcommand, a missing argument or an unknown
// flag is a usage error (exit status 2), never help printed with success.
func TestAMistypedCommandIsAUsageError(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"partner", "enablex", "acme"}, {"ledger", "foo"}, {"nope"}, {"partner", "disable"},
		{"partner", "list", "--bogus"}} {
		root := rootCmd(options{})
		root.SetArgs(args)
		root.SetOut(io.Discard)
		root.SetErr(io.Discard)
		var usage usageError
		if err := root.Execute(); !errors.As(err, &usage) {
			t.Errorf("tiyin %s: %v, want a usage error", strings.Join(args, " "), err)
		}
	}
}
