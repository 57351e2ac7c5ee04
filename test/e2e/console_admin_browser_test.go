package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tiyin/tiyin/adapters/store"
)

// clickConfirmed ticks the confirmation box of the form whose action ends with action, and
// submits it.
func clickConfirmed(action string) chromedp.Tasks {
	form := `//form[substring(@action, string-length(@action) - string-length("` + action + `") + 1) = "` + action + `"]`
	return chromedp.Tasks{
		chromedp.Click(form + `//input[@name="confirm"]`),
		chromedp.Click(form + `//button`),
	}
}

// TestConsoleAdminActionsInChromium walks, in real Chromium, the console's remaining actions
// with their approvals: reveal a client's data, record the call centre's verification call and
// resend its event;
// create a partner, set its webhook, disable and enable it; create an operator whom a second
// admin approves, lower their role, disable, enable and give them a new one-time password;
// verify the audit chain. Each is then found in the audit log.
func TestConsoleAdminActionsInChromium(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	s := startConsole(t, store.SQLite)
	id := s.registerPhone(t, "31234567812345", "998935550404")
	s.waitFor(t, id, "PENDING", nil)
	s.must(t, "/microloans/applications/verify", verifyParams(id, 2_000_000_000)) // above 10 million so'm: a call is required
	adaPW, beaPW := s.operator(t, "ada", "admin"), s.operator(t, "bea", "admin")
	ada, bea := newBrowser(t, exe), newBrowser(t, exe)
	if err := chromedp.Run(bea, firstLogin(s.admin, "bea", beaPW, "bea-long-password-22")); err != nil {
		t.Fatalf("bea: %v", err)
	}
	var audit string
	err := chromedp.Run(ada,
		firstLogin(s.admin, "ada", adaPW, "ada-long-password-1"),
		// The sandbox partner gets a webhook (nobody listens there), so the call's event is delivered, fails
		// and can be resent.
		chromedp.Navigate(s.admin+"/console/partners/sandbox"),
		chromedp.SendKeys(`//form[contains(@action, "/set_webhook")]//input[@name="url"]`, "http://127.0.0.1:9/sandbox-events"),
		clickConfirmed("/set_webhook"),
		chromedp.WaitVisible(`//p[contains(., "new signing secret, shown this once")]`),
		// The client: personal data revealed, the verification call recorded, its event resent.
		chromedp.Navigate(s.admin+"/console/applications/"+id),
		chromedp.Click(`//button[contains(., "Reveal personal data")]`),
		chromedp.WaitVisible(`//p[contains(., "Shown to you and recorded")]`),
		chromedp.Click(`input[name=outcome][value=confirmed]`),
		chromedp.SendKeys(`//form[contains(@action, "/verify")]//input[@name="note"]`, "called 10:05, the client confirmed the loan"),
		chromedp.Click(`//button[contains(., "Record the call")]`),
		chromedp.WaitVisible(`//p[contains(., "The phone verification is completed")]`),
		chromedp.Click(`//form[contains(@action, "/resend")]//button`),
		chromedp.WaitVisible(`//p[contains(., "The event will be delivered again now")]`),
		// A partner: created, its webhook set, disabled and enabled.
		chromedp.Navigate(s.admin+"/console/partners"),
		chromedp.SendKeys(`//form[@action="/console/partners"]//input[@name="name"]`, "acme"),
		chromedp.Submit(`//form[@action="/console/partners"]`),
		chromedp.WaitVisible(`//p[contains(., "The new API key, shown this once")]`),
		chromedp.SendKeys(`//form[contains(@action, "/set_webhook")]//input[@name="url"]`, "http://127.0.0.1:9/acme-events"),
		clickConfirmed("/set_webhook"),
		chromedp.WaitVisible(`//p[contains(., "new signing secret, shown this once")]`),
		clickConfirmed("/disable"),
		chromedp.WaitVisible(`//dd/span[.="DISABLED"]`),
		chromedp.Click(`//form[contains(@action, "/enable")]//button`),
		chromedp.WaitVisible(`//dd/span[.="ACTIVE"]`),
		// An operator: created by ada, approved by bea.
		chromedp.Navigate(s.admin+"/console/operators"),
		chromedp.SendKeys(`//form[@action="/console/operators"]//input[@name="name"]`, "nina"),
		chromedp.SetValue(`//form[@action="/console/operators"]//select[@name="role"]`, "officer"),
		chromedp.Submit(`//form[@action="/console/operators"]`),
		chromedp.WaitVisible(`//span[contains(., "new, awaits a second admin")]`),
	)
	if err != nil {
		t.Fatalf("ada: %v", err)
	}
	err = chromedp.Run(bea,
		chromedp.Navigate(s.admin+"/console/operators"),
		clickConfirmed("/nina/approve"),
		chromedp.WaitVisible(`//tr[td[.="nina"]]//span[.="one-time password"]`),
		chromedp.SetValue(`//form[@action="/console/operators/nina/role"]//select`, "viewer"),
		chromedp.Submit(`//form[@action="/console/operators/nina/role"]`),
		chromedp.WaitVisible(`//p[contains(., "The operator is changed")]`),
		clickConfirmed("/nina/disable"),
		chromedp.WaitVisible(`//tr[td[.="nina"]]//span[.="disabled"]`),
		chromedp.Click(`//form[@action="/console/operators/nina/enable"]//button`),
		chromedp.WaitVisible(`//tr[td[.="nina"]]//span[.="one-time password"]`),
		clickConfirmed("/nina/reset_password"),
		chromedp.WaitVisible(`//p[contains(., "shown this once")]`),
		// The audit chain verified, and every action in the log.
		chromedp.Navigate(s.admin+"/console/audit"),
		chromedp.Click(`//button[contains(., "Verify the chain now")]`),
		chromedp.WaitVisible(`//p[contains(., "Chain verified")]`), shot("audit-verified"),
		chromedp.Text(`main`, &audit),
	)
	if err != nil {
		t.Fatalf("bea: %v", err)
	}
	for _, want := range []string{"event.resend", "application.reveal", "application.complete_verification", "partner.create", "partner.set_webhook",
		"partner.disable", "partner.enable", "operator.create", "operator.grant_approve", "operator.role", "operator.disable",
		"operator.enable", "operator.reset_password"} {
		if !strings.Contains(audit, want) {
			t.Errorf("the audit log lacks %s", want)
		}
	}
	if got := s.info(t, id); got.Stage != "CLIENT_VERIFICATION/COMPLETED" {
		t.Fatalf("after the recorded call the partner sees %s", got.Stage)
	}
}
