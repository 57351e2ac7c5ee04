package main

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// op is one unit of work: a request, a database transaction or a whole flow.
type op func(ctx context.Context) error

// stats are what one measurement saw.
type stats struct {
	Done    int           `json:"done"`
	Errors  int64         `json:"errors"`
	Elapsed time.Duration `json:"elapsedNs"`
	// CatchUp is the part of Elapsed after the last request, until the job queue had done the
	// background work the requests left.
	CatchUp time.Duration `json:"catchUpNs,omitempty"`
	P50     time.Duration `json:"p50Ns"`
	P99     time.Duration `json:"p99Ns"`
}

// Rate is operations per second.
func (s stats) Rate() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Done) / s.Elapsed.Seconds()
}

// recorder collects latencies from many goroutines.
type recorder struct {
	mu        sync.Mutex
	latencies []time.Duration
	errors    atomic.Int64
}

func (r *recorder) add(local []time.Duration) {
	r.mu.Lock()
	r.latencies = append(r.latencies, local...)
	r.mu.Unlock()
}

func (r *recorder) stats(elapsed time.Duration) stats {
	slices.Sort(r.latencies)
	pct := func(p float64) time.Duration {
		if len(r.latencies) == 0 {
			return 0
		}
		return r.latencies[int(float64(len(r.latencies)-1)*p)]
	}
	return stats{Done: len(r.latencies), Errors: r.errors.Load(), Elapsed: elapsed, P50: pct(0.50), P99: pct(0.99)}
}

// saturate is a closed loop: conc workers each send the next operation as soon as the last is
// answered, for dur. Its rate is the most the target does at that concurrency.
func saturate(conc int, dur time.Duration, do op) stats {
	var (
		rec recorder
		wg  sync.WaitGroup
	)
	ctx, cancel := context.WithTimeout(context.Background(), dur+30*time.Second)
	defer cancel()
	start := time.Now()
	stop := start.Add(dur)
	for range conc {
		wg.Go(func() {
			local := make([]time.Duration, 0, 4096)
			for time.Now().Before(stop) {
				t := time.Now()
				if err := do(ctx); err != nil {
					rec.errors.Add(1)
				}
				local = append(local, time.Since(t))
			}
			rec.add(local)
		})
	}
	wg.Wait()
	return rec.stats(time.Since(start))
}

// pace is an open loop: operations start at a fixed rate whatever the answers do, and each
// latency counts from when its operation was due, so a stall shows in the tail instead of
// slowing the sender down (no coordinated omission). At most maxInFlight run at once; past that
// the sender waits and the wait counts in the latencies.
func pace(rate float64, dur time.Duration, do op) stats {
	const maxInFlight = 1024
	var (
		rec recorder
		wg  sync.WaitGroup
		mu  sync.Mutex
		all []time.Duration
	)
	ctx, cancel := context.WithTimeout(context.Background(), dur+30*time.Second)
	defer cancel()
	interval := time.Duration(float64(time.Second) / rate)
	n := int(dur.Seconds() * rate)
	slots := make(chan struct{}, maxInFlight)
	start := time.Now()
	for i := range n {
		due := start.Add(time.Duration(i) * interval)
		if d := time.Until(due); d > time.Millisecond {
			time.Sleep(d) // sleeping per operation would cost more than the operations at high rates
		}
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			if err := do(ctx); err != nil {
				rec.errors.Add(1)
			}
			l := time.Since(due)
			mu.Lock()
			all = append(all, l)
			mu.Unlock()
		})
	}
	wg.Wait()
	rec.add(all)
	return rec.stats(time.Since(start))
}
