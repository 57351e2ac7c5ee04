package console_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
	"github.com/tiyin/tiyin/domain"
)

// hostileValues are what an attacker types into a console field or query string: markup,
// script, SQL, traversal, encodings, control characters, huge and odd values.
var hostileValues = []string{
	`<script>alert(1)</script>`, `"><img src=x onerror=alert(1)>`, `javascript:alert(1)`,
	`' OR '1'='1`, `'; DROP TABLE operators; --`, `1; SELECT pg_sleep(5)`,
	`../../../../etc/passwd`, `%2e%2e%2f%2e%2e%2f`, `%00`, "\x00", "a\r\nSet-Cookie: x=y",
	`{{.}}`, `${7*7}`, `=cmd|' /C calc'!A0`, strings.Repeat("A", 70_000), "😀\u202e\ufeff", `\u0000`,
	`-1`, `99999999999999999999999999`, `NaN`, `0x41`, `[]`, `{}`, `null`, ` `,
}

// TestConsoleHostileInputs sends each hostile value in every query string, path id and form
// field of the console, logged out and as an officer, with and without the CSRF token: no
// answer is a server error, shows a stack trace, echoes markup unescaped, or changes anything
// without a valid token. It prints how many cases it sent (make test shows the line).
func TestConsoleHostileInputs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	a := e.issuedApplication(t)
	h, _ := e.console(t)
	officer := e.as(t, "olga", domain.RoleOfficer)
	rows := func() int64 {
		var n, total int64
		for _, table := range []string{"operators", "operator_sessions", "operator_factors", "operator_recovery_codes", "proposals",
			"applications", "partners", "events"} {
			if err := e.db.Gorm.Table(table).Count(&n).Error; err != nil {
				t.Fatal(err)
			}
			total += n
		}
		return total
	}
	cases := 0
	check := func(what string, rec *httptest.ResponseRecorder, v string) {
		t.Helper()
		cases++
		body := rec.Body.String()
		switch {
		case rec.Code >= 500:
			t.Errorf("%s: %d", what, rec.Code)
		case strings.Contains(body, "goroutine ") || strings.Contains(body, "panic") || strings.Contains(body, ".go:"):
			t.Errorf("%s: a stack trace in the answer", what)
		case strings.ContainsAny(v, "<>\"") && len(v) < 1000 && strings.Contains(body, v):
			t.Errorf("%s: the value is echoed unescaped", what)
		}
	}
	app := "/console/applications/" + a.ID().String()
	gets := []string{"/console/", "/console/search?q=", "/console/applications/", "/console/loans/", "/console/transfers/",
		"/console/repayments/", "/console/card-orders/", "/console/cards/", "/console/ledger?account=", "/console/partners/",
		"/console/audit?operator=", "/console/audit?action=", "/console/audit?from=", "/console/audit?before=", "/console/audit.csv?object=",
		"/console/login?next=", app + "?done=",
		"/console/applications?status=", "/console/applications?partner=", "/console/applications?from=", "/console/applications?to=",
		"/console/loans?min=", "/console/loans?max=", "/console/loans?sort=", "/console/loans?after=", "/console/loans.csv?status=",
		"/console/applications.csv?after=", "/console/loans?overdue=", "/console/clients/", "/console/reports?from=",
		"/console/second-factor?done=", "/console/second-factor/qr.png?size="}
	posts := []struct {
		path   string
		fields []string
	}{
		{app + "/propose", []string{"outcome", "note"}},
		{app + "/verify", []string{"outcome", "note"}},
		{app + "/retry", []string{"back"}},
		{"/console/proposals/x/approve", []string{"note"}},
		{"/console/events/x/resend", []string{"back"}},
		{"/console/partners/acme/disable", []string{"reason"}},
		{"/console/password", []string{"old", "new", "again"}},
		{"/console/second-factor", []string{"code"}},
		{"/console/operators/olga/reset_second_factor", []string{"confirm"}},
	}
	before := rows()
	for _, v := range hostileValues {
		q := url.QueryEscape(v)
		for _, g := range gets {
			for _, who := range []*operatorSession{nil, &officer} {
				check("GET "+g+"…", serve(h, who, http.MethodGet, g+q, nil), v)
			}
		}
		for _, p := range posts {
			for _, token := range []string{"", v} { // no CSRF token, a forged one: nothing may change
				form := url.Values{"csrf": {token}}
				for _, f := range p.fields {
					form.Set(f, v)
				}
				check("POST "+p.path, serve(h, &officer, http.MethodPost, p.path, form), v)
			}
		}
		check("POST /console/login", serve(h, nil, http.MethodPost, "/console/login", url.Values{"name": {v}, "password": {v}, "code": {v}, "next": {v}}), v)
	}
	// The audit log may grow (failed logins and refusals are recorded); nothing else may.
	if after := rows(); after != before {
		t.Errorf("hostile inputs without a valid CSRF token changed the database: %d rows, were %d", after, before)
	}
	if !t.Failed() {
		fmt.Printf("console hostile inputs: %d cases, %d values, 0 failed\n", cases, len(hostileValues))
	}
}
