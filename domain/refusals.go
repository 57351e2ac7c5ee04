package domain

import "errors"

// refusals are the business refusals a partner's state-changing call can end with, each under
// a stable name. A refusal is an outcome like a result: the request's idempotency record keeps
// it, by this name and its text, and a retry gets it again. The names are stored: never rename
// one. Errors not listed here (a field error, an unavailable gateway) are not outcomes; a retry
// runs again.
var refusals = []struct {
	name string
	err  error
}{
	{"application-not-found", ErrApplicationNotFound},
	{"wrong-state", ErrWrongState},
	{"cancel-not-allowed", ErrCancelNotAllowed},
	{"offer-out-of-range", ErrOfferOutOfRange},
	{"client-data-mismatch", ErrClientDataMismatch},
	{"sms-not-sent", ErrSMSNotSent},
	{"card-not-found", ErrCardNotFound},
	{"otp-expired", ErrOTPExpired},
	{"otp-wrong", ErrOTPWrong},
	{"card-attached", ErrCardAttached},
	{"external-id-used", ErrExternalIDUsed},
	{"loan-not-found", ErrLoanNotFound},
	{"loan-not-issued", ErrLoanNotIssued},
	{"insufficient-funds", ErrInsufficientFunds},
	{"transfer-not-found", ErrTransferNotFound},
	{"transfer-state", ErrTransferState},
	{"repayment-not-found", ErrRepaymentNotFound},
	{"repayment-expired", ErrRepaymentExpired},
	{"repayment-amount", ErrRepaymentAmount},
	{"debit-rejected", ErrDebitRejected},
	{"card-order-not-found", ErrCardOrderNotFound},
	{"card-status", ErrCardStatus},
	{"card-rejected", ErrCardRejected},
}

// Refusals returns every business refusal, in the order RefusalName tries them.
func Refusals() []error {
	errs := make([]error, len(refusals))
	for i, r := range refusals {
		errs[i] = r.err
	}
	return errs
}

// RefusalName returns the stable name of the business refusal err is, or false when err is
// none (a system or field error).
func RefusalName(err error) (string, bool) {
	for _, r := range refusals {
		if errors.Is(err, r.err) {
			return r.name, true
		}
	}
	return "", false
}

// StoredRefusal is a business refusal read back from where it was kept: it reads as its
// message did and matches its sentinel under errors.Is, so it is answered as it was the first
// time.
type StoredRefusal struct {
	sentinel error
	message  string
}

func (e StoredRefusal) Error() string { return e.message }

// Unwrap is the refusal's sentinel.
func (e StoredRefusal) Unwrap() error { return e.sentinel }

// RefusalNamed is the refusal stored as name with message; false when no refusal has that
// name (a record of a newer version).
func RefusalNamed(name, message string) (error, bool) {
	for _, r := range refusals {
		if r.name == name {
			return StoredRefusal{sentinel: r.err, message: message}, true
		}
	}
	return nil, false
}
