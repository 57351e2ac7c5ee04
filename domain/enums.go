package domain

import (
	"fmt"
	"slices"
)

// ApplicationStatus is where an application is (DESIGN.md §8): PENDING waits for the partner or
// the client, IN_PROGRESS waits for the bank.
type ApplicationStatus struct{ s string }

// The application statuses of interface.md §3.1.
var (
	StatusNew        = ApplicationStatus{"NEW"}
	StatusPending    = ApplicationStatus{"PENDING"}
	StatusInProgress = ApplicationStatus{"IN_PROGRESS"}
	StatusCompleted  = ApplicationStatus{"COMPLETED"}
	StatusRejected   = ApplicationStatus{"REJECTED"}
	StatusCanceled   = ApplicationStatus{"CANCELED"}
	StatusFailed     = ApplicationStatus{"FAILED"}
	StatusExpired    = ApplicationStatus{"EXPIRED"}
)

var applicationStatuses = []ApplicationStatus{StatusNew, StatusPending, StatusInProgress,
	StatusCompleted, StatusRejected, StatusCanceled, StatusFailed, StatusExpired}

// ApplicationStatuses are every application status, in the order of the process.
func ApplicationStatuses() []ApplicationStatus { return slices.Clone(applicationStatuses) }

// ParseApplicationStatus reads a stored status.
func ParseApplicationStatus(s string) (ApplicationStatus, error) {
	return parseEnum(s, applicationStatuses)
}

// String returns the wire name.
func (s ApplicationStatus) String() string { return s.s }

// IsZero reports whether the status is unset.
func (s ApplicationStatus) IsZero() bool { return s.s == "" }

// Terminal reports whether nothing can happen to the application any more.
func (s ApplicationStatus) Terminal() bool {
	switch s {
	case StatusCompleted, StatusRejected, StatusCanceled, StatusFailed, StatusExpired:
		return true
	}
	return false
}

// TaskName names a stage of the application (lastTask.name).
type TaskName struct{ s string }

// The stage names of interface.md §2.3. OTP_SENT and OTP_CONFIRM exist for compatibility only.
var (
	TaskPreScoring                   = TaskName{"PRE_SCORING"}
	TaskPreScoringInfo               = TaskName{"PRE_SCORING_INFO"}
	TaskPostScoring                  = TaskName{"POST_SCORING"}
	TaskPostScoringInfo              = TaskName{"POST_SCORING_INFO"}
	TaskOTPSent                      = TaskName{"OTP_SENT"}
	TaskOTPConfirm                   = TaskName{"OTP_CONFIRM"}
	TaskOpenAccount                  = TaskName{"OPEN_ACCOUNT"}
	TaskOpenLoanApplication          = TaskName{"OPEN_LOAN_APPLICATION"}
	TaskGetOpenLoanApplicationResult = TaskName{"GET_OPEN_LOAN_APPLICATION_RESULT"}
	TaskLoanIssuance                 = TaskName{"LOAN_ISSUANCE"}
	TaskGetLoanIssuanceResult        = TaskName{"GET_LOAN_ISSUANCE_RESULT"}
	TaskClientVerification           = TaskName{"CLIENT_VERIFICATION"}
)

var taskNames = []TaskName{TaskPreScoring, TaskPreScoringInfo, TaskPostScoring, TaskPostScoringInfo,
	TaskOTPSent, TaskOTPConfirm, TaskOpenAccount, TaskOpenLoanApplication,
	TaskGetOpenLoanApplicationResult, TaskLoanIssuance, TaskGetLoanIssuanceResult, TaskClientVerification}

// ParseTaskName reads a stored stage name.
func ParseTaskName(s string) (TaskName, error) { return parseEnum(s, taskNames) }

// String returns the wire name.
func (n TaskName) String() string { return n.s }

// IsZero reports whether the name is unset.
func (n TaskName) IsZero() bool { return n.s == "" }

// TaskStatus is how a stage stands (lastTask.status).
type TaskStatus struct{ s string }

// The stage statuses of interface.md §3.2.
var (
	TaskNew        = TaskStatus{"NEW"}
	TaskInProgress = TaskStatus{"IN_PROGRESS"}
	TaskCompleted  = TaskStatus{"COMPLETED"}
	TaskPending    = TaskStatus{"PENDING"}
	TaskFailed     = TaskStatus{"FAILED"}
	TaskRejected   = TaskStatus{"REJECTED"}
	TaskExpired    = TaskStatus{"EXPIRED"}
)

var taskStatuses = []TaskStatus{TaskNew, TaskInProgress, TaskCompleted, TaskPending, TaskFailed,
	TaskRejected, TaskExpired}

// ParseTaskStatus reads a stored stage status.
func ParseTaskStatus(s string) (TaskStatus, error) { return parseEnum(s, taskStatuses) }

// String returns the wire name.
func (s TaskStatus) String() string { return s.s }

// IsZero reports whether the status is unset.
func (s TaskStatus) IsZero() bool { return s.s == "" }

// StageError classifies why a stage ended badly; it becomes lastTask.errorCode.
type StageError struct{ s string }

// The four stage outcomes that carry an error code (DESIGN.md §6, 1024–1027).
var (
	StageErrorNone                = StageError{}
	StageErrorPreScoringDeclined  = StageError{"PRE_SCORING_DECLINED"}
	StageErrorPostScoringDeclined = StageError{"POST_SCORING_DECLINED"}
	StageErrorIssuanceRefused     = StageError{"ISSUANCE_REFUSED"}
	StageErrorTechnicalFailure    = StageError{"TECHNICAL_FAILURE"}
)

var stageErrors = []StageError{StageErrorPreScoringDeclined, StageErrorPostScoringDeclined,
	StageErrorIssuanceRefused, StageErrorTechnicalFailure}

// ParseStageError reads a stored stage error; the empty string is StageErrorNone.
func ParseStageError(s string) (StageError, error) {
	if s == "" {
		return StageErrorNone, nil
	}
	return parseEnum(s, stageErrors)
}

// String returns the stored name, empty for none.
func (e StageError) String() string { return e.s }

// IsZero reports whether there is no stage error.
func (e StageError) IsZero() bool { return e.s == "" }

type enum interface{ String() string }

func parseEnum[T enum](s string, all []T) (T, error) {
	for _, v := range all {
		if v.String() == s {
			return v, nil
		}
	}
	var zero T
	return zero, fmt.Errorf("unknown value %q", s)
}
