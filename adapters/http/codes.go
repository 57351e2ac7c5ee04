package http

import (
	"errors"
	"net/http"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ErrorCode is one row of the error code table: the code partners read, the HTTP status that
// helps proxies and retries, and what it means. docs/integration.md and the OpenAPI document carry the same
// table; a test keeps the three equal.
type ErrorCode struct {
	Code    int
	HTTP    string
	Meaning string
}

// ErrorCodes is the table of every code tiyin answers.
var ErrorCodes = []ErrorCode{
	{1, "500", "internal error (details only in the server log, with the request id; every answer names it in `X-Request-Id`: quote it to the bank)"},
	{2, "401", "missing or invalid credentials"},
	{3, "403", "partner disabled"},
	{4, "400", "validation error on a field"},
	{5, "400", "malformed request: not JSON, not an object, body too large, wrong content type"},
	{6, "404/405", "unknown path or method"},
	{7, "429", "rate limit exceeded (per partner; on attach also a new SMS code within a minute, or past a daily cap)"},
	{8, "409", "request id reused with other params or endpoint"},
	{9, "409", "request with this id is still in progress"},
	{10, "503", "a gateway or the database is unavailable; safe to retry with the same id"},
	{1001, "404", "application not found"},
	{1002, "409", "operation not allowed in the application's current status/stage (message names both)"},
	{1003, "409", "this initiator may not cancel at this stage (rule 3.5.1)"},
	{1004, "422", "offer outside the pre-scoring result (amount, percent or monthPeriod)"},
	{1005, "422", "clientData differs from the data given at pre-scoring (message lists the fields)"},
	{1006, "502", "SMS code could not be sent (attach)"},
	{1007, "404", "card not found by cardId"},
	{1008, "410", "SMS code expired, or too many wrong codes"},
	{1009, "422", "SMS code could not be verified (wrong code; message says attempts left)"},
	{1010, "409", "card already attached"},
	{1011, "409", "externalId already used by this partner for another object (an application's: the message ends `application <applicationId>`, which `/microloans/applications/find` also answers)"},
	{1012, "404", "loan not found (by applicationId or loanId)"},
	{1013, "409", "loan not issued yet, or already closed"},
	{1014, "422", "insufficient funds on the demand account"},
	{1015, "404", "transfer not found (externalId and transactionId must match)"},
	{1016, "409", "transfer status does not allow this call"},
	{1017, "404", "repayment request not found"},
	{1018, "410", "repayment request expired (older than 30 min, or the loan changed since check)"},
	{1019, "422", "amount above maxAmount, or not positive"},
	{1020, "422", "debit rejected: unknown debitId, already used, failed, or amount/network differ"},
	{1021, "404", "card order not found"},
	{1022, "409", "card status change not allowed from the current status"},
	{1023, "422", "card rejected by the processing network (unknown card, expiry not the card's, blocked, phone differs, PAN not of the named network)"},
	{1024, "–", "pre-scoring declined (reported only as `lastTask.errorCode`)"},
	{1025, "–", "post-scoring declined (likewise)"},
	{1026, "–", "core banking refused the issuance (likewise)"},
	{1027, "–", "a stage failed technically after its retries (likewise)"},
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

// businessErrors maps each domain sentinel to its code and HTTP status. An answer's message
// is the error's own text, except where message is set: a refused debit says no more than that,
// so it echoes neither the debit's amount at the network nor whose repayment it paid.
var businessErrors = []struct {
	err     error
	code    int
	status  int
	message string
}{
	{domain.ErrApplicationNotFound, 1001, http.StatusNotFound, ""},
	{domain.ErrWrongState, 1002, http.StatusConflict, ""},
	{domain.ErrCancelNotAllowed, 1003, http.StatusConflict, ""},
	{domain.ErrOfferOutOfRange, 1004, http.StatusUnprocessableEntity, ""},
	{domain.ErrClientDataMismatch, 1005, http.StatusUnprocessableEntity, ""},
	{domain.ErrSMSNotSent, 1006, http.StatusBadGateway, ""},
	{domain.ErrCardNotFound, 1007, http.StatusNotFound, ""},
	{domain.ErrOTPExpired, 1008, http.StatusGone, ""},
	{domain.ErrOTPWrong, 1009, http.StatusUnprocessableEntity, ""},
	{domain.ErrCardAttached, 1010, http.StatusConflict, ""},
	{domain.ErrExternalIDUsed, 1011, http.StatusConflict, ""},
	{domain.ErrLoanNotFound, 1012, http.StatusNotFound, ""},
	{domain.ErrLoanNotIssued, 1013, http.StatusConflict, ""},
	{domain.ErrInsufficientFunds, 1014, http.StatusUnprocessableEntity, ""},
	{domain.ErrTransferNotFound, 1015, http.StatusNotFound, ""},
	{domain.ErrTransferState, 1016, http.StatusConflict, ""},
	{domain.ErrRepaymentNotFound, 1017, http.StatusNotFound, ""},
	{domain.ErrRepaymentExpired, 1018, http.StatusGone, ""},
	{domain.ErrRepaymentAmount, 1019, http.StatusUnprocessableEntity, ""},
	{domain.ErrDebitRejected, 1020, http.StatusUnprocessableEntity, "debit rejected: unknown, already used, not succeeded, or of another amount or network"},
	{domain.ErrCardOrderNotFound, 1021, http.StatusNotFound, ""},
	{domain.ErrCardStatus, 1022, http.StatusConflict, ""},
	{domain.ErrCardRejected, 1023, http.StatusUnprocessableEntity, ""},
}

// apiError is an error the edge itself answers with a given code.
type apiError struct {
	code    int
	status  int
	message string
}

func (e *apiError) Error() string { return e.message }

func malformed(msg string) error { return &apiError{codeMalformed, http.StatusBadRequest, msg} }

// classify maps any error to its code, HTTP status and message, in this one place. Business
// errors (1000+) are answers to store for idempotent replay; the rest are not.
func classify(err error) (code, status int, message string) {
	var ae *apiError
	var ve *domain.ValidationError
	switch {
	case errors.As(err, &ae):
		return ae.code, ae.status, ae.message
	case errors.As(err, &ve):
		return codeValidation, http.StatusBadRequest, ve.Error()
	case errors.Is(err, application.ErrUnauthenticated):
		return codeUnauthorized, http.StatusUnauthorized, "missing or invalid API key: send Authorization: Bearer <key>"
	case errors.Is(err, application.ErrPartnerDisabled):
		return codeDisabled, http.StatusForbidden, "partner is disabled"
	case errors.Is(err, application.ErrRequestIDReused):
		return codeIDReused, http.StatusConflict, "request id was already used with other params or another endpoint; use a new id"
	case errors.Is(err, ports.ErrRequestInProgress):
		return codeInProgress, http.StatusConflict, "a request with this id is still in progress; retry later with the same id"
	case errors.Is(err, domain.ErrResendTooSoon), errors.Is(err, domain.ErrAttachCodeCap), errors.Is(err, application.ErrTooManyBadKeys):
		return codeRateLimited, http.StatusTooManyRequests, err.Error()
	case errors.Is(err, ports.ErrUnavailable):
		return codeUnavailable, http.StatusServiceUnavailable, "service temporarily unavailable; retry with the same id"
	}
	for _, b := range businessErrors {
		if !errors.Is(err, b.err) {
			continue
		}
		if b.message != "" {
			return b.code, b.status, b.message
		}
		return b.code, b.status, err.Error()
	}
	return codeInternal, http.StatusInternalServerError, "internal error"
}
