package http_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
)

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// TestTenantIsolation: for every one of the 21 endpoints, partner B naming partner A's objects
// gets exactly the answer it gets for objects that do not exist (code, status and message),
// and nothing of A's changes.
func TestTenantIsolation(t *testing.T) {
	t.Parallel()
	h := setup(t)
	// Partner A owns one of everything.
	rp := registerParams()
	reg := h.call(t, "/microloans/applications/pre-scoring/register", rp)
	var r struct{ ApplicationID string }
	if err := json.Unmarshal(reg.Result, &r); err != nil || reg.code() != 0 {
		t.Fatalf("register: %s", reg.Raw)
	}
	pending := r.ApplicationID
	app, loanID := h.withContract(t, 300_000_000)
	tr := h.createTransfer(t, transferParams(app, "8600123456789012", "UZCARD", 1_000_000))
	chk := h.checkRepayment(t, loanID)
	cardID, code := h.attach(t, "8600123456789013", "UZCARD")
	orderExt := "ORD-" + uuid.NewString()
	order := h.call(t, "/cards/order", map[string]any{"externalId": orderExt, "phoneNumber": "998901234567", "clientData": clientData(),
		"privacyPolicyAccepted": true, "termsAndConditionsAccepted": true})
	var o struct{ OrderID string }
	if err := json.Unmarshal(order.Result, &o); err != nil || order.code() != 0 {
		t.Fatalf("order: %s", order.Raw)
	}

	// A's view of its objects, read again at the end.
	reads := []struct {
		method, path string
		params       map[string]any
	}{
		{http.MethodPost, "/microloans/applications/info", map[string]any{"applicationId": pending}},
		{http.MethodPost, "/microloans/applications/info", map[string]any{"applicationId": app}},
		{http.MethodPost, "/microloans/info", map[string]any{"applicationId": app}},
		{http.MethodPost, "/microloans/schedule", map[string]any{"loanId": loanID}},
		{http.MethodPost, "/microloans/payments", map[string]any{"loanId": loanID}},
		{http.MethodPost, "/transfers/check-status", tr.ref()},
		{http.MethodPost, "/repayment/loans/status", map[string]any{"requestId": chk.RequestID}},
		{http.MethodPost, "/cards/status", map[string]any{"cardId": cardID}},
		{http.MethodPost, "/cards/order/info", map[string]any{"orderId": o.OrderID}},
	}
	snapshot := func() []string {
		var out []string
		for _, r := range reads {
			a := h.send(t, r.method, r.path, h.key, r.params)
			if a.code() != 0 {
				t.Fatalf("A reads %s: %s", r.path, a.Raw)
			}
			out = append(out, string(a.Result))
		}
		return out
	}
	before := snapshot()
	ledgerBefore := h.rowCounts(t)["ledger_postings"]

	unknownApp, unknownLoan := uuid.NewString(), "1234567890"
	cd := clientData()
	tests := []struct {
		method, path string
		theirs, none map[string]any
	}{
		// Before register below, which lets B register an application with A's externalId.
		{http.MethodPost, "/microloans/applications/find", map[string]any{"externalId": rp["externalId"]}, map[string]any{"externalId": uuid.NewString()}},
		{http.MethodPost, "/microloans/applications/pre-scoring/register",
			set(registerParams(), "externalId", rp["externalId"]), registerParams()},
		{http.MethodPost, "/microloans/applications/cancel",
			map[string]any{"applicationId": pending, "initiator": "PARTNER"}, map[string]any{"applicationId": unknownApp, "initiator": "PARTNER"}},
		{http.MethodPost, "/microloans/applications/verify", verifyParams(pending, 100_000_000), verifyParams(unknownApp, 100_000_000)},
		{http.MethodPost, "/microloans/applications/issue",
			map[string]any{"applicationId": pending, "clientData": cd}, map[string]any{"applicationId": unknownApp, "clientData": cd}},
		{http.MethodPost, "/microloans/applications/info", map[string]any{"applicationId": app}, map[string]any{"applicationId": unknownApp}},
		{http.MethodPost, "/transfers/account-to-card/create",
			transferParams(app, "8600123456789012", "UZCARD", 1_000_000), transferParams(unknownApp, "8600123456789012", "UZCARD", 1_000_000)},
		{http.MethodPost, "/transfers/account-to-card/confirm", tr.ref(), map[string]any{"externalId": uuid.NewString(), "transactionId": uuid.NewString()}},
		{http.MethodPost, "/transfers/check-status", tr.ref(), map[string]any{"externalId": uuid.NewString(), "transactionId": uuid.NewString()}},
		{http.MethodPost, "/microloans/info", map[string]any{"applicationId": app}, map[string]any{"applicationId": unknownApp}},
		{http.MethodPost, "/microloans/schedule", map[string]any{"loanId": loanID}, map[string]any{"loanId": unknownLoan}},
		{http.MethodPost, "/microloans/payments", map[string]any{"loanId": loanID}, map[string]any{"loanId": unknownLoan}},
		{http.MethodPost, "/repayment/loans/check", map[string]any{"loanId": loanID}, map[string]any{"loanId": unknownLoan}},
		{http.MethodPost, "/repayment/loans/pay", payParams(chk, "EARLY", 1_000_000),
			payParams(checkResult{LoanID: unknownLoan, RequestID: uuid.NewString()}, "EARLY", 1_000_000)},
		{http.MethodPost, "/repayment/loans/status", map[string]any{"requestId": chk.RequestID}, map[string]any{"requestId": uuid.NewString()}},
		{http.MethodPost, "/cards/order", map[string]any{"externalId": orderExt, "phoneNumber": "998901234567", "clientData": cd,
			"privacyPolicyAccepted": true, "termsAndConditionsAccepted": true},
			map[string]any{"externalId": "ORD-" + uuid.NewString(), "phoneNumber": "998901234567", "clientData": cd,
				"privacyPolicyAccepted": true, "termsAndConditionsAccepted": true}},
		{http.MethodPost, "/cards/order/info", map[string]any{"orderId": o.OrderID}, map[string]any{"orderId": uuid.NewString()}},
		{http.MethodPost, "/cards/status", map[string]any{"cardId": cardID}, map[string]any{"cardId": uuid.NewString()}},
		{http.MethodPut, "/cards/status", map[string]any{"cardId": cardID, "status": "BLOCKED", "reason": "x"},
			map[string]any{"cardId": uuid.NewString(), "status": "BLOCKED", "reason": "x"}},
		{http.MethodPost, "/cards/attach", map[string]any{"pan": "8600123456789013", "expiry": "3012", "processingType": "UZCARD", "phoneNumber": "998901234567"},
			map[string]any{"pan": "8600123456789021", "expiry": "3012", "processingType": "UZCARD", "phoneNumber": "998901234567"}},
		{http.MethodPost, "/cards/attach/confirm", map[string]any{"cardId": cardID, "otpCode": code}, map[string]any{"cardId": uuid.NewString(), "otpCode": code}},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		seen[tt.method+" "+tt.path] = true
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			theirs := h.send(t, tt.method, tt.path, h.otherKey, tt.theirs)
			none := h.send(t, tt.method, tt.path, h.otherKey, tt.none)
			if theirs.Status != none.Status || theirs.code() != none.code() || normalise(theirs) != normalise(none) {
				t.Fatalf("A's object answers differently from none:\n  A's:  %s\n  none: %s", theirs.Raw, none.Raw)
			}
		})
	}
	if len(seen) != 21 {
		t.Fatalf("%d endpoints tried, want 21", len(seen))
	}
	if after := snapshot(); !slices.Equal(before, after) {
		t.Fatalf("A's objects changed:\nbefore %v\nafter  %v", before, after)
	}
	if n := h.rowCounts(t)["ledger_postings"]; n != ledgerBefore {
		t.Fatalf("ledger postings %d → %d", ledgerBefore, n)
	}
}

// send calls an endpoint with any method under a fresh id.
func (h *harness) send(t *testing.T, method, path, key string, params any) answer {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"id": uuid.NewString(), "params": params})
	return h.raw(t, method, path, key, "application/json", body)
}

// normalise is an answer's error message, or its result's shape, with ids blanked.
func normalise(a answer) string {
	if a.Error != nil {
		return uuidRE.ReplaceAllString(a.Error.Message, "<id>")
	}
	var m map[string]json.RawMessage
	_ = json.Unmarshal(a.Result, &m)
	return "success with " + sortedKeys(m)
}

func sortedKeys(m map[string]json.RawMessage) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return strings.Join(ks, ",")
}

// set returns p with p[k] = v.
func set(p map[string]any, k string, v any) map[string]any {
	p[k] = v
	return p
}
