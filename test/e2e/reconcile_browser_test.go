package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/test/tiyintest"
)

// TestReconciliationInChromium works breaks in the console, in real Chromium: with every
// credit lost and every debit reversed in the sandbox network's journal, an officer reconciles
// today from the page, sees the flow's transfer MISSING_AT_NETWORK and its repayment
// STATUS_DIFFERS with both sides, explains one with a note, and finds it in the audit log.
func TestReconciliationInChromium(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	admin := freeAddr(t)
	s := &consoleServer{server: start(t, store.SQLite, "TIYIN_ADMIN_ADDR="+admin, "TIYIN_LOAN_CONTRACT_DELAY=1s",
		"TIYIN_SANDBOX_FAULTS=lost-credit=1,reversed-debit=1"), admin: "http://" + admin}
	o := tiyintest.Flow(flowCaller{t, s.server}, 100*time.Millisecond)
	if o.Err != nil || o.TransactionID == "" {
		t.Fatalf("flow: %+v", o)
	}
	pw := s.operator(t, "rita", "officer")
	rita := newBrowser(t, exe)
	var page, audit string
	err := chromedp.Run(rita,
		firstLogin(s.admin, "rita", pw, "rita-long-password-1"),
		chromedp.Navigate(s.admin+"/console/reconciliation"),
		chromedp.SetValue(`//form[@action="/console/reconciliation/run"]//input[@name="day"]`, time.Now().In(domain.Tashkent).Format(time.DateOnly)),
		chromedp.Submit(`//form[@action="/console/reconciliation/run"]`),
		chromedp.WaitVisible(`//p[contains(., "The day is reconciled")]`),
		chromedp.WaitVisible(`//td/code[.="`+o.TransactionID+`:CREDIT"]`), shot("reconciliation"),
		chromedp.Text(`main`, &page),
		chromedp.SendKeys(`//tr[td/code[.="`+o.DebitID+`"]]//input[@name="note"]`, "UZCARD reversed it: the client disputed"),
		chromedp.Submit(`//tr[td/code[.="`+o.DebitID+`"]]//form`),
		chromedp.WaitVisible(`//p[contains(., "The break is explained")]`),
		chromedp.Navigate(s.admin+"/console/audit"),
		chromedp.Text(`main`, &audit),
	)
	if err != nil {
		t.Fatalf("rita: %v", err)
	}
	for _, want := range []string{"MISSING_AT_NETWORK", "STATUS_DIFFERS", "REVERSED", o.DebitID} {
		if !strings.Contains(page, want) {
			t.Errorf("the reconciliation page lacks %q:\n%s", want, page)
		}
	}
	for _, want := range []string{"reconcile.run", "break.explain", "the client disputed"} {
		if !strings.Contains(audit, want) {
			t.Errorf("the audit log lacks %q", want)
		}
	}
}
