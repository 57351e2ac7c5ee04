package domain_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// TestRefusalsKeepTheirStoredNames: the names below are in partners' idempotency records, so
// each refusal keeps its name for good and no two share one. This list checks the declarations;
// it is not a second source of them: a new refusal is added here too, a renamed one fails.
func TestRefusalsKeepTheirStoredNames(t *testing.T) {
	t.Parallel()
	stored := map[string]error{
		"application-not-found": domain.ErrApplicationNotFound,
		"wrong-state":           domain.ErrWrongState,
		"cancel-not-allowed":    domain.ErrCancelNotAllowed,
		"offer-out-of-range":    domain.ErrOfferOutOfRange,
		"client-data-mismatch":  domain.ErrClientDataMismatch,
		"sms-not-sent":          domain.ErrSMSNotSent,
		"card-not-found":        domain.ErrCardNotFound,
		"otp-expired":           domain.ErrOTPExpired,
		"otp-wrong":             domain.ErrOTPWrong,
		"card-attached":         domain.ErrCardAttached,
		"external-id-used":      domain.ErrExternalIDUsed,
		"loan-not-found":        domain.ErrLoanNotFound,
		"loan-not-issued":       domain.ErrLoanNotIssued,
		"insufficient-funds":    domain.ErrInsufficientFunds,
		"transfer-not-found":    domain.ErrTransferNotFound,
		"transfer-state":        domain.ErrTransferState,
		"repayment-not-found":   domain.ErrRepaymentNotFound,
		"repayment-expired":     domain.ErrRepaymentExpired,
		"repayment-amount":      domain.ErrRepaymentAmount,
		"debit-rejected":        domain.ErrDebitRejected,
		"card-order-not-found":  domain.ErrCardOrderNotFound,
		"card-status":           domain.ErrCardStatus,
		"card-rejected":         domain.ErrCardRejected,
	}
	seen := map[string]bool{}
	for _, r := range domain.Refusals() {
		if seen[r.Name()] {
			t.Errorf("two refusals are named %s", r.Name())
		}
		seen[r.Name()] = true
		if !errors.Is(r, stored[r.Name()]) {
			t.Errorf("%s (%q) is not the refusal stored under that name", r.Name(), r.Error())
		}
	}
	for name := range stored {
		if !seen[name] {
			t.Errorf("no refusal is named %s any more", name)
		}
	}
}

// TestARefusalIsNamedThroughItsWrappersAndTypes: a refusal wrapped with detail, or one of the
// domain's typed errors that match it, is stored under the refusal's name; it reads back with
// the text it was stored with and still matches its sentinel.
func TestARefusalIsNamedThroughItsWrappersAndTypes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("%w: card 42", domain.ErrCardNotFound), "card-not-found"},
		{domain.StateError{Op: "verify", Status: domain.StatusPending}, "wrong-state"},
		{domain.OTPWrongError{Left: 2}, "otp-wrong"},
		{domain.ExternalIDUsedError{ApplicationID: uuid.New()}, "external-id-used"},
		{domain.ErrDebitUsed, "debit-rejected"},
		{domain.ErrLoanClosed, "loan-not-issued"},
	}
	for _, tt := range tests {
		name, ok := domain.RefusalName(tt.err)
		if !ok || name != tt.want {
			t.Errorf("%v: named %q, %v; want %q", tt.err, name, ok, tt.want)
			continue
		}
		back, ok := domain.RefusalNamed(name, tt.err.Error())
		if !ok || back.Error() != tt.err.Error() {
			t.Errorf("%s: read back %v, %v", name, back, ok)
			continue
		}
		if again, _ := domain.RefusalName(back); again != name {
			t.Errorf("%s: read back, named %q", name, again)
		}
	}
	if _, ok := domain.RefusalName(domain.ErrPartnerNotFound); ok {
		t.Error("a console error is stored as a refusal")
	}
	if _, ok := domain.RefusalNamed("no-such-refusal", "x"); ok {
		t.Error("an unknown name is read back")
	}
}
