package http

import (
	"cmp"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ErrorCode is one row of the error code table: the code partners read, the HTTP statuses it is
// answered with, and what it means; for a business refusal also the domain's sentinel, and a
// fixed message where the error's own text is not what a partner reads. The rows are the one
// place each code's facts live: classify answers from them, and docs/integration.md's and the
// OpenAPI document's tables are rendered from them (a test keeps the three equal).
type ErrorCode struct {
	Code int
	// HTTP holds the statuses the code is answered with: the first unless the edge names another
	// (an unknown path is a 404, a wrong method a 405), none for a code reported only in
	// lastTask.errorCode.
	HTTP HTTPStatuses
	// Meaning is what the code means, as the documents' tables say it.
	Meaning string
	// refusal is the business refusal answered with this code. The domain declares each refusal
	// once, with the stable name its outcomes are stored under (the application stores and
	// reads them back by that name and cannot import an adapter); this row is where it meets
	// its code, status and message, so no second list names it.
	refusal *domain.Refusal
	// message is the answer's message where it is fixed, whatever the error says: the edge's
	// generic answers (an internal error says nothing of itself), and a refused debit, which
	// echoes neither the debit's amount at the network nor whose repayment it paid. Where it is
	// empty, the answer reads as the error does.
	message string
}

// HTTPStatuses are the HTTP statuses of one code, from net/http.
type HTTPStatuses []int

// String is the statuses as the documents show them: "404/405", or "–" for none.
func (s HTTPStatuses) String() string {
	if len(s) == 0 {
		return "–"
	}
	parts := make([]string, len(s))
	for i, status := range s {
		parts[i] = strconv.Itoa(status)
	}
	return strings.Join(parts, "/")
}

// Codes of the edge's own errors.
const (
	codeInternal     = 1
	codeUnauthorized = 2
	codeDisabled     = 3
	codeValidation   = 4
	codeMalformed    = 5
	codeNoRoute      = 6
	codeRateLimited  = 7
	codeIDReused     = 8
	codeInProgress   = 9
	codeUnavailable  = 10
)

// ErrorCodes is the table of every code tiyin answers: the edge's own errors, the business
// refusals, and the stage errors reported only in lastTask.errorCode (api.StageErrorCodes).
var ErrorCodes = []ErrorCode{
	{Code: codeInternal, HTTP: HTTPStatuses{http.StatusInternalServerError}, message: "internal error",
		Meaning: "internal error (details only in the server log, with the request id; every answer names it in `X-Request-Id`: quote it to the bank)"},
	{Code: codeUnauthorized, HTTP: HTTPStatuses{http.StatusUnauthorized}, message: "missing or invalid API key: send Authorization: Bearer <key>",
		Meaning: "missing or invalid credentials"},
	{Code: codeDisabled, HTTP: HTTPStatuses{http.StatusForbidden}, message: "partner is disabled",
		Meaning: "partner disabled"},
	{Code: codeValidation, HTTP: HTTPStatuses{http.StatusBadRequest},
		Meaning: "validation error on a field"},
	{Code: codeMalformed, HTTP: HTTPStatuses{http.StatusBadRequest},
		Meaning: "malformed request: not JSON, not an object, body too large, wrong content type"},
	{Code: codeNoRoute, HTTP: HTTPStatuses{http.StatusNotFound, http.StatusMethodNotAllowed},
		Meaning: "unknown path or method"},
	{Code: codeRateLimited, HTTP: HTTPStatuses{http.StatusTooManyRequests},
		Meaning: "rate limit exceeded (per partner; on attach also a new SMS code within a minute, or past a daily cap)"},
	{Code: codeIDReused, HTTP: HTTPStatuses{http.StatusConflict}, message: "request id was already used with other params or another endpoint; use a new id",
		Meaning: "request id reused with other params or endpoint"},
	{Code: codeInProgress, HTTP: HTTPStatuses{http.StatusConflict}, message: "a request with this id is still in progress; retry later with the same id",
		Meaning: "request with this id is still in progress"},
	{Code: codeUnavailable, HTTP: HTTPStatuses{http.StatusServiceUnavailable}, message: "service temporarily unavailable; retry with the same id",
		Meaning: "a gateway or the database is unavailable; safe to retry with the same id"},
	{Code: 1001, refusal: domain.ErrApplicationNotFound, HTTP: HTTPStatuses{http.StatusNotFound},
		Meaning: "application not found"},
	{Code: 1002, refusal: domain.ErrWrongState, HTTP: HTTPStatuses{http.StatusConflict},
		Meaning: "operation not allowed in the application's current status/stage (message names both)"},
	{Code: 1003, refusal: domain.ErrCancelNotAllowed, HTTP: HTTPStatuses{http.StatusConflict},
		Meaning: "this initiator may not cancel at this stage (rule 3.5.1)"},
	{Code: 1004, refusal: domain.ErrOfferOutOfRange, HTTP: HTTPStatuses{http.StatusUnprocessableEntity},
		Meaning: "offer outside the pre-scoring result (amount, percent or monthPeriod)"},
	{Code: 1005, refusal: domain.ErrClientDataMismatch, HTTP: HTTPStatuses{http.StatusUnprocessableEntity},
		Meaning: "clientData differs from the data given at pre-scoring (message lists the fields)"},
	{Code: 1006, refusal: domain.ErrSMSNotSent, HTTP: HTTPStatuses{http.StatusBadGateway},
		Meaning: "SMS code could not be sent (attach)"},
	{Code: 1007, refusal: domain.ErrCardNotFound, HTTP: HTTPStatuses{http.StatusNotFound},
		Meaning: "card not found by cardId"},
	{Code: 1008, refusal: domain.ErrOTPExpired, HTTP: HTTPStatuses{http.StatusGone},
		Meaning: "SMS code expired, or too many wrong codes"},
	{Code: 1009, refusal: domain.ErrOTPWrong, HTTP: HTTPStatuses{http.StatusUnprocessableEntity},
		Meaning: "SMS code could not be verified (wrong code; message says attempts left)"},
	{Code: 1010, refusal: domain.ErrCardAttached, HTTP: HTTPStatuses{http.StatusConflict},
		Meaning: "card already attached"},
	{Code: 1011, refusal: domain.ErrExternalIDUsed, HTTP: HTTPStatuses{http.StatusConflict},
		Meaning: "externalId already used by this partner for another object (an application's: the message ends `application <applicationId>`, which `/microloans/applications/find` also answers)"},
	{Code: 1012, refusal: domain.ErrLoanNotFound, HTTP: HTTPStatuses{http.StatusNotFound},
		Meaning: "loan not found (by applicationId or loanId)"},
	{Code: 1013, refusal: domain.ErrLoanNotIssued, HTTP: HTTPStatuses{http.StatusConflict},
		Meaning: "loan not issued yet, or already closed"},
	{Code: 1014, refusal: domain.ErrInsufficientFunds, HTTP: HTTPStatuses{http.StatusUnprocessableEntity},
		Meaning: "insufficient funds on the demand account"},
	{Code: 1015, refusal: domain.ErrTransferNotFound, HTTP: HTTPStatuses{http.StatusNotFound},
		Meaning: "transfer not found (externalId and transactionId must match)"},
	{Code: 1016, refusal: domain.ErrTransferState, HTTP: HTTPStatuses{http.StatusConflict},
		Meaning: "transfer status does not allow this call"},
	{Code: 1017, refusal: domain.ErrRepaymentNotFound, HTTP: HTTPStatuses{http.StatusNotFound},
		Meaning: "repayment request not found"},
	{Code: 1018, refusal: domain.ErrRepaymentExpired, HTTP: HTTPStatuses{http.StatusGone},
		Meaning: "repayment request expired (older than 30 min, or the loan changed since check)"},
	{Code: 1019, refusal: domain.ErrRepaymentAmount, HTTP: HTTPStatuses{http.StatusUnprocessableEntity},
		Meaning: "amount above maxAmount, or not positive"},
	{Code: 1020, refusal: domain.ErrDebitRejected, HTTP: HTTPStatuses{http.StatusUnprocessableEntity},
		message: "debit rejected: unknown, already used, not succeeded, or of another amount or network",
		Meaning: "debit rejected: unknown debitId, already used, failed, or amount/network differ"},
	{Code: 1021, refusal: domain.ErrCardOrderNotFound, HTTP: HTTPStatuses{http.StatusNotFound},
		Meaning: "card order not found"},
	{Code: 1022, refusal: domain.ErrCardStatus, HTTP: HTTPStatuses{http.StatusConflict},
		Meaning: "card status change not allowed from the current status"},
	{Code: 1023, refusal: domain.ErrCardRejected, HTTP: HTTPStatuses{http.StatusUnprocessableEntity},
		Meaning: "card rejected by the processing network (unknown card, expiry not the card's, blocked, phone differs, PAN not of the named network)"},
	{Code: 1024, Meaning: "pre-scoring declined (reported only as `lastTask.errorCode`)"},
	{Code: 1025, Meaning: "post-scoring declined (likewise)"},
	{Code: 1026, Meaning: "core banking refused the issuance (likewise)"},
	{Code: 1027, Meaning: "a stage failed technically after its retries (likewise)"},
}

// rowOf is the table's row of code; false when the table has none.
func rowOf(code int) (ErrorCode, bool) {
	for _, c := range ErrorCodes {
		if c.Code == code {
			return c, true
		}
	}
	return ErrorCode{}, false
}

// statusOf is the HTTP status of an answer with that code, from the code table: an answer
// stored as it was sent keeps its code, not a status. A code the table gives no status (a
// stage error) or does not know is a 500, never an invalid status.
func statusOf(code int) int {
	if code == 0 {
		return http.StatusOK
	}
	if c, ok := rowOf(code); ok && len(c.HTTP) > 0 {
		return c.HTTP[0]
	}
	return http.StatusInternalServerError
}

// apiError is an error the edge itself answers with a given code and message; status names one
// of the code's statuses where it has several, and is the first when zero.
type apiError struct {
	code    int
	status  int
	message string
}

func (e *apiError) Error() string { return e.message }

func malformed(msg string) error { return &apiError{code: codeMalformed, message: msg} }

// classify maps any error to its code, HTTP status and message, in this one place: the error
// names the code, the code's row in ErrorCodes its status and any fixed message. Business
// refusals (1000+) are answers to store for idempotent replay; the rest are not.
func classify(err error) (code, status int, message string) {
	var ae *apiError
	var ve *domain.ValidationError
	switch {
	case errors.As(err, &ae):
		code, status, message = ae.code, ae.status, ae.message
	case errors.As(err, &ve):
		code, message = codeValidation, ve.Error()
	case errors.Is(err, application.ErrUnauthenticated):
		code = codeUnauthorized
	case errors.Is(err, application.ErrPartnerDisabled):
		code = codeDisabled
	case errors.Is(err, application.ErrRequestIDReused):
		code = codeIDReused
	case errors.Is(err, ports.ErrRequestInProgress):
		code = codeInProgress
	case errors.Is(err, domain.ErrResendTooSoon), errors.Is(err, domain.ErrAttachCodeCap), errors.Is(err, application.ErrTooManyBadKeys):
		code = codeRateLimited
	case errors.Is(err, ports.ErrUnavailable):
		code = codeUnavailable
	default:
		code = codeInternal
		for _, c := range ErrorCodes {
			if c.refusal != nil && errors.Is(err, c.refusal) {
				code = c.Code
				break
			}
		}
	}
	if status == 0 {
		status = statusOf(code)
	}
	if message == "" {
		row, _ := rowOf(code)
		message = cmp.Or(row.message, err.Error())
	}
	return code, status, message
}
