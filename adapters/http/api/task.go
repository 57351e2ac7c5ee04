package api

import "github.com/tiyin/tiyin/domain"

// StageErrorCodes maps a stage's error to lastTask.errorCode (rows 1024–1027 of the error code
// table in adapters/http/codes.go, which a test keeps in step with this map).
var StageErrorCodes = map[domain.StageError]int{
	domain.StageErrorPreScoringDeclined:  1024,
	domain.StageErrorPostScoringDeclined: 1025,
	domain.StageErrorIssuanceRefused:     1026,
	domain.StageErrorTechnicalFailure:    1027,
}

// LastTaskOf is a stage as the wire shows it, in answers and in webhook bodies alike.
func LastTaskOf(s domain.Stage) LastTask {
	last := LastTask{Name: TaskName(s.Name.String()), Status: TaskStatus(s.Status.String())}
	if code, ok := StageErrorCodes[s.Error]; ok {
		msg := s.Message
		last.ErrorCode, last.ErrorMessage = &code, &msg
	}
	return last
}
