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
// Uzbek in real Chromium: the second factor's enrolment at her first login, the dashboard, a loan's page and its money actions' preview speak the
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
	switchTo := func(lang string) chromedp.Tasks {
		return chromedp.Tasks{
			chromedp.SetValue(`select[name=language]`, lang),
			chromedp.Submit(`//form[@action="/console/language"]`),
			chromedp.WaitReady(`html[lang="` + lang + `"]`),
		}
	}
	// Her first login's enrolment of a second factor, read in each language before she confirms it.
	var enrolment [3]string
	var loanHref string
	var ok bool
	if err := chromedp.Run(olga,
		choosePassword(s.admin, "olga", olgaPW, "olga-long-password-1"),
		switchTo("ru"), chromedp.Text(`main`, &enrolment[0]), shot("second-factor-ru"),
		switchTo("uz"), chromedp.Text(`main`, &enrolment[1]), shot("second-factor-uz"),
		switchTo("en"), chromedp.Text(`main`, &enrolment[2]), shot("second-factor"),
		enrol(s.admin, "olga", "recovery-codes"), toDashboard(),
		chromedp.Navigate(s.admin+"/console/loans"),
		chromedp.AttributeValue(`//table//a[contains(@href, "/console/loans/")]`, "href", &loanHref, &ok),
	); err != nil || !ok {
		t.Fatalf("olga, the enrolment and the loans: %v", err)
	}
	for i, want := range []string{"Настройте второй фактор", "Ikkinchi omilni sozlang", "Set up your second factor"} {
		if !strings.Contains(enrolment[i], want) {
			t.Errorf("the enrolment lacks %q:\n%s", want, enrolment[i])
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
		logIn(s.admin, "olga", "olga-long-password-1"),
		chromedp.WaitVisible(`section.counts`),
		chromedp.Text(`h1`, &title),
	)
	if err != nil || title != "Сводка" {
		t.Fatalf("olga's next login shows %q (%v), want her Russian", title, err)
	}
}
