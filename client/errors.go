package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
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

// APIError is an answer's error as tiyin sent it: errors.Is(err, client.CodeX) matches its code.
type APIError struct {
	Code    Code
	Message string
	// Status is the HTTP status; RequestID the answer's X-Request-Id, to quote to the bank.
	Status    int
	RequestID string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("tiyin: code %d (HTTP %d): %s", e.Code, e.Status, e.Message)
}

// Is makes errors.Is(err, client.CodeX) match the answer's code.
func (e *APIError) Is(target error) bool {
	c, ok := target.(Code)
	return ok && c == e.Code
}

// Retryable reports whether the same request, with the same envelope id, may be sent again
// and succeed: a transport error (the answer never came: tiyin may have acted, and the same id
// makes a retry safe), or code 7, 9 or 10.
func Retryable(err error) bool {
	var api *APIError
	if !errors.As(err, &api) {
		return err != nil
	}
	return api.Code == CodeRateLimited || api.Code == CodeInProgress || api.Code == CodeUnavailable
}

// Check is a generated call's outcome as one error: the transport's error, the answer's
// (*APIError), or nil for a success. reply is any <Operation>Reply.
//
//	r, err := c.GetLoanWithResponse(ctx, req)
//	if err := client.Check(r, err); errors.Is(err, client.CodeLoanNotFound) { … }
func Check(reply any, err error) error {
	if err != nil {
		return err
	}
	// Every generated reply has the raw Body and the HTTPResponse; they are read by name, in
	// this one place, so Check takes any of them.
	v := reflect.Indirect(reflect.ValueOf(reply))
	if v.Kind() != reflect.Struct {
		return fmt.Errorf("tiyin client: Check takes a generated reply, not %T", reply)
	}
	body, _ := v.FieldByName("Body").Interface().([]byte)
	resp, _ := v.FieldByName("HTTPResponse").Interface().(*http.Response)
	var env struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	status := 0
	requestID := ""
	if resp != nil {
		status, requestID = resp.StatusCode, resp.Header.Get("X-Request-Id")
	}
	if jerr := json.Unmarshal(body, &env); jerr != nil {
		if status >= 200 && status < 300 {
			return fmt.Errorf("tiyin client: the answer is not JSON: %w", jerr)
		}
		// Not tiyin's envelope (a proxy's page): a transport failure, the outcome unknown.
		return fmt.Errorf("tiyin client: HTTP %d without tiyin's envelope", status)
	}
	if env.Error == nil {
		return nil
	}
	return &APIError{Code: Code(env.Error.Code), Message: env.Error.Message, Status: status, RequestID: requestID}
}
