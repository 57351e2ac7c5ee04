package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tiyin/tiyin/test/tiyintest"
)

// rssTarget is the most tiyin may hold once its applications' background work is done
// (1 000 000 of them with make soak APPS=1000000); a soak may grow it by at most soakGrowth
// between its first and last sample.
const (
	rssTarget  = 150 << 20
	soakGrowth = 1.10
)

// memory is what the memory run saw.
type memory struct {
	Applications int     `json:"applications"`
	RSSAfterApps int64   `json:"rssAfterApplicationsBytes,omitempty"`
	Soak         string  `json:"soak,omitempty"`
	SoakRate     float64 `json:"soakRate,omitempty"`
	SoakStats    *stats  `json:"soakStats,omitempty"`
	Samples      []int64 `json:"rssSamplesBytes,omitempty"`
	// Curve is the resident memory every 10 s from the first registration to the soak's end.
	Curve []int64 `json:"rssCurveBytes,omitempty"`
	Pass  bool    `json:"pass"`
}

// memory registers cfg.apps applications, lets their background work end and reads tiyin's
// resident memory; then runs a mixed load for cfg.soak at half the register rate, sampling it.
func (e *environment) memory(ctx context.Context, cfg config) error {
	m := &memory{Applications: cfg.apps, Pass: true}
	e.report.Memory = m
	stopCurve := e.sampleRSS(&m.Curve)
	defer func() {
		stopCurve()
		fmt.Printf("resident memory every 10 s, MB: %s\n", megabytes(m.Curve))
	}()
	if cfg.apps > 0 {
		var (
			left   atomic.Int64
			failed atomic.Int64
			wg     sync.WaitGroup
		)
		left.Store(int64(cfg.apps))
		start := time.Now()
		for range cfg.conc {
			wg.Go(func() {
				for left.Add(-1) >= 0 {
					if _, code, err := e.api.post(ctx, "/microloans/applications/pre-scoring/register", tiyintest.RegisterParams()); err != nil || code != 0 {
						failed.Add(1)
					}
				}
			})
		}
		wg.Wait()
		if err := e.drainWithin(30 * time.Minute); err != nil {
			return err
		}
		m.RSSAfterApps = e.node.RSS()
		m.Pass = m.RSSAfterApps <= rssTarget && failed.Load() == 0
		fmt.Printf("%d applications registered in %s (%d failed), background work done: resident memory %.0f MB (target ≤ %d MB)\n",
			cfg.apps, time.Since(start).Round(time.Second), failed.Load(), float64(m.RSSAfterApps)/(1<<20), rssTarget>>20)
	}
	if cfg.soak <= 0 {
		return nil
	}
	reg := e.report.find("pre-scoring register")
	loans, err := e.api.issuedLoans(cfg.loans)
	if err != nil {
		return err
	}
	ops := []op{
		e.api.op("/microloans/applications/info", loans.byApp),
		e.api.op("/microloans/schedule", loans.byLoan),
		e.api.op("/repayment/loans/check", loans.byLoan),
		e.api.op("/microloans/applications/pre-scoring/register", func() any { return tiyintest.RegisterParams() }),
		e.api.op("/microloans/payments", loans.byLoan),
	}
	var i atomic.Int64
	mixed := func(ctx context.Context) error { return ops[i.Add(1)%int64(len(ops))](ctx) }
	m.Soak, m.SoakRate = cfg.soak.String(), reg.Max.Rate()/2
	stopSamples := e.sampleRSS(&m.Samples)
	s := pace(m.SoakRate, cfg.soak, mixed)
	stopSamples()
	m.SoakStats = &s
	if len(m.Samples) >= 7 {
		first, last := m.Samples[5], m.Samples[len(m.Samples)-1] // the first minute warms up
		grew := float64(last) / float64(first)
		m.Pass = m.Pass && grew <= soakGrowth && s.Errors == 0
		fmt.Printf("soak %s at %.0f req/s (mixed): p99 %s, %d errors; resident memory %.0f MB after the first minute, %.0f MB at the end (×%.2f, allowed ×%.2f)\n",
			cfg.soak, m.SoakRate, ms(s.P99), s.Errors, float64(first)/(1<<20), float64(last)/(1<<20), grew, soakGrowth)
	} else {
		fmt.Fprintln(os.Stderr, "bench: the soak is too short to judge growth (want at least 70 s)")
	}
	return nil
}

// sampleRSS appends tiyin's resident memory to curve every 10 s until the returned function
// is called.
func (e *environment) sampleRSS(curve *[]int64) (stop func()) {
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(10 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				*curve = append(*curve, e.node.RSS())
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// megabytes is the samples in whole MB, separated by spaces.
func megabytes(samples []int64) string {
	out := make([]string, len(samples))
	for i, b := range samples {
		out[i] = fmt.Sprintf("%.0f", float64(b)/(1<<20))
	}
	return strings.Join(out, " ")
}
