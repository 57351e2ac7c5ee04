package e2e

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/test/tiyintest"
)

// The operator console over real HTTP against the built binary: operators made with the CLI,
// logins with a second factor, the throttle, CSRF, roles, the pages and the maker-checker resolution of an unknown
// gateway outcome, all in the audit log.

// console is a tiyin started with a known admin address.
type consoleServer struct {
	*server
	admin string
}

func startConsole(t *testing.T, d store.Dialect) *consoleServer {
	t.Helper()
	admin := freeAddr(t)
	return &consoleServer{server: start(t, d, "TIYIN_ADMIN_ADDR="+admin), admin: "http://" + admin}
}

// operator creates an operator with the CLI and returns the one-time password.
func (s *consoleServer) operator(t *testing.T, name, role string) string {
	t.Helper()
	cmd := exec.Command(binary, "operator", "create", name, "--role", role, "--json")
	cmd.Env = s.env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("operator create: %v", err)
	}
	var r struct{ Password string }
	if err := json.Unmarshal(out, &r); err != nil || len(r.Password) < 16 {
		t.Fatalf("operator create printed %q", out)
	}
	return r.Password
}

// browser is one operator's cookie jar.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
}

func (s *consoleServer) browser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: s.admin, c: &http.Client{Jar: jar, Timeout: 20 * time.Second}}
}

// browserFrom is a browser whose connections come from another loopback address (Linux
// routes all of 127.0.0.0/8 to the loopback interface), as another machine's would.
func (s *consoleServer) browserFrom(t *testing.T, local string) *browser {
	b := s.browser(t)
	d := &net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	b.c.Transport = &http.Transport{DialContext: d.DialContext}
	return b
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// get answers a page's status and body.
func (b *browser) get(path string) (int, string) {
	b.t.Helper()
	resp, err := b.c.Get(b.base + path)
	if err != nil {
		b.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		b.t.Fatalf("%s: CSP %q", path, csp)
	}
	return resp.StatusCode, string(body)
}

// post sends a form with the CSRF token found on page from (unless csrf is given).
func (b *browser) post(path string, form url.Values) (int, string) {
	b.t.Helper()
	resp, err := b.c.PostForm(b.base+path, form)
	if err != nil {
		b.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// csrf reads the token of the forms on a page.
func (b *browser) csrf(path string) string {
	b.t.Helper()
	_, body := b.get(path)
	m := csrfField.FindStringSubmatch(body)
	if m == nil {
		b.t.Fatalf("%s has no form token:\n%s", path, body)
	}
	return m[1]
}

// login fills the login form; code is the second factor's, empty at a first login.
func (b *browser) login(name, password, code string) (int, string) {
	return b.post("/console/login", url.Values{"csrf": {b.csrf("/console/login")}, "name": {name}, "password": {password}, "code": {code}})
}

var secretText = regexp.MustCompile(`<code class="key secret">([A-Z2-7 ]+)</code>`)

// setUp does what a first login asks after the one-time password: choose a password, then
// enrol a second factor from the secret the enrolment page shows; it returns the operator's
// authenticator app.
func (b *browser) setUp(old, pw string) *tiyintest.Authenticator {
	b.t.Helper()
	status, body := b.post("/console/password", url.Values{"csrf": {b.csrf("/console/password")}, "old": {old}, "new": {pw}, "again": {pw}})
	if status != 200 {
		b.t.Fatalf("password change: %d\n%s", status, body)
	}
	return b.enrol(body)
}

// enrol enrols a second factor from the enrolment page's secret, and returns the app.
func (b *browser) enrol(page string) *tiyintest.Authenticator {
	b.t.Helper()
	secret := secretText.FindStringSubmatch(page)
	if secret == nil {
		b.t.Fatalf("no enrolment:\n%s", page)
	}
	app := tiyintest.NewAuthenticator(secret[1])
	status, body := b.post("/console/second-factor", url.Values{"csrf": {csrfField.FindStringSubmatch(page)[1]}, "code": {app.Code()}})
	if status != 200 || strings.Count(body, "<li><code>") != domain.RecoveryCodes {
		b.t.Fatalf("the enrolment: %d\n%s", status, body)
	}
	return app
}

// registerPhone registers a client with its own phone number.
func (s *server) registerPhone(t *testing.T, pinfl, phone string) string {
	t.Helper()
	r := s.must(t, "/microloans/applications/pre-scoring/register", map[string]any{
		"externalId": uuid.NewString(), "isAgreementAccepted": true, "phoneNumber": phone, "clientData": clientData(pinfl)})
	return r["applicationId"].(string)
}

// unknownIssuance walks an application to LOAN_ISSUANCE, where the sandbox loses core
// banking's answers (a PINFL ending 6669): its outcome is unknown for minutes.
func (s *server) unknownIssuance(t *testing.T, phone string) string {
	t.Helper()
	id := s.registerPhone(t, "31234567816669", phone)
	s.waitFor(t, id, "PENDING", nil)
	s.must(t, "/microloans/applications/verify", verifyParams(id, 100_000_000))
	s.must(t, "/microloans/applications/issue", map[string]any{"applicationId": id, "clientData": clientData("31234567816669")})
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && s.info(t, id).Stage != "LOAN_ISSUANCE/IN_PROGRESS" {
		time.Sleep(100 * time.Millisecond)
	}
	return id
}

func TestConsoleOperatorsRolesAndMakerChecker(t *testing.T) {
	t.Parallel()
	s := startConsole(t, store.SQLite)
	const phone = "998935550101"
	id := s.unknownIssuance(t, phone)

	// Logins: the first asks for a new password, then a second factor.
	alicePW := s.operator(t, "alice", "officer")
	alice := s.browser(t)
	if status, body := alice.login("alice", alicePW, ""); status != 200 || !strings.Contains(body, "Change your password") {
		t.Fatalf("alice's first login: %d", status)
	}
	if status, body := alice.post("/console/password", url.Values{"csrf": {alice.csrf("/console/password")}, "old": {alicePW}, "new": {"short"}, "again": {"short"}}); status != http.StatusConflict || !strings.Contains(body, "12 characters") {
		t.Fatalf("a short password: %d", status)
	}
	alice.setUp(alicePW, "alice-long-password-1")

	bobPW := s.operator(t, "bob", "officer")
	// Mallory's wrong passwords make her address wait, with the answer of any wrong password
	// or unknown name; bob, from his own address, is not locked out.
	mallory := s.browserFrom(t, "127.0.0.2")
	for i := 1; i <= 5; i++ {
		if status, _ := mallory.login("bob", "wrong-password", ""); status != http.StatusUnauthorized {
			t.Fatalf("wrong password %d: %d, want 401", i, status)
		}
	}
	wrong, _ := mallory.login("nobody", "x", "")
	waiting, body := mallory.login("bob", bobPW, "")
	if wrong != http.StatusUnauthorized || waiting != http.StatusUnauthorized || !strings.Contains(body, "too many attempts") {
		t.Fatalf("an unknown name %d, the right password while waiting %d: want both 401, alike", wrong, waiting)
	}
	reset := exec.Command(binary, "operator", "reset-password", "bob", "--json")
	reset.Env = s.env
	out, err := reset.Output()
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ Password string }
	_ = json.Unmarshal(out, &r)
	bob := s.browser(t)
	if status, _ := bob.login("bob", r.Password, ""); status != 200 {
		t.Fatalf("bob after the reset: %d", status)
	}
	bob.setUp(r.Password, "bob-long-password-22")

	// A viewer reads but may not act, reveal or approve.
	vicPW := s.operator(t, "vic", "viewer")
	vic := s.browser(t)
	vic.login("vic", vicPW, "")
	vic.setUp(vicPW, "vic-long-password-333")

	// Search by phone finds the application (by its blind index) and goes to its page.
	status, body := alice.get("/console/search?q=" + phone)
	if status != 200 || !strings.Contains(body, id) || !strings.Contains(body, "Outcome unknown since") {
		t.Fatalf("search by phone: %d\n%s", status, body)
	}
	if !regexp.MustCompile(`<td>LOAN_ISSUANCE</td><td><span class="st wait">UNKNOWN</span>`).MatchString(body) ||
		!regexp.MustCompile(`<td>OPEN_ACCOUNT</td><td><span class="st good">DONE</span>`).MatchString(body) {
		t.Fatalf("the gateway attempts are not on the page:\n%s", body)
	}
	if strings.Contains(body, "KARIMOV") || strings.Contains(body, phone) {
		t.Fatal("personal data must be masked on the application's page")
	}

	// CSRF: a form without the session's token is refused.
	if status, _ := alice.post("/console/applications/"+id+"/retry", url.Values{"csrf": {"forged"}}); status != http.StatusForbidden {
		t.Fatalf("a forged form: %d", status)
	}
	token := alice.csrf("/console/applications/" + id)
	if status, body := alice.post("/console/applications/"+id+"/retry", url.Values{"csrf": {token}}); status != 200 || !strings.Contains(body, "will run again") {
		t.Fatalf("retry: %d\n%s", status, body)
	}
	if status, body := alice.post("/console/applications/"+id+"/reveal", url.Values{"csrf": {token}}); status != 200 || !strings.Contains(body, "KARIMOV") || !strings.Contains(body, phone) {
		t.Fatalf("reveal: %d\n%s", status, body)
	}
	vicToken := vic.csrf("/console/applications/" + id)
	if status, _ := vic.post("/console/applications/"+id+"/reveal", url.Values{"csrf": {vicToken}}); status != http.StatusForbidden {
		t.Fatalf("a viewer's reveal: %d", status)
	}

	// Maker-checker: alice proposes "not done", may not approve it herself; bob approves.
	propose := url.Values{"csrf": {token}, "outcome": {"not_done"}, "note": {"core banking (Dilshod, ext. 214) says the loan was never opened"}}
	if status, body := alice.post("/console/applications/"+id+"/propose", propose); status != 200 || !strings.Contains(body, "Another officer approves") {
		t.Fatalf("propose: %d\n%s", status, body)
	}
	if status, _ := alice.post("/console/applications/"+id+"/propose", propose); status != http.StatusConflict {
		t.Fatalf("a second proposal on the same object: %d", status)
	}
	// The maker is shown no Approve button, but that a second officer is awaited (issue 47, 11);
	// the approval itself still refuses her.
	_, page := alice.get("/console/applications/" + id)
	approveLink := regexp.MustCompile(`/console/proposals/([0-9a-f-]{36})/approve`)
	if approveLink.MatchString(page) || !strings.Contains(page, "Waiting for a second officer.") {
		t.Fatalf("the maker's page offers her own proposal's approval, or does not say it waits:\n%s", page)
	}
	_, page = bob.get("/console/applications/" + id)
	proposal := approveLink.FindStringSubmatch(page)
	if proposal == nil {
		t.Fatalf("no proposal to approve on the page:\n%s", page)
	}
	if status, body := alice.post("/console/proposals/"+proposal[1]+"/approve", url.Values{"csrf": {token}}); status != http.StatusConflict || !strings.Contains(body, "another officer") {
		t.Fatalf("self-approval: %d", status)
	}
	if status, _ := vic.post("/console/proposals/"+proposal[1]+"/approve", url.Values{"csrf": {vicToken}}); status != http.StatusForbidden {
		t.Fatalf("a viewer's approval: %d", status)
	}
	bobToken := bob.csrf("/console/")
	if status, body := bob.post("/console/proposals/"+proposal[1]+"/approve", url.Values{"csrf": {bobToken}, "back": {"/console/applications/" + id}}); status != 200 || !strings.Contains(body, "approved and applied") {
		t.Fatalf("bob's approval: %d\n%s", status, body)
	}
	if got := s.info(t, id); got.Status != "FAILED" || got.ErrorCode != 1027 {
		t.Fatalf("after the approved resolution the partner sees %+v, want FAILED/1027", got)
	}
	if status, _ := bob.post("/console/proposals/"+proposal[1]+"/approve", url.Values{"csrf": {bobToken}}); status != http.StatusConflict {
		t.Fatalf("a second approval: %d", status)
	}

	// Every page answers; the ledger check passes.
	for _, path := range []string{"/console/", "/console/ledger", "/console/ledger?check=1", "/console/partners", "/console/partners/sandbox",
		"/console/audit", "/console/audit?operator=bob", "/console/applications/" + id, "/console/search?q=" + id} {
		if status, body := vic.get(path); status != 200 || strings.Contains(body, "went wrong") {
			t.Fatalf("%s: %d\n%s", path, status, body)
		}
	}
	if _, body := vic.get("/console/ledger?check=1"); !strings.Contains(body, "The ledger is consistent") {
		t.Fatal("the ledger check did not pass")
	}
	if status, _ := vic.get("/console/applications/" + uuid.NewString()); status != http.StatusNotFound {
		t.Fatalf("an unknown application: %d", status)
	}

	// The audit log has it all, and exports it.
	resp, err := vic.c.Get(vic.base + "/console/audit.csv")
	if err != nil {
		t.Fatal(err)
	}
	export, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	body, ok := strings.CutPrefix(string(export), "\ufeff") // the byte order mark Excel needs to read UTF-8
	if !ok {
		t.Fatal("the audit CSV does not start with a UTF-8 byte order mark")
	}
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, row := range rows[1:] {
		seen[row[2]+" "+row[4]] = true
	}
	for _, want := range []string{"cli operator.create", "alice login", "bob login.failed", "alice application.retry_stage",
		"alice application.reveal_personal_data", "alice proposal.create", "bob proposal.approve", "cli operator.reset_password"} {
		if !seen[want] {
			t.Errorf("the audit log lacks %q; it has %v", want, seen)
		}
	}

	// Logging out ends the session on the server: the old cookie no longer works.
	if status, _ := bob.post("/console/logout", url.Values{"csrf": {bobToken}}); status != 200 {
		t.Fatalf("logout: %d", status)
	}
	if _, body := bob.get("/console/"); !strings.Contains(body, "Log in") {
		t.Fatal("a logged-out session still opens the dashboard")
	}
}

// TestTheBreakGlassResetsASecondFactorAtOnce (issue 46): `tiyin operator reset-second-factor`,
// run on the host, removes an operator's second factor at once, without a second admin: their
// sessions end, their next login enrols a new one, and the audit log names it the break glass,
// by cli. reset-password's help says what it does: no lockout to lift, the second factor stays.
func TestTheBreakGlassResetsASecondFactorAtOnce(t *testing.T) {
	t.Parallel()
	s := startConsole(t, store.SQLite)
	const password = "dina-long-password-1"
	pw := s.operator(t, "dina", "admin")
	dina := s.browser(t)
	dina.login("dina", pw, "")
	app := dina.setUp(pw, password)
	if status, _ := s.browser(t).login("dina", password, ""); status != http.StatusUnauthorized {
		t.Fatalf("a password alone after the enrolment: %d", status)
	}
	if status, body := s.browser(t).login("dina", password, app.Code()); status != 200 || !strings.Contains(body, "Needs attention") {
		t.Fatalf("the password and a code: %d", status)
	}
	cli := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(binary, args...)
		cmd.Env = s.env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("tiyin %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := cli("operator", "reset-second-factor", "dina"); !strings.Contains(out, "break glass") {
		t.Fatalf("reset-second-factor printed %q", out)
	}
	if _, body := dina.get("/console/"); !strings.Contains(body, "Log in") {
		t.Fatal("dina's session outlived the break glass")
	}
	again := s.browser(t)
	status, body := again.login("dina", password, "")
	if status != 200 || !strings.Contains(body, "Set up your second factor") {
		t.Fatalf("dina's next login: %d\n%s", status, body)
	}
	again.enrol(body)
	if _, csv := again.get("/console/audit.csv?action=operator.second_factor.break_glass"); !strings.Contains(csv, `"cli","local","operator.second_factor.break_glass","operator:dina"`) {
		t.Fatalf("the break glass is not audited as such:\n%s", csv)
	}
	if help := cli("operator", "reset-password", "--help"); strings.Contains(help, "lifts a lockout") || !strings.Contains(help, "second factor stays") {
		t.Fatalf("reset-password --help:\n%s", help)
	}
}

// TestConsoleListsOverAWholeFlow: after a whole microloan flow (a loan, its transfer, a
// repayment, an attached card), each list shows its object, in its status, and exports it.
func TestConsoleListsOverAWholeFlow(t *testing.T) {
	t.Parallel()
	admin := freeAddr(t)
	s := &consoleServer{server: start(t, store.Postgres, "TIYIN_ADMIN_ADDR="+admin, "TIYIN_LOAN_CONTRACT_DELAY=1s"), admin: "http://" + admin}
	o := tiyintest.Flow(flowCaller{t, s.server}, 100*time.Millisecond)
	if o.Err != nil || o.TransferStatus != "SUCCESS" || o.Repayment != "SUCCESS" || o.Card != "ACTIVE" {
		t.Fatalf("flow: %+v", o)
	}
	vic := s.browser(t)
	pw := s.operator(t, "vic", "viewer")
	if status, _ := vic.login("vic", pw, ""); status != 200 {
		t.Fatalf("login: %d", status)
	}
	vic.setUp(pw, "vic-long-password-1")
	for _, l := range []struct{ path, want string }{
		{"/console/applications?status=COMPLETED&partner=sandbox", o.App},
		{"/console/loans?status=OPEN&sort=amount", o.LoanID},
		{"/console/transfers?status=SUCCESS", "SUCCESS"},
		{"/console/repayments?status=PAID", "PAID"},
		{"/console/cards?status=ACTIVE", "ACTIVE"},
		{"/console/card-orders", "Nothing matches."},
		{"/console/reports", "PAR 30"},
	} {
		status, body := vic.get(l.path)
		if status != 200 || !strings.Contains(body, l.want) {
			t.Errorf("%s: %d, want %q on the page", l.path, status, l.want)
		}
	}
	// Today's row of the daily report counts the flow's loan, repayment and transfer.
	today := time.Now().In(domain.Tashkent).Format(time.DateOnly)
	if _, body := vic.get("/console/reports?from=" + today + "&to=" + today); !regexp.MustCompile(
		`<td>` + today + `</td><td>1</td><td>[0-9 .]+</td><td>1</td><td>[0-9 .]+</td><td>1</td>`).MatchString(body) {
		t.Errorf("the daily report does not count today's loan, repayment and transfer:\n%s", body)
	}
	resp, err := vic.c.Get(vic.base + "/console/transfers.csv?status=SUCCESS")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	csv, _ := io.ReadAll(resp.Body)
	if lines := strings.Count(string(csv), "\r\n"); resp.StatusCode != 200 || lines != 2 || !strings.HasPrefix(string(csv), "\ufeff") {
		t.Errorf("the transfers' export: %d, %d lines:\n%s", resp.StatusCode, lines, csv)
	}
}
