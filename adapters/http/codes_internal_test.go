package http

import (
	"fmt"
	"testing"

	"github.com/tiyin/tiyin/adapters/http/api"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
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

// TestEveryStoredRefusalIsAnsweredAsItWasFirst: the business errors the table answers with
// codes 1000 and up are exactly the domain's refusals, which the idempotency step stores by
// name; a refusal read back from its name and text is answered with the same code, status and
// message as the error it was stored from, so its replay is the same bytes.
func TestEveryStoredRefusalIsAnsweredAsItWasFirst(t *testing.T) {
	refusals := domain.Refusals()
	if len(refusals) != len(businessErrors) {
		t.Fatalf("%d domain refusals, %d business errors in the code table", len(refusals), len(businessErrors))
	}
	for _, b := range businessErrors {
		for _, err := range []error{b.err, fmt.Errorf("%w: with detail", b.err)} {
			name, ok := domain.RefusalName(err)
			if !ok {
				t.Fatalf("%v (code %d) is not a refusal the idempotency step stores", err, b.code)
			}
			back, ok := domain.RefusalNamed(name, err.Error())
			if !ok {
				t.Fatalf("%s: not read back", name)
			}
			code, status, msg := classify(err)
			c2, s2, m2 := classify(back)
			if code != b.code || c2 != code || s2 != status || m2 != msg {
				t.Fatalf("%s: first %d %d %q, read back %d %d %q", name, code, status, msg, c2, s2, m2)
			}
		}
	}
	if _, ok := domain.RefusalName(fmt.Errorf("db down: %w", ports.ErrUnavailable)); ok {
		t.Fatal("an unavailable gateway is stored as a refusal")
	}
}
