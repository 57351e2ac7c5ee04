package http

import "testing"

// TestEveryAnsweredCodeIsDocumented: each code the edge can answer (the constants, the business
// errors, the stage errors) is in ErrorCodes, from which README's and the document's tables are
// made.
func TestEveryAnsweredCodeIsDocumented(t *testing.T) {
	t.Parallel()
	documented := map[int]bool{}
	for _, c := range ErrorCodes {
		documented[c.Code] = true
	}
	answered := []int{codeInternal, codeUnauthorized, codeDisabled, codeValidation, codeMalformed, codeNoRoute,
		codeRateLimited, codeIDReused, codeInProgress, codeUnavailable}
	for _, b := range businessErrors {
		answered = append(answered, b.code)
	}
	for _, c := range stageErrorCodes {
		answered = append(answered, c)
	}
	for _, c := range answered {
		if !documented[c] {
			t.Errorf("code %d is answered but not documented in ErrorCodes", c)
		}
	}
}
