package http_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// registerAs registers an application for a client whose PINFL ends in ending (the sandbox's
// magic values) and returns its id.
func (h *harness) registerAs(t *testing.T, ending string) string {
	t.Helper()
	p := registerParams()
	cd := clientData()
	cd["pinfl"] = "3123456789" + ending
	p["clientData"] = cd
	a := h.call(t, "/microloans/applications/pre-scoring/register", p)
	if a.code() != 0 {
		t.Fatalf("register: %s", a.Raw)
	}
	var r struct{ ApplicationID string }
	_ = json.Unmarshal(a.Result, &r)
	return r.ApplicationID
}

func (h *harness) lastTaskCode(t *testing.T, id string) (string, int) {
	t.Helper()
	var r struct {
		Status   string
		LastTask struct{ ErrorCode *int }
	}
	_ = json.Unmarshal(h.call(t, "/microloans/applications/info", map[string]any{"applicationId": id}).Result, &r)
	if r.LastTask.ErrorCode == nil {
		return r.Status, 0
	}
	return r.Status, *r.LastTask.ErrorCode
}

func TestStageRefusalsReportTheirCodes(t *testing.T) {
	t.Parallel()
	h := setup(t)
	issue := func(id, ending string) {
		t.Helper()
		h.call(t, "/microloans/applications/verify", verifyParams(id, 100_000_000))
		cd := clientData()
		cd["pinfl"] = "3123456789" + ending
		h.call(t, "/microloans/applications/issue", map[string]any{"applicationId": id, "clientData": cd})
	}
	tests := []struct {
		ending, status string
		code           int
		drive          func(id, ending string)
	}{
		{"0000", "REJECTED", 1024, func(string, string) {}},
		{"2222", "REJECTED", 1025, func(id, _ string) { h.call(t, "/microloans/applications/verify", verifyParams(id, 100_000_000)) }},
		{"3333", "REJECTED", 1026, issue},
		{"4444", "FAILED", 1027, func(id, ending string) {
			issue(id, ending)
			// Core banking stays down: each retry is due later on the clock; the fifth fails it.
			for range domain.MaxStageAttempts + 1 {
				h.call(t, "/sandbox/clock/advance", map[string]any{"duration": "2h"})
				if _, err := h.app.Loans.ProcessApplication.Handle(context.Background(), uuid.MustParse(id)); err != nil {
					t.Fatal(err)
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.ending, func(t *testing.T) {
			id := h.registerAs(t, tt.ending)
			tt.drive(id, tt.ending)
			if status, code := h.lastTaskCode(t, id); status != tt.status || code != tt.code {
				t.Fatalf("status %s, errorCode %d; want %s, %d", status, code, tt.status, tt.code)
			}
		})
	}
}

// TestLostIssuanceAnswersAreAskedAgainUntilTheLoanIsThere: the sandbox client whose PINFL ends
// 6669 has core banking issue the loan and lose its first 9 answers, more than a stage's
// attempts. Each is an unknown outcome: the stage shows LOAN_ISSUANCE/IN_PROGRESS and is asked
// again with the same key, never FAILED, until the answer arrives and the loan is there.
func TestLostIssuanceAnswersAreAskedAgainUntilTheLoanIsThere(t *testing.T) {
	t.Parallel()
	h := setup(t)
	id := h.registerAs(t, "6669")
	h.call(t, "/microloans/applications/verify", verifyParams(id, 100_000_000))
	cd := clientData()
	cd["pinfl"] = "31234567896669"
	if a := h.call(t, "/microloans/applications/issue", map[string]any{"applicationId": id, "clientData": cd}); a.code() != 0 {
		t.Fatalf("issue: %s", a.Raw)
	}
	for i := 1; ; i++ {
		status, stage := h.info(t, id)
		if status == "COMPLETED" {
			if i != 10 {
				t.Fatalf("completed on run %d, want 10 (9 lost answers, then the answer)", i)
			}
			break
		}
		if status != "IN_PROGRESS" || stage != "LOAN_ISSUANCE/IN_PROGRESS" || i > 10 {
			t.Fatalf("run %d: %s %s", i, status, stage)
		}
		h.call(t, "/sandbox/clock/advance", map[string]any{"duration": "2h"})
		if _, err := h.app.Loans.ProcessApplication.Handle(context.Background(), uuid.MustParse(id)); err != nil {
			t.Fatal(err)
		}
	}
	if l := h.loan(t, id); l.TotalResidue != 100_000_000 {
		t.Fatalf("loan: %+v", l)
	}
}

func TestGatewayDownAnswersCode10AndARetryRuns(t *testing.T) {
	t.Parallel()
	down := true
	h := setupWith(t, true, func(s *harnessSetup) {
		s.gateways.Scoring = switchScoring{Scoring: s.gateways.Scoring, down: &down}
	})
	id := h.register(t)
	req := uuid.NewString()
	if a := h.callAs(t, h.key, req, "/microloans/applications/verify", verifyParams(id, 100_000_000)); a.code() != 10 || a.Status != 503 {
		t.Fatalf("gateway down: %s", a.Raw)
	}
	down = false
	if a := h.callAs(t, h.key, req, "/microloans/applications/verify", verifyParams(id, 100_000_000)); a.code() != 0 {
		t.Fatalf("the retry with the same id: %s", a.Raw)
	}
}

// switchScoring is the sandbox's scoring whose post-scoring stops answering while down is set.
type switchScoring struct {
	ports.Scoring
	down *bool
}

func (s switchScoring) PostScore(ctx context.Context, r ports.PostScoreRequest) (domain.PostScoreResult, error) {
	if *s.down {
		return domain.PostScoreResult{}, fmt.Errorf("%w: post-scoring timed out", ports.ErrUnavailable)
	}
	return s.Scoring.PostScore(ctx, r)
}

// busyIdempotency answers every write as if a request with its id were still running.
type busyIdempotency struct{ ports.IdempotencyStore }

func (busyIdempotency) Claim(context.Context, ports.IdempotencyRecord) error {
	return ports.ErrRequestInProgress
}

func TestDuplicateStillRunningAnswersCode9(t *testing.T) {
	t.Parallel()
	h := setupWith(t, false, func(s *harnessSetup) { s.idempotency = busyIdempotency{s.idempotency} })
	a := h.call(t, "/sandbox/clock/advance", map[string]any{"duration": "0s"})
	if a.code() != 9 || a.Status != 409 {
		t.Fatalf("got %s", a.Raw)
	}
}
