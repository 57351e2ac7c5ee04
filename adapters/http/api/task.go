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
func LastTaskOf(t domain.Task) LastTask {
	task := LastTask{Name: TaskName(t.Name.String()), Status: TaskStatus(t.Status.String())}
	if code, ok := StageErrorCodes[t.Error]; ok {
		msg := t.Message
		task.ErrorCode, task.ErrorMessage = &code, &msg
	}
	return task
}
