package domain

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// ErrStaleStage means the application moved on (canceled, or another worker finished the stage)
// while a stage's gateway call was in flight; the caller drops its result.
var ErrStaleStage = errors.New("application is no longer at this stage")

// StageOutcome is how a gateway answered one stage.
type StageOutcome int

// The outcomes of a stage's gateway call.
const (
	// OutcomeDone: the stage succeeded; the application moves to the next stage.
	OutcomeDone StageOutcome = iota + 1
	// OutcomePending: the gateway has no answer yet; ask again after PollInterval.
	OutcomePending
	// OutcomeRefused: a business refusal; the application is REJECTED.
	OutcomeRefused
	// OutcomeFailed: a definite technical refusal; the application is FAILED.
	OutcomeFailed
	// OutcomeUnknown: the call's outcome is unknown (a timeout, a lost answer): the bank may
	// have acted. Asked again with the same idempotency key, with backoff growing to an hour,
	// for as long as it takes; never FAILED on its account.
	OutcomeUnknown
	// OutcomeNotReached: the call never reached the bank, so nothing happened there; retried
	// with backoff, and FAILED after MaxStageAttempts of them.
	OutcomeNotReached
)

var outcomeNames = map[StageOutcome]string{OutcomeDone: "DONE", OutcomePending: "PENDING", OutcomeRefused: "REFUSED",
	OutcomeFailed: "FAILED", OutcomeUnknown: "UNKNOWN", OutcomeNotReached: "NOT_REACHED"}

// ParseStageOutcome reads what String wrote.
func ParseStageOutcome(s string) (StageOutcome, error) {
	for o, name := range outcomeNames {
		if name == s {
			return o, nil
		}
	}
	return 0, fmt.Errorf("unknown stage outcome %q", s)
}

// String names the outcome as the attempt history stores it.
func (o StageOutcome) String() string { return outcomeNames[o] }

// StageRecord is one gateway answer to a stage (or its lack), as the application's attempt
// history keeps it for operators. Pending polls are not kept: the current stage shows them.
type StageRecord struct {
	ApplicationID uuid.UUID
	Stage         StageName
	Outcome       StageOutcome
	Message, Ref  string
	At            time.Time
}

// stageRecords collects an aggregate's attempt records until its repository stores them.
type stageRecords struct{ taken []StageRecord }

// keepRecord adds an attempt to the history.
func (s *stageRecords) keepRecord(r StageRecord) { s.taken = append(s.taken, r) }

// TakeStageRecords returns the attempts recorded since the last call and forgets them. Only
// repositories call it, to store them with the change that recorded them.
func (s *stageRecords) TakeStageRecords() []StageRecord {
	out := s.taken
	s.taken = nil
	return out
}

// StageResult is a stage's gateway answer.
type StageResult struct {
	Outcome  StageOutcome
	Message  string
	PreScore PreScoreResult
	Ref      string
}

// The order of the background stages, each followed by the next.
var nextStage = map[StageName]StageName{
	StagePreScoring:                   StagePreScoringInfo,
	StageOpenAccount:                  StageOpenLoanApplication,
	StageOpenLoanApplication:          StageGetOpenLoanApplicationResult,
	StageGetOpenLoanApplicationResult: StageLoanIssuance,
	StageLoanIssuance:                 StageGetLoanIssuanceResult,
}

// DueStage returns the stage the background worker should run now, if any. A stage that ran
// already and did not record its end (the worker died) is due again once its lease lapsed: its
// gateway call repeats with the same idempotency key.
func (a *Application) DueStage(now time.Time) (StageName, bool) {
	if a.status != StatusNew && a.status != StatusInProgress {
		return StageName{}, false
	}
	if a.nextRunAt.IsZero() || a.nextRunAt.After(now) {
		return StageName{}, false
	}
	return a.stage.Name, true
}

// BeginStage records that the worker starts the due stage: the status becomes IN_PROGRESS and
// the stage IN_PROGRESS (a stage waiting for core banking stays PENDING). The lease makes the
// stage due again if the worker never reports.
func (a *Application) BeginStage(stage StageName, now time.Time) error {
	due, ok := a.DueStage(now)
	if !ok || due != stage {
		return ErrStaleStage
	}
	begun := a.stage
	if begun.Status != StagePending {
		begun.Status = StageInProgress
	}
	a.set(StatusInProgress, begun, now)
	a.nextRunAt = now.Add(StageLease)
	return nil
}

// CompleteStage records a stage's gateway answer. When the application is issued it returns the
// new loan, to be stored in the same transaction.
func (a *Application) CompleteStage(stage StageName, r StageResult, loanID LoanProduct, now time.Time) (*Loan, error) {
	if a.status != StatusInProgress || a.stage.Name != stage {
		return nil, ErrStaleStage
	}
	if r.Outcome != OutcomePending {
		a.keepRecord(StageRecord{ApplicationID: a.id, Stage: stage, Outcome: r.Outcome, Message: r.Message, Ref: r.Ref, At: now})
	}
	if r.Outcome != OutcomeUnknown {
		a.unknownSince = time.Time{}
	}
	switch r.Outcome {
	case OutcomeUnknown:
		if a.unknownSince.IsZero() {
			a.unknownSince = now
		}
		a.attempts++
		a.nextRunAt = now.Add(Backoff(a.attempts))
		a.updatedAt = now
	case OutcomeNotReached:
		a.attempts++
		if a.attempts >= MaxStageAttempts {
			a.fail(r.Message, now)
			return nil, nil
		}
		a.nextRunAt = now.Add(Backoff(a.attempts))
		a.updatedAt = now
	case OutcomeFailed:
		a.fail(r.Message, now)
	case OutcomeRefused:
		code := StageErrorIssuanceRefused
		if stage == StagePreScoring || stage == StagePreScoringInfo {
			code = StageErrorPreScoringDeclined
		}
		a.set(StatusRejected, Stage{Name: stage, Status: StageRejected, Error: code, Message: r.Message}, now)
		a.nextRunAt = time.Time{}
	case OutcomePending:
		status := StagePending
		if stage == StagePreScoringInfo || stage == StagePreScoring {
			status = StageInProgress
		}
		a.set(StatusInProgress, Stage{Name: stage, Status: status}, now)
		a.attempts, a.nextRunAt = 0, now.Add(PollInterval)
	case OutcomeDone:
		return a.advance(stage, r, loanID, now), nil
	default:
		return nil, errors.New("unknown stage outcome")
	}
	return nil, nil
}

func (a *Application) advance(stage StageName, r StageResult, ids LoanProduct, now time.Time) *Loan {
	a.attempts = 0
	switch stage {
	case StagePreScoringInfo:
		pr := r.PreScore
		a.preScore = &pr
		a.set(StatusPending, Stage{Name: StagePreScoringInfo, Status: StageCompleted}, now)
		a.nextRunAt = time.Time{}
		return nil
	case StageGetLoanIssuanceResult:
		a.set(StatusCompleted, Stage{Name: stage, Status: StageCompleted}, now)
		a.nextRunAt = time.Time{}
		return newLoan(a, ids, now)
	case StageOpenAccount:
		a.accountNumber = r.Ref
	case StageOpenLoanApplication, StageLoanIssuance:
		a.coreRef = r.Ref
	}
	next := Stage{Name: nextStage[stage], Status: StageNew}
	if next.Name == StagePreScoringInfo {
		next.Status = StageInProgress
	}
	a.set(StatusInProgress, next, now)
	a.nextRunAt = now
	return nil
}

func (a *Application) fail(msg string, now time.Time) {
	a.unknownSince = time.Time{}
	a.set(StatusFailed, Stage{Name: a.stage.Name, Status: StageFailed, Error: StageErrorTechnicalFailure, Message: msg}, now)
	a.nextRunAt = time.Time{}
}

// Backoff is the wait before the n-th retry of a failed or unanswered gateway call: 1 s, 2 s,
// 4 s, … doubling up to an hour.
func Backoff(n int) time.Duration {
	if n < 1 {
		n = 1
	}
	return min(time.Second<<min(n-1, 12), time.Hour)
}
