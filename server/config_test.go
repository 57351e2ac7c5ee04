package server

import (
	"context"
	"strings"
	"testing"

	"github.com/tiyin/tiyin/adapters/gateway/sandbox"
	"github.com/tiyin/tiyin/ports"
)

// TestTheSandboxScoringPercentIsASetting: TIYIN_SANDBOX_SCORING_PERCENT sets the percent the
// sandbox's pre-scoring offers (28.0 by default), so partners can try offers at the 50 % cap;
// a bad value stops the start naming the setting.
func TestTheSandboxScoringPercentIsASetting(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  int64 // hundredths; -1: refused
	}{{"", 2800}, {"83.06", 8306}, {"99.99", 9999}, {"100", -1}, {"12.345", -1}, {"x", -1}} {
		t.Setenv("TIYIN_SANDBOX_SCORING_PERCENT", tt.value)
		cfg, err := loadConfig()
		if tt.want < 0 {
			if err == nil || !strings.Contains(err.Error(), "TIYIN_SANDBOX_SCORING_PERCENT") {
				t.Errorf("%q: %v, want a refusal naming the setting", tt.value, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tt.value, err)
		}
		answer, err := sandbox.NewScoringAt(cfg.SandboxScoringPercent).PreScoreResult(context.Background(), ports.PreScoreRequest{IdempotencyKey: "k"})
		if err != nil || answer.Result.Percent.Hundredths() != tt.want {
			t.Errorf("%q: the sandbox offers %s (%v), want %d hundredths", tt.value, answer.Result.Percent, err, tt.want)
		}
	}
}
