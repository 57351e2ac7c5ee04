// Package console is the operator console: the bank's back office for tiyin, served on the
// admin listener (never the partners'), rendered on the server with html/template. It runs
// no script at all, so its Content-Security-Policy allows none; every action is a plain form
// carrying the session's CSRF token. docs/console.md shows its pages.
package console

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"go.uber.org/zap"

	appconsole "github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

//go:embed templates/*.html static/*
var assets embed.FS

// Prefix is where the console lives on the admin listener.
const Prefix = "/console/"

const (
	sessionCookie = "tiyin_console"
	loginCookie   = "tiyin_console_login"
	// csp allows nothing but the console's own stylesheet and images, and forms posting to itself.
	csp = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)

// Config sets how the console's cookies are sent.
type Config struct {
	// Secure marks cookies Secure (HTTPS only). Off in the sandbox, where the admin listener is
	// plain HTTP on localhost.
	Secure bool
	// Sandbox accepts plain http:// webhook URLs, as the command line does in the sandbox.
	Sandbox bool
}

// Console serves the console's pages.
type Console struct {
	uc   appconsole.Console
	log  *zap.Logger
	cfg  Config
	cat  *catalogue
	tmpl map[string]*template.Template // by language
	mux  *http.ServeMux
}

// New builds the console on the application's use cases.
func New(uc appconsole.Console, log *zap.Logger, cfg Config) *Console {
	c := &Console{uc: uc, log: log, cfg: cfg, mux: http.NewServeMux()}
	cat, err := newCatalogue()
	if err != nil {
		panic(err) // the catalogues are embedded: their test keeps a broken one from shipping
	}
	c.cat, c.tmpl = cat, cat.templates()
	static, _ := fs.Sub(assets, "static")
	c.mux.Handle("GET /console/static/", http.StripPrefix("/console/static/", http.FileServerFS(static)))
	c.mux.HandleFunc("GET /console/login", c.loginForm)
	c.mux.HandleFunc("POST /console/login", c.login)
	c.routes()
	return c
}

// ServeHTTP sets the console's security headers on every answer, then routes.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if r.URL.Path == "/console" {
		http.Redirect(w, r, Prefix, http.StatusFound)
		return
	}
	c.mux.ServeHTTP(w, r)
}

type sessionKey struct{}

// session is the logged-in operator of a request that passed authed.
func session(r *http.Request) appconsole.Session {
	s, _ := r.Context().Value(sessionKey{}).(appconsole.Session)
	return s
}

// authed runs h for a logged-in operator: a request without a live session goes to the login
// page; a form without the session's CSRF token is refused; an operator with a one-time
// password may only change it, and then one without a second factor may only enrol one (or
// log out, or choose the language, in either case).
func (c *Console) authed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ck, err := r.Cookie(sessionCookie)
		if err != nil {
			c.toLogin(w, r)
			return
		}
		s, err := c.uc.Operators.ResumeSession.Handle(r.Context(), ck.Value, clientAddress(r))
		if errors.Is(err, ports.ErrNoSession) {
			c.clearCookie(w, sessionCookie)
			c.toLogin(w, r)
			return
		}
		if err != nil {
			c.fail(w, r, err)
			return
		}
		if r.Method == http.MethodPost {
			if subtle.ConstantTimeCompare([]byte(r.PostFormValue("csrf")), []byte(s.CSRF)) != 1 {
				c.render(w, r, http.StatusForbidden, "error", page{Title: msg("Refused"), Session: &s,
					Err: msg("This form has expired or did not come from the console. Go back, reload the page and try again.")})
				return
			}
		}
		if to := firstStep(s); to != "" && r.URL.Path != to && !strings.HasPrefix(r.URL.Path, to+"/") && !alwaysOpen[r.URL.Path] {
			http.Redirect(w, r, to, http.StatusSeeOther)
			return
		}
		h(w, r.WithContext(context.WithValue(r.Context(), sessionKey{}, s)))
	}
}

// alwaysOpen are the actions a session may take before its first steps: log out, and choose
// the language the steps are explained in.
var alwaysOpen = map[string]bool{"/console/logout": true, "/console/language": true}

// firstStep is the page a session must go through before any other: the password change of a
// one-time password, then the second factor's enrolment; "" when none.
func firstStep(s appconsole.Session) string {
	switch {
	case s.MustChangePassword:
		return "/console/password"
	case s.MustEnrol:
		return enrolPath
	}
	return ""
}

func (c *Console) toLogin(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		c.render(w, r, http.StatusUnauthorized, "error", page{Title: msg("Logged out"), Err: msg("Your session has ended: log in again.")})
		return
	}
	http.Redirect(w, r, "/console/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
}

// loginForm shows the login page. Its form carries a token matched against a cookie (double
// submit), so another site cannot log a browser in under its own account.
func (c *Console) loginForm(w http.ResponseWriter, r *http.Request) {
	token := newToken()
	c.setCookie(w, loginCookie, token, 10*time.Minute)
	c.render(w, r, http.StatusOK, "login", page{Title: msg("Log in"), CSRF: token, Data: safeNext(r.URL.Query().Get("next"))})
}

func (c *Console) login(w http.ResponseWriter, r *http.Request) {
	ck, err := r.Cookie(loginCookie)
	if err != nil || subtle.ConstantTimeCompare([]byte(ck.Value), []byte(r.PostFormValue("csrf"))) != 1 {
		c.render(w, r, http.StatusForbidden, "error", page{Title: msg("Refused"), Err: msg("The login form expired: reload it and log in again.")})
		return
	}
	s, err := c.uc.Operators.LogIn.Handle(r.Context(), appconsole.LogIn{Name: r.PostFormValue("name"), Password: r.PostFormValue("password"),
		Code: r.PostFormValue("code"), Address: clientAddress(r)})
	if err != nil {
		status, text := problem(err)
		if status == http.StatusInternalServerError {
			c.log.Error("console login", zap.Error(err))
		}
		token := newToken()
		c.setCookie(w, loginCookie, token, 10*time.Minute)
		c.render(w, r, status, "login", page{Title: msg("Log in"), CSRF: token, Err: text, Data: safeNext(r.PostFormValue("next"))})
		return
	}
	c.clearCookie(w, loginCookie)
	c.setCookie(w, sessionCookie, s.Token, 0)
	next := firstStep(s)
	if next == "" {
		next = safeNext(r.PostFormValue("next"))
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// newToken is the login form's double-submit token.
func newToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return base64.RawURLEncoding.EncodeToString(b)
}

// safeNext keeps a post-login (or after-action) redirect on the console: only a path that,
// once decoded and cleaned, is a console path, with its query; anything a browser could
// normalise into another host (a backslash, "//", "..", control characters, a scheme) gives
// the dashboard instead.
func safeNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" || u.User != nil ||
		strings.ContainsAny(next, "\\\x00\t\r\n") || strings.ContainsAny(u.Path, "\\\x00\t\r\n") ||
		strings.HasPrefix(u.Path, "//") {
		return Prefix
	}
	clean := path.Clean(u.Path)
	if clean != strings.TrimSuffix(Prefix, "/") && !strings.HasPrefix(clean, Prefix) {
		return Prefix
	}
	if strings.HasSuffix(u.Path, "/") && clean != "/" {
		clean += "/"
	}
	out := &url.URL{Path: clean, RawQuery: u.RawQuery}
	return out.String()
}

func (c *Console) setCookie(w http.ResponseWriter, name, value string, maxAge time.Duration) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/console", HttpOnly: true, Secure: c.cfg.Secure,
		SameSite: http.SameSiteStrictMode, MaxAge: int(maxAge.Seconds())})
}

func (c *Console) clearCookie(w http.ResponseWriter, name string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/console", HttpOnly: true, Secure: c.cfg.Secure,
		SameSite: http.SameSiteStrictMode, MaxAge: -1})
}

// clientAddress is the request's peer address, for the audit log. The admin listener is not
// behind a proxy tiyin knows of, so forwarded headers are not believed.
func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// page is what every template gets. Title, Msg and Err are message ids, shown in Lang.
type page struct {
	Lang    string
	Path    string // the page's own address, for the language switch to come back to
	Title   string
	Session *appconsole.Session
	CSRF    string
	Msg     string
	Err     string
	Data    any
}

// render executes a page template; a template error is logged, never shown.
func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	if p.Session != nil && p.CSRF == "" {
		p.CSRF = p.Session.CSRF
	}
	if p.Msg == "" {
		p.Msg = messages[r.URL.Query().Get("done")]
	}
	p.Path = r.URL.RequestURI()
	if p.Session != nil {
		p.Lang = p.Session.Language
	}
	if p.Lang == "" {
		p.Lang = c.cat.language(r.Header.Get("Accept-Language"))
	}
	p.Title, p.Msg, p.Err = c.cat.tr(p.Lang, p.Title), c.cat.tr(p.Lang, p.Msg), c.cat.tr(p.Lang, p.Err)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Language", p.Lang)
	w.WriteHeader(status)
	if err := c.tmpl[p.Lang].ExecuteTemplate(w, name, p); err != nil {
		c.log.Error("console template", zap.String("template", name), zap.Error(err))
	}
}

// show renders a page for the request's operator.
func (c *Console) show(w http.ResponseWriter, r *http.Request, name, title string, data any) {
	s := session(r)
	c.render(w, r, http.StatusOK, name, page{Title: title, Session: &s, Data: data})
}

// fail answers an error as a page: its status and message come from problem.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, text := problem(err)
	if status == http.StatusInternalServerError {
		c.log.Error("console", zap.String("path", r.URL.Path), zap.Error(err))
	}
	s := session(r)
	var sp *appconsole.Session
	if s.Token != "" {
		sp = &s
		if errors.Is(err, domain.ErrForbidden) {
			if err := c.uc.Actions.AuditRefusal.Handle(r.Context(), s.Operator, r.Method+" "+r.URL.Path); err != nil {
				c.log.Error("console: audit a refusal", zap.String("path", r.URL.Path), zap.Error(err))
			}
		}
	}
	c.render(w, r, status, "error", page{Title: statusTitles[status], Session: sp, Err: text})
}

// messages are the confirmations an action's redirect names (?done=…); nothing the request
// carries is shown as it is.
var messages = map[string]string{
	"retry":            msg("The stage will run again now."),
	"resend":           msg("The event will be delivered again now."),
	"verify":           msg("The phone verification is completed."),
	"verify_noted":     msg("The call is noted: the application waits for another call."),
	"operator":         msg("The operator is changed."),
	"role_pending":     msg("The higher role awaits a second admin's approval."),
	"factor_pending":   msg("The reset of the second factor awaits a second admin's approval."),
	"propose":          msg("The proposal is recorded. Another officer approves or rejects it."),
	"approve":          msg("The proposal is approved and applied."),
	"reject":           msg("The proposal is rejected."),
	"password":         msg("Your password is changed."),
	"partner":          msg("The partner is changed."),
	"audit":            msg("The audit log was verified: its result is below."),
	"reconciled":       msg("The day is reconciled with both networks and core banking, and its books are proved: its breaks are below."),
	"accept_proposed":  msg("The acceptance is proposed. Another officer approves it to book the adjusting entry."),
	"explained":        msg("The break is explained and closed."),
	"explain_proposed": msg("The explanation is proposed: the two sides differ on money, so another officer approves it to close the break."),
	"reopen_proposed":  msg("Reopening is proposed. Another officer approves it to open the break again."),
}

// statusTitles are the error page's titles.
var statusTitles = map[int]string{
	http.StatusBadRequest:          msg("Not accepted"),
	http.StatusUnauthorized:        msg("Not logged in"),
	http.StatusForbidden:           msg("Refused"),
	http.StatusNotFound:            msg("Not found"),
	http.StatusConflict:            msg("Not possible now"),
	http.StatusInternalServerError: msg("Error"),
}

// problem maps an error to an HTTP status and the message an operator reads: the one place
// where the console's errors get their codes. Unknown errors say nothing of their cause.
func problem(err error) (int, string) {
	var validation *domain.ValidationError
	switch {
	case errors.Is(err, domain.ErrBadCredentials):
		return http.StatusUnauthorized, msg("Wrong name, password or code, or too many attempts from this address: check them and try again in a few minutes.")
	case errors.Is(err, domain.ErrApproverCredentials):
		return http.StatusConflict, msg("Refused: whoever made this proposal (or asked for this access) set or reset your password or second factor less than 24 hours ago, so they could be using your account. Another approver decides it.")
	case errors.Is(err, domain.ErrWrongCode):
		return http.StatusBadRequest, msg("The code does not match: type the six digits your app shows now.")
	case errors.Is(err, domain.ErrNoSecondFactor):
		return http.StatusConflict, msg("This operator has no second factor yet: they set one up at their next login.")
	case errors.Is(err, domain.ErrForbidden):
		return http.StatusForbidden, msg("Your role may not do this.")
	case errors.Is(err, domain.ErrSelfApproval), errors.Is(err, domain.ErrProposalClosed), errors.Is(err, domain.ErrProposalOpen),
		errors.Is(err, domain.ErrOutcomeKnown), errors.Is(err, domain.ErrWrongState), errors.Is(err, domain.ErrWeakPassword),
		errors.Is(err, domain.ErrOperatorExists), errors.Is(err, domain.ErrPartnerExists),
		errors.Is(err, domain.ErrSelfGrant), errors.Is(err, domain.ErrNoGrant), errors.Is(err, domain.ErrGrantPending),
		errors.Is(err, domain.ErrSecondFactorEnrolled),
		errors.Is(err, domain.ErrLoanWrittenOff), errors.Is(err, domain.ErrLoanNotIssued), errors.Is(err, domain.ErrDebitRejected):
		return http.StatusConflict, capitalize(err.Error()) + "."
	case errors.Is(err, domain.ErrApplicationNotFound), errors.Is(err, domain.ErrLoanNotFound), errors.Is(err, domain.ErrTransferNotFound),
		errors.Is(err, domain.ErrRepaymentNotFound), errors.Is(err, domain.ErrCardNotFound), errors.Is(err, domain.ErrCardOrderNotFound),
		errors.Is(err, domain.ErrPartnerNotFound), errors.Is(err, domain.ErrProposalNotFound), errors.Is(err, ports.ErrBreakNotFound), errors.Is(err, domain.ErrOperatorNotFound), errors.Is(err, ports.ErrEventNotFound),
		errors.Is(err, errNotFound):
		return http.StatusNotFound, msg("Not found.")
	case errors.As(err, &validation), errors.Is(err, errBadInput), errors.Is(err, domain.ErrProposalIncomplete), errors.Is(err, domain.ErrActionIncomplete),
		errors.Is(err, ports.ErrBadList), errors.Is(err, domain.ErrPartnerName), errors.Is(err, domain.ErrRole), errors.Is(err, domain.ErrOperatorName), errors.Is(err, domain.ErrWebhookURL),
		errors.Is(err, domain.ErrKeyOverlap), errors.Is(err, appconsole.ErrBadPeriod),
		errors.Is(err, domain.ErrActionAmount), errors.Is(err, domain.ErrRepaymentAmount), errors.Is(err, domain.ErrRestructure),
		errors.Is(err, domain.ErrLanguage), errors.Is(err, domain.ErrDayNotClosed):
		return http.StatusBadRequest, capitalize(err.Error()) + "."
	}
	return http.StatusInternalServerError, msg("Something went wrong on tiyin's side; it is logged. Try again, or tell the tiyin team.")
}

var (
	errNotFound = errors.New("not found")
	errBadInput = errors.New("bad input")
)

// capitalize starts a sentence made of an error's text.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
