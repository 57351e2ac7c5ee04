package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/test/tiyintest"
)

// TestConsoleInThreeLanguagesInChromium switches an operator's console to Russian and to
// Uzbek in real Chromium: the dashboard, a loan's page and its money actions' preview speak the
// language chosen, the choice is kept for the operator (a new login keeps it), and English comes
// back the same way.
func TestConsoleInThreeLanguagesInChromium(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	admin := freeAddr(t)
	s := &consoleServer{server: start(t, store.SQLite, "TIYIN_ADMIN_ADDR="+admin, "TIYIN_LOAN_CONTRACT_DELAY=1s"), admin: "http://" + admin}
	if o := tiyintest.Flow(flowCaller{t, s.server}, 100*time.Millisecond); o.Err != nil || o.LoanID == "" {
		t.Fatalf("flow: %+v", o)
	}
	olgaPW := s.operator(t, "olga", "officer")
	olga := newBrowser(t, exe)
	var loanHref string
	var ok bool
	if err := chromedp.Run(olga,
		firstLogin(s.admin, "olga", olgaPW, "olga-long-password-1"),
		chromedp.Navigate(s.admin+"/console/loans"),
		chromedp.AttributeValue(`//table//a[contains(@href, "/console/loans/")]`, "href", &loanHref, &ok),
	); err != nil || !ok {
		t.Fatalf("olga, the loans: %v", err)
	}
	switchTo := func(lang string) chromedp.Tasks {
		return chromedp.Tasks{
			chromedp.SetValue(`select[name=language]`, lang),
			chromedp.Submit(`//form[@action="/console/language"]`),
			chromedp.WaitReady(`html[lang="` + lang + `"]`),
		}
	}
	for _, c := range []struct {
		lang                          string
		dashboard, loan, preview, nav string
	}{
		{"ru", "Сводка", "График", "Предпросмотр", "Займы"},
		{"uz", "Bosh sahifa", "Jadval", "Oldindan koʻrish", "Kreditlar"},
		{"en", "Dashboard", "Schedule", "Preview", "Loans"},
	} {
		var dashboard, loan, preview string
		err := chromedp.Run(olga,
			chromedp.Navigate(s.admin+"/console/"),
			switchTo(c.lang),
			chromedp.Text(`main`, &dashboard), shot("dashboard-"+c.lang),
			chromedp.Navigate(s.admin+loanHref),
			chromedp.WaitVisible(`//form[input[@value="WAIVE_INTEREST"]]`),
			chromedp.Text(`body`, &loan), shot("loan-"+c.lang),
			chromedp.SendKeys(`//form[input[@value="WRITE_OFF"]]//input[@name="reason"]`, "court ruling 2-114"),
			chromedp.Submit(`//form[input[@value="WRITE_OFF"]]`),
			chromedp.WaitVisible(`//form[@action and contains(@action, "/propose")]`),
			chromedp.Text(`body`, &preview),
		)
		if err != nil {
			t.Fatalf("%s: %v", c.lang, err)
		}
		for page, p := range map[string]struct{ text, want string }{
			"dashboard": {dashboard, c.dashboard}, "loan": {loan, c.loan}, "nav": {loan, c.nav}, "preview": {preview, c.preview},
		} {
			if !strings.Contains(p.text, p.want) {
				t.Errorf("%s: the %s lacks %q:\n%s", c.lang, page, p.want, p.text)
			}
		}
	}
	// The choice is the operator's: a new browser logging in as olga gets Russian back.
	if err := chromedp.Run(olga, switchTo("ru")); err != nil {
		t.Fatal(err)
	}
	again := newBrowser(t, exe)
	var title string
	err := chromedp.Run(again,
		chromedp.Navigate(s.admin+"/console/login"),
		chromedp.SendKeys(`input[name=name]`, "olga"),
		chromedp.SendKeys(`input[name=password]`, "olga-long-password-1"),
		chromedp.Click(`section.login button[type=submit]`),
		chromedp.WaitVisible(`section.counts`),
		chromedp.Text(`h1`, &title),
	)
	if err != nil || title != "Сводка" {
		t.Fatalf("olga's next login shows %q (%v), want her Russian", title, err)
	}
}
