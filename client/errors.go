package client

import (
	"errors"
	"fmt"
	"strconv"
)

// Code is an error code of tiyin's answers (docs/integration.md, "Error codes"). It is an
// error, so an answer's error matches it under errors.Is:
//
//	if errors.Is(err, client.CodeLoanNotFound) { … }
type Code int

// Error implements error.
func (c Code) Error() string { return "tiyin error code " + strconv.Itoa(int(c)) }

// The codes. 1–999 can come from any endpoint; 1000 and above are business codes.
const (
	CodeInternal            Code = 1  // internal error: quote the answer's X-Request-Id to the bank
	CodeUnauthorized        Code = 2  // missing or invalid credentials
	CodePartnerDisabled     Code = 3  // the partner is disabled
	CodeValidation          Code = 4  // a field fails validation; the message names it
	CodeMalformed           Code = 5  // not JSON, not an object, too large, wrong content type
	CodeNotFound            Code = 6  // unknown path or method
	CodeRateLimited         Code = 7  // rate limit exceeded: retry later
	CodeIDReused            Code = 8  // the request id was used with other params or endpoint
	CodeInProgress          Code = 9  // a request with this id is still in progress: retry it
	CodeUnavailable         Code = 10 // a gateway or the database is unavailable: retry with the same id
	CodeApplicationNotFound Code = 1001
	CodeWrongStatus         Code = 1002
	CodeCancelNotAllowed    Code = 1003
	CodeOfferOutOfRange     Code = 1004
	CodeClientDataMismatch  Code = 1005
	CodeSMSNotSent          Code = 1006
	CodeCardNotFound        Code = 1007
	CodeOTPExpired          Code = 1008
	CodeOTPWrong            Code = 1009
	CodeCardAttached        Code = 1010
	CodeExternalIDUsed      Code = 1011
	CodeLoanNotFound        Code = 1012
	CodeLoanNotActive       Code = 1013
	CodeInsufficientFunds   Code = 1014
	CodeTransferNotFound    Code = 1015
	CodeTransferStatus      Code = 1016
	CodeRepaymentNotFound   Code = 1017
	CodeRepaymentExpired    Code = 1018
	CodeAmount              Code = 1019
	CodeDebitRejected       Code = 1020
	CodeCardOrderNotFound   Code = 1021
	CodeCardStatus          Code = 1022
	CodeCardRejected        Code = 1023
	// 1024–1027 come only as an application's lastTask.errorCode, never as an answer's error.
	CodePreScoringDeclined  Code = 1024
	CodePostScoringDeclined Code = 1025
	CodeIssuanceRefused     Code = 1026
	CodeTechnicalFailure    Code = 1027
)

// Codes are every code above, for a partner's own tables and for tiyin's test that keeps them
// equal to the server's.
var Codes = []Code{CodeInternal, CodeUnauthorized, CodePartnerDisabled, CodeValidation, CodeMalformed, CodeNotFound,
	CodeRateLimited, CodeIDReused, CodeInProgress, CodeUnavailable, CodeApplicationNotFound, CodeWrongStatus,
	CodeCancelNotAllowed, CodeOfferOutOfRange, CodeClientDataMismatch, CodeSMSNotSent, CodeCardNotFound, CodeOTPExpired,
	CodeOTPWrong, CodeCardAttached, CodeExternalIDUsed, CodeLoanNotFound, CodeLoanNotActive, CodeInsufficientFunds,
	CodeTransferNotFound, CodeTransferStatus, CodeRepaymentNotFound, CodeRepaymentExpired, CodeAmount, CodeDebitRejected,
	CodeCardOrderNotFound, CodeCardStatus, CodeCardRejected, CodePreScoringDeclined, CodePostScoringDeclined,
	CodeIssuanceRefused, CodeTechnicalFailure}

// Error is tiyin's answer that a call failed: the envelope's error code and message, the HTTP
// status, and the answer's X-Request-Id (the call's envelope id), to quote to the bank. Every
// call's error is an *Error when tiyin answered; read it with errors.As, or match its code
// with errors.Is:
//
//	var e *client.Error
//	if errors.As(err, &e) { log.Printf("tiyin refused: code %d, request %s", e.Code, e.RequestID) }
//	if errors.Is(err, client.CodeRepaymentExpired) { … check again … }
type Error struct {
	Code    Code
	Message string
	// Status is the answer's HTTP status; RequestID its X-Request-Id; Path the call's path
	// ("/repayment/loans/pay").
	Status    int
	RequestID string
	Path      string
}

func (e *Error) Error() string {
	return fmt.Sprintf("tiyin: %s: code %d (HTTP %d): %s", e.Path, e.Code, e.Status, e.Message)
}

// Is makes errors.Is(err, client.CodeX) match the answer's code.
func (e *Error) Is(target error) bool {
	c, ok := target.(Code)
	return ok && c == e.Code
}

// transportError is a call that got no answer: the connection failed or timed out, so tiyin
// may or may not have acted.
type transportError struct {
	where string
	err   error
}

func (e *transportError) Error() string {
	if e.where == "" {
		return "tiyin client: no answer: " + e.err.Error()
	}
	return "tiyin client: " + e.where + ": no answer: " + e.err.Error()
}

func (e *transportError) Unwrap() error { return e.err }

// statusError is an answer without tiyin's envelope: a proxy's or load balancer's page, or a
// server that is not tiyin.
type statusError struct {
	where  string
	status int
}

func (e *statusError) Error() string {
	return fmt.Sprintf("tiyin client: %s: HTTP %d without tiyin's envelope", e.where, e.status)
}

// Retryable reports whether the same call, with the same envelope id, may be sent again and
// succeed: no answer came (tiyin may have acted, and the same id makes a repeat safe), a proxy
// answered 429 or 5xx in tiyin's stead, or tiyin answered code 7, 9 or 10. A Client repeats
// such calls itself (WithRetry); Retryable is for a partner that repeats later, with
// WithEnvelopeID.
func Retryable(err error) bool {
	var (
		e *Error
		t *transportError
		s *statusError
	)
	switch {
	case errors.As(err, &e):
		return e.Code == CodeRateLimited || e.Code == CodeInProgress || e.Code == CodeUnavailable
	case errors.As(err, &t):
		return true
	case errors.As(err, &s):
		return s.status == 429 || s.status >= 500
	}
	return false
}
