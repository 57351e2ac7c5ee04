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

// StageName names a stage of the application (lastTask.name).
type StageName struct{ s string }

// The stage names of interface.md §2.3. OTP_SENT and OTP_CONFIRM exist for compatibility only.
var (
	StagePreScoring                   = StageName{"PRE_SCORING"}
	StagePreScoringInfo               = StageName{"PRE_SCORING_INFO"}
	StagePostScoring                  = StageName{"POST_SCORING"}
	StagePostScoringInfo              = StageName{"POST_SCORING_INFO"}
	StageOTPSent                      = StageName{"OTP_SENT"}
	StageOTPConfirm                   = StageName{"OTP_CONFIRM"}
	StageOpenAccount                  = StageName{"OPEN_ACCOUNT"}
	StageOpenLoanApplication          = StageName{"OPEN_LOAN_APPLICATION"}
	StageGetOpenLoanApplicationResult = StageName{"GET_OPEN_LOAN_APPLICATION_RESULT"}
	StageLoanIssuance                 = StageName{"LOAN_ISSUANCE"}
	StageGetLoanIssuanceResult        = StageName{"GET_LOAN_ISSUANCE_RESULT"}
	StageClientVerification           = StageName{"CLIENT_VERIFICATION"}
)

var stageNames = []StageName{StagePreScoring, StagePreScoringInfo, StagePostScoring, StagePostScoringInfo,
	StageOTPSent, StageOTPConfirm, StageOpenAccount, StageOpenLoanApplication,
	StageGetOpenLoanApplicationResult, StageLoanIssuance, StageGetLoanIssuanceResult, StageClientVerification}

// ParseStageName reads a stored stage name.
func ParseStageName(s string) (StageName, error) { return parseEnum(s, stageNames) }

// String returns the wire name.
func (n StageName) String() string { return n.s }

// IsZero reports whether the name is unset.
func (n StageName) IsZero() bool { return n.s == "" }

// StageStatus is how a stage stands (lastTask.status).
type StageStatus struct{ s string }

// The stage statuses of interface.md §3.2.
var (
	StageNew        = StageStatus{"NEW"}
	StageInProgress = StageStatus{"IN_PROGRESS"}
	StageCompleted  = StageStatus{"COMPLETED"}
	StagePending    = StageStatus{"PENDING"}
	StageFailed     = StageStatus{"FAILED"}
	StageRejected   = StageStatus{"REJECTED"}
	StageExpired    = StageStatus{"EXPIRED"}
)

var stageStatuses = []StageStatus{StageNew, StageInProgress, StageCompleted, StagePending, StageFailed,
	StageRejected, StageExpired}

// ParseStageStatus reads a stored stage status.
func ParseStageStatus(s string) (StageStatus, error) { return parseEnum(s, stageStatuses) }

// String returns the wire name.
func (s StageStatus) String() string { return s.s }

// IsZero reports whether the status is unset.
func (s StageStatus) IsZero() bool { return s.s == "" }

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
