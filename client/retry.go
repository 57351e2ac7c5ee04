package client

import (
	"context"
	"time"
)

// Retry is how a Client repeats a call that may succeed on a repeat (Retryable: no answer
// came, or code 7, 9 or 10): with the same envelope id, so tiyin answers the repeat with the
// first answer, or finishes what the first started, and money moves once. At most Attempts
// sends in all (5 when zero; 1 sends once), waiting First (200 ms when zero) after the first
// failure, doubling up to Max (5 s when zero). The call returns the last attempt's error, or
// the context's when it ends first.
type Retry struct {
	Attempts   int
	First, Max time.Duration
}

// run calls attempt until it succeeds, fails for good, or the attempts or ctx run out.
func (r Retry) run(ctx context.Context, attempt func() error) error {
	attempts, wait, ceiling := r.Attempts, r.First, r.Max
	if attempts <= 0 {
		attempts = 5
	}
	if wait <= 0 {
		wait = 200 * time.Millisecond
	}
	if ceiling <= 0 {
		ceiling = 5 * time.Second
	}
	var err error
	for i := range attempts {
		if err = attempt(); !Retryable(err) || i == attempts-1 {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, ceiling)
	}
	return err
}
