package console_test

import (
	"bytes"
	"context"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/tiyin/tiyin/adapters/console"
	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
	appconsole "github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/test/tiyintest"
)

// visitor is one browser on the console, from one address: it keeps the cookies the console
// sets, as a browser does.
type visitor struct {
	t       *testing.T
	h       http.Handler
	address string
	cookies map[string]string
}

func newVisitor(t *testing.T, h http.Handler, address string) *visitor {
	return &visitor{t: t, h: h, address: address, cookies: map[string]string{}}
}

// as is a browser holding a session a test made.
func (v *visitor) as(s operatorSession) *visitor {
	v.cookies[s.cookie.Name] = s.cookie.Value
	return v
}

func (v *visitor) do(method, path string, form url.Values) *httptest.ResponseRecorder {
	v.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.RemoteAddr = v.address + ":40000"
	for name, value := range v.cookies {
		req.AddCookie(&http.Cookie{Name: name, Value: value})
	}
	rec := httptest.NewRecorder()
	v.h.ServeHTTP(rec, req)
	for _, c := range rec.Result().Cookies() {
		if c.MaxAge < 0 {
			delete(v.cookies, c.Name)
		} else {
			v.cookies[c.Name] = c.Value
		}
	}
	if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
		v.t.Fatalf("%s %s: CSP %q", method, path, csp)
	}
	return rec
}

// post sends a form with the CSRF token of the page from.
func (v *visitor) post(from, path string, form url.Values) *httptest.ResponseRecorder {
	v.t.Helper()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(v.do(http.MethodGet, from, nil).Body.String())
	if m == nil {
		v.t.Fatalf("%s has no form", from)
	}
	form.Set("csrf", m[1])
	return v.do(http.MethodPost, path, form)
}

// logIn fills the login form.
func (v *visitor) logIn(name, password, code string) *httptest.ResponseRecorder {
	v.t.Helper()
	return v.post("/console/login", "/console/login", url.Values{"name": {name}, "password": {password}, "code": {code}})
}

// expect fails the test unless the answer has the status and shows every one of wants.
func expect(t *testing.T, what string, rec *httptest.ResponseRecorder, status int, wants ...string) string {
	t.Helper()
	body := rec.Body.String()
	if rec.Code != status {
		t.Fatalf("%s: %d, want %d\n%s", what, rec.Code, status, body)
	}
	for _, w := range wants {
		if !strings.Contains(body, w) && !strings.Contains(rec.Header().Get("Location"), w) {
			t.Fatalf("%s does not show %q:\n%s", what, w, body)
		}
	}
	return body
}

var oneTime = regexp.MustCompile(`shown this once: <code class="key">([A-Z0-9]{20})</code>`)

// TestTheReviewersWriteOffIsRefused is issue 46's finding 1 as the reviewer ran it, in the
// console: adm1 proposes a write-off and may not approve it; adm1 resets off2's password and
// reads the one-time password, which without off2's code logs no one in; off2 himself, logged
// in with it and his own code, is refused approving adm1's write-off, told why in each of the
// console's languages; the refusal is in the audit log; the loan is not written off.
func TestTheReviewersWriteOffIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	_, loan := e.issuedLoan(t)
	h := console.New(e.uc, zap.NewNop(), console.Config{Sandbox: true})
	adm1, off2 := e.enrolled(t, "adm1", domain.RoleAdmin), e.enrolled(t, "off2", domain.RoleOfficer)
	adm1Browser := newVisitor(t, h, "10.1.0.1").as(adm1.session)
	loanPage := "/console/loans/" + loan.ID().String()

	expect(t, "adm1 proposes a write-off", adm1Browser.post(loanPage, loanPage+"/propose",
		url.Values{"kind": {"WRITE_OFF"}, "reason": {"no payment for four months"}}), http.StatusSeeOther, "done=propose")
	proposal := regexp.MustCompile(`/console/proposals/([0-9a-f-]{36})`).FindStringSubmatch(adm1Browser.do(http.MethodGet, loanPage, nil).Body.String())
	if proposal == nil {
		t.Fatal("no proposal on the loan's page")
	}
	approve := "/console/proposals/" + proposal[1] + "/approve"
	expect(t, "adm1 approves his own write-off", adm1Browser.post(loanPage, approve, url.Values{}), http.StatusConflict, "another officer")

	reset := expect(t, "adm1 resets off2's password", adm1Browser.post("/console/operators", "/console/operators/off2/reset_password",
		url.Values{"confirm": {"on"}}), http.StatusOK, "Their second factor stays")
	pw := oneTime.FindStringSubmatch(reset)
	if pw == nil {
		t.Fatalf("the one-time password is not shown:\n%s", reset)
	}
	adm1AsOff2 := newVisitor(t, h, "10.1.0.1")
	for _, typed := range []string{"", "123456", adm1.app.Code()} {
		expect(t, "off2's reset password with code "+typed, adm1AsOff2.logIn("off2", pw[1], typed), http.StatusUnauthorized, "password or code")
	}

	off2Browser := newVisitor(t, h, "10.1.0.2")
	expect(t, "off2 with the reset password and his code", off2Browser.logIn("off2", pw[1], off2.app.Code()), http.StatusSeeOther, "/console/password")
	expect(t, "off2 chooses a password", off2Browser.post("/console/password", "/console/password",
		url.Values{"old": {pw[1]}, "new": {"off2-chose-again-1"}, "again": {"off2-chose-again-1"}}), http.StatusSeeOther, "done=password")
	for _, l := range []struct{ lang, why string }{ // English last: the audit page is read in it
		{"ru", "выдал или сбросил ваш пароль или второй фактор менее 24 часов назад"},
		{"uz", "24 soatdan kamroq vaqt oldin parolingiz yoki ikkinchi omilingizni bergan"},
		{"en", "set or reset your password or second factor less than 24 hours ago"},
	} {
		lang, why := l.lang, l.why
		expect(t, "off2 switches to "+lang, off2Browser.post("/console/", "/console/language", url.Values{"language": {lang}, "back": {"/console/"}}),
			http.StatusSeeOther)
		expect(t, "off2 approves adm1's write-off in "+lang, off2Browser.post(loanPage, approve, url.Values{}), http.StatusConflict, why)
	}
	if got, _ := e.loans.Get(context.Background(), loan.ID()); got.WrittenOff() {
		t.Fatal("the loan was written off")
	}
	expect(t, "the audit log", off2Browser.do(http.MethodGet, "/console/audit?action=proposal.refused", nil), http.StatusOK,
		"off2", "WRITE_OFF", "password was set or reset by adm1")
}

// TestTheReviewersGhostAdminIsRefused is finding 1's grant sequence in the console: adm1
// creates the admin ghost and resets adm2's password; the password alone does not log in as
// adm2; adm2, logged in with it and his own code, is refused approving ghost; ghost never logs
// in; the refusal is in the audit log.
func TestTheReviewersGhostAdminIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	h := console.New(e.uc, zap.NewNop(), console.Config{Sandbox: true})
	adm1, adm2 := e.enrolled(t, "adm1", domain.RoleAdmin), e.enrolled(t, "adm2", domain.RoleAdmin)
	adm1Browser := newVisitor(t, h, "10.1.0.1").as(adm1.session)
	made := expect(t, "adm1 creates ghost", adm1Browser.post("/console/operators", "/console/operators",
		url.Values{"name": {"ghost"}, "role": {"admin"}}), http.StatusOK, "logs in once a second admin approves")
	ghostPW := oneTime.FindStringSubmatch(made)
	reset := adm1Browser.post("/console/operators", "/console/operators/adm2/reset_password", url.Values{"confirm": {"on"}})
	pw := oneTime.FindStringSubmatch(reset.Body.String())
	if ghostPW == nil || pw == nil {
		t.Fatalf("the one-time passwords are not shown:\n%s\n%s", made, reset.Body)
	}
	expect(t, "adm2's reset password alone", newVisitor(t, h, "10.1.0.1").logIn("adm2", pw[1], ""), http.StatusUnauthorized)

	adm2Browser := newVisitor(t, h, "10.1.0.2")
	expect(t, "adm2 with the reset password and his code", adm2Browser.logIn("adm2", pw[1], adm2.app.Code()), http.StatusSeeOther, "/console/password")
	expect(t, "adm2 chooses a password", adm2Browser.post("/console/password", "/console/password",
		url.Values{"old": {pw[1]}, "new": {"adm2-chose-again-1"}, "again": {"adm2-chose-again-1"}}), http.StatusSeeOther)
	expect(t, "adm2 approves ghost", adm2Browser.post("/console/operators", "/console/operators/ghost/approve", url.Values{"confirm": {"on"}}),
		http.StatusConflict, "less than 24 hours ago")
	expect(t, "ghost logs in", newVisitor(t, h, "10.1.0.1").logIn("ghost", ghostPW[1], ""), http.StatusUnauthorized)
	expect(t, "the audit log", adm2Browser.do(http.MethodGet, "/console/audit?action=operator.grant_refused", nil), http.StatusOK,
		"adm2", "operator:ghost", "asked by adm1", "password was set or reset by adm1")
}

// TestAnOfficeBehindOneAddressStillLogsIn is finding 6 in the console: after 20 wrong
// passwords from an office's one address, an operator there logs in with the right password
// and code; without the code, or with a wrong one, still not.
func TestAnOfficeBehindOneAddressStillLogsIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	h := console.New(e.uc, zap.NewNop(), console.Config{Sandbox: true})
	off2 := e.enrolled(t, "off2", domain.RoleOfficer)
	office := newVisitor(t, h, "203.0.113.7")
	for i := range domain.FreeAddressFailures {
		office.logIn("colleague-"+string(rune('a'+i)), "typo", "")
	}
	expect(t, "the right password alone", office.logIn("off2", off2.password, ""), http.StatusUnauthorized, "too many attempts")
	expect(t, "a wrong code", office.logIn("off2", off2.password, "000001"), http.StatusUnauthorized)
	expect(t, "the right password and code", office.logIn("off2", off2.password, off2.app.Code()), http.StatusSeeOther, "/console/")
	expect(t, "the dashboard", office.do(http.MethodGet, "/console/", nil), http.StatusOK, "off2")
	page := expect(t, "the login page", newVisitor(t, h, "10.0.0.1").do(http.MethodGet, "/console/login", nil), http.StatusOK,
		"Wrong passwords for other names from your address never keep you out once you have a second factor",
		"at most 15 minutes; there is no lockout")
	if strings.Contains(page, "lock an account") || strings.Contains(page, "lockout of") {
		t.Fatal("the login page still says wrong passwords lock an account")
	}
}

// TestTheFirstLoginEnrolsASecondFactor: a new operator's first login leads to the password
// change, then to the enrolment, before any other page; the enrolment shows the secret as
// text and as a QR code (a PNG the console serves: no script, no data: URI), refuses a wrong
// code, and on a right one shows the recovery codes once and replaces the session; the secret
// is never shown again. Later logins need the code, or a recovery code once.
func TestTheFirstLoginEnrolsASecondFactor(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	h := console.New(e.uc, zap.NewNop(), console.Config{Sandbox: true})
	pw, err := e.uc.Operators.CreateOperator.Handle(context.Background(), appconsole.CLIActor,
		appconsole.CreateOperator{Name: "nina", Role: domain.RoleOfficer})
	if err != nil {
		t.Fatal(err)
	}
	b := newVisitor(t, h, "10.0.0.5")
	expect(t, "the first login", b.logIn("nina", pw, ""), http.StatusSeeOther, "/console/password")
	expect(t, "the dashboard before the password", b.do(http.MethodGet, "/console/", nil), http.StatusSeeOther, "/console/password")
	expect(t, "the enrolment before the password", b.do(http.MethodGet, "/console/second-factor", nil), http.StatusSeeOther, "/console/password")
	expect(t, "the password change", b.post("/console/password", "/console/password",
		url.Values{"old": {pw}, "new": {"nina-long-password"}, "again": {"nina-long-password"}}), http.StatusSeeOther, "/console/second-factor")
	for _, path := range []string{"/console/", "/console/loans", "/console/password"} {
		expect(t, path+" before the enrolment", b.do(http.MethodGet, path, nil), http.StatusSeeOther, "/console/second-factor")
	}
	page := expect(t, "the enrolment", b.do(http.MethodGet, "/console/second-factor", nil), http.StatusOK,
		`<img class="qr" src="/console/second-factor/qr.png"`, "Set up your second factor")
	secret := regexp.MustCompile(`<code class="key secret">([A-Z2-7 ]+)</code>`).FindStringSubmatch(page)
	if secret == nil || strings.Contains(page, "data:") {
		t.Fatalf("the secret is not shown as text, or the page has a data: URI:\n%s", page)
	}
	qr := b.do(http.MethodGet, "/console/second-factor/qr.png", nil)
	img, err := png.Decode(bytes.NewReader(qr.Body.Bytes()))
	if qr.Code != http.StatusOK || qr.Header().Get("Content-Type") != "image/png" || err != nil || img.Bounds().Dx() != 200 ||
		qr.Body.Len() > 4096 || qr.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("the QR code: %d %s, %d bytes, %v", qr.Code, qr.Header().Get("Content-Type"), qr.Body.Len(), err)
	}
	// English last: the steps below read the console's English.
	for _, l := range []struct{ lang, title string }{{"ru", "Настройте второй фактор"}, {"uz", "Ikkinchi omilni sozlang"}, {"en", "Set up your second factor"}} {
		lang, title := l.lang, l.title
		expect(t, "the language switched to "+lang+" while enrolling", b.post("/console/second-factor", "/console/language",
			url.Values{"language": {lang}, "back": {"/console/second-factor"}}), http.StatusSeeOther, "/console/second-factor")
		expect(t, "the enrolment in "+lang, b.do(http.MethodGet, "/console/second-factor", nil), http.StatusOK, title, secret[1])
	}
	app := tiyintest.NewAuthenticator(secret[1])
	expect(t, "a wrong code", b.post("/console/second-factor", "/console/second-factor", url.Values{"code": {"12345"}}),
		http.StatusBadRequest, "The code does not match", secret[1])
	before := b.cookies["tiyin_console"]
	codes := expect(t, "the enrolment", b.post("/console/second-factor", "/console/second-factor", url.Values{"code": {app.Code()}}),
		http.StatusOK, "Your recovery codes", "shown this once")
	recovery := regexp.MustCompile(`<li><code>([A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4})</code></li>`).FindAllStringSubmatch(codes, -1)
	if len(recovery) != domain.RecoveryCodes || b.cookies["tiyin_console"] == before {
		t.Fatalf("%d recovery codes shown; session replaced: %v", len(recovery), b.cookies["tiyin_console"] != before)
	}
	stale := newVisitor(t, h, "10.0.0.5")
	stale.cookies["tiyin_console"] = before
	expect(t, "the session from before the enrolment", stale.do(http.MethodGet, "/console/", nil), http.StatusSeeOther, "/console/login")
	expect(t, "the dashboard", b.do(http.MethodGet, "/console/", nil), http.StatusOK, "nina")
	expect(t, "the enrolment again", b.do(http.MethodGet, "/console/second-factor", nil), http.StatusSeeOther, "/console/")
	expect(t, "a second enrolment", b.post("/console/", "/console/second-factor", url.Values{"code": {"123456"}}),
		http.StatusSeeOther, "/console/")
	expect(t, "the QR code again", b.do(http.MethodGet, "/console/second-factor/qr.png", nil), http.StatusNotFound)

	later := newVisitor(t, h, "10.0.0.5")
	expect(t, "a password alone", later.logIn("nina", "nina-long-password", ""), http.StatusUnauthorized)
	expect(t, "the password and a code", later.logIn("nina", "nina-long-password", app.Code()), http.StatusSeeOther, "/console/")
	expect(t, "a recovery code", newVisitor(t, h, "10.0.0.5").logIn("nina", "nina-long-password", recovery[0][1]), http.StatusSeeOther, "/console/")
	expect(t, "the same recovery code", newVisitor(t, h, "10.0.0.5").logIn("nina", "nina-long-password", recovery[0][1]), http.StatusUnauthorized)
}

// TestAnAdminAsksASecondFactorResetAndAnotherApprovesIt: on the operators page an admin asks
// for an operator's second factor to be reset; it waits for another admin, whose approval ends
// the operator's sessions; the operator enrols again at the next login.
func TestAnAdminAsksASecondFactorResetAndAnotherApprovesIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	h := console.New(e.uc, zap.NewNop(), console.Config{Sandbox: true})
	adm1, adm2, off2 := e.enrolled(t, "adm1", domain.RoleAdmin), e.enrolled(t, "adm2", domain.RoleAdmin), e.enrolled(t, "off2", domain.RoleOfficer)
	one, two, off := newVisitor(t, h, "10.0.0.1").as(adm1.session), newVisitor(t, h, "10.0.0.2").as(adm2.session), newVisitor(t, h, "10.0.0.3").as(off2.session)
	page := expect(t, "the operators page", one.do(http.MethodGet, "/console/operators", nil), http.StatusOK, "/console/operators/off2/reset_second_factor")
	if !regexp.MustCompile(`<td>off2</td><td>officer</td>[\s\S]*?<span class="st good">since 20`).MatchString(page) {
		t.Fatalf("the page does not show off2's second factor:\n%s", page)
	}
	expect(t, "adm1 asks", one.post("/console/operators", "/console/operators/off2/reset_second_factor", url.Values{"confirm": {"on"}}),
		http.StatusSeeOther, "done=factor_pending")
	expect(t, "the request", two.do(http.MethodGet, "/console/operators", nil), http.StatusOK, "second factor reset awaits a second admin")
	expect(t, "adm1 approves", one.post("/console/operators", "/console/operators/off2/approve", url.Values{"confirm": {"on"}}), http.StatusConflict)
	expect(t, "off2 still works", off.do(http.MethodGet, "/console/", nil), http.StatusOK)
	expect(t, "adm2 approves", two.post("/console/operators", "/console/operators/off2/approve", url.Values{"confirm": {"on"}}), http.StatusSeeOther)
	expect(t, "off2's session", off.do(http.MethodGet, "/console/", nil), http.StatusSeeOther, "/console/login")
	again := newVisitor(t, h, "10.0.0.3")
	expect(t, "off2's next login", again.logIn("off2", off2.password, ""), http.StatusSeeOther, "/console/second-factor")
	expect(t, "a new secret", again.do(http.MethodGet, "/console/second-factor", nil), http.StatusOK, "Set up your second factor")
	expect(t, "the audit log", two.do(http.MethodGet, "/console/audit?object=operator:off2", nil), http.StatusOK,
		"operator.second_factor.reset", "operator.grant_approve", "second factor reset, asked by adm1")
}
