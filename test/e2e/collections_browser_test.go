package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/test/tiyintest"
)

// collectionsEnv runs the collections pass every second and lets reminders go at any hour (the
// test runs at any time of day; the hours' rule is the domain's and the use case's tests').
var collectionsEnv = []string{"TIYIN_LOAN_CONTRACT_DELAY=1s", "TIYIN_COLLECTIONS_EVERY=1s", "TIYIN_REMINDER_HOURS=0-24"}

// overdueLoan runs a whole microloan flow and moves the sandbox partner's clock 40 days on: the
// loan's first instalment is then some ten days overdue.
func overdueLoan(t *testing.T, s *server) (tiyintest.Outcome, time.Time) {
	t.Helper()
	o := tiyintest.Flow(flowCaller{t, s}, 100*time.Millisecond)
	if o.Err != nil || o.LoanID == "" {
		t.Fatalf("flow: %+v", o)
	}
	now := s.must(t, "/sandbox/clock/advance", map[string]any{"duration": "960h"})["now"].(string)
	today, err := time.Parse(time.DateOnly, now[:10])
	if err != nil {
		t.Fatalf("the clock's now %q: %v", now, err)
	}
	return o, today
}

// reminderOf waits for the reminder of the loan in the sandbox SMS outbox (the borrower's phone)
// and returns its text.
func reminderOf(t *testing.T, s *server, contract string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, m := range s.must(t, "/sandbox/sms/outbox", map[string]any{"phoneNumber": "998901234567"})["messages"].([]any) {
			if text, _ := m.(map[string]any)["text"].(string); strings.Contains(text, contract) && strings.Contains(text, "kechikmoqda") {
				return text
			}
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Fatalf("no overdue reminder of contract %s reached the sandbox outbox", contract)
	return ""
}

// TestReminderReachesTheBorrowerAndThePartner: once its first instalment is missed on the
// partner's clock, the borrower gets an SMS reminder in the 8-30 days bucket (the sandbox
// outbox shows it) and the partner an event REMINDER_SENT, once, however many passes run.
func TestReminderReachesTheBorrowerAndThePartner(t *testing.T) {
	t.Parallel()
	s := start(t, store.SQLite, collectionsEnv...)
	o, _ := overdueLoan(t, s)
	reminderOf(t, s, o.LoanID)
	time.Sleep(2500 * time.Millisecond) // two more passes
	var reminders []map[string]any
	for _, e := range s.must(t, "/events/list", map[string]any{"afterSequence": 0, "limit": 100})["events"].([]any) {
		if ev := e.(map[string]any); ev["type"] == "REMINDER_SENT" {
			reminders = append(reminders, ev["data"].(map[string]any))
		}
	}
	if len(reminders) != 1 || reminders[0]["kind"] != "OVERDUE" || reminders[0]["bucket"] != "8-30" || reminders[0]["loanId"] != o.LoanID {
		t.Fatalf("the partner was told of reminders %v, want one OVERDUE 8-30 of loan %s", reminders, o.LoanID)
	}
	sms := 0
	for _, m := range s.must(t, "/sandbox/sms/outbox", map[string]any{"phoneNumber": "998901234567"})["messages"].([]any) {
		if strings.Contains(m.(map[string]any)["text"].(string), "shartnoma") {
			sms++
		}
	}
	if sms != 1 {
		t.Fatalf("%d reminders in the outbox, want 1", sms)
	}
}

// TestCollectionsDayInChromium walks a collector's day in real Chromium: the loan, overdue on
// the sandbox partner's clock, is in the queue (its reminder in the sandbox outbox); the
// collector takes it, logs a call and records the promise the client made; the clock moves
// past the promise's date unpaid, the promise breaks and the loan is back in the queue
// flagged; the report shows the broken promise, the roll rates and the PAR chart. With
// TIYIN_SCREENSHOTS it writes docs/console's collections screenshots.
func TestCollectionsDayInChromium(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	admin := freeAddr(t)
	s := &consoleServer{server: start(t, store.SQLite, append([]string{"TIYIN_ADMIN_ADDR=" + admin}, collectionsEnv...)...), admin: "http://" + admin}
	o, today := overdueLoan(t, s.server)
	reminderOf(t, s.server, o.LoanID)
	cora := newBrowser(t, exe)
	row := `//tr[td[.="` + o.LoanID + `"]]`
	var loanPage, flagged, report string
	err := chromedp.Run(cora,
		firstLogin(s.admin, "cora", s.operator(t, "cora", "officer"), "cora-long-password-1"),
		chromedp.Navigate(s.admin+"/console/collections?bucket=1"),
		chromedp.WaitVisible(row), shot("collections-queue"),
		chromedp.Click(row+`//a[contains(@href, "/console/collections/loans/")]`),
		chromedp.WaitVisible(`//h2[.="Reminders to the borrower"]`),
		chromedp.Evaluate(`(() => { const s = document.querySelector('form[action$="/assign"] select');
			for (const o of s.options) { if (o.text === 'cora') { s.value = o.value; } } })()`, nil),
		chromedp.Submit(`//form[contains(@action, "/assign")]`),
		chromedp.WaitVisible(`//p[contains(., "collector is changed")]`),
		chromedp.SetValue(`//form[contains(@action, "/contact")]//select[@name="channel"]`, "CALL"),
		chromedp.SetValue(`//form[contains(@action, "/contact")]//select[@name="outcome"]`, "PROMISED"),
		chromedp.SendKeys(`//form[contains(@action, "/contact")]//input[@name="note"]`, "Reached on her mobile: pays tomorrow"),
		chromedp.Submit(`//form[contains(@action, "/contact")]`),
		chromedp.WaitVisible(`//p[contains(., "The contact is logged")]`),
		chromedp.SendKeys(`//form[contains(@action, "/promise")]//input[@name="amount"]`, "150000"),
		chromedp.SetValue(`//form[contains(@action, "/promise")]//input[@name="due"]`, today.AddDate(0, 0, 1).Format(time.DateOnly)),
		chromedp.Submit(`//form[contains(@action, "/promise")]`),
		chromedp.WaitVisible(`//p[contains(., "The promise to pay is recorded")]`), shot("collections-promise"),
		chromedp.Text(`main`, &loanPage),
	)
	if err != nil {
		t.Fatalf("cora: %v", err)
	}
	for _, want := range []string{"cora", "pays tomorrow", "150 000.00", "OPEN", "OVERDUE 8-30", "SENT"} {
		if !strings.Contains(loanPage, want) {
			t.Errorf("the loan's collections page lacks %q:\n%s", want, loanPage)
		}
	}
	// Two days on the partner's clock, nothing paid: the next pass breaks the promise.
	s.must(t, "/sandbox/clock/advance", map[string]any{"duration": "48h"})
	err = chromedp.Run(cora,
		chromedp.ActionFunc(func(ctx context.Context) error {
			deadline := time.Now().Add(20 * time.Second)
			for {
				if err := chromedp.Run(ctx, chromedp.Navigate(s.admin+"/console/collections?view=flagged"), chromedp.Text(`main`, &flagged)); err != nil {
					return err
				}
				if strings.Contains(flagged, "broken promise") || time.Now().After(deadline) {
					return nil
				}
				time.Sleep(500 * time.Millisecond)
			}
		}), shot("collections-broken-promise"),
		chromedp.Navigate(s.admin+"/console/collections/report"),
		chromedp.WaitVisible(`svg.chart`), shot("collections-report"),
		chromedp.Text(`main`, &report),
	)
	if err != nil {
		t.Fatalf("cora, later: %v", err)
	}
	if !strings.Contains(flagged, o.LoanID) || !strings.Contains(flagged, "broken promise") {
		t.Fatalf("the broken promise's loan is not back in the queue flagged:\n%s", flagged)
	}
	for _, want := range []string{"Promises to pay", "Roll rates", "Portfolio at risk by day"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}
