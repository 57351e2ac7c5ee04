package domain

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// ErrStaleStep means the application moved on (canceled, or another worker finished the stage)
// while a stage's gateway call was in flight; the caller drops its result.
var ErrStaleStep = errors.New("application is no longer at this stage")

// StepOutcome is how a gateway answered one stage.
type StepOutcome int

// The outcomes of a stage's gateway call.
const (
	// OutcomeDone: the stage succeeded; the application moves to the next stage.
	OutcomeDone StepOutcome = iota + 1
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

var outcomeNames = map[StepOutcome]string{OutcomeDone: "DONE", OutcomePending: "PENDING", OutcomeRefused: "REFUSED",
	OutcomeFailed: "FAILED", OutcomeUnknown: "UNKNOWN", OutcomeNotReached: "NOT_REACHED"}

// ParseStepOutcome reads what String wrote.
func ParseStepOutcome(s string) (StepOutcome, error) {
	for o, name := range outcomeNames {
		if name == s {
			return o, nil
		}
	}
	return 0, fmt.Errorf("unknown step outcome %q", s)
}

// String names the outcome as the attempt history stores it.
func (o StepOutcome) String() string { return outcomeNames[o] }

// StepRecord is one gateway answer to a stage (or its lack), as the application's attempt
// history keeps it for operators. Pending polls are not kept: the current stage shows them.
type StepRecord struct {
	ApplicationID uuid.UUID
	Stage         TaskName
	Outcome       StepOutcome
	Message, Ref  string
	At            time.Time
}

// steps collects an aggregate's attempt records until its repository stores them.
type steps struct{ taken []StepRecord }

// keepStep adds an attempt to the history.
func (s *steps) keepStep(r StepRecord) { s.taken = append(s.taken, r) }

// TakeSteps returns the attempts recorded since the last call and forgets them. Only
// repositories call it, to store them with the change that recorded them.
func (s *steps) TakeSteps() []StepRecord {
	out := s.taken
	s.taken = nil
	return out
}

// StepResult is a stage's gateway answer.
type StepResult struct {
	Outcome  StepOutcome
	Message  string
	PreScore PreScoreResult
	Ref      string
}

// The order of the background stages, each followed by the next.
var nextStage = map[TaskName]TaskName{
	TaskPreScoring:                   TaskPreScoringInfo,
	TaskOpenAccount:                  TaskOpenLoanApplication,
	TaskOpenLoanApplication:          TaskGetOpenLoanApplicationResult,
	TaskGetOpenLoanApplicationResult: TaskLoanIssuance,
	TaskLoanIssuance:                 TaskGetLoanIssuanceResult,
}

// DueStep returns the stage the background worker should run now, if any. A stage that ran
// already and did not record its end (the worker died) is due again once its lease lapsed: its
// gateway call repeats with the same idempotency key.
func (a *Application) DueStep(now time.Time) (TaskName, bool) {
	if a.status != StatusNew && a.status != StatusInProgress {
		return TaskName{}, false
	}
	if a.nextRunAt.IsZero() || a.nextRunAt.After(now) {
		return TaskName{}, false
	}
	return a.task.Name, true
}

// BeginStep records that the worker starts the due stage: the status becomes IN_PROGRESS and
// the stage IN_PROGRESS (a stage waiting for core banking stays PENDING). The lease makes the
// stage due again if the worker never reports.
func (a *Application) BeginStep(stage TaskName, now time.Time) error {
	due, ok := a.DueStep(now)
	if !ok || due != stage {
		return ErrStaleStep
	}
	task := a.task
	if task.Status != TaskPending {
		task.Status = TaskInProgress
	}
	a.set(StatusInProgress, task, now)
	a.nextRunAt = now.Add(StepLease)
	return nil
}

// CompleteStep records a stage's gateway answer. When the application is issued it returns the
// new loan, to be stored in the same transaction.
func (a *Application) CompleteStep(stage TaskName, r StepResult, loanID LoanProduct, now time.Time) (*Loan, error) {
	if a.status != StatusInProgress || a.task.Name != stage {
		return nil, ErrStaleStep
	}
	if r.Outcome != OutcomePending {
		a.keepStep(StepRecord{ApplicationID: a.id, Stage: stage, Outcome: r.Outcome, Message: r.Message, Ref: r.Ref, At: now})
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
		if stage == TaskPreScoring || stage == TaskPreScoringInfo {
			code = StageErrorPreScoringDeclined
		}
		a.set(StatusRejected, Task{Name: stage, Status: TaskRejected, Error: code, Message: r.Message}, now)
		a.nextRunAt = time.Time{}
	case OutcomePending:
		status := TaskPending
		if stage == TaskPreScoringInfo || stage == TaskPreScoring {
			status = TaskInProgress
		}
		a.set(StatusInProgress, Task{Name: stage, Status: status}, now)
		a.attempts, a.nextRunAt = 0, now.Add(PollInterval)
	case OutcomeDone:
		return a.advance(stage, r, loanID, now), nil
	default:
		return nil, errors.New("unknown step outcome")
	}
	return nil, nil
}

func (a *Application) advance(stage TaskName, r StepResult, ids LoanProduct, now time.Time) *Loan {
	a.attempts = 0
	switch stage {
	case TaskPreScoringInfo:
		pr := r.PreScore
		a.preScore = &pr
		a.set(StatusPending, Task{Name: TaskPreScoringInfo, Status: TaskCompleted}, now)
		a.nextRunAt = time.Time{}
		return nil
	case TaskGetLoanIssuanceResult:
		a.set(StatusCompleted, Task{Name: stage, Status: TaskCompleted}, now)
		a.nextRunAt = time.Time{}
		return newLoan(a, ids, now)
	case TaskOpenAccount:
		a.accountNumber = r.Ref
	case TaskOpenLoanApplication, TaskLoanIssuance:
		a.coreRef = r.Ref
	}
	next := Task{Name: nextStage[stage], Status: TaskNew}
	if next.Name == TaskPreScoringInfo {
		next.Status = TaskInProgress
	}
	a.set(StatusInProgress, next, now)
	a.nextRunAt = now
	return nil
}

func (a *Application) fail(msg string, now time.Time) {
	a.unknownSince = time.Time{}
	a.set(StatusFailed, Task{Name: a.task.Name, Status: TaskFailed, Error: StageErrorTechnicalFailure, Message: msg}, now)
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
