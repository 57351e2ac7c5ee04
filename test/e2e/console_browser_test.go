package e2e

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/test/tiyintest"
)

// newBrowser starts a headless Chromium of its own (one operator's browser).
func newBrowser(t *testing.T, exe string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true), chromedp.WindowSize(1280, 900),
		chromedp.UserDataDir(t.TempDir()))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	return ctx
}

// shot saves a screenshot of the page to $TIYIN_SCREENSHOTS/name.png when that is set (how
// docs/console/ is made: TIYIN_SCREENSHOTS=$PWD/docs/console go test ./test/e2e -run Chromium);
// an empty name saves none.
func shot(name string) chromedp.Action {
	dir := os.Getenv("TIYIN_SCREENSHOTS")
	return chromedp.ActionFunc(func(ctx context.Context) error {
		if dir == "" || name == "" {
			return nil
		}
		var png []byte
		if err := chromedp.FullScreenshot(&png, 100).Do(ctx); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, name+".png"), png, 0o600)
	})
}

// phones are the operators' authenticator apps in the browser tests, by console and name: an
// operator's first login enrols one, their later logins read its codes.
var phones sync.Map

// firstLogin logs an operator in with the one-time password, chooses their own and enrols a
// second factor, and goes on to the dashboard.
func firstLogin(base, name, oneTime, password string) chromedp.Tasks {
	return chromedp.Tasks{choosePassword(base, name, oneTime, password), enrol(base, name, ""), toDashboard()}
}

// choosePassword logs an operator in with the one-time password and chooses their own: the
// console then asks for the second factor's enrolment.
func choosePassword(base, name, oneTime, password string) chromedp.Tasks {
	return chromedp.Tasks{
		chromedp.Navigate(base + "/console/"),
		chromedp.WaitVisible(`input[name=name]`),
		chromedp.SendKeys(`input[name=name]`, name),
		chromedp.SendKeys(`input[name=password]`, oneTime),
		chromedp.Click(`section.login button[type=submit]`),
		chromedp.WaitVisible(`input[name=old]`),
		chromedp.SendKeys(`input[name=old]`, oneTime),
		chromedp.SendKeys(`input[name=new]`, password),
		chromedp.SendKeys(`input[name=again]`, password),
		chromedp.Click(`section.login button[type=submit]`),
		chromedp.WaitVisible(`code.secret`),
	}
}

// enrol reads the secret on the enrolment page into the operator's authenticator app (phones),
// types the code it makes, and waits for the recovery codes; screenshot names their page.
func enrol(base, name, screenshot string) chromedp.Tasks {
	var secret string
	return chromedp.Tasks{
		chromedp.Text(`code.secret`, &secret),
		chromedp.ActionFunc(func(ctx context.Context) error {
			app := tiyintest.NewAuthenticator(secret)
			phones.Store(base+" "+name, app)
			return chromedp.SendKeys(`form[action="/console/second-factor"] input[name=code]`, app.Code()).Do(ctx)
		}),
		chromedp.Click(`form[action="/console/second-factor"] button[type=submit]`),
		chromedp.WaitVisible(`ol.codes`), shot(screenshot),
	}
}

// toDashboard leaves the recovery codes' page for the dashboard.
func toDashboard() chromedp.Tasks {
	return chromedp.Tasks{chromedp.Click(`//section[@class="login"]//a[@href="/console/"]`), chromedp.WaitVisible(`section.counts`)}
}

// logIn logs an operator in with their password and the next code of their app.
func logIn(base, name, password string) chromedp.Tasks {
	return chromedp.Tasks{
		chromedp.Navigate(base + "/console/login"),
		chromedp.WaitVisible(`input[name=name]`),
		chromedp.SendKeys(`input[name=name]`, name),
		chromedp.SendKeys(`input[name=password]`, password),
		chromedp.ActionFunc(func(ctx context.Context) error {
			app, ok := phones.Load(base + " " + name)
			if !ok {
				return fmt.Errorf("%s never enrolled a second factor on %s", name, base)
			}
			return chromedp.SendKeys(`input[name=code]`, app.(*tiyintest.Authenticator).Code()).Do(ctx)
		}),
		chromedp.Click(`section.login button[type=submit]`),
	}
}

// TestConsoleInChromium walks the console as two officers do, in real Chromium: log in, find
// an application by the client's phone, retry its stuck stage, propose a resolution of its
// unknown outcome, approve it as the second officer, and see both in the audit log.
func TestConsoleInChromium(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	s := startConsole(t, store.SQLite)
	const phone = "998935550202"
	id := s.unknownIssuance(t, phone)
	alicePW, bobPW := s.operator(t, "alice", "officer"), s.operator(t, "bob", "officer")

	alice := newBrowser(t, exe)
	var body string
	err := chromedp.Run(alice,
		chromedp.Navigate(s.admin+"/console/login"), shot("login"),
		firstLogin(s.admin, "alice", alicePW, "alice-long-password-1"), shot("dashboard"),
		chromedp.SendKeys(`form.search input[name=q]`, phone),
		chromedp.Click(`form.search button`),
		chromedp.WaitVisible(`//h1[contains(., "Application")]`),
		chromedp.WaitVisible(`//dt[contains(., "Outcome unknown since")]`),
		shot("application"),
		chromedp.Click(`//button[contains(., "Retry the stage now")]`),
		chromedp.WaitVisible(`//p[contains(., "will run again now")]`),
		chromedp.Click(`input[name=outcome][value=not_done]`),
		chromedp.SendKeys(`input[name=note]`, "core banking (Dilshod, ext. 214): no loan was opened"),
		chromedp.Click(`//form[contains(@class, "propose")]//button`),
		chromedp.WaitVisible(`//p[contains(., "Another officer approves")]`),
		chromedp.Text(`main`, &body),
	)
	if err != nil {
		t.Fatalf("alice: %v", err)
	}
	if !strings.Contains(body, "OPEN") || !strings.Contains(body, "no loan was opened") {
		t.Fatalf("alice's page after proposing:\n%s", body)
	}

	bob := newBrowser(t, exe)
	var width int
	err = chromedp.Run(bob,
		firstLogin(s.admin, "bob", bobPW, "bob-long-password-22"),
		chromedp.Navigate(s.admin+"/console/applications/"+id),
		chromedp.Click(`//button[contains(., "Approve")]`),
		chromedp.WaitVisible(`//p[contains(., "approved and applied")]`),
		chromedp.WaitVisible(`//dd/span[contains(., "FAILED")]`),
		chromedp.Navigate(s.admin+"/console/ledger?check=1"),
		chromedp.WaitVisible(`//p[contains(., "The ledger is consistent")]`), shot("ledger"),
		chromedp.Navigate(s.admin+"/console/partners/sandbox"), shot("partner"),
		chromedp.EmulateViewport(800, 900),
		chromedp.Navigate(s.admin+"/console/applications/"+id),
		chromedp.Evaluate(`document.documentElement.scrollWidth`, &width), shot("application-800"),
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(s.admin+"/console/audit?"+url.Values{"object": {"application:" + id}}.Encode()),
		chromedp.WaitVisible(`//td[contains(., "proposal.approve")]`), shot("audit"),
		chromedp.Text(`main`, &body),
	)
	if err != nil {
		t.Fatalf("bob: %v", err)
	}
	if width > 800 {
		t.Errorf("at 800 px the application's page is %d px wide: it must fit without scrolling sideways", width)
	}
	for _, want := range []string{"alice", "proposal.create", "bob", "proposal.approve", "application.retry_stage"} {
		if !strings.Contains(body, want) {
			t.Errorf("the audit log page lacks %q:\n%s", want, body)
		}
	}
	if got := s.info(t, id); got.Status != "FAILED" {
		t.Fatalf("the partner sees %+v after the approval", got)
	}
}

// TestConsoleListsAndAdminInChromium walks, in real Chromium, what an operations team does
// with a day's loans and its own accounts: the loans list filtered and sorted, a loan's
// schedule item by item, the transfers list, an operator created (who waits for a second
// admin), and a partner's key rotated with an overlap.
func TestConsoleListsAndAdminInChromium(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	admin := freeAddr(t)
	s := &consoleServer{server: start(t, store.SQLite, "TIYIN_ADMIN_ADDR="+admin, "TIYIN_LOAN_CONTRACT_DELAY=1s"), admin: "http://" + admin}
	if o := tiyintest.Flow(flowCaller{t, s.server}, 100*time.Millisecond); o.Err != nil || o.LoanID == "" {
		t.Fatalf("flow: %+v", o)
	}
	adaPW := s.operator(t, "ada", "admin")
	ada := newBrowser(t, exe)
	var loans, loan, transfers, operators, partner string
	var loanHref string
	var ok bool
	// Pages are reached by their address (a filter form's submit, a click on a link) and each
	// action waits for what its answer shows, so no query runs on a page being replaced.
	err := chromedp.Run(ada,
		firstLogin(s.admin, "ada", adaPW, "ada-long-password-1"),
		chromedp.Navigate(s.admin+"/console/loans"),
		chromedp.WaitVisible(`form.filter select[name=status]`),
		chromedp.SetValue(`form.filter select[name=status]`, "OPEN"),
		chromedp.SetValue(`form.filter select[name=sort]`, "amount"),
		chromedp.Submit(`form.filter`),
		chromedp.WaitVisible(`//table//a[contains(@href, "/console/loans/")]`), shot("loans"),
		chromedp.Text(`main`, &loans),
		chromedp.AttributeValue(`//table//a[contains(@href, "/console/loans/")]`, "href", &loanHref, &ok),
	)
	if err != nil || !ok {
		t.Fatalf("ada, the loans: %v", err)
	}
	err = chromedp.Run(ada,
		chromedp.Navigate(s.admin+loanHref),
		chromedp.WaitVisible(`//h2[contains(., "Schedule")]`), shot("loan"),
		chromedp.Text(`main`, &loan),
		chromedp.Navigate(s.admin+"/console/transfers"),
		chromedp.WaitVisible(`//a[.="Export CSV"]`), shot("transfers"),
		chromedp.Text(`main`, &transfers),
		chromedp.Navigate(s.admin+"/console/reports"),
		chromedp.WaitReady(`svg.chart`), shot("reports"),
		chromedp.Navigate(s.admin+"/console/operators"),
		chromedp.WaitVisible(`//form[@action="/console/operators"]//input[@name="name"]`),
		chromedp.SendKeys(`//form[@action="/console/operators"]//input[@name="name"]`, "nina"),
		chromedp.SetValue(`//form[@action="/console/operators"]//select[@name="role"]`, "officer"),
		chromedp.Submit(`//form[@action="/console/operators"]`),
		chromedp.WaitVisible(`//p[contains(., "shown this once")]`), shot("operators"),
		chromedp.Text(`main`, &operators),
		chromedp.Navigate(s.admin+"/console/partners/sandbox"),
		chromedp.WaitVisible(`//form[contains(@action, "rotate_key")]`),
		chromedp.Click(`//form[contains(@action, "rotate_key")]//input[@name="confirm"]`),
		chromedp.Click(`//form[contains(@action, "rotate_key")]//button`),
		chromedp.WaitVisible(`//p[contains(., "The old key keeps working until")]`), shot("partner-rotated"),
		chromedp.Text(`main`, &partner),
	)
	if err != nil {
		t.Fatalf("ada: %v", err)
	}
	for name, c := range map[string]struct{ page, want string }{
		"loans":     {loans, "OPEN"},
		"loan":      {loan, "to pay"},
		"transfers": {transfers, "SUCCESS"},
		"operators": {operators, "logs in once a second admin approves"},
		"partner":   {partner, "shown this once"},
	} {
		if !strings.Contains(c.page, c.want) {
			t.Errorf("the %s page lacks %q:\n%s", name, c.want, c.page)
		}
	}
	// Every list with every filter it has, as its form sends them: each answers its table (or
	// says nothing matches) with the filter kept in its form, and links its CSV.
	today := time.Now().Format(time.DateOnly)
	for _, q := range []string{
		"applications?status=COMPLETED&partner=sandbox&from=2020-01-01&to=" + today + "&min=1&max=100000000&order=asc",
		"loans?status=OPEN&partner=sandbox&from=2020-01-01&to=" + today + "&min=1000&max=5000000&sort=amount&order=desc",
		"loans?status=OPEN&overdue=1", "loans?status=OPEN&due=30",
		"transfers?status=SUCCESS&min=1&sort=amount&order=asc",
		"repayments?status=PAID&from=2020-01-01",
		"card-orders?status=COMPLETED&partner=sandbox",
		"cards?status=ACTIVE&to=" + today,
	} {
		var form string
		err := chromedp.Run(ada,
			chromedp.Navigate(s.admin+"/console/"+q),
			chromedp.WaitVisible(`//a[.="Export CSV"]`),
			chromedp.WaitVisible(`//table//a[contains(@href, "/console/")] | //p[.="Nothing matches."]`),
			chromedp.Value(`form.filter select[name=status]`, &form),
		)
		if err != nil {
			t.Fatalf("the list %s: %v", q, err)
		}
		if want := strings.SplitN(strings.SplitN(q, "status=", 2)[1], "&", 2)[0]; form != want {
			t.Errorf("the list %s keeps status %q in its form, want %q", q, form, want)
		}
	}
	// The sandbox partner's old key keeps working through the overlap.
	if a := s.call(t, "/microloans/applications/info", map[string]any{"applicationId": "00000000-0000-0000-0000-000000000000"}); a.code() != 1001 {
		t.Fatalf("the old key during its overlap: %s", a.Raw)
	}
}
