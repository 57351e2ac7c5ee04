// Command bank is tiyin as a bank builds it: tiyin's whole command line, with the Scoring
// port answered by the bank's own engine (a line protocol over TCP, package scoring) at
// BANK_SCORING_ADDR. Every other port, and every TIYIN_* variable, is tiyin's as usual.
package main

import (
	"context"
	"errors"
	"os"

	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/server"

	"example.com/bank/scoring"
)

func main() {
	server.Main(server.WithScoring(func(server.Deps) (ports.Scoring, error) {
		addr := os.Getenv("BANK_SCORING_ADDR")
		if addr == "" {
			return nil, errors.New("BANK_SCORING_ADDR is not set: the host:port of the bank's scoring engine")
		}
		return scoring.New(addr), nil
	}), server.WithStart("bank", logBuild))
}

// logBuild is a start hook of the bank's own beside tiyin's: a start line naming this build, so
// that the bank's operators see which adapters it carries (a tracing exporter would be started,
// and stopped through d.Lifecycle, the same way).
func logBuild(_ context.Context, d server.Deps) error {
	d.Log.Info("bank build", "scoring", "line protocol over TCP (example.com/bank/scoring)")
	return nil
}
