package console

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/google/uuid"

	appconsole "github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// routes names every page and action. Pages are GETs that change nothing; actions are POSTs
// that redirect to the page they acted on (post/redirect/get), so a reload never repeats one.
func (c *Console) routes() {
	m := c.mux
	m.HandleFunc("GET /console/{$}", c.authed(c.dashboard))
	m.HandleFunc("GET /console/search", c.authed(c.search))
	for kind, l := range lists {
		m.HandleFunc("GET /console/"+l.Path, c.authed(c.list(kind)))
		m.HandleFunc("GET /console/"+l.Path+".csv", c.authed(c.listCSV(kind)))
	}
	m.HandleFunc("GET /console/applications/{id}", c.authed(c.application))
	m.HandleFunc("POST /console/applications/{id}/retry", c.authed(c.retry))
	m.HandleFunc("POST /console/applications/{id}/verify", c.authed(c.verify))
	m.HandleFunc("POST /console/applications/{id}/reveal", c.authed(c.reveal))
	m.HandleFunc("POST /console/applications/{id}/propose", c.authed(c.propose(domain.ResolveApplication, "applications")))
	m.HandleFunc("GET /console/loans/{id}", c.authed(c.loan))
	m.HandleFunc("GET /console/loans/{id}/preview", c.authed(c.previewLoanAction))
	m.HandleFunc("POST /console/loans/{id}/propose", c.authed(c.proposeLoanAction))
	m.HandleFunc("GET /console/proposals/{id}", c.authed(c.proposal))
	m.HandleFunc("GET /console/transfers/{id}", c.authed(c.object("transfer")))
	m.HandleFunc("POST /console/transfers/{id}/propose", c.authed(c.propose(domain.ResolveTransfer, "transfers")))
	m.HandleFunc("GET /console/repayments/{id}", c.authed(c.object("repayment")))
	m.HandleFunc("GET /console/card-orders/{id}", c.authed(c.object("card_order")))
	m.HandleFunc("GET /console/cards/{id}", c.authed(c.object("card")))
	m.HandleFunc("POST /console/proposals/{id}/{decision}", c.authed(c.decide))
	m.HandleFunc("POST /console/events/{id}/resend", c.authed(c.resend))
	m.HandleFunc("GET /console/ledger", c.authed(c.ledger))
	m.HandleFunc("GET /console/partners", c.authed(c.partners))
	m.HandleFunc("GET /console/partners/{name}", c.authed(c.partner))
	m.HandleFunc("POST /console/partners", c.authed(c.createPartner))
	m.HandleFunc("POST /console/partners/{name}/{action}", c.authed(c.partnerAction))
	m.HandleFunc("GET /console/clients/{index}", c.authed(c.client))
	m.HandleFunc("GET /console/reconciliation", c.authed(c.reconciliation))
	m.HandleFunc("POST /console/reconciliation/run", c.authed(c.runReconciliation))
	m.HandleFunc("POST /console/reconciliation/breaks/{id}/explain", c.authed(c.explainBreak))
	m.HandleFunc("POST /console/reconciliation/breaks/{id}/accept", c.authed(c.acceptBreak))
	m.HandleFunc("POST /console/reconciliation/breaks/{id}/reopen", c.authed(c.reopenBreak))
	m.HandleFunc("POST /console/reconciliation/breaks", c.authed(c.workSelectedBreaks))
	m.HandleFunc("GET /console/reconciliation.csv", c.authed(c.reconciliationCSV))
	m.HandleFunc("GET /console/reports", c.authed(c.reports))
	m.HandleFunc("GET /console/reports/portfolio.csv", c.authed(c.portfolioCSV))
	m.HandleFunc("GET /console/reports/daily.csv", c.authed(c.dailyCSV))
	m.HandleFunc("GET /console/books", c.authed(c.books))
	m.HandleFunc("GET /console/books/journal.csv", c.authed(c.journalDownload(false)))
	m.HandleFunc("GET /console/books/journal.json", c.authed(c.journalDownload(true)))
	m.HandleFunc("GET /console/operators", c.authed(c.operators))
	m.HandleFunc("POST /console/operators", c.authed(c.createOperator))
	m.HandleFunc("POST /console/operators/{name}/{action}", c.authed(c.operatorAction))
	m.HandleFunc("GET /console/audit", c.authed(c.audit))
	m.HandleFunc("GET /console/audit.csv", c.authed(c.auditCSV))
	m.HandleFunc("POST /console/audit/verify", c.authed(c.verifyAudit))
	m.HandleFunc("GET /console/password", c.authed(c.passwordForm))
	m.HandleFunc("POST /console/password", c.authed(c.changePassword))
	m.HandleFunc("GET "+enrolPath, c.authed(c.enrolment))
	m.HandleFunc("GET "+enrolPath+"/qr.png", c.authed(c.enrolmentQR))
	m.HandleFunc("POST "+enrolPath, c.authed(c.enrol))
	m.HandleFunc("POST /console/logout", c.authed(c.logout))
	m.HandleFunc("POST /console/language", c.authed(c.setLanguage))
	c.collectionsRoutes()
}

// pathID reads the {id} of the path.
func pathID(r *http.Request) (uuid.UUID, error) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		return uuid.Nil, errNotFound
	}
	return id, nil
}

// done redirects to the page an action acted on, naming its confirmation.
func done(w http.ResponseWriter, r *http.Request, to, msg string) {
	http.Redirect(w, r, to+"?done="+msg, http.StatusSeeOther)
}

func (c *Console) dashboard(w http.ResponseWriter, r *http.Request) {
	d, err := c.uc.Views.Dashboard.Handle(r.Context(), session(r).Operator)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.show(w, r, "dashboard", msg("Dashboard"), d)
}

func (c *Console) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	var after *ports.SearchHit
	if a := r.URL.Query().Get("after"); a != "" {
		row, err := parseCursor(a)
		if err != nil {
			c.fail(w, r, err)
			return
		}
		after = &ports.SearchHit{ID: row.ID, At: row.At}
	}
	p, err := c.uc.Views.Search.Handle(r.Context(), session(r).Operator, q, after)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	if p.Client != "" {
		http.Redirect(w, r, "/console/clients/"+p.Client, http.StatusSeeOther)
		return
	}
	if after == nil && len(p.Hits) == 1 && p.Hits[0].Kind != "request" {
		http.Redirect(w, r, link(p.Hits[0].Kind, p.Hits[0].ID), http.StatusSeeOther)
		return
	}
	v := struct {
		Q       string
		Hits    []ports.SearchHit
		NextURL string
	}{Q: q, Hits: p.Hits}
	if n := p.Next; n != nil {
		v.NextURL = "/console/search?" + url.Values{"q": {q}, "after": {cursor(ports.ListRow{ID: n.ID, At: n.At})}}.Encode()
	}
	c.show(w, r, "search", msg("Search"), v)
}

// applicationView is the application page's data: the page, and the personal data when an
// officer revealed it.
type applicationView struct {
	appconsole.ApplicationPage
	Revealed *domain.Application
}

func (c *Console) application(w http.ResponseWriter, r *http.Request) {
	c.applicationPage(w, r, nil)
}

func (c *Console) applicationPage(w http.ResponseWriter, r *http.Request, revealed *domain.Application) {
	id, err := pathID(r)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	p, err := c.uc.Views.Application.Handle(r.Context(), session(r).Operator, id)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.show(w, r, "application", msg("Application"), applicationView{ApplicationPage: p, Revealed: revealed})
}

// act runs an action on the {id} of the path and redirects to to/{id} with its confirmation.
func (c *Console) act(w http.ResponseWriter, r *http.Request, to, msg string, fn func(appconsole.Actor, uuid.UUID) error) {
	id, err := pathID(r)
	if err == nil {
		err = fn(session(r).Operator, id)
	}
	if err != nil {
		c.fail(w, r, err)
		return
	}
	done(w, r, to+id.String(), msg)
}

func (c *Console) retry(w http.ResponseWriter, r *http.Request) {
	c.act(w, r, "/console/applications/", "retry", func(who appconsole.Actor, id uuid.UUID) error {
		return c.uc.Actions.RetryStage.Handle(r.Context(), who, id)
	})
}

// verify records the call centre's verification call: its outcome and a note are required.
func (c *Console) verify(w http.ResponseWriter, r *http.Request) {
	outcome, msg := r.PostFormValue("outcome"), "verify"
	if outcome == appconsole.CallNotConfirmed {
		msg = "verify_noted"
	}
	c.act(w, r, "/console/applications/", msg, func(who appconsole.Actor, id uuid.UUID) error {
		return c.uc.Actions.CompleteVerification.Handle(r.Context(), who,
			appconsole.Verification{ApplicationID: id, Outcome: outcome, Note: r.PostFormValue("note")})
	})
}

// reveal answers the application's page with its personal data shown: the answer of a POST,
// never a URL that could be bookmarked, shared or cached.
func (c *Console) reveal(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	a, err := c.uc.Actions.RevealClientData.Handle(r.Context(), session(r).Operator, id)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.applicationPage(w, r, a)
}

func (c *Console) propose(kind domain.ProposalKind, pages string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c.act(w, r, "/console/"+pages+"/", "propose", func(who appconsole.Actor, id uuid.UUID) error {
			var isDone bool
			switch r.PostFormValue("outcome") {
			case "done":
				isDone = true
			case "not_done":
			default:
				return fmt.Errorf("%w: choose whether the bank did it or not", errBadInput)
			}
			_, err := c.uc.Actions.ProposeResolution.Handle(r.Context(), who, appconsole.ProposeResolution{Kind: kind, ObjectID: id,
				Done: isDone, Ref: r.PostFormValue("ref"), Note: r.PostFormValue("note")})
			return err
		})
	}
}

func (c *Console) decide(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	decision := r.PathValue("decision")
	if decision != "approve" && decision != "reject" {
		c.fail(w, r, errNotFound)
		return
	}
	if err := c.uc.Actions.DecideProposal.Handle(r.Context(), session(r).Operator, appconsole.DecideProposal{ID: id, Approve: decision == "approve"}); err != nil {
		c.fail(w, r, err)
		return
	}
	done(w, r, safeNext(r.PostFormValue("back")), decision)
}

func (c *Console) resend(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err == nil {
		err = c.uc.Actions.ResendEvent.Handle(r.Context(), session(r).Operator, id)
	}
	if err != nil {
		c.fail(w, r, err)
		return
	}
	done(w, r, safeNext(r.PostFormValue("back")), "resend")
}

func (c *Console) loan(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	p, err := c.uc.Views.Loan.Handle(r.Context(), session(r).Operator, id)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.show(w, r, "loan", msg("Loan"), p)
}

func (c *Console) object(kind string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r)
		if err != nil {
			c.fail(w, r, err)
			return
		}
		p, err := c.uc.Views.Object.Handle(r.Context(), session(r).Operator, kind, id)
		if err != nil {
			c.fail(w, r, err)
			return
		}
		c.show(w, r, "object", titles[kind], objectView{Kind: kind, ID: id, Page: p, Facts: facts(p)})
	}
}

func (c *Console) ledger(w http.ResponseWriter, r *http.Request) {
	p, err := c.uc.Views.Ledger.Handle(r.Context(), session(r).Operator, r.URL.Query().Get("account"), r.URL.Query().Get("check") != "")
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.show(w, r, "ledger", msg("Ledger"), p)
}

func (c *Console) partners(w http.ResponseWriter, r *http.Request) {
	ps, err := c.uc.Views.Partners.List(r.Context(), session(r).Operator)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.show(w, r, "partners", msg("Partners"), ps)
}

// partnerView is a partner's page, with what a change just made (shown once).
type partnerView struct {
	appconsole.PartnerPage
	Change appconsole.PartnerChange
	Now    time.Time
}

func (c *Console) partner(w http.ResponseWriter, r *http.Request) {
	c.partnerPage(w, r, r.PathValue("name"), appconsole.PartnerChange{})
}

func (c *Console) partnerPage(w http.ResponseWriter, r *http.Request, name string, change appconsole.PartnerChange) {
	p, err := c.uc.Views.Partners.Handle(r.Context(), session(r).Operator, name)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.show(w, r, "partner", p.Partner.Name, partnerView{PartnerPage: p, Change: change, Now: time.Now()})
}

// keyOverlaps are the overlaps a rotation offers, by the form's value.
var keyOverlaps = map[string]time.Duration{"0": 0, "1h": time.Hour, "24h": domain.DefaultKeyOverlap, "72h": 72 * time.Hour, "168h": domain.MaxKeyOverlap}

// partnerAction applies an admin's change to a partner. A new key or signing secret is shown
// in this answer only; the other changes redirect to the partner's page.
func (c *Console) partnerAction(w http.ResponseWriter, r *http.Request) {
	name, action := r.PathValue("name"), r.PathValue("action")
	cmd := appconsole.PartnerAction{Name: name, Action: action}
	switch action {
	case appconsole.PartnerDisable, appconsole.PartnerEnable:
	case appconsole.PartnerRotateKey, appconsole.PartnerSetWebhook:
		overlap, ok := keyOverlaps[r.PostFormValue("overlap")]
		if !ok {
			overlap = -1 // refused as domain.ErrKeyOverlap, after the role is checked
		}
		cmd.Overlap = overlap
		cmd.URL, cmd.AllowHTTP = strings.TrimSpace(r.PostFormValue("url")), c.cfg.Sandbox
	default:
		c.fail(w, r, errNotFound)
		return
	}
	change, err := c.uc.Actions.Partner.Handle(r.Context(), session(r).Operator, cmd)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	if change.APIKey != "" || change.WebhookSecret != "" {
		c.partnerPage(w, r, name, change)
		return
	}
	done(w, r, "/console/partners/"+name, "partner")
}

// createPartner makes a partner; its key is shown in this answer only.
func (c *Console) createPartner(w http.ResponseWriter, r *http.Request) {
	change, err := c.uc.Actions.Partner.Handle(r.Context(), session(r).Operator,
		appconsole.PartnerAction{Name: strings.TrimSpace(r.PostFormValue("name")), Action: appconsole.PartnerCreate})
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.partnerPage(w, r, change.Partner.Name, change)
}

// auditFilter reads the audit page's filter from the query.
func auditFilter(r *http.Request) (ports.AuditFilter, error) {
	q := r.URL.Query()
	f := ports.AuditFilter{Operator: strings.TrimSpace(q.Get("operator")), Action: strings.TrimSpace(q.Get("action")),
		Object: strings.TrimSpace(q.Get("object"))}
	var err error
	if v := q.Get("from"); v != "" {
		if f.From, err = time.Parse(time.DateOnly, v); err != nil {
			return f, fmt.Errorf("%w: from is a date, 2026-11-24", errBadInput)
		}
	}
	if v := q.Get("to"); v != "" {
		if f.To, err = time.Parse(time.DateOnly, v); err != nil {
			return f, fmt.Errorf("%w: to is a date, 2026-11-24", errBadInput)
		}
		f.To = f.To.AddDate(0, 0, 1) // the whole day
	}
	if v := q.Get("before"); v != "" {
		if f.BeforeID, err = strconv.ParseInt(v, 10, 64); err != nil {
			return f, fmt.Errorf("%w: before is an entry number", errBadInput)
		}
	}
	return f, nil
}

func (c *Console) audit(w http.ResponseWriter, r *http.Request) {
	f, err := auditFilter(r)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	entries, err := c.uc.Views.AuditTrail.Handle(r.Context(), session(r).Operator, f, false)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	verified, err := c.uc.Views.LastAuditVerification.Handle(r.Context(), session(r).Operator)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	c.show(w, r, "audit", msg("Audit log"), struct {
		Filter   ports.AuditFilter
		Query    string
		Entries  []ports.AuditEntry
		Verified *ports.AuditVerification
	}{f, r.URL.RawQuery, entries, verified})
}

// verifyAudit checks the audit log's chain now (admins; `tiyin audit verify` does the same).
func (c *Console) verifyAudit(w http.ResponseWriter, r *http.Request) {
	if _, err := c.uc.Actions.VerifyAudit.Handle(r.Context(), session(r).Operator, appconsole.VerifyAudit{}); err != nil {
		c.fail(w, r, err)
		return
	}
	done(w, r, "/console/audit", "audit")
}

// auditCSV exports the filtered audit log. A cell that a spreadsheet would run as a formula
// is quoted with a leading apostrophe.
func (c *Console) auditCSV(w http.ResponseWriter, r *http.Request) {
	f, err := auditFilter(r)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	entries, err := c.uc.Views.AuditTrail.Handle(r.Context(), session(r).Operator, f, true)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	bw := startCSV(w, "tiyin-audit.csv", "id", "at", "operator", "address", "action", "object", "detail")
	for _, e := range entries {
		_, _ = bw.WriteString(csvRow(strconv.FormatInt(e.ID, 10), e.At.UTC().Format(time.RFC3339), e.Operator, e.Address,
			e.Action, e.Object, e.Detail))
	}
	if err := bw.Flush(); err != nil {
		c.log.Warn("console: audit CSV cut short", zap.Error(err))
	}
}

// csvRow is one CSV row (RFC 4180) with every field quoted, so a spreadsheet whose locale
// splits on ";" (or any other separator) never splits inside one, and every field defused
// (cell).
func csvRow(fields ...string) string {
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(cell(f), `"`, `""`))
		b.WriteByte('"')
	}
	b.WriteString("\r\n")
	return b.String()
}

// cell defuses a CSV cell a spreadsheet would read as a formula: one starting with =, +, -, @,
// a tab or a carriage return gets a leading apostrophe.
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func (c *Console) passwordForm(w http.ResponseWriter, r *http.Request) {
	c.show(w, r, "password", msg("Change your password"), nil)
}

func (c *Console) changePassword(w http.ResponseWriter, r *http.Request) {
	s := session(r)
	var err error
	if r.PostFormValue("new") != r.PostFormValue("again") {
		err = fmt.Errorf("%w: the new password and its repetition differ", errBadInput)
	} else {
		err = c.uc.Operators.ChangePassword.Handle(r.Context(), s.Operator, appconsole.ChangePassword{Old: r.PostFormValue("old"), New: r.PostFormValue("new"), Session: s.Token})
	}
	if err != nil {
		status, text := problem(err)
		c.render(w, r, status, "password", page{Title: msg("Change your password"), Session: &s, Err: text})
		return
	}
	if s.MustEnrol {
		http.Redirect(w, r, enrolPath, http.StatusSeeOther)
		return
	}
	done(w, r, Prefix, "password")
}

func (c *Console) logout(w http.ResponseWriter, r *http.Request) {
	if err := c.uc.Operators.LogOut.Handle(r.Context(), session(r)); err != nil {
		c.fail(w, r, err)
		return
	}
	c.clearCookie(w, sessionCookie)
	http.Redirect(w, r, "/console/login", http.StatusSeeOther)
}

// setLanguage keeps the operator's console language and shows the page they were on in it.
func (c *Console) setLanguage(w http.ResponseWriter, r *http.Request) {
	if err := c.uc.Operators.SetLanguage.Handle(r.Context(), session(r).Operator, r.PostFormValue("language")); err != nil {
		c.fail(w, r, err)
		return
	}
	http.Redirect(w, r, safeNext(r.PostFormValue("back")), http.StatusSeeOther)
}
