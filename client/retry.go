package client

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Retry says how Do repeats a call: at most Attempts times in all (5 when zero), waiting First
// (200 ms when zero) after the first failure, doubling up to Max (5 s when zero).
type Retry struct {
	Attempts   int
	First, Max time.Duration
}

// Do runs call with one envelope id, new for this call, and runs it again with the same id
// while it fails in a way that may succeed on a repeat (Retryable: the answer never came, or
// code 7, 9 or 10): tiyin answers a repeat with the first answer, or finishes what the first
// started, so money moves once. call builds its request with id and returns Check's error.
// Do returns the last error, or ctx's when it ends first.
//
//	var reply *client.PayRepaymentReply
//	err := client.Do(ctx, client.Retry{}, func(ctx context.Context, id client.UUID) error {
//		var err error
//		reply, err = c.PayRepaymentWithResponse(ctx, client.PayRepaymentRequest{Id: id, Params: params})
//		return client.Check(reply, err)
//	})
func Do(ctx context.Context, r Retry, call func(ctx context.Context, id UUID) error) error {
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
	id := uuid.New()
	var err error
	for i := range attempts {
		if err = call(ctx, id); !Retryable(err) || i == attempts-1 {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, ceiling)
	}
	return err
}
