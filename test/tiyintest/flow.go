package tiyintest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Caller sends one request under a fresh id and answers its result and error code; a write
// may be retried by the caller with the same id.
type Caller interface {
	Call(path string, params any, write bool) (result map[string]any, code int, err error)
}

// Outcome is how one flow ended.
type Outcome struct {
	App, LoanID, TransferStatus, Repayment, Card string
	// TransactionID is the transfer's (TransferExternalID the partner's id of it), DebitID the
	// repayment's card debit.
	TransactionID, TransferExternalID, DebitID string
	Err                                        error
}

// Digits is n random decimal digits.
func Digits(n int) string {
	var b strings.Builder
	for range n {
		b.WriteByte(byte('0' + rand.IntN(10)))
	}
	return b.String()
}

// ClientData is a valid client with the given PINFL.
func ClientData(pinfl string) map[string]any {
	return map[string]any{
		"pinfl": pinfl, "lastName": "Karimov", "firstName": "Aziz", "birthDate": "1990-05-17",
		"document": map[string]any{"type": "PASSPORT", "series": "AA", "number": "1234567",
			"issuedBy": "Toshkent IIB", "issuedDate": "2020-01-10", "expiryDate": "2035-01-09"},
		"address": map[string]any{"region": "Toshkent", "district": "Chilonzor", "address": "Bunyodkor 1"},
		"phone":   "998901234567",
	}
}

// PINFL is a random PINFL the sandbox scoring approves.
func PINFL() string { return "3" + Digits(9) + "7" + Digits(3) }

// RegisterParams are a pre-scoring registration of a new client the sandbox approves.
func RegisterParams() map[string]any {
	return map[string]any{"externalId": uuid.NewString(), "isAgreementAccepted": true, "phoneNumber": "998901234567",
		"clientData": ClientData(PINFL())}
}

// Flow walks one client through everything: application, issuance, transfer, repayment, card.
// poll is how often it looks again while tiyin works in the background; a wait ends after
// two minutes.
func Flow(c Caller, poll time.Duration) (o Outcome) {
	fail := func(format string, a ...any) Outcome { o.Err = fmt.Errorf(format, a...); return o }
	reg := RegisterParams()
	r, code, err := c.Call("/microloans/applications/pre-scoring/register", reg, true)
	if err != nil || code != 0 {
		return fail("register: %d %v", code, err)
	}
	o.App = r["applicationId"].(string)
	if st := WaitStatus(c, o.App, "PENDING", poll); st != "PENDING" {
		return fail("pre-scoring ended %s", st)
	}
	if _, code, err = c.Call("/microloans/applications/verify", map[string]any{"applicationId": o.App, "amount": 100_000_000,
		"percent": 28, "monthPeriod": 12, "backupPhone": "998911112233"}, true); err != nil || code != 0 {
		return fail("verify: %d %v", code, err)
	}
	if _, code, err = c.Call("/microloans/applications/issue", map[string]any{"applicationId": o.App, "clientData": reg["clientData"]}, true); err != nil || code != 0 {
		return fail("issue: %d %v", code, err)
	}
	if st := WaitStatus(c, o.App, "COMPLETED", poll); st != "COMPLETED" {
		return fail("issuance ended %s", st)
	}
	ext := uuid.NewString()
	r, code, err = c.Call("/transfers/account-to-card/create", map[string]any{"externalId": ext, "applicationId": o.App,
		"pan": "8600" + Digits(11) + "9", "receiverCardType": "UZCARD", "cardHolderName": "AZIZ KARIMOV", "amount": 60_000_000}, true)
	if err != nil || code != 0 {
		return fail("transfer: %d %v", code, err)
	}
	o.TransactionID, _ = r["transactionId"].(string)
	o.TransferExternalID = ext
	ref := map[string]any{"externalId": ext, "transactionId": r["transactionId"]}
	if _, code, err = c.Call("/transfers/account-to-card/confirm", ref, true); err != nil || (code != 0 && code != 1016) {
		return fail("confirm: %d %v", code, err)
	}
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(poll) {
		if r, _, _ = c.Call("/transfers/check-status", ref, false); r != nil && (r["status"] == "SUCCESS" || r["status"] == "FAILED") {
			o.TransferStatus = r["status"].(string)
			break
		}
	}
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end) && o.LoanID == ""; time.Sleep(poll) {
		if r, _, _ = c.Call("/microloans/info", map[string]any{"applicationId": o.App}, false); r != nil && r["loanId"] != nil {
			o.LoanID = r["loanId"].(string)
		}
	}
	if o.LoanID == "" {
		return fail("no loanId after 2 minutes")
	}
	chk, code, err := c.Call("/repayment/loans/check", map[string]any{"loanId": o.LoanID}, true)
	if err != nil || code != 0 {
		return fail("check: %d %v", code, err)
	}
	o.DebitID = "DBT-" + uuid.NewString()
	r, code, err = c.Call("/repayment/loans/pay", map[string]any{"loanId": o.LoanID, "paymentType": "EARLY", "requestId": chk["requestId"],
		"debitId": o.DebitID, "amount": 10_000_000, "processingType": "UZCARD"}, true)
	if err != nil || code != 0 {
		return fail("pay: %d %v", code, err)
	}
	o.Repayment = r["status"].(string)
	phone := "99890" + Digits(7)
	r, code, err = c.Call("/cards/attach", map[string]any{"pan": "8600" + Digits(11) + "7", "expiry": "3012",
		"processingType": "UZCARD", "phoneNumber": phone}, true)
	if err != nil || code != 0 {
		return fail("attach: %d %v", code, err)
	}
	card := r["cardId"]
	box, _, err := c.Call("/sandbox/sms/outbox", map[string]any{"phoneNumber": phone}, false)
	if err != nil || len(box["messages"].([]any)) == 0 {
		return fail("no SMS code: %v", err)
	}
	otp := box["messages"].([]any)[0].(map[string]any)["code"]
	if _, code, err = c.Call("/cards/attach/confirm", map[string]any{"cardId": card, "otpCode": otp}, true); err != nil || code != 0 {
		return fail("confirm card: %d %v", code, err)
	}
	r, _, _ = c.Call("/cards/status", map[string]any{"cardId": card}, false)
	o.Card, _ = r["status"].(string)
	return o
}

// WaitStatus polls an application until it reaches want or a final status, for two minutes.
func WaitStatus(c Caller, app, want string, poll time.Duration) string {
	st := ""
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(poll) {
		r, _, err := c.Call("/microloans/applications/info", map[string]any{"applicationId": app}, false)
		if err != nil || r == nil {
			continue
		}
		st, _ = r["status"].(string)
		if st == want || st == "REJECTED" || st == "FAILED" || st == "CANCELLED" || st == "EXPIRED" {
			return st
		}
	}
	return st
}
