package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/tiyin/tiyin/adapters/console"
	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
	appconsole "github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/test/tiyintest"
)

// operatorSession is a logged-in operator's cookie and form token.
type operatorSession struct {
	cookie *http.Cookie
	csrf   string
}

// as logs a new operator of the role in, their password changed and their second factor
// enrolled.
func (e *env) as(t *testing.T, name string, role domain.Role) operatorSession {
	t.Helper()
	return e.enrolled(t, name, role).session
}

// testOperator is an operator a test made (from the command line): the password they chose,
// their authenticator app, and a session that proved both.
type testOperator struct {
	name, password string
	app            *tiyintest.Authenticator
	recovery       []domain.RecoveryCode
	session        operatorSession
}

// enrolled makes an operator of the role who logged in with the one-time password, chose
// their own and enrolled a second factor, through the use cases.
func (e *env) enrolled(t *testing.T, name string, role domain.Role) testOperator {
	t.Helper()
	ctx := context.Background()
	ops := e.uc.Operators
	pw, err := ops.CreateOperator.Handle(ctx, appconsole.CLIActor, appconsole.CreateOperator{Name: name, Role: role})
	if err != nil {
		t.Fatal(err)
	}
	s, err := ops.LogIn.Handle(ctx, appconsole.LogIn{Name: name, Password: pw, Address: "127.0.0.1"})
	if err != nil || !s.MustEnrol {
		t.Fatalf("first login: %+v, %v", s, err)
	}
	o := testOperator{name: name, password: name + "-long-password-1"}
	if err := ops.ChangePassword.Handle(ctx, s.Operator, appconsole.ChangePassword{Old: pw, New: o.password, Session: s.Token}); err != nil {
		t.Fatal(err)
	}
	en, err := ops.BeginEnrolment.Handle(ctx, s.Operator)
	if err != nil {
		t.Fatal(err)
	}
	o.app = tiyintest.NewAuthenticator(en.Secret)
	s, codes, err := ops.EnrolSecondFactor.Handle(ctx, s, appconsole.EnrolSecondFactor{Code: o.app.Code()})
	if err != nil || len(codes) != domain.RecoveryCodes {
		t.Fatalf("enrol: %v, %d recovery codes", err, len(codes))
	}
	o.recovery, o.session = codes, operatorSession{cookie: &http.Cookie{Name: "tiyin_console", Value: s.Token}, csrf: s.CSRF}
	return o
}

func serve(h http.Handler, s *operatorSession, method, path string, form url.Values) *httptest.ResponseRecorder {
	var req *http.Request
	if method == http.MethodPost {
		req = httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req = httptest.NewRequest(method, path, nil)
	}
	if s != nil {
		req.AddCookie(s.cookie)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestEveryPageAndActionByRole: each page and action answers each role as the role table of
// docs/console.md says, every form needs the session's CSRF token, and nothing answers without
// a session.
func TestEveryPageAndActionByRole(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	a, loan := e.issuedLoan(t)
	h, _ := e.console(t)
	viewer, officer, admin := e.as(t, "vic", domain.RoleViewer), e.as(t, "olga", domain.RoleOfficer), e.as(t, "adam", domain.RoleAdmin)
	app, missing := "/console/applications/"+a.ID().String(), uuid.NewString()

	for _, c := range []struct {
		who    *operatorSession
		path   string
		status int
	}{
		{&viewer, "/console/", 200},
		{&viewer, "/console/search?q=" + a.ID().String(), http.StatusSeeOther}, // one hit: its page
		{&viewer, "/console/search?q=" + a.Phone().String(), http.StatusSeeOther},
		{&viewer, "/console/search?q=1234", 200},
		{&viewer, "/console/search?q=nothing-at-all", 200},
		{&viewer, app, 200},
		{&viewer, "/console/applications/not-an-id", 404},
		{&viewer, "/console/applications/" + missing, 404},
		{&viewer, "/console/loans/" + loan.ID().String(), 200},
		{&viewer, "/console/loans/" + missing, 404},
		{&viewer, "/console/transfers/" + missing, 404},
		{&viewer, "/console/repayments/" + missing, 404},
		{&viewer, "/console/card-orders/" + missing, 404},
		{&viewer, "/console/cards/" + missing, 404},
		{&viewer, "/console/ledger?check=1", 200},
		{&viewer, "/console/ledger?account=DEMAND:" + loan.ID().String(), 200},
		{&viewer, "/console/partners", 200},
		{&viewer, "/console/partners/acme", 200},
		{&viewer, "/console/partners/nobody", 404},
		{&viewer, "/console/audit?from=2026-01-01&to=2030-01-01", 200},
		{&viewer, "/console/audit?from=yesterday", 400},
		{&viewer, "/console/audit.csv", 200},
		{&viewer, "/console/applications", 200},
		{&viewer, "/console/applications?status=COMPLETED&partner=acme&from=2020-01-01&to=2040-12-31", 200},
		{&viewer, "/console/loans?status=OPEN&sort=amount&order=asc&min=1+000&max=99999999.99", 200},
		{&viewer, "/console/applications.csv", 200},
		{&viewer, "/console/loans.csv?status=OPEN", 200},
		{&viewer, "/console/transfers?status=PROCESSING&sort=amount", 200},
		{&viewer, "/console/repayments?status=NOT_PAID", 200},
		{&viewer, "/console/card-orders?status=PENDING", 200},
		{&viewer, "/console/cards?status=BLOCKED", 200},
		{&viewer, "/console/cards.csv", 200},
		{&viewer, "/console/cards?sort=amount", 400},
		{&viewer, "/console/loans?status=OPEN&overdue=30", 200},
		{&viewer, "/console/loans?overdue=-1", 400},
		{&viewer, "/console/transfers?overdue=5", 400},
		{&viewer, "/console/reports", 200},
		{&viewer, "/console/books", 200},
		{&viewer, "/console/books?day=2026-01-01", 200},
		{&viewer, "/console/books?day=yesterday", 400},
		{&viewer, "/console/books/journal.csv?day=2026-01-01", 200},
		{&viewer, "/console/books/journal.json?day=2026-01-01", 200},
		{&viewer, "/console/books/journal.csv", 400},
		{&viewer, "/console/loans?status=OPEN&due=6", 200},
		{&viewer, "/console/loans?due=40", 400},
		{&viewer, "/console/cards?due=0", 400},
		{&viewer, "/console/reports?from=2026-02-01&to=2026-01-01", 400},
		{&viewer, "/console/reports/daily.csv?from=2026-01-01&to=2026-01-31", 200},
		{&viewer, "/console/reports/portfolio.csv", 200},
		{&viewer, "/console/loans?status=NEW", 400},
		{&viewer, "/console/applications?sort=amount", 400},
		{&viewer, "/console/loans?from=yesterday", 400},
		{&viewer, "/console/loans?min=1.234", 400},
		{&viewer, "/console/loans?partner=nobody", 400},
		{&viewer, "/console/loans?after=x", 400},
		{&viewer, "/console/password", 200},
		{&viewer, "/console/static/console.css", 200},
		{nil, "/console/", http.StatusSeeOther},
		{nil, "/console/static/console.css", 200},
		{nil, "/console/login", 200},
	} {
		rec := serve(h, c.who, http.MethodGet, c.path, nil)
		if rec.Code != c.status {
			t.Errorf("GET %s: %d, want %d\n%s", c.path, rec.Code, c.status, rec.Body)
		}
		if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
			t.Errorf("GET %s: CSP %q", c.path, csp)
		}
		if strings.Contains(rec.Body.String(), "KARIMOV") || strings.Contains(rec.Body.String(), "998935550303") {
			t.Errorf("GET %s shows personal data unmasked", c.path)
		}
	}

	for _, c := range []struct {
		who    *operatorSession
		path   string
		form   url.Values
		status int
	}{
		{&viewer, app + "/retry", nil, 403},
		{&viewer, app + "/reveal", nil, 403},
		{&viewer, app + "/verify", nil, 403},
		{&viewer, "/console/events/" + missing + "/resend", nil, 403},
		{&officer, app + "/retry", nil, 409},                                                  // a COMPLETED application waits for no stage
		{&officer, app + "/verify", url.Values{"outcome": {"confirmed"}, "note": {"n"}}, 409}, // nor for a phone call
		{&officer, app + "/verify", url.Values{"outcome": {"confirmed"}}, 400},                // a call is recorded with a note
		{&officer, app + "/verify", url.Values{"note": {"n"}}, 400},                           // and its outcome
		{&officer, app + "/propose", url.Values{"outcome": {"done"}, "note": {"n"}}, 409},     // its outcome is known
		{&officer, app + "/propose", nil, 400},
		{&officer, "/console/transfers/" + missing + "/propose", url.Values{"outcome": {"done"}, "note": {"n"}}, 404},
		{&officer, "/console/proposals/" + missing + "/approve", nil, 404},
		{&officer, "/console/proposals/" + missing + "/maybe", nil, 404},
		{&officer, "/console/events/" + missing + "/resend", nil, 404},
		{&officer, "/console/partners/acme/disable", nil, 403},
		{&officer, app + "/reveal", nil, 200},
		{&admin, "/console/partners/acme/format", nil, 404},
		{&admin, "/console/partners/nobody/disable", nil, 404},
		{&admin, "/console/partners/acme/disable", nil, 303},
		{&admin, "/console/partners/acme/enable", nil, 303},
		{&admin, "/console/partners/acme/rotate_key", url.Values{"overlap": {"0"}}, 200},
		{&admin, "/console/partners/acme/rotate_key", nil, 400}, // how long the old key works is chosen
		{&officer, "/console/partners", url.Values{"name": {"beta"}}, 403},
		{&admin, "/console/partners", url.Values{"name": {" "}}, 400},
		{&admin, "/console/partners", url.Values{"name": {"acme"}}, 409},
		{&officer, "/console/partners/acme/set_webhook", url.Values{"url": {"https://partner.example/hook"}}, 403},
		{&admin, "/console/partners/acme/set_webhook", url.Values{"url": {"ftp://partner.example/hook"}, "overlap": {"24h"}}, 400},
		{&officer, "/console/audit/verify", nil, 403},
		{&admin, "/console/audit/verify", nil, 303},
	} {
		form := url.Values{"csrf": {c.who.csrf}}
		for k, v := range c.form {
			form[k] = v
		}
		rec := serve(h, c.who, http.MethodPost, c.path, form)
		if rec.Code != c.status {
			t.Errorf("POST %s: %d, want %d\n%s", c.path, rec.Code, c.status, rec.Body)
		}
		if forged := serve(h, c.who, http.MethodPost, c.path, url.Values{"csrf": {"forged"}}); forged.Code != http.StatusForbidden {
			t.Errorf("POST %s with a forged token: %d", c.path, forged.Code)
		}
		if anon := serve(h, nil, http.MethodPost, c.path, form); anon.Code != http.StatusUnauthorized {
			t.Errorf("POST %s without a session: %d", c.path, anon.Code)
		}
	}
	rotated := serve(h, &admin, http.MethodPost, "/console/partners/acme/rotate_key", url.Values{"csrf": {admin.csrf}, "overlap": {"0"}})
	if !regexp.MustCompile(`shown this once: <code class="key">[A-Za-z0-9_-]{20,}</code>`).MatchString(rotated.Body.String()) {
		t.Fatalf("the rotated key is not shown once:\n%s", rotated.Body)
	}
	if again := serve(h, &admin, http.MethodGet, "/console/partners/acme", nil); strings.Contains(again.Body.String(), "shown this once") {
		t.Fatal("a rotated key must not be shown again")
	}

	// An idle session ends after 30 minutes.
	if err := e.db.Gorm.Exec("UPDATE operator_sessions SET last_seen_at = ?", time.Now().UTC().Add(-domain.SessionIdle-time.Minute)).Error; err != nil {
		t.Fatal(err)
	}
	if rec := serve(h, &viewer, http.MethodGet, "/console/", nil); rec.Code != http.StatusSeeOther || !strings.HasPrefix(rec.Header().Get("Location"), "/console/login") {
		t.Fatalf("an idle session: %d %s", rec.Code, rec.Header().Get("Location"))
	}
}

// TestTheSessionCookieIsStrictHTTPOnlyAndSecureOutsideTheSandbox: the cookies the console sets
// carry the attributes the issue names, Secure when the console is told so (outside the sandbox).
func TestTheSessionCookieIsStrictHTTPOnlyAndSecureOutsideTheSandbox(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	ctx := context.Background()
	pw, err := e.uc.Operators.CreateOperator.Handle(ctx, appconsole.CLIActor, appconsole.CreateOperator{Name: "dina", Role: domain.RoleViewer})
	if err != nil {
		t.Fatal(err)
	}
	for _, secure := range []bool{true, false} {
		h := console.New(e.uc, zap.NewNop(), console.Config{Secure: secure})
		form := serve(h, nil, http.MethodGet, "/console/login", nil)
		var token *http.Cookie
		for _, c := range form.Result().Cookies() {
			if c.Name == "tiyin_console_login" {
				token = c
			}
		}
		if token == nil {
			t.Fatal("the login form set no token cookie")
		}
		req := httptest.NewRequest(http.MethodPost, "/console/login",
			strings.NewReader(url.Values{"csrf": {token.Value}, "name": {"dina"}, "password": {pw}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var session *http.Cookie
		for _, c := range rec.Result().Cookies() {
			if c.Name == "tiyin_console" {
				session = c
			}
		}
		if rec.Code != http.StatusSeeOther || session == nil || session.Value == "" {
			t.Fatalf("login (secure %v): %d, cookie %v\n%s", secure, rec.Code, session, rec.Body)
		}
		for _, c := range []*http.Cookie{token, session} {
			if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/console" || c.Secure != secure {
				t.Errorf("cookie %s (secure %v): HttpOnly %v, SameSite %v, Path %q, Secure %v", c.Name, secure, c.HttpOnly, c.SameSite, c.Path, c.Secure)
			}
		}
	}
}

// TestTheCallCentresCallIsRecordedWithItsOutcomeAndNote: a call that did not confirm the client
// is noted and the application waits on; a call that did completes the verification. Each
// needs an outcome and a note, and each is in the audit log with its note.
func TestTheCallCentresCallIsRecordedWithItsOutcomeAndNote(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	a, _, _, _ := e.offered(t, true)
	h, _ := e.console(t)
	officer := e.as(t, "olga", domain.RoleOfficer)
	path := "/console/applications/" + a.ID().String()
	page := serve(h, &officer, http.MethodGet, path, nil).Body.String()
	if !strings.Contains(page, `action="`+path+`/verify"`) || !strings.Contains(page, `name="note"`) {
		t.Fatalf("the application waiting for a call offers no form to record it:\n%s", page)
	}
	stage := func() domain.Stage {
		t.Helper()
		got, err := e.apps.Get(context.Background(), a.ID())
		if err != nil {
			t.Fatal(err)
		}
		return got.Stage()
	}
	awaiting := domain.Stage{Name: domain.StageClientVerification, Status: domain.StagePending}
	if stage() != awaiting {
		t.Fatalf("setup: %+v", stage())
	}
	post := func(form url.Values) int {
		form.Set("csrf", officer.csrf)
		return serve(h, &officer, http.MethodPost, path+"/verify", form).Code
	}
	for _, bad := range []url.Values{{"outcome": {"confirmed"}}, {"outcome": {"confirmed"}, "note": {"   "}},
		{"note": {"called"}}, {"outcome": {"maybe"}, "note": {"called"}}, {"outcome": {"confirmed"}, "note": {strings.Repeat("я", 501)}}} {
		if code := post(bad); code != http.StatusBadRequest {
			t.Errorf("%v: %d, want 400", bad, code)
		}
	}
	if code := post(url.Values{"outcome": {"not_confirmed"}, "note": {"Dilnoza, 10:05: no answer"}}); code != http.StatusSeeOther {
		t.Fatalf("not confirmed: %d", code)
	}
	if stage() != awaiting {
		t.Fatalf("a call that did not confirm the client changed the application: %+v", stage())
	}
	if code := post(url.Values{"outcome": {"confirmed"}, "note": {"Dilnoza, 11:20: client confirmed the loan"}}); code != http.StatusSeeOther {
		t.Fatalf("confirmed: %d", code)
	}
	if got := stage(); got != (domain.Stage{Name: domain.StageClientVerification, Status: domain.StageCompleted}) {
		t.Fatalf("after the confirming call: %+v", got)
	}
	if code := post(url.Values{"outcome": {"not_confirmed"}, "note": {"again"}}); code != http.StatusConflict {
		t.Fatalf("a call recorded after the verification completed: %d, want 409", code)
	}
	if page := serve(h, &officer, http.MethodGet, path, nil).Body.String(); strings.Contains(page, "<h2>Actions</h2>") {
		t.Error("the page shows an Actions heading with no action under it")
	}
	auditShows(t, h, &officer, "", "application.verification_not_confirmed", "Dilnoza, 10:05: no answer",
		"application.complete_verification", "Dilnoza, 11:20: client confirmed the loan")
}

// auditShows fails the test unless the audit log's page (with the filter query) shows each want;
// it returns the page.
func auditShows(t *testing.T, h http.Handler, who *operatorSession, query string, wants ...string) string {
	t.Helper()
	page := serve(h, who, http.MethodGet, "/console/audit?"+query, nil).Body.String()
	for _, want := range wants {
		if !strings.Contains(page, want) {
			t.Errorf("the audit log does not show %q", want)
		}
	}
	return page
}

// TestPostingsShowTheirIDsInFull: posting ids are UUIDv7s that share their first characters
// within a day, so a cut id names nothing.
func TestPostingsShowTheirIDsInFull(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	_, loan := e.issuedLoan(t)
	h, _ := e.console(t)
	viewer := e.as(t, "vic", domain.RoleViewer)
	page := serve(h, &viewer, http.MethodGet, "/console/loans/"+loan.ID().String(), nil).Body.String()
	full := regexp.MustCompile(`<code>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}</code></td><td>ISSUANCE`)
	if !full.MatchString(page) {
		t.Fatalf("the issuance posting's id is not shown in full:\n%s", page)
	}
}

// TestListsFilterPageAndExport: the dashboard's counts link to the filtered lists; a list
// shows its rows, pages with a link that keeps the filter, and exports the filtered rows as a
// CSV file Excel opens (UTF-8 with a byte order mark), audited.
func TestListsFilterPageAndExport(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	var made []*domain.Application
	for range 3 {
		made = append(made, e.issuedApplication(t))
	}
	h, _ := e.console(t)
	viewer := e.as(t, "vic", domain.RoleViewer)
	dash := serve(h, &viewer, http.MethodGet, "/console/", nil).Body.String()
	for _, want := range []string{`href="/console/applications?status=COMPLETED"`, `href="/console/loans?status=OPEN"`} {
		if !strings.Contains(dash, want) {
			t.Errorf("the dashboard's counts do not link %s", want)
		}
	}
	first := serve(h, &viewer, http.MethodGet, "/console/applications?status=COMPLETED&partner=acme", nil).Body.String()
	for _, a := range made {
		if !strings.Contains(first, a.ID().String()) {
			t.Errorf("the list does not show application %s", a.ID())
		}
	}
	if !strings.Contains(first, "The last page.") {
		t.Error("three rows on a page of fifty, yet another page is offered")
	}
	if none := serve(h, &viewer, http.MethodGet, "/console/applications?status=FAILED", nil).Body.String(); !strings.Contains(none, "Nothing matches.") {
		t.Error("a status no application is in shows rows")
	}
	loans := serve(h, &viewer, http.MethodGet, "/console/loans?status=OPEN&sort=amount", nil).Body.String()
	if n := strings.Count(loans, `href="/console/loans/`); n != 3 {
		t.Errorf("%d open loans listed, want 3", n)
	}
	csv := serve(h, &viewer, http.MethodGet, "/console/loans.csv?status=OPEN", nil)
	body := csv.Body.String()
	if !strings.HasPrefix(body, "\ufeff\"id\",\"partner\",\"status\"") || strings.Count(body, "\r\n") != 4 ||
		!strings.Contains(csv.Header().Get("Content-Disposition"), "tiyin-loans.csv") || !strings.Contains(body, "\"OPEN\"") {
		t.Errorf("the CSV export:\n%s", body)
	}
	auditShows(t, h, &viewer, "", "list.export", "list:loan")
}

// TestListPagesFollowOneAnother: the next page's link starts after the page's last row, keeps
// the filter, and the pages hold every row once.
func TestListPagesFollowOneAnother(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	for range 3 {
		e.issuedApplication(t)
	}
	h, _ := e.console(t)
	viewer := e.as(t, "vic", domain.RoleViewer)
	next := regexp.MustCompile(`href="(/console/loans\?[^"]+)" rel="next"`)
	row := regexp.MustCompile(`href="/console/loans/([0-9a-f-]{36})"`)
	seen := map[string]bool{}
	path := "/console/loans?status=OPEN&limit=2"
	for pages := 0; path != ""; pages++ {
		if pages > 3 {
			t.Fatal("the pages do not end")
		}
		body := serve(h, &viewer, http.MethodGet, path, nil).Body.String()
		for _, m := range row.FindAllStringSubmatch(body, -1) {
			if seen[m[1]] {
				t.Fatalf("loan %s on two pages", m[1])
			}
			seen[m[1]] = true
		}
		path = ""
		if m := next.FindStringSubmatch(body); m != nil {
			path = strings.ReplaceAll(m[1], "&amp;", "&")
			if !strings.Contains(path, "status=OPEN") {
				t.Fatalf("the next page's link drops the filter: %s", path)
			}
		}
	}
	if len(seen) != 3 {
		t.Fatalf("%d loans over the pages, want 3", len(seen))
	}
}

// TestSearchPagesAPhonesHits: a phone with more hits than a page shows 50, each with its date
// and partner, and a link to the next page, which shows the rest; each page is audited.
func TestSearchPagesAPhonesHits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	phone, _ := domain.ParsePhone("998935550303")
	cd := must(domain.ParseClientData(domain.ClientDataInput{PINFL: "31234567890123", LastName: "Karimov", FirstName: "Aziz",
		BirthDate: "1990-05-17", DocumentType: "PASSPORT", DocumentSeries: "AA", DocumentNumber: "1234567", DocumentIssuedBy: "Toshkent IIB",
		DocumentIssued: "2020-01-10", DocumentExpiry: "2035-01-09", Region: "Toshkent", District: "Chilonzor", Address: "Bunyodkor 1",
		Phone: "998935550303"}, domain.BusinessDate(time.Now())))
	for i := range 55 {
		a := must(domain.NewApplication(domain.NewApplicationParams{ID: uuid.New(), PartnerID: e.pid, ExternalID: uuid.New(), Phone: phone,
			ClientData: cd, AgreementAccepted: true, Now: time.Now().UTC().Add(-time.Duration(i) * time.Minute)}))
		if err := e.apps.Create(context.Background(), a); err != nil {
			t.Fatal(err)
		}
	}
	h, _ := e.console(t)
	viewer := e.as(t, "vic", domain.RoleViewer)
	row := regexp.MustCompile(`href="/console/applications/([0-9a-f-]{36})"`)
	first := serve(h, &viewer, http.MethodGet, "/console/search?q=998935550303", nil).Body.String()
	next := regexp.MustCompile(`href="(/console/search\?[^"]+)" rel="next"`).FindStringSubmatch(first)
	if n := len(row.FindAllString(first, -1)); n != 50 || next == nil || !strings.Contains(first, "<td>acme</td>") {
		t.Fatalf("the first page: %d hits, next %v", n, next)
	}
	second := serve(h, &viewer, http.MethodGet, strings.ReplaceAll(next[1], "&amp;", "&"), nil).Body.String()
	seen := map[string]bool{}
	for _, m := range append(row.FindAllStringSubmatch(first, -1), row.FindAllStringSubmatch(second, -1)...) {
		seen[m[1]] = true
	}
	if len(seen) != 55 || strings.Contains(second, `rel="next"`) {
		t.Fatalf("%d different hits over both pages, want 55", len(seen))
	}
	audit := serve(h, &viewer, http.MethodGet, "/console/audit?action=search.phone", nil).Body.String()
	if n := strings.Count(audit, "search.phone"); n < 2 {
		t.Fatalf("%d phone searches audited, want one a page", n)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestAdminsManagePartnersFromTheConsole: an admin creates a partner (its key shown once),
// rotates its key with an overlap (the old key's end shown on the page), sets its webhook (the
// secret shown once); each change is in the audit log.
func TestAdminsManagePartnersFromTheConsole(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	h, _ := e.console(t)
	admin := e.as(t, "adam", domain.RoleAdmin)
	post := func(path string, form url.Values) string {
		t.Helper()
		form.Set("csrf", admin.csrf)
		rec := serve(h, &admin, http.MethodPost, path, form)
		if rec.Code != http.StatusOK {
			t.Fatalf("POST %s: %d\n%s", path, rec.Code, rec.Body)
		}
		return rec.Body.String()
	}
	key := regexp.MustCompile(`shown this once: <code class="key">([A-Za-z0-9_-]{20,})</code>`)
	created := post("/console/partners", url.Values{"name": {"beta"}})
	if !key.MatchString(created) || !strings.Contains(created, "<h1>Partner beta</h1>") {
		t.Fatalf("the new partner's key is not shown:\n%s", created)
	}
	rotated := post("/console/partners/beta/rotate_key", url.Values{"overlap": {"24h"}})
	if !key.MatchString(rotated) || !strings.Contains(rotated, "The old key keeps working until") {
		t.Fatalf("the rotation does not say until when the old key works:\n%s", rotated)
	}
	page := serve(h, &admin, http.MethodGet, "/console/partners/beta", nil).Body.String()
	if key.MatchString(page) || !strings.Contains(page, "the key before the last rotation works until") {
		t.Fatalf("the partner's page shows a key again, or not the old key's end:\n%s", page)
	}
	hooked := post("/console/partners/beta/set_webhook", url.Values{"url": {"https://partner.example/hook?token=abc"}, "overlap": {"24h"}})
	if !strings.Contains(hooked, "signing secret, shown this once") {
		t.Fatalf("the webhook's secret is not shown:\n%s", hooked)
	}
	audit := auditShows(t, h, &admin, "object=partner:beta", "partner.create", "partner.rotate_key", "the old key works until",
		"partner.set_webhook", "https://partner.example")
	if strings.Contains(audit, "token=abc") {
		t.Error("the audit log keeps the webhook URL's query")
	}
}

// TestOperatorsAreManagedWithASecondAdmin: an operator an admin creates in the console logs in
// only once another admin approves; a higher role waits the same way, a lower one does not;
// an admin never approves what they asked for; each step is in the audit log.
func TestOperatorsAreManagedWithASecondAdmin(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	h, _ := e.console(t)
	adam, bea, vic := e.as(t, "adam", domain.RoleAdmin), e.as(t, "bea", domain.RoleAdmin), e.as(t, "vic", domain.RoleViewer)
	post := func(who *operatorSession, path string, form url.Values) *httptest.ResponseRecorder {
		t.Helper()
		form.Set("csrf", who.csrf)
		return serve(h, who, http.MethodPost, path, form)
	}
	if rec := serve(h, &vic, http.MethodGet, "/console/operators", nil); rec.Code != http.StatusForbidden {
		t.Fatalf("a viewer sees the operators: %d", rec.Code)
	}
	made := post(&adam, "/console/operators", url.Values{"name": {"nina"}, "role": {"officer"}})
	pw := regexp.MustCompile(`shown this once: <code class="key">([A-Z0-9]{20})</code>`).FindStringSubmatch(made.Body.String())
	if made.Code != http.StatusOK || pw == nil || !strings.Contains(made.Body.String(), "logs in once a second admin approves") {
		t.Fatalf("create: %d\n%s", made.Code, made.Body)
	}
	logIn := func() error {
		_, err := e.uc.Operators.LogIn.Handle(context.Background(), appconsole.LogIn{Name: "nina", Password: pw[1], Address: "10.0.0.9"})
		return err
	}
	if err := logIn(); err == nil {
		t.Fatal("a new operator logged in before a second admin approved")
	}
	if rec := post(&adam, "/console/operators/nina/approve", url.Values{}); rec.Code != http.StatusConflict {
		t.Fatalf("the admin who asked approved: %d", rec.Code)
	}
	if rec := post(&bea, "/console/operators/nina/approve", url.Values{}); rec.Code != http.StatusSeeOther {
		t.Fatalf("a second admin's approval: %d", rec.Code)
	}
	if err := logIn(); err != nil {
		t.Fatalf("after the approval: %v", err)
	}
	role := func() (domain.Role, domain.Grant) {
		t.Helper()
		o, err := e.uc.Operators.ListOperators.Handle(context.Background(), appconsole.CLIActor)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range o.Operators {
			if x.Name() == "nina" {
				return x.Role(), x.Grant()
			}
		}
		t.Fatal("nina is gone")
		return "", domain.Grant{}
	}
	if rec := post(&adam, "/console/operators/nina/role", url.Values{"role": {"admin"}}); rec.Code != http.StatusSeeOther ||
		!strings.Contains(rec.Header().Get("Location"), "role_pending") {
		t.Fatalf("asking for a higher role: %d %s", rec.Code, rec.Header().Get("Location"))
	}
	if r, g := role(); r != domain.RoleOfficer || g.Role != domain.RoleAdmin || g.RequestedBy != "adam" {
		t.Fatalf("the higher role did not wait: %s %+v", r, g)
	}
	if rec := post(&adam, "/console/operators/nina/role", url.Values{"role": {"viewer"}}); rec.Code != http.StatusConflict {
		t.Fatalf("a change while a grant awaits: %d", rec.Code)
	}
	if rec := post(&bea, "/console/operators/nina/approve", url.Values{}); rec.Code != http.StatusSeeOther {
		t.Fatalf("approve the role: %d", rec.Code)
	}
	if r, g := role(); r != domain.RoleAdmin || g.Pending() {
		t.Fatalf("after the approval: %s %+v", r, g)
	}
	if rec := post(&adam, "/console/operators/nina/role", url.Values{"role": {"viewer"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("a lower role: %d", rec.Code)
	}
	if r, g := role(); r != domain.RoleViewer || g.Pending() {
		t.Fatalf("a lower role waited: %s %+v", r, g)
	}
	rejected := post(&adam, "/console/operators", url.Values{"name": {"omar"}, "role": {"admin"}})
	if rejected.Code != http.StatusOK {
		t.Fatalf("create omar: %d", rejected.Code)
	}
	if rec := post(&adam, "/console/operators/omar/reject", url.Values{}); rec.Code != http.StatusSeeOther {
		t.Fatalf("reject: %d", rec.Code)
	}
	page := serve(h, &bea, http.MethodGet, "/console/operators", nil).Body.String()
	if !regexp.MustCompile(`<td>omar</td><td>admin</td>\s*<td><span class="st bad">disabled</span>`).MatchString(page) {
		t.Errorf("a rejected new operator is not disabled:\n%s", page)
	}
	if !regexp.MustCompile(`<td>omar</td>[\s\S]*?<span class="st wait">none yet</span>`).MatchString(page) ||
		strings.Contains(page, "/console/operators/omar/reset_second_factor") {
		t.Errorf("an operator who never enrolled shows a second factor, or its reset:\n%s", page)
	}
	auditShows(t, h, &bea, "object=operator:nina", "operator.create", "awaiting a second admin", "operator.grant_approve", "operator.role",
		"officer to admin", "admin to viewer")
}

// TestTheReportsShowThePortfolio: the portfolio by partner with the loans' principal, and its
// CSV export.
func TestTheReportsShowThePortfolio(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	_, loan := e.issuedLoan(t)
	h, _ := e.console(t)
	viewer := e.as(t, "vic", domain.RoleViewer)
	page := serve(h, &viewer, http.MethodGet, "/console/reports", nil).Body.String()
	if !strings.Contains(page, "<td>acme</td><td>1</td><td>0</td>") || !strings.Contains(page, "PAR 30") {
		t.Fatalf("the portfolio does not show acme's open loan:\n%s", page)
	}
	csv := serve(h, &viewer, http.MethodGet, "/console/reports/portfolio.csv", nil).Body.String()
	row := fmt.Sprintf(`"acme","1","0","%d"`, loan.Amount().Tiyin())
	if !strings.HasPrefix(csv, "\ufeff\"business_date\"") || strings.Count(csv, "\r\n") != 3 || !strings.Contains(csv, row) ||
		!strings.Contains(csv, "\"all partners\"") {
		t.Fatalf("the portfolio's CSV lacks %s:\n%s", row, csv)
	}
}

// TestAPINFLSearchOpensTheClientView: a PINFL searched for leads to the client's page by its
// blind index (the number is in no link or page), which lists the person's applications and
// loans; the search and the view are audited.
func TestAPINFLSearchOpensTheClientView(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	a, loan := e.issuedLoan(t)
	h, _ := e.console(t)
	viewer := e.as(t, "vic", domain.RoleViewer)
	found := serve(h, &viewer, http.MethodGet, "/console/search?q=31234567890123", nil)
	to := found.Header().Get("Location")
	if found.Code != http.StatusSeeOther || !regexp.MustCompile(`^/console/clients/[0-9a-f]{64}$`).MatchString(to) {
		t.Fatalf("the search: %d %q", found.Code, to)
	}
	page := serve(h, &viewer, http.MethodGet, to, nil).Body.String()
	if !strings.Contains(page, a.ID().String()) || !strings.Contains(page, loan.ID().String()) || strings.Contains(page, "31234567890123") {
		t.Fatalf("the client's page:\n%s", page)
	}
	if rec := serve(h, &viewer, http.MethodGet, "/console/clients/"+strings.Repeat("ab", 32), nil); rec.Code != http.StatusNotFound {
		t.Fatalf("nobody's page: %d", rec.Code)
	}
	if rec := serve(h, &viewer, http.MethodGet, "/console/clients/not-an-index", nil); rec.Code != http.StatusNotFound {
		t.Fatalf("a malformed reference: %d", rec.Code)
	}
	auditShows(t, h, &viewer, "", "search.pinfl", "pinfl:31••••••••••23", "client.view")
}

// TestEveryViewAgesALoanOnItsPartnersClock: a sandbox partner's clock moved 140 days ahead
// makes its loan overdue on that clock; the loans list's overdue filter, the CSV's
// days_overdue and the report's PAR agree with the loan's page.
func TestEveryViewAgesALoanOnItsPartnersClock(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	_, loan := e.issuedLoan(t)
	clock, ctx := e.clock, context.Background()
	if _, err := clock.Advance(ctx, e.pid, 140*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := clock.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	due, _, _ := loan.FirstUnpaidDue()
	days := domain.DaysBetween(due, domain.BusinessDate(clock.Now(e.pid)))
	if days < 100 {
		t.Fatalf("the loan is %d days overdue on the partner's clock, want more than 100", days)
	}
	h, _ := e.console(t)
	viewer := e.as(t, "vic", domain.RoleViewer)
	page := serve(h, &viewer, http.MethodGet, "/console/loans/"+loan.ID().String(), nil).Body.String()
	if !strings.Contains(page, fmt.Sprintf("%d days overdue", days)) {
		t.Fatalf("the loan's page does not say %d days overdue", days)
	}
	list := serve(h, &viewer, http.MethodGet, "/console/loans?overdue=1", nil).Body.String()
	if !strings.Contains(list, loan.ID().String()) || !strings.Contains(list, fmt.Sprintf(`<span class="st bad">%d</span>`, days)) {
		t.Errorf("the list of loans overdue at least a day lacks the loan, %d days overdue:\n%s", days, list)
	}
	csv := serve(h, &viewer, http.MethodGet, "/console/loans.csv?overdue=1", nil).Body.String()
	if !strings.Contains(csv, loan.ID().String()) || !strings.Contains(csv, fmt.Sprintf(`"%d"`, days)) {
		t.Errorf("the CSV does not say the loan is %d days overdue:\n%s", days, csv)
	}
	reports := serve(h, &viewer, http.MethodGet, "/console/reports", nil).Body.String()
	if !strings.Contains(reports, "100.00 %") {
		t.Errorf("the report's PAR is not 100 %% with the one loan overdue:\n%s", reports)
	}
}

// TestTheDashboardAndMoneyByDaySpeakUzbek: the dashboard names kinds of object, and the
// chart's bars their series and sums, in Uzbek; no raw identifier, no English, no ASCII okina.
func TestTheDashboardAndMoneyByDaySpeakUzbek(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	e.issuedLoan(t)
	h, _ := e.console(t)
	viewer := e.as(t, "vic", domain.RoleViewer)
	dash := serveLang(h, &viewer, "/console/", "uz").Body.String()
	if !strings.Contains(dash, `<span class="kind">Kredit</span>`) || strings.Contains(dash, `<span class="kind">loan</span>`) {
		t.Errorf("the dashboard's counts do not name loans in Uzbek:\n%s", dash)
	}
	reports := serveLang(h, &viewer, "/console/reports", "uz").Body.String()
	titles := regexp.MustCompile(`<title>([^<]*)</title>`).FindAllStringSubmatch(reports, -1)
	if len(titles) < 3 {
		t.Fatalf("the chart has %d bars", len(titles))
	}
	for _, m := range titles[1:] {
		if strings.Contains(m[1], "issued") || strings.Contains(m[1], "so'm") || !strings.Contains(m[1], "soʻm") {
			t.Errorf("a bar's title is not Uzbek: %q", m[1])
		}
	}
}

// TestEachListExportsItsOwnColumns: the repayments' CSV has each payment's channel, receipt,
// split and recovery flag; the loans' CSV the principal outstanding and the overdue amounts,
// and the client's name and phones for an officer but not a viewer; every amount is a plain
// number of tiyin.
func TestEachListExportsItsOwnColumns(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	_, loan := e.issuedLoan(t)
	h, _ := e.console(t)
	alice, bob := e.as(t, "ann", domain.RoleOfficer), e.as(t, "bob", domain.RoleOfficer)
	viewer := e.as(t, "vic", domain.RoleViewer)
	form := url.Values{"kind": {"MANUAL_REPAYMENT"}, "amount": {"1 234 567.89"}, "type": {"EARLY"}, "channel": {"CASH_DESK"},
		"ref": {"KASSA-77"}, "reason": {"paid at the cash desk"}, "csrf": {alice.csrf}}
	if rec := serve(h, &alice, http.MethodPost, "/console/loans/"+loan.ID().String()+"/propose", form); rec.Code != http.StatusSeeOther {
		t.Fatalf("propose: %d %s", rec.Code, rec.Body.String())
	}
	props, err := store.NewProposalRepository(e.db).List(context.Background(), loan.ID(), 5)
	if err != nil || len(props) != 1 {
		t.Fatalf("%v %v", props, err)
	}
	if rec := serve(h, &bob, http.MethodPost, "/console/proposals/"+props[0].ID.String()+"/approve", url.Values{"csrf": {bob.csrf}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("approve: %d %s", rec.Code, rec.Body.String())
	}
	csv := serve(h, &viewer, http.MethodGet, "/console/repayments.csv?status=PAID", nil).Body.String()
	lines := strings.Split(strings.TrimSuffix(csv, "\r\n"), "\r\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"channel","network","receipt","principal_tiyin","interest_tiyin","penalty_tiyin","recovery"`) {
		t.Fatalf("the repayments' CSV:\n%s", csv)
	}
	if !strings.Contains(lines[1], `"123456789"`) || !strings.Contains(lines[1], `"EARLY","CASH_DESK","","KASSA-77","`) ||
		!strings.HasSuffix(lines[1], `"false"`) {
		t.Errorf("the repayment's line: %s", lines[1])
	}
	fields := strings.Split(strings.Trim(lines[1], `"`), `","`)
	principal, _ := strconv.ParseInt(fields[len(fields)-4], 10, 64)
	interest, _ := strconv.ParseInt(fields[len(fields)-3], 10, 64)
	if principal <= 0 || principal+interest != 123_456_789 {
		t.Errorf("the repayment's split: principal %d, interest %d", principal, interest)
	}
	for who, s := range map[string]*operatorSession{"viewer": &viewer, "officer": &alice} {
		csv := serve(h, s, http.MethodGet, "/console/loans.csv", nil).Body.String()
		lines := strings.Split(strings.TrimSuffix(csv, "\r\n"), "\r\n")
		if len(lines) != 2 || !strings.Contains(lines[0], `"principal_outstanding_tiyin","overdue_principal_tiyin"`) ||
			strings.Contains(csv, "so'm") || regexp.MustCompile(`"\d+ \d`).MatchString(csv) {
			t.Fatalf("%s: the loans' CSV:\n%s", who, csv)
		}
		if want := fmt.Sprintf(`"%d"`, loan.Amount().Tiyin()-principal); !strings.Contains(lines[1], want) {
			t.Errorf("%s: the loan's line lacks the principal outstanding %s: %s", who, want, lines[1])
		}
		withContacts := strings.Contains(lines[0], `"client_name","phone","backup_phone"`) && strings.Contains(lines[1], "KARIMOV AZIZ") &&
			strings.Contains(lines[1], "998935550303")
		if withContacts != (who == "officer") || (who == "viewer" && strings.Contains(csv, "KARIMOV")) {
			t.Errorf("%s: the client's contacts shown %t:\n%s", who, withContacts, csv)
		}
	}
}

// TestARestructuringCapitalisingTheArrearsLeavesNothingOverdue (issue 47, 12): a loan 100 days
// overdue on its partner's clock is previewed, proposed and approved as a longer term that
// capitalises its arrears; the loan then has no overdue item, leaves its PAR bucket, and the
// posting books the capitalised charges.
func TestARestructuringCapitalisingTheArrearsLeavesNothingOverdue(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	_, loan := e.issuedLoan(t)
	ctx := context.Background()
	if _, err := e.clock.Advance(ctx, e.pid, 130*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := e.clock.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	h, _ := e.console(t)
	ann, bob := e.as(t, "ann", domain.RoleOfficer), e.as(t, "bob", domain.RoleOfficer)
	path := "/console/loans/" + loan.ID().String()
	expect(t, "the loan's page", serve(h, &ann, http.MethodGet, path, nil), http.StatusOK, "days overdue", `value="RESTRUCTURE_ARREARS"`,
		"Longer term, arrears capitalised")
	if !strings.Contains(serve(h, &ann, http.MethodGet, "/console/reports", nil).Body.String(), "PAR 1</b> 100.00 %") {
		t.Fatal("the loan is not at risk before")
	}
	terms := url.Values{"kind": {"RESTRUCTURE_ARREARS"}, "months": {"6"}, "reason": {"income fell, letter 9"}}
	expect(t, "the preview", serve(h, &ann, http.MethodGet, path+"/preview?"+terms.Encode(), nil), http.StatusOK,
		"ARREARS_CAPITALISATION", "INTEREST_INCOME", "LOAN:"+loan.ID().String())
	terms.Set("csrf", ann.csrf)
	if rec := serve(h, &ann, http.MethodPost, path+"/propose", terms); rec.Code != http.StatusSeeOther {
		t.Fatalf("propose: %d %s", rec.Code, rec.Body.String())
	}
	props, err := store.NewProposalRepository(e.db).List(ctx, loan.ID(), 5)
	if err != nil || len(props) != 1 {
		t.Fatalf("%v %v", props, err)
	}
	if rec := serve(h, &bob, http.MethodPost, "/console/proposals/"+props[0].ID.String()+"/approve", url.Values{"csrf": {bob.csrf}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("approve: %d %s", rec.Code, rec.Body.String())
	}
	page := expect(t, "the loan's page after", serve(h, &ann, http.MethodGet, path, nil), http.StatusOK, "ARREARS_CAPITALISATION")
	if strings.Contains(page, "days overdue") || strings.Contains(page, `<span class="st bad">overdue`) {
		t.Error("the loan is still overdue after its arrears were capitalised")
	}
	if reports := serve(h, &ann, http.MethodGet, "/console/reports", nil).Body.String(); !strings.Contains(reports, "PAR 1</b> 0.00 %") {
		t.Error("the loan did not leave its PAR bucket")
	}
	if list := serve(h, &ann, http.MethodGet, "/console/loans?overdue=1", nil).Body.String(); strings.Contains(list, loan.ID().String()) {
		t.Error("the loan is still listed as overdue")
	}
	if check, err := e.app.Operations.CheckLedger.Handle(ctx); err != nil || !check.OK() {
		t.Errorf("the ledger check: %+v %v", check, err)
	}
	// The loan's account holds what the schedule shows outstanding: the capitalised charges in it.
	after, err := e.loans.Get(ctx, loan.ID())
	if err != nil {
		t.Fatal(err)
	}
	pos, _ := after.PositionAt(e.clock.Now(e.pid))
	accounts, err := store.NewBackOffice(e.db).Accounts(ctx, loan.ID())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range accounts {
		if a.Key == "LOAN:"+loan.ID().String() {
			found = true
			if a.Balance != pos.NotDuePrincipal+pos.OverduePrincipal || a.Balance <= loan.Amount().Tiyin() {
				t.Errorf("the loan account holds %d, the schedule %d", a.Balance, pos.NotDuePrincipal+pos.OverduePrincipal)
			}
		}
	}
	if !found {
		t.Errorf("no loan account among %+v", accounts)
	}
}
