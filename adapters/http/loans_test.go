package http_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"
)

type loanInfo struct {
	ApplicationID string  `json:"applicationId"`
	Amount        int64   `json:"amount"`
	MonthPeriod   int     `json:"monthPeriod"`
	Rate          float64 `json:"rate"`
	LoanID        *string `json:"loanId"`
	TotalResidue  int64   `json:"totalResidue"`
	TotalFine     int64   `json:"totalFine"`
}

func (h *harness) loan(t *testing.T, app string) loanInfo {
	t.Helper()
	a := h.call(t, "/microloans/info", map[string]any{"applicationId": app})
	var r loanInfo
	if err := json.Unmarshal(a.Result, &r); err != nil || a.code() != 0 {
		t.Fatalf("loan info: %s", a.Raw)
	}
	return r
}

func (h *harness) reconcile(t *testing.T) {
	t.Helper()
	if _, err := h.app.Operations.Reconcile.Handle(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestLoanInfoAndSchedule(t *testing.T) {
	t.Parallel()
	h := setup(t)
	app := h.issued(t, 300_000_000)
	got := h.loan(t, app)
	if got.LoanID != nil || got.Amount != 300_000_000 || got.MonthPeriod != 12 || got.Rate != 28 || got.TotalResidue != 300_000_000 || got.TotalFine != 0 {
		t.Fatalf("just issued: %+v", got)
	}
	// The contract number comes no earlier than 30 minutes after issuance, on the Clock.
	h.reconcile(t)
	if got := h.loan(t, app); got.LoanID != nil {
		t.Fatalf("contract number before the delay: %s", *got.LoanID)
	}
	h.call(t, "/sandbox/clock/advance", map[string]any{"duration": "31m"})
	h.reconcile(t)
	got = h.loan(t, app)
	if got.LoanID == nil || len(*got.LoanID) != 10 {
		t.Fatalf("contract number after the delay: %+v", got)
	}
	a := h.call(t, "/microloans/schedule", map[string]any{"loanId": *got.LoanID})
	var r struct {
		Schedule []struct {
			PaymentDate                                             string
			PeriodDays                                              int
			TotalResidue, TotalRepaymentAmount, LoanRepaymentAmount int64
			AccruedInterestAmount, ServicePercentageAmount          int64
		}
	}
	if err := json.Unmarshal(a.Result, &r); err != nil || a.code() != 0 || len(r.Schedule) != 12 {
		t.Fatalf("schedule: %s", a.Raw)
	}
	var sum int64
	for _, it := range r.Schedule {
		sum += it.LoanRepaymentAmount
		if !strings.HasSuffix(it.PaymentDate, "T00:00:00+05:00") || it.TotalRepaymentAmount != it.LoanRepaymentAmount+it.AccruedInterestAmount+it.ServicePercentageAmount {
			t.Fatalf("item %+v", it)
		}
	}
	if sum != 300_000_000 || r.Schedule[11].TotalResidue != 0 {
		t.Fatalf("principal sums to %d", sum)
	}
	// A year later every item is overdue: the fine is the whole debt.
	h.call(t, "/sandbox/clock/advance", map[string]any{"duration": "9000h"})
	if got := h.loan(t, app); got.TotalFine == 0 || got.TotalFine != got.TotalResidue {
		t.Fatalf("a year on: %+v", got)
	}
}

func TestLoanRefusals(t *testing.T) {
	t.Parallel()
	h := setup(t)
	app := h.issued(t, 1_000_000)
	pending := h.register(t)
	h.call(t, "/sandbox/clock/advance", map[string]any{"duration": "31m"})
	h.reconcile(t)
	loanID := *h.loan(t, app).LoanID
	tests := []struct {
		name   string
		key    string
		path   string
		params map[string]any
		code   int
	}{
		{"unknown application", h.key, "/microloans/info", map[string]any{"applicationId": uuid.NewString()}, 1012},
		{"another partner's application", h.otherKey, "/microloans/info", map[string]any{"applicationId": app}, 1012},
		{"application not issued", h.key, "/microloans/info", map[string]any{"applicationId": pending}, 1013},
		{"unknown loanId", h.key, "/microloans/schedule", map[string]any{"loanId": "1234567890"}, 1012},
		{"another partner's loanId", h.otherKey, "/microloans/schedule", map[string]any{"loanId": loanID}, 1012},
		{"loanId with letters", h.key, "/microloans/schedule", map[string]any{"loanId": "12AB"}, 4},
		{"loanId as a number", h.key, "/microloans/schedule", map[string]any{"loanId": 1234}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if a := h.callAs(t, tt.key, uuid.NewString(), tt.path, tt.params); a.code() != tt.code {
				t.Fatalf("got %s", a.Raw)
			}
		})
	}
}
