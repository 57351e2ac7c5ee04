package porttest

import (
	"context"
	"errors"
	"testing"

	"github.com/tiyin/tiyin/ports"
)

// ScoringCases are clients the scoring behind the adapter approves or declines. The suite sets
// the idempotency keys.
type ScoringCases struct {
	Approved     ports.PreScoreRequest  // pre-scoring approves, with an offer range
	Declined     ports.PreScoreRequest  // pre-scoring declines (as an answer, or ErrGatewayRefused)
	PostApproved ports.PostScoreRequest // post-scoring approves the offer
	PostDeclined ports.PostScoreRequest // post-scoring declines it, saying why
}

// RunScoring checks a Scoring adapter against the port's contract.
func RunScoring(t *testing.T, newAdapter Constructor[ports.Scoring], c ScoringCases) {
	t.Run("pre-scoring approves with an offer range, the same for a repeated request", func(t *testing.T) {
		s, ctx := healthy(t, newAdapter), context.Background()
		req := c.Approved
		req.IdempotencyKey = key(t, "PRE_SCORING")
		for range 2 {
			if err := s.RequestPreScore(ctx, req); err != nil {
				t.Fatalf("RequestPreScore: %v", err)
			}
		}
		var answer ports.PreScoreAnswer
		eventually(t, "PreScoreResult", func() (bool, error) {
			var err error
			answer, err = s.PreScoreResult(ctx, req)
			return err == nil && answer.Status != ports.AnswerPending, err
		})
		if answer.Status != ports.AnswerApproved || answer.Result.AmountLimit <= 0 || answer.Result.MonthPeriod <= 0 {
			t.Fatalf("PreScoreResult: %+v, want approved with an offer range", answer)
		}
		if again, err := s.PreScoreResult(ctx, req); err != nil || again != answer {
			t.Fatalf("PreScoreResult asked again: %+v, %v; want %+v", again, err, answer)
		}
	})
	t.Run("pre-scoring declines, saying why", func(t *testing.T) {
		s, ctx := healthy(t, newAdapter), context.Background()
		req := c.Declined
		req.IdempotencyKey = key(t, "PRE_SCORING")
		if err := s.RequestPreScore(ctx, req); errors.Is(err, ports.ErrGatewayRefused) {
			return
		} else if err != nil {
			t.Fatalf("RequestPreScore: %v", err)
		}
		var answer ports.PreScoreAnswer
		eventually(t, "PreScoreResult", func() (bool, error) {
			var err error
			answer, err = s.PreScoreResult(ctx, req)
			return err == nil && answer.Status != ports.AnswerPending, err
		})
		if answer.Status != ports.AnswerDeclined || answer.Reason == "" {
			t.Fatalf("PreScoreResult: %+v, want declined with a reason", answer)
		}
	})
	t.Run("post-scoring approves, the same for a repeated request", func(t *testing.T) {
		s, ctx := healthy(t, newAdapter), context.Background()
		req := c.PostApproved
		req.IdempotencyKey = key(t, "POST_SCORING")
		first, err := s.PostScore(ctx, req)
		if err != nil || !first.Approved {
			t.Fatalf("PostScore: %+v, %v", first, err)
		}
		if again, err := s.PostScore(ctx, req); err != nil || again != first {
			t.Fatalf("PostScore with the same key: %+v, %v; want %+v", again, err, first)
		}
	})
	t.Run("post-scoring declines, saying why", func(t *testing.T) {
		req := c.PostDeclined
		req.IdempotencyKey = key(t, "POST_SCORING")
		got, err := healthy(t, newAdapter).PostScore(context.Background(), req)
		if err != nil || got.Approved || got.Reason == "" {
			t.Fatalf("PostScore: %+v, %v; want declined with a reason", got, err)
		}
	})
	faults(t, newAdapter, func(ctx context.Context, s ports.Scoring) error {
		req := c.PostApproved
		req.IdempotencyKey = key(t, "POST_SCORING")
		_, err := s.PostScore(ctx, req)
		return err
	})
}
