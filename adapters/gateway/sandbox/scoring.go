package sandbox

import (
	"context"
	"sync"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// Scoring is the sandbox credit scoring. Its answers depend only on the client's PINFL and the
// offer, so they survive restarts and agree across nodes; only the poll count of a slow answer
// is kept in memory.
type Scoring struct {
	mu      sync.Mutex
	polls   map[string]int
	percent domain.Percent
}

// NewScoring returns the sandbox scoring offering PercentHundredths (28.00 %).
func NewScoring() *Scoring {
	pct, _ := domain.PercentFromHundredths(PercentHundredths)
	return NewScoringAt(pct)
}

// NewScoringAt returns the sandbox scoring offering percent instead
// (TIYIN_SANDBOX_SCORING_PERCENT), so that partners and tests can try offers at the 50 % cap.
func NewScoringAt(percent domain.Percent) *Scoring {
	return &Scoring{polls: map[string]int{}, percent: percent}
}

// RequestPreScore implements ports.Scoring.
func (s *Scoring) RequestPreScore(context.Context, ports.PreScoreRequest) error { return nil }

// PreScoreResult implements ports.Scoring.
func (s *Scoring) PreScoreResult(_ context.Context, req ports.PreScoreRequest) (ports.PreScoreAnswer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pinfl, key := req.ClientData.PINFL(), req.IdempotencyKey
	switch {
	case hasEnding(pinfl, PINFLDeclined):
		return ports.PreScoreAnswer{Answer: ports.Answer{Status: ports.AnswerDeclined,
			Reason: "SCORE_DECLINED: the client does not meet the scoring criteria"}}, nil
	case hasEnding(pinfl, PINFLSlowScoring) && s.polls[key] < SlowScoringPolls:
		s.polls[key]++
		return ports.PreScoreAnswer{Answer: ports.Answer{Status: ports.AnswerPending}}, nil
	}
	return ports.PreScoreAnswer{Answer: ports.Answer{Status: ports.AnswerApproved},
		Result: domain.PreScoreResult{AmountLimit: AmountLimit, Percent: s.percent, MonthPeriod: MonthPeriod}}, nil
}

// PostScore implements ports.Scoring.
func (s *Scoring) PostScore(_ context.Context, req ports.PostScoreRequest) (domain.PostScoreResult, error) {
	if hasEnding(req.ClientData.PINFL(), PINFLPostScoringDeclined) {
		return domain.PostScoreResult{Approved: false, Reason: "POST_SCORING_DECLINED: the offer was declined"}, nil
	}
	if req.Offer.Amount.Tiyin() > CallThreshold {
		return domain.PostScoreResult{Approved: true, PhoneCallRequired: true, CallCentrePhone: CallCentrePhone}, nil
	}
	return domain.PostScoreResult{Approved: true}, nil
}
