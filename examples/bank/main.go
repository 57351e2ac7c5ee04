// Command bank is tiyin as a bank builds it: tiyin's whole command line, with the Scoring
// port answered by the bank's own engine (a line protocol over TCP, package scoring) at
// BANK_SCORING_ADDR. Every other port, and every TIYIN_* variable, is tiyin's as usual.
package main

import (
	"errors"

	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/server"

	"example.com/bank/scoring"
)

func main() {
	server.Main(server.WithScoring(func(d server.Deps) (ports.Scoring, error) {
		addr := d.Getenv("BANK_SCORING_ADDR")
		if addr == "" {
			return nil, errors.New("BANK_SCORING_ADDR is not set: the host:port of the bank's scoring engine")
		}
		return scoring.New(addr), nil
	}))
}
