package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/test/tiyintest"
)

// proposeAction fills the loan page's form of one money action, previews it and proposes it.
func proposeAction(base, loanHref, kind string, fields map[string]string, screenshot string) chromedp.Tasks {
	form := `//form[input[@name="kind" and @value="` + kind + `"]]`
	tasks := chromedp.Tasks{chromedp.Navigate(base + loanHref), chromedp.WaitVisible(form)}
	for name, value := range fields {
		sel := form + `//*[@name="` + name + `"]`
		if name == "type" || name == "channel" || kind == "PAYMENT_HOLIDAY" && name == "months" {
			tasks = append(tasks, chromedp.SetValue(sel, value))
			continue
		}
		tasks = append(tasks, chromedp.SendKeys(sel, value))
	}
	return append(tasks,
		chromedp.Submit(form),
		chromedp.WaitVisible(`//h2[.="After"]`), shot(screenshot),
		chromedp.Click(`//button[contains(., "Propose for approval")]`),
		chromedp.WaitVisible(`//p[contains(., "Another officer approves")]`),
	)
}

// approveAction opens the loan's open proposal from its page, reviews it and approves it.
func approveAction(base, loanHref, screenshot string) chromedp.Tasks {
	return chromedp.Tasks{
		chromedp.Navigate(base + loanHref),
		chromedp.Click(`//a[.="review"]`),
		chromedp.WaitVisible(`//h1[contains(., "Proposal")]`), shot(screenshot),
		chromedp.Click(`//button[contains(., "Approve and apply")]`),
		chromedp.WaitVisible(`//p[contains(., "approved and applied")]`),
	}
}

// TestConsoleMoneyActionsInChromium walks the money actions as two officers do, in real
// Chromium, on a loan left unpaid for two months: a penalty waiver, an interest waiver, a cash
// desk repayment, a payment holiday, a longer term and a write-off, each previewed and proposed
// by alice and approved by bob;
// then the partner sees each through its own calls and events, pays a recovery, and the ledger
// stays consistent.
func TestConsoleMoneyActionsInChromium(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	admin := freeAddr(t)
	s := &consoleServer{server: start(t, store.SQLite, "TIYIN_ADMIN_ADDR="+admin, "TIYIN_LOAN_CONTRACT_DELAY=1s"), admin: "http://" + admin}
	o := tiyintest.Flow(flowCaller{t, s.server}, 100*time.Millisecond)
	if o.Err != nil || o.LoanID == "" {
		t.Fatalf("flow: %+v", o)
	}
	s.must(t, "/sandbox/clock/advance", map[string]any{"duration": "1500h"}) // two months unpaid
	alicePW, bobPW := s.operator(t, "alice", "officer"), s.operator(t, "bob", "officer")
	alice, bob := newBrowser(t, exe), newBrowser(t, exe)
	var loanHref string
	var ok bool
	err := chromedp.Run(alice,
		firstLogin(s.admin, "alice", alicePW, "alice-long-password-1"),
		chromedp.Navigate(s.admin+"/console/loans?status=OPEN"),
		chromedp.AttributeValue(`//table//a[contains(@href, "/console/loans/")]`, "href", &loanHref, &ok),
	)
	if err != nil || !ok {
		t.Fatalf("alice, the loans: %v", err)
	}
	if err := chromedp.Run(bob, firstLogin(s.admin, "bob", bobPW, "bob-long-password-22")); err != nil {
		t.Fatalf("bob: %v", err)
	}
	before := s.must(t, "/microloans/info", map[string]any{"applicationId": o.App})
	steps := []struct {
		kind   string
		fields map[string]string
	}{
		{"WAIVE_PENALTY", map[string]string{"reason": "hospitalised in March, letter 12/7"}},
		{"WAIVE_INTEREST", map[string]string{"amount": "100", "reason": "goodwill after complaint 88"}},
		{"MANUAL_REPAYMENT", map[string]string{"amount": "25 000", "type": "TERM", "channel": "CASH_DESK", "ref": "KASSA-0001",
			"reason": "paid at the Chilonzor branch"}},
		{"PAYMENT_HOLIDAY", map[string]string{"months": "2", "reason": "flood, hokimiyat certificate 3"}},
		{"EXTEND_TERM", map[string]string{"months": "6", "reason": "income fell, employer's letter 5"}},
		{"WRITE_OFF", map[string]string{"reason": "uncollectable: court ruling 2-114"}},
	}
	for _, st := range steps {
		name := "action-" + strings.ToLower(strings.ReplaceAll(st.kind, "_", "-"))
		if err := chromedp.Run(alice, proposeAction(s.admin, loanHref, st.kind, st.fields, name+"-preview")); err != nil {
			t.Fatalf("alice proposes %s: %v", st.kind, err)
		}
		if err := chromedp.Run(bob, approveAction(s.admin, loanHref, name+"-review")); err != nil {
			t.Fatalf("bob approves %s: %v", st.kind, err)
		}
	}
	var page string
	err = chromedp.Run(bob,
		chromedp.Navigate(s.admin+loanHref),
		chromedp.WaitVisible(`//dd/span[.="WRITTEN_OFF"]`), shot("loan-written-off"),
		chromedp.Text(`main`, &page),
		chromedp.Navigate(s.admin+"/console/ledger?check=1"),
		chromedp.WaitVisible(`//p[contains(., "The ledger is consistent")]`),
		chromedp.Navigate(s.admin+"/console/loans?status=WRITTEN_OFF"),
		chromedp.WaitVisible(`//table//a[@href="`+loanHref+`"]`),
		chromedp.Navigate(s.admin+"/console/loans?status=OPEN&overdue=1"),
		chromedp.WaitVisible(`//p[.="Nothing matches."]`), // written off: out of the active portfolio
	)
	if err != nil {
		t.Fatalf("bob, the loan after: %v", err)
	}
	for _, want := range []string{"KASSA-0001", "CASH_DESK", "Waived", "WRITE_OFF"} {
		if !strings.Contains(page, want) {
			t.Errorf("the loan's page lacks %q:\n%s", want, page)
		}
	}

	// The partner sees it all through its own calls.
	info := s.must(t, "/microloans/info", map[string]any{"applicationId": o.App})
	if info["status"] != "WRITTEN_OFF" || info["totalResidue"].(float64) >= before["totalResidue"].(float64) ||
		info["monthPeriod"].(float64) != before["monthPeriod"].(float64)+8 {
		t.Fatalf("the partner's loan before %v, after %v", before, info)
	}
	pays := s.must(t, "/microloans/payments", map[string]any{"loanId": o.LoanID})["payments"].([]any)
	if last := pays[len(pays)-1].(map[string]any); last["channel"] != "CASH_DESK" || last["totalRepaymentAmount"].(float64) != 2_500_000 {
		t.Fatalf("the partner's payments: %v", pays)
	}
	// Events are numbered by the outbox a moment after they are recorded: wait for the last.
	var events map[string]int
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if events = loanEvents(t, s.server); events["LOAN_CHANGED WRITE_OFF"] > 0 {
			break
		}
	}
	for _, want := range []string{"LOAN_CHANGED WAIVE_PENALTY", "LOAN_CHANGED WAIVE_INTEREST", "LOAN_CHANGED WRITE_OFF",
		"LOAN_CHANGED PAYMENT_HOLIDAY", "LOAN_CHANGED EXTEND_TERM", "REPAYMENT_STATUS_CHANGED CASH_DESK"} {
		if events[want] != 1 {
			t.Errorf("events %v: want one %s", events, want)
		}
	}

	// A card payment after the write-off is a recovery, and the debt stood still meanwhile.
	s.must(t, "/sandbox/clock/advance", map[string]any{"duration": "720h"})
	chk := s.must(t, "/repayment/loans/check", map[string]any{"loanId": o.LoanID})
	if chk["totalResidue"] != info["totalResidue"] {
		t.Fatalf("a month after the write-off the debt is %v, at the write-off %v", chk["totalResidue"], info["totalResidue"])
	}
	s.must(t, "/repayment/loans/pay", map[string]any{"loanId": o.LoanID, "paymentType": "EARLY", "requestId": chk["requestId"],
		"debitId": "DBT-RECOVERY-1", "amount": 1_000_000, "processingType": "UZCARD"})
	pays = s.must(t, "/microloans/payments", map[string]any{"loanId": o.LoanID})["payments"].([]any)
	if last := pays[len(pays)-1].(map[string]any); last["recovery"] != true || last["channel"] != "CARD" {
		t.Fatalf("the payment after the write-off: %v", last)
	}
	if err := chromedp.Run(bob, chromedp.Navigate(s.admin+"/console/ledger?check=1"),
		chromedp.WaitVisible(`//p[contains(., "The ledger is consistent")]`)); err != nil {
		t.Fatalf("the ledger after the recovery: %v", err)
	}
}

// loanEvents counts the partner's events of the last 30 days by type, with a loan change's
// action or a repayment's channel.
func loanEvents(t *testing.T, s *server) map[string]int {
	t.Helper()
	events := map[string]int{}
	for _, e := range s.must(t, "/events/list", map[string]any{"afterSequence": 0, "limit": 100})["events"].([]any) {
		ev := e.(map[string]any)
		data := ev["data"].(map[string]any)
		key := ev["type"].(string)
		if a, ok := data["action"].(string); ok {
			key += " " + a
		}
		if c, ok := data["channel"].(string); ok {
			key += " " + c
		}
		events[key]++
	}
	return events
}
