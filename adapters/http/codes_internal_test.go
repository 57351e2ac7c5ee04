package http

import (
	"testing"

	"github.com/tiyin/tiyin/adapters/http/api"
)

// TestEveryAnsweredCodeIsDocumented: each code the edge can answer (the constants, the business
// errors, the stage errors) is in ErrorCodes, from which docs/integration.md's and the document's tables are
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
	for _, c := range api.StageErrorCodes {
		answered = append(answered, c)
	}
	for _, c := range answered {
		if !documented[c] {
			t.Errorf("code %d is answered but not documented in ErrorCodes", c)
		}
	}
}

// TestStatusOfAStoredAnswer: a stored answer keeps its code only; its HTTP status comes from
// the code table, and a code the table does not answer with is a 500, never an invalid status.
func TestStatusOfAStoredAnswer(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ code, want int }{
		{0, 200}, {4, 400}, {6, 404}, {8, 409}, {9, 409}, {10, 503}, {1004, 422}, {1006, 502}, {1018, 410},
		{1024, 500}, {424242, 500},
	} {
		if got := statusOf(tt.code); got != tt.want {
			t.Errorf("code %d: status %d, want %d", tt.code, got, tt.want)
		}
	}
}
