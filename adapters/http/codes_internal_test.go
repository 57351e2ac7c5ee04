package http

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/tiyin/tiyin/adapters/http/api"
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// edgeCodes are the codes of the edge's own errors.
var edgeCodes = []int{codeInternal, codeUnauthorized, codeDisabled, codeValidation, codeMalformed, codeNoRoute,
	codeRateLimited, codeIDReused, codeInProgress, codeUnavailable}

// TestEveryAnsweredCodeIsDocumented: each code the edge can answer (the constants, the business
// refusals, the stage errors) is in ErrorCodes, from which docs/integration.md's and the document's tables are
// made.
func TestEveryAnsweredCodeIsDocumented(t *testing.T) {
	t.Parallel()
	documented := map[int]bool{}
	for _, c := range ErrorCodes {
		documented[c.Code] = true
	}
	answered := append([]int(nil), edgeCodes...)
	for _, r := range domain.Refusals() {
		code, _, _ := classify(r)
		answered = append(answered, code)
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

// TestEveryRefusalHasOneRow: each domain refusal has exactly one row of the code table, and
// each row is one thing: a refusal's, an edge error's or a stage error's. A row that is none of
// these, or a refusal without a row, fails here instead of answering code 1.
func TestEveryRefusalHasOneRow(t *testing.T) {
	t.Parallel()
	kinds := map[int]string{}
	for _, c := range edgeCodes {
		kinds[c] = "edge"
	}
	for _, c := range api.StageErrorCodes {
		kinds[c] = "stage"
	}
	rows := map[*domain.Refusal]int{}
	codes := map[int]bool{}
	for _, c := range ErrorCodes {
		if codes[c.Code] {
			t.Errorf("code %d has two rows", c.Code)
		}
		codes[c.Code] = true
		switch kind := kinds[c.Code]; {
		case c.refusal != nil && kind != "":
			t.Errorf("code %d is a %s error's and refusal %s's", c.Code, kind, c.refusal.Name())
		case c.refusal != nil:
			rows[c.refusal]++
			if len(c.HTTP) != 1 || c.Code <= 1000 {
				t.Errorf("refusal %s: code %d, statuses %v; want a business code with one status", c.refusal.Name(), c.Code, c.HTTP)
			}
		case kind == "":
			t.Errorf("code %d lacks a refusal and is no edge or stage error", c.Code)
		case kind == "stage" && len(c.HTTP) != 0:
			t.Errorf("stage error code %d has HTTP statuses %v; it is reported only in lastTask", c.Code, c.HTTP)
		case kind == "edge" && len(c.HTTP) == 0:
			t.Errorf("edge error code %d has no HTTP status", c.Code)
		}
	}
	for code := range kinds {
		if !codes[code] {
			t.Errorf("code %d has no row", code)
		}
	}
	refusals := domain.Refusals()
	for _, r := range refusals {
		if rows[r] != 1 {
			t.Errorf("refusal %s has %d rows, want 1", r.Name(), rows[r])
		}
	}
	if len(rows) != len(refusals) {
		t.Errorf("%d refusals have rows, the domain declares %d", len(rows), len(refusals))
	}
}

// TestClassifyAnswersFromTheTable: the edge's own errors are answered with their code, the
// status of their row (or the one of its statuses the edge names) and the message partners
// read, byte for byte.
func TestClassifyAnswersFromTheTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		err     error
		code    int
		status  int
		message string
	}{
		{"an unexpected error says nothing of itself", errors.New("disk on fire"), 1, 500, "internal error"},
		{"no key", fmt.Errorf("auth: %w", application.ErrUnauthenticated), 2, 401, "missing or invalid API key: send Authorization: Bearer <key>"},
		{"a disabled partner", application.ErrPartnerDisabled, 3, 403, "partner is disabled"},
		{"a field error", &domain.ValidationError{Fields: []domain.FieldError{{Path: "params.amount", Reason: "must be positive"}}}, 4, 400, "params.amount: must be positive"},
		{"a malformed body", malformed("request body is not valid JSON"), 5, 400, "request body is not valid JSON"},
		{"an unknown path", &apiError{codeNoRoute, http.StatusNotFound, "unknown path /x"}, 6, 404, "unknown path /x"},
		{"a wrong method", &apiError{codeNoRoute, http.StatusMethodNotAllowed, "method GET is not allowed on /x"}, 6, 405, "method GET is not allowed on /x"},
		{"a resend too soon", fmt.Errorf("%w: wait 40s", domain.ErrResendTooSoon), 7, 429, "a new SMS code may be sent once a minute: wait 40s"},
		{"a reused id", application.ErrRequestIDReused, 8, 409, "request id was already used with other params or another endpoint; use a new id"},
		{"a request still running", ports.ErrRequestInProgress, 9, 409, "a request with this id is still in progress; retry later with the same id"},
		{"a gateway down", fmt.Errorf("%w: scoring timed out", ports.ErrUnavailable), 10, 503, "service temporarily unavailable; retry with the same id"},
		{"a refusal reads as its error", fmt.Errorf("%w: card 42", domain.ErrCardNotFound), 1007, 404, "card not found: card 42"},
		{"a refused debit says no more", domain.ErrDebitUsed, 1020, 422, "debit rejected: unknown, already used, not succeeded, or of another amount or network"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, status, message := classify(tt.err)
			if code != tt.code || status != tt.status || message != tt.message {
				t.Fatalf("got %d %d %q, want %d %d %q", code, status, message, tt.code, tt.status, tt.message)
			}
			if row, _ := rowOf(code); !slices.Contains(row.HTTP, status) {
				t.Fatalf("status %d is not one of code %d's %v", status, code, row.HTTP)
			}
		})
	}
}

// TestStatusesRenderAsTheDocumentsShowThem: several statuses join with a slash, none is a dash.
func TestStatusesRenderAsTheDocumentsShowThem(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		statuses HTTPStatuses
		want     string
	}{
		{HTTPStatuses{http.StatusNotFound, http.StatusMethodNotAllowed}, "404/405"},
		{HTTPStatuses{http.StatusConflict}, "409"},
		{nil, "–"},
	} {
		if got := tt.statuses.String(); got != tt.want {
			t.Errorf("%v: %q, want %q", []int(tt.statuses), got, tt.want)
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
	var rows []ErrorCode
	for _, c := range ErrorCodes {
		if c.refusal != nil {
			rows = append(rows, c)
		}
	}
	if len(refusals) != len(rows) {
		t.Fatalf("%d domain refusals, %d business errors in the code table", len(refusals), len(rows))
	}
	for _, b := range rows {
		for _, err := range []error{b.refusal, fmt.Errorf("%w: with detail", b.refusal)} {
			name, ok := domain.RefusalName(err)
			if !ok {
				t.Fatalf("%v (code %d) is not a refusal the idempotency step stores", err, b.Code)
			}
			back, ok := domain.RefusalNamed(name, err.Error())
			if !ok {
				t.Fatalf("%s: not read back", name)
			}
			code, status, msg := classify(err)
			c2, s2, m2 := classify(back)
			if code != b.Code || c2 != code || s2 != status || m2 != msg {
				t.Fatalf("%s: first %d %d %q, read back %d %d %q", name, code, status, msg, c2, s2, m2)
			}
		}
	}
	if _, ok := domain.RefusalName(fmt.Errorf("db down: %w", ports.ErrUnavailable)); ok {
		t.Fatal("an unavailable gateway is stored as a refusal")
	}
}
