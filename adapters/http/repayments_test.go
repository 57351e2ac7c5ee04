package http_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
)

type checkResult struct {
	RequestID             string `json:"requestId"`
	LoanID                string `json:"loanId"`
	ClientName            string `json:"clientName"`
	AccountBalance        int64  `json:"accountBalance"`
	TotalResidue          int64  `json:"totalResidue"`
	MainDebtAmount        int64  `json:"mainDebtAmount"`
	OverdueDebtAmount     int64  `json:"overdueDebtAmount"`
	TermInterestAmount    int64  `json:"termInterestAmount"`
	OverdueInterestAmount int64  `json:"overdueInterestAmount"`
	InterestFineAmount    int64  `json:"interestFineAmount"`
	MaxAmount             int64  `json:"maxAmount"`
}

// withContract issues a loan of amount and moves the clock until its contract number exists.
func (h *harness) withContract(t *testing.T, amount int64) (app, loanID string) {
	t.Helper()
	app = h.issued(t, amount)
	h.call(t, "/sandbox/clock/advance", map[string]any{"duration": "31m"})
	h.reconcile(t)
	return app, *h.loan(t, app).LoanID
}

func (h *harness) checkRepayment(t *testing.T, loanID string) checkResult {
	t.Helper()
	a := h.call(t, "/repayment/loans/check", map[string]any{"loanId": loanID})
	var r checkResult
	if err := json.Unmarshal(a.Result, &r); err != nil || a.code() != 0 {
		t.Fatalf("check: %s", a.Raw)
	}
	return r
}

func payParams(c checkResult, typ string, amount int64) map[string]any {
	return map[string]any{"loanId": c.LoanID, "paymentType": typ, "requestId": c.RequestID,
		"debitId": "DBT-" + uuid.NewString(), "amount": amount, "processingType": "UZCARD"}
}

type repaymentStatus struct {
	RequestID           string  `json:"requestId"`
	ExternalID          *string `json:"externalId"`
	LoanID              string  `json:"loanId"`
	TransactionID       *string `json:"transactionId"`
	RequestStatus       string  `json:"requestStatus"`
	Message             string  `json:"message"`
	RequestErrorMessage *string `json:"requestErrorMessage"`
}

func (h *harness) repaymentStatus(t *testing.T, params map[string]any) (repaymentStatus, answer) {
	t.Helper()
	a := h.call(t, "/repayment/loans/status", params)
	var r repaymentStatus
	if a.code() == 0 {
		if err := json.Unmarshal(a.Result, &r); err != nil {
			t.Fatal(err)
		}
	}
	return r, a
}

func TestRepaymentToAClosedLoan(t *testing.T) {
	t.Parallel()
	h := setup(t)
	app, loanID := h.withContract(t, 300_000_000)
	h.call(t, "/sandbox/clock/advance", map[string]any{"duration": "240h"}) // 10 days of interest
	c := h.checkRepayment(t, loanID)
	parts := c.MainDebtAmount + c.OverdueDebtAmount + c.TermInterestAmount + c.OverdueInterestAmount + c.InterestFineAmount
	if c.TotalResidue != parts || c.MaxAmount != c.TotalResidue || c.MainDebtAmount != 300_000_000 || c.TermInterestAmount == 0 ||
		c.ClientName != "KARIMOV AZIZ" || c.AccountBalance != 300_000_000 || c.LoanID != loanID {
		t.Fatalf("check %+v", c)
	}
	if s, _ := h.repaymentStatus(t, map[string]any{"requestId": c.RequestID}); s.RequestStatus != "NEW" || s.TransactionID != nil || s.ExternalID != nil {
		t.Fatalf("status before pay %+v", s)
	}
	// An early part-payment, then the payments list and a smaller schedule.
	payID := uuid.NewString()
	a := h.callAs(t, h.key, payID, "/repayment/loans/pay", payParams(c, "EARLY", 50_000_000))
	var pay struct{ LoanID, RequestID, Status, Message string }
	if err := json.Unmarshal(a.Result, &pay); err != nil || a.code() != 0 || pay.Status != "SUCCESS" || pay.RequestID != c.RequestID {
		t.Fatalf("pay: %s", a.Raw)
	}
	s, _ := h.repaymentStatus(t, map[string]any{"requestId": c.RequestID, "externalId": payID})
	if s.RequestStatus != "SUCCESS" || s.TransactionID == nil || s.ExternalID == nil || *s.ExternalID != payID || s.RequestErrorMessage != nil {
		t.Fatalf("status after pay %+v", s)
	}
	if _, a := h.repaymentStatus(t, map[string]any{"requestId": c.RequestID, "externalId": uuid.NewString()}); a.code() != 1017 {
		t.Fatalf("status with another externalId: %s", a.Raw)
	}
	a = h.call(t, "/microloans/payments", map[string]any{"loanId": loanID})
	var list struct {
		Payments []struct {
			TotalRepaymentAmount, LoanRepaymentAmount, AccruedInterestAmount int64
		}
	}
	if err := json.Unmarshal(a.Result, &list); err != nil || len(list.Payments) != 1 {
		t.Fatalf("payments: %s", a.Raw)
	}
	if p := list.Payments[0]; p.TotalRepaymentAmount != 50_000_000 || p.AccruedInterestAmount != c.TermInterestAmount ||
		p.LoanRepaymentAmount != 50_000_000-c.TermInterestAmount {
		t.Fatalf("payment %+v", p)
	}
	after := h.loan(t, app)
	if after.TotalResidue != c.TotalResidue-50_000_000 {
		t.Fatalf("residue %d after paying 50 000 000 of %d", after.TotalResidue, c.TotalResidue)
	}
	// The paid request cannot be paid again; the next check pays the loan off.
	if a := h.call(t, "/repayment/loans/pay", payParams(c, "EARLY", 1)); a.code() != 1018 {
		t.Fatalf("second pay: %s", a.Raw)
	}
	c2 := h.checkRepayment(t, loanID)
	if a := h.call(t, "/repayment/loans/pay", payParams(c2, "TERM", c2.MaxAmount)); a.code() != 0 {
		t.Fatalf("payoff: %s", a.Raw)
	}
	if got := h.loan(t, app); got.TotalResidue != 0 || got.TotalFine != 0 {
		t.Fatalf("closed loan %+v", got)
	}
	if a := h.call(t, "/repayment/loans/check", map[string]any{"loanId": loanID}); a.code() != 1013 {
		t.Fatalf("check on a closed loan: %s", a.Raw)
	}
	h.checkLedger(t)
}

func TestRepaymentRefusals(t *testing.T) {
	t.Parallel()
	h := setup(t)
	_, loanID := h.withContract(t, 10_000_000)
	c := h.checkRepayment(t, loanID)
	used := payParams(c, "TERM", 1_000)
	if a := h.call(t, "/repayment/loans/pay", used); a.code() != 0 {
		t.Fatalf("pay: %s", a.Raw)
	}
	fresh := h.checkRepayment(t, loanID)
	with := func(p map[string]any, k string, v any) map[string]any {
		out := map[string]any{}
		for key, val := range p {
			out[key] = val
		}
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
		return out
	}
	base := payParams(fresh, "EARLY", 1_000)
	tests := []struct {
		name   string
		key    string
		params map[string]any
		code   int
	}{
		{"amount 0", h.key, with(base, "amount", 0), 1019},
		{"amount negative", h.key, with(base, "amount", -5), 1019},
		{"amount above maxAmount", h.key, with(base, "amount", fresh.MaxAmount+1), 1019},
		{"amount missing", h.key, with(base, "amount", nil), 4},
		{"unknown debit", h.key, with(base, "debitId", "FAIL-42"), 1020},
		{"debit used before", h.key, with(base, "debitId", used["debitId"]), 1020},
		{"unknown request", h.key, with(base, "requestId", uuid.NewString()), 1017},
		{"requestId not ours", h.key, with(base, "requestId", "R-1"), 1017},
		{"another partner's request", h.otherKey, base, 1017},
		{"request of another loan", h.key, with(base, "loanId", "999"), 1017},
		{"request of an older loan state", h.key, payParams(c, "EARLY", 1_000), 1018},
		{"paymentType unknown", h.key, with(base, "paymentType", "LATER"), 4},
		{"processingType unknown", h.key, with(base, "processingType", "VISA"), 4},
		{"loanId with letters", h.key, with(base, "loanId", "12AB"), 4},
	}
	debitRefusals := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := h.callAs(t, tt.key, uuid.NewString(), "/repayment/loans/pay", tt.params)
			if a.code() != tt.code {
				t.Fatalf("got %s", a.Raw)
			}
			if tt.code == 1020 {
				debitRefusals[a.Error.Message] = true
			}
		})
	}
	// A refused debit says no more than that: one message, whatever the cause, naming neither
	// the debit nor whose repayment it paid.
	if len(debitRefusals) != 1 {
		t.Fatalf("1020 messages: %v, want one generic message", debitRefusals)
	}
	for m := range debitRefusals {
		if strings.Contains(m, "FAIL-42") || strings.Contains(m, "another repayment") {
			t.Fatalf("1020 message %q tells more than a refusal", m)
		}
	}
	// Every refusal left the request payable.
	if a := h.call(t, "/repayment/loans/pay", base); a.code() != 0 {
		t.Fatalf("after refusals: %s", a.Raw)
	}
	for _, tt := range []struct {
		name   string
		key    string
		path   string
		params map[string]any
		code   int
	}{
		{"check unknown loan", h.key, "/repayment/loans/check", map[string]any{"loanId": "1234567"}, 1012},
		{"check foreign loan", h.otherKey, "/repayment/loans/check", map[string]any{"loanId": loanID}, 1012},
		{"status unknown", h.key, "/repayment/loans/status", map[string]any{"requestId": uuid.NewString()}, 1017},
		{"status foreign", h.otherKey, "/repayment/loans/status", map[string]any{"requestId": fresh.RequestID}, 1017},
		{"status requestId not a UUID", h.key, "/repayment/loans/status", map[string]any{"requestId": "R-1"}, 4},
		{"payments foreign", h.otherKey, "/microloans/payments", map[string]any{"loanId": loanID}, 1012},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if a := h.callAs(t, tt.key, uuid.NewString(), tt.path, tt.params); a.code() != tt.code {
				t.Fatalf("got %s", a.Raw)
			}
		})
	}
}

func TestRepaymentRequestExpiresAndNoticesAChangedLoan(t *testing.T) {
	t.Parallel()
	h := setup(t)
	_, loanID := h.withContract(t, 10_000_000)
	old := h.checkRepayment(t, loanID)
	h.call(t, "/sandbox/clock/advance", map[string]any{"duration": "30m"})
	if s, _ := h.repaymentStatus(t, map[string]any{"requestId": old.RequestID}); s.RequestStatus != "EXPIRED" || s.RequestErrorMessage == nil {
		t.Fatalf("after 30 min %+v", s)
	}
	if a := h.call(t, "/repayment/loans/pay", payParams(old, "TERM", 1_000)); a.code() != 1018 {
		t.Fatalf("pay after 30 min: %s", a.Raw)
	}
	first, second := h.checkRepayment(t, loanID), h.checkRepayment(t, loanID)
	if a := h.call(t, "/repayment/loans/pay", payParams(first, "TERM", 1_000)); a.code() != 0 {
		t.Fatalf("pay: %s", a.Raw)
	}
	if s, _ := h.repaymentStatus(t, map[string]any{"requestId": second.RequestID}); s.RequestStatus != "FAILED" || s.RequestErrorMessage == nil {
		t.Fatalf("after another payment %+v", s)
	}
}

// TestConcurrentPaysOnOneLoanOverHTTP races pays of requests checked on the same loan state:
// exactly one is posted.
func TestConcurrentPaysOnOneLoanOverHTTP(t *testing.T) {
	t.Parallel()
	h := setup(t)
	_, loanID := h.withContract(t, 10_000_000)
	checks := make([]checkResult, 4)
	for i := range checks {
		checks[i] = h.checkRepayment(t, loanID)
	}
	codes := make([]int, len(checks))
	var wg sync.WaitGroup
	for i, c := range checks {
		wg.Go(func() { codes[i] = h.call(t, "/repayment/loans/pay", payParams(c, "EARLY", 100_000)).code() })
	}
	wg.Wait()
	exactlyOneSucceeds(t, codes, 1018)
	h.checkLedger(t)
}

// exactlyOneSucceeds asserts that one racing call succeeded and every other was refused with
// the given code.
func exactlyOneSucceeds(t *testing.T, codes []int, refusal int) {
	t.Helper()
	ok := 0
	for _, c := range codes {
		switch c {
		case 0:
			ok++
		case refusal:
		default:
			t.Fatalf("codes %v: want 0 or %d", codes, refusal)
		}
	}
	if ok != 1 {
		t.Fatalf("codes %v: want exactly one success", codes)
	}
}

// TestTheSameIDInUpperCaseIsTheSameRequest: an envelope id is a UUID, whatever the case of its
// hex digits: sent again in upper case it replays the first answer instead of making a second
// repayment request (issue 33).
func TestTheSameIDInUpperCaseIsTheSameRequest(t *testing.T) {
	t.Parallel()
	h := setup(t)
	_, loanID := h.withContract(t, 300_000_000)
	id := uuid.NewString()
	params := map[string]any{"loanId": loanID}
	first := h.callAs(t, h.key, id, "/repayment/loans/check", params)
	again := h.callAs(t, h.key, strings.ToUpper(id), "/repayment/loans/check", params)
	var count int64
	if err := h.db.Gorm.Table("repayments").Count(&count).Error; err != nil || count != 1 {
		t.Fatalf("%d repayment requests (%v), want 1", count, err)
	}
	if first.code() != 0 || !bytes.Equal(first.Raw, again.Raw) {
		t.Fatalf("the upper-case retry is not the replay:\n%s\n%s", first.Raw, again.Raw)
	}
}
