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
// today from the page, sees the flow's transfer MISSING_AT_NETWORK, its repayment
// STATUS_DIFFERS and the loan's demand account BALANCE_DIFFERS with both sides, proposes
// explaining the debit's with a note (its money differs: it waits for a second officer) and
// accepting the network's side of the credit's; a second officer approves both, the partner's
// transfer is FAILED, and both are in the audit log. The second officer then proposes
// reopening the explained debit's break, the first approves it, and the break is open again
// with its actions.
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
	// The day is closed on the sandbox partner's clock: only a closed day is reconciled.
	s.must(t, "/sandbox/clock/advance", map[string]any{"duration": "24h"})
	pw := s.operator(t, "rita", "officer")
	rita := newBrowser(t, exe)
	var page, audit string
	err := chromedp.Run(rita,
		firstLogin(s.admin, "rita", pw, "rita-long-password-1"),
		chromedp.Navigate(s.admin+"/console/reconciliation"),
		chromedp.SetValue(`//form[@action="/console/reconciliation/run"]//input[@name="day"]`, time.Now().In(domain.Tashkent).Format(time.DateOnly)),
		chromedp.Submit(`//form[@action="/console/reconciliation/run"]`),
		chromedp.WaitVisible(`//p[contains(., "The day is reconciled")]`),
		chromedp.WaitVisible(`//td//code[.="`+o.TransactionID+`:CREDIT"]`), shot("reconciliation"),
		chromedp.Text(`main`, &page),
		chromedp.SendKeys(`//tr[td//code[.="`+o.DebitID+`"]]//form[contains(@action, "/explain")]//input[@name="note"]`, "UZCARD reversed it: the client disputed"),
		chromedp.Submit(`//tr[td//code[.="`+o.DebitID+`"]]//form[contains(@action, "/explain")]`),
		chromedp.WaitVisible(`//p[contains(., "The explanation is proposed")]`),
		chromedp.WaitVisible(`//tr[td//code[.="`+o.DebitID+`"]]//span[contains(., "Waiting for a second officer.")]`),
		chromedp.SendKeys(`//tr[td//code[.="`+o.TransactionID+`:CREDIT"]]//form[contains(@action, "/accept")]//input[@name="note"]`,
			"UZCARD's file has no such credit"),
		chromedp.Submit(`//tr[td//code[.="`+o.TransactionID+`:CREDIT"]]//form[contains(@action, "/accept")]`),
		chromedp.WaitVisible(`//p[contains(., "The acceptance is proposed")]`), shot("reconciliation-accept-proposed"),
	)
	if err != nil {
		t.Fatalf("rita: %v", err)
	}
	sam := newBrowser(t, exe)
	err = chromedp.Run(sam,
		firstLogin(s.admin, "sam", s.operator(t, "sam", "officer"), "sam-long-password-12"),
		chromedp.Navigate(s.admin+"/console/reconciliation"),
		chromedp.Submit(`//tr[td//code[.="`+o.TransactionID+`:CREDIT"]]//form[contains(@action, "/approve")]`),
		chromedp.WaitVisible(`//p[contains(., "approved and applied")]`),
		chromedp.Navigate(s.admin+"/console/reconciliation"),
		chromedp.Submit(`//tr[td//code[.="`+o.DebitID+`"]]//form[contains(@action, "/approve")]`),
		chromedp.WaitVisible(`//p[contains(., "approved and applied")]`),
		// The debit's explanation proves wrong: sam proposes reopening it (issue 47, 5).
		chromedp.Navigate(s.admin+"/console/reconciliation?status=EXPLAINED"),
		chromedp.SendKeys(`//tr[td//code[.="`+o.DebitID+`"]]//form[contains(@action, "/reopen")]//input[@name="note"]`, "the dispute was withdrawn"),
		chromedp.Submit(`//tr[td//code[.="`+o.DebitID+`"]]//form[contains(@action, "/reopen")]`),
		chromedp.WaitVisible(`//p[contains(., "Reopening is proposed")]`),
	)
	if err != nil {
		t.Fatalf("sam: %v", err)
	}
	err = chromedp.Run(rita,
		chromedp.Navigate(s.admin+"/console/reconciliation?status=EXPLAINED"),
		chromedp.Submit(`//tr[td//code[.="`+o.DebitID+`"]]//form[contains(@action, "/approve")]`),
		chromedp.WaitVisible(`//p[contains(., "approved and applied")]`),
		chromedp.Navigate(s.admin+"/console/reconciliation?status=OPEN&source=UZCARD"),
		chromedp.WaitVisible(`//tr[td//code[.="`+o.DebitID+`"]]//form[contains(@action, "/accept")]`),
		chromedp.Navigate(s.admin+"/console/audit"),
		chromedp.Text(`main`, &audit),
	)
	if err != nil {
		t.Fatalf("rita approving the reopening: %v", err)
	}
	if r := s.must(t, "/transfers/check-status", map[string]any{"externalId": o.TransferExternalID, "transactionId": o.TransactionID}); r["status"] != "FAILED" {
		t.Errorf("the lost credit's transfer is %v for its partner, want FAILED", r["status"])
	}
	for _, want := range []string{"MISSING_AT_NETWORK", "STATUS_DIFFERS", "BALANCE_DIFFERS", "REVERSED", o.DebitID} {
		if !strings.Contains(page, want) {
			t.Errorf("the reconciliation page lacks %q:\n%s", want, page)
		}
	}
	for _, want := range []string{"reconcile.run", "break.explain", "the client disputed", "proposal.create", "proposal.approve", "TRANSFER_REVERSAL",
		"break.reopen", "the dispute was withdrawn"} {
		if !strings.Contains(audit, want) {
			t.Errorf("the audit log lacks %q", want)
		}
	}
}
