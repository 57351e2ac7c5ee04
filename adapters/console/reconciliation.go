package console

import (
	"bufio"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/tiyin/tiyin/application"
	appconsole "github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// breakKinds and breakSources are what the reconciliation page filters on.
var (
	breakKinds = []string{string(domain.BreakMissingInTiyin), string(domain.BreakMissingAtNetwork), string(domain.BreakAmountDiffers),
		string(domain.BreakStatusDiffers), string(domain.BreakDuplicate), string(domain.BreakBalanceDiffers),
		string(domain.BreakSubledgerDiffers), string(domain.BreakGLAckDiffers)}
	breakStatuses = []string{ports.BreakOpen, ports.BreakExplained, ports.BreakResolved, "ALL"}
)

// reconciliationView is the reconciliation page's data: the page, the filter as its form
// shows it, the sources to choose from, and the links to the pages around it and the CSV.
type reconciliationView struct {
	appconsole.ReconciliationPage
	Sources, Kinds, Statuses []string
	Status                   string
	NextURL, PrevURL, CSVURL string
	// Filter is the filter as a query, for a form to come back to.
	Filter string
}

// breakQuery reads the reconciliation page's filter and page from the request.
func breakQuery(r *http.Request) (ports.BreakQuery, error) {
	v := r.URL.Query()
	q := ports.BreakQuery{Status: v.Get("status"), Source: v.Get("source"), Kind: v.Get("kind")}
	if q.Status != "" && !contains(breakStatuses, q.Status) || q.Kind != "" && !contains(breakKinds, q.Kind) ||
		q.Source != "" && !contains(application.ReconciliationSources(), q.Source) {
		return q, fmt.Errorf("%w: pick the status, the source and the kind from the form's lists", errBadInput)
	}
	if d := v.Get("day"); d != "" {
		day, err := time.Parse(time.DateOnly, d)
		if err != nil {
			return q, fmt.Errorf("%w: the day is YYYY-MM-DD", errBadInput)
		}
		q.Day = day
	}
	if ids := v["break"]; len(ids) > 0 {
		if len(ids) > domain.MaxBreaksAtOnce {
			return q, fmt.Errorf("%w: at most %d breaks at once", errBadInput, domain.MaxBreaksAtOnce)
		}
		for _, s := range ids {
			id, err := uuid.Parse(s)
			if err != nil {
				return q, fmt.Errorf("%w: a break's id", errBadInput)
			}
			q.IDs = append(q.IDs, id)
		}
	}
	for _, k := range []string{"after", "before"} {
		if s := v.Get(k); s != "" {
			c, err := parseBreakCursor(s)
			if err != nil {
				return q, err
			}
			q.Cursor, q.Backward = c, k == "before"
		}
	}
	return q, nil
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

// breakCursor is a break's place in the list, as a page's link carries it.
func breakCursor(c ports.BreakCursor) string {
	return fmt.Sprintf("%d.%s", c.FoundAt.UnixNano(), c.ID)
}

func parseBreakCursor(s string) (*ports.BreakCursor, error) {
	nanos, id, ok := strings.Cut(s, ".")
	n, err1 := strconv.ParseInt(nanos, 10, 64)
	u, err2 := uuid.Parse(id)
	if !ok || err1 != nil || err2 != nil {
		return nil, fmt.Errorf("%w: a page's link, as the console writes it", errBadInput)
	}
	return &ports.BreakCursor{FoundAt: time.Unix(0, n).UTC(), ID: u}, nil
}

// reconciliation shows a page of the breaks of a status (OPEN by default), a source, a kind and
// a day (any by default), with how many there are and the links to the pages around it.
func (c *Console) reconciliation(w http.ResponseWriter, r *http.Request) {
	q, err := breakQuery(r)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	p, err := c.uc.Views.Reconciliation.Handle(r.Context(), session(r).Operator, q)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	form := r.URL.Query()
	form.Del("after")
	form.Del("before")
	form.Del("done")
	status := form.Get("status")
	if status == "" {
		status = ports.BreakOpen
	}
	v := reconciliationView{ReconciliationPage: p, Sources: application.ReconciliationSources(), Kinds: breakKinds, Statuses: breakStatuses,
		Status: status, CSVURL: "/console/reconciliation.csv?" + form.Encode()}
	page := func(k string, at *ports.BreakCursor) string {
		if at == nil {
			return ""
		}
		to := url.Values{}
		for k, vs := range form {
			to[k] = vs
		}
		to.Set(k, breakCursor(*at))
		return "/console/reconciliation?" + to.Encode()
	}
	v.NextURL, v.PrevURL, v.Filter = page("after", p.Next), page("before", p.Prev), form.Encode()
	c.show(w, r, "reconciliation", msg("Reconciliation"), v)
}

// reconciliationCSV exports the filtered list of breaks, every page of it, in one CSV file.
func (c *Console) reconciliationCSV(w http.ResponseWriter, r *http.Request) {
	q, err := breakQuery(r)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	var bw *bufio.Writer
	start := func() {
		bw = startCSV(w, "tiyin-reconciliation-breaks.csv", "id", "day", "last_day", "source", "kind", "line", "status",
			"tiyin_amount", "tiyin_status", "their_amount", "their_status", "found_at_tashkent", "worked_by", "note")
	}
	side := func(l *domain.StatementLine) (string, string) {
		if l == nil {
			return "", ""
		}
		return strconv.FormatInt(l.Amount, 10), string(l.Status)
	}
	err = c.uc.Views.Reconciliation.Export(r.Context(), session(r).Operator, q, func(b ports.BreakRecord) error {
		if bw == nil { // the first row: the answer is a CSV file from here on
			start()
		}
		oa, os := side(b.Ours)
		ta, ts := side(b.Theirs)
		_, err := bw.WriteString(csvRow(b.ID.String(), b.Day.Format(time.DateOnly), b.LastDay.Format(time.DateOnly), b.Source, string(b.Kind),
			b.LineID, b.Status, oa, os, ta, ts, when(b.FoundAt), b.WorkedBy, b.Note))
		return err
	})
	if bw == nil && err == nil { // no row: the header alone
		start()
	}
	if bw == nil {
		c.fail(w, r, err)
		return
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		c.log.Warn("console: reconciliation CSV cut short", zap.Error(err))
	}
}

// runReconciliation reconciles the day the form names with every source.
func (c *Console) runReconciliation(w http.ResponseWriter, r *http.Request) {
	day, err := time.Parse(time.DateOnly, r.PostFormValue("day"))
	if err != nil {
		c.fail(w, r, fmt.Errorf("%w: the day is YYYY-MM-DD", errBadInput))
		return
	}
	if _, err := c.uc.Actions.RunReconciliation.Handle(r.Context(), session(r).Operator, day); err != nil {
		c.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/console/reconciliation?done=reconciled&day="+day.Format(time.DateOnly), http.StatusSeeOther)
}

// explainBreak explains the break the path names with the officer's note: at once when its two
// sides agree on money, else as a proposal for a second officer.
func (c *Console) explainBreak(w http.ResponseWriter, r *http.Request) {
	c.workBreaks(w, r, []string{r.PathValue("id")}, "explain")
}

// acceptBreak proposes accepting a break's other side, with the officer's note; a second
// officer approves it on this page or the dashboard.
func (c *Console) acceptBreak(w http.ResponseWriter, r *http.Request) {
	c.workBreaks(w, r, []string{r.PathValue("id")}, "accept")
}

// reopenBreak proposes reopening an explained break, with the officer's note.
func (c *Console) reopenBreak(w http.ResponseWriter, r *http.Request) {
	c.workBreaks(w, r, []string{r.PathValue("id")}, "reopen")
}

// workSelectedBreaks runs the form's action (explain, accept, reopen) on the breaks selected on
// the page, as one piece of work: one proposal where a second officer decides.
func (c *Console) workSelectedBreaks(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		c.fail(w, r, fmt.Errorf("%w: %w", errBadInput, err))
		return
	}
	c.workBreaks(w, r, r.PostForm["break"], r.PostFormValue("action"))
}

// workBreaks runs action on the breaks ids names, with the form's note, and returns to the
// reconciliation page (the filter it came from) with what happened.
func (c *Console) workBreaks(w http.ResponseWriter, r *http.Request, ids []string, action string) {
	work := appconsole.BreakWork{Note: r.PostFormValue("note")}
	for _, s := range ids {
		id, err := uuid.Parse(s)
		if err != nil {
			c.fail(w, r, errNotFound)
			return
		}
		work.Breaks = append(work.Breaks, id)
	}
	if len(work.Breaks) == 0 {
		c.fail(w, r, fmt.Errorf("%w: select at least one break", errBadInput))
		return
	}
	who, ctx := session(r).Operator, r.Context()
	var (
		proposal uuid.UUID
		err      error
		done     string
	)
	switch action {
	case "explain":
		proposal, err = c.uc.Actions.ExplainBreak.Handle(ctx, who, work)
		done = "explained"
		if proposal != uuid.Nil {
			done = "explain_proposed"
		}
	case "accept":
		_, err = c.uc.Actions.ProposeBreakAcceptance.Handle(ctx, who, work)
		done = "accept_proposed"
	case "reopen":
		_, err = c.uc.Actions.ProposeBreakReopening.Handle(ctx, who, work)
		done = "reopen_proposed"
	default:
		err = fmt.Errorf("%w: explain, accept or reopen", errBadInput)
	}
	if err != nil {
		c.fail(w, r, err)
		return
	}
	back := "/console/reconciliation?done=" + done
	if f := r.PostFormValue("filter"); f != "" {
		if v, err := url.ParseQuery(f); err == nil {
			v.Del("done")
			back += "&" + v.Encode()
		}
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}
