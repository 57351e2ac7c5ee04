package console_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// recordBreaks records n breaks of source found by one run of day: debits the network made and
// tiyin has no record of, every third one REVERSED there (its money agrees).
func recordBreaks(t *testing.T, e *env, day time.Time, source string, n int) []ports.BreakRecord {
	t.Helper()
	rec := store.NewReconciliationRepository(e.db)
	var breaks []domain.Break
	for i := range n {
		line := fmt.Sprintf("%s-D-%04d", source, i)
		status := domain.LineDone
		if i%3 == 0 {
			status = domain.LineReversed
		}
		breaks = append(breaks, domain.Break{Kind: domain.BreakMissingInTiyin, LineID: line,
			Theirs: &domain.StatementLine{ID: line, Kind: domain.LineDebit, Amount: 30_000 + int64(i), At: day, Status: status}})
	}
	run := uuid.New()
	if err := store.NewUnitOfWork(e.db).Do(context.Background(), func(ctx context.Context) error {
		_, err := rec.Record(ctx, ports.ReconciliationRun{ID: run, Day: day, Source: source, At: time.Now()}, breaks)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return must(rec.Breaks(context.Background(), ports.BreakQuery{RunID: run, Limit: n}))
}

var (
	nextPage = regexp.MustCompile(`href="(/console/reconciliation\?[^"]*)" rel="next"`)
	prevPage = regexp.MustCompile(`href="(/console/reconciliation\?[^"]*)" rel="prev"`)
)

// TestTheReconciliationPageCountsPagesFiltersAndExports (issue 47, 2): 450 open breaks are
// counted, shown 100 a page with a next and a previous page, filtered by source and kind, and
// the filtered list is exported whole as CSV, audited.
func TestTheReconciliationPageCountsPagesFiltersAndExports(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	h, _ := e.console(t)
	vic := e.as(t, "vic", domain.RoleViewer)
	day := domain.BusinessDate(time.Now()).AddDate(0, 0, -2)
	recordBreaks(t, e, day, "UZCARD", 300)
	recordBreaks(t, e, day.AddDate(0, 0, 1), "HUMO", 150)
	rows := func(body string) int { return strings.Count(body, `<tr id="break-`) }

	body := expect(t, "the first page", serve(h, &vic, http.MethodGet, "/console/reconciliation", nil), http.StatusOK, "450 breaks match.")
	if n := rows(body); n != 100 || prevPage.MatchString(body) {
		t.Fatalf("the first page shows %d breaks (a previous page: %t)", n, prevPage.MatchString(body))
	}
	seen := map[string]bool{}
	for _, id := range regexp.MustCompile(`<tr id="break-([0-9a-f-]{36})"`).FindAllStringSubmatch(body, -1) {
		seen[id[1]] = true
	}
	pages := []string{body}
	for len(pages) < 5 {
		next := nextPage.FindStringSubmatch(pages[len(pages)-1])
		if next == nil {
			t.Fatalf("page %d has no next page", len(pages))
		}
		body = expect(t, "the next page", serve(h, &vic, http.MethodGet, html.UnescapeString(next[1]), nil), http.StatusOK, "450 breaks match.")
		for _, id := range regexp.MustCompile(`<tr id="break-([0-9a-f-]{36})"`).FindAllStringSubmatch(body, -1) {
			if seen[id[1]] {
				t.Fatalf("break %s on two pages", id[1])
			}
			seen[id[1]] = true
		}
		pages = append(pages, body)
	}
	if len(seen) != 450 || rows(pages[4]) != 50 || nextPage.MatchString(pages[4]) || !strings.Contains(pages[4], "The last page.") {
		t.Fatalf("%d breaks on five pages, the last %d", len(seen), rows(pages[4]))
	}
	prev := prevPage.FindStringSubmatch(pages[4])
	if prev == nil {
		t.Fatal("the last page has no previous page")
	}
	if back := serve(h, &vic, http.MethodGet, html.UnescapeString(prev[1]), nil).Body.String(); rows(back) != 100 ||
		regexp.MustCompile(`<tr id="break-[^"]*"`).FindString(back) != regexp.MustCompile(`<tr id="break-[^"]*"`).FindString(pages[3]) {
		t.Fatal("the page before the last is not the fourth")
	}

	body = expect(t, "HUMO's breaks", serve(h, &vic, http.MethodGet, "/console/reconciliation?source=HUMO&kind=MISSING_IN_TIYIN", nil),
		http.StatusOK, "150 breaks match.")
	if rows(body) != 100 || strings.Contains(body, "UZCARD-D-") {
		t.Fatalf("HUMO's page shows %d breaks", rows(body))
	}
	expect(t, "no such kind", serve(h, &vic, http.MethodGet, "/console/reconciliation?kind=AMOUNT_DIFFERS", nil), http.StatusOK, "0 breaks match.")
	expect(t, "an unknown source", serve(h, &vic, http.MethodGet, "/console/reconciliation?source=VISA", nil), http.StatusBadRequest)

	csv := serve(h, &vic, http.MethodGet, "/console/reconciliation.csv?source=UZCARD&status=OPEN", nil)
	lines := strings.Split(strings.TrimSpace(csv.Body.String()), "\r\n")
	if csv.Code != http.StatusOK || !strings.HasPrefix(csv.Header().Get("Content-Type"), "text/csv") || len(lines) != 301 ||
		!strings.Contains(lines[0], `"source","kind","line"`) || !strings.Contains(lines[1], `"UZCARD","MISSING_IN_TIYIN"`) {
		t.Fatalf("the CSV: %d %s, %d lines, %q", csv.Code, csv.Header().Get("Content-Type"), len(lines), lines[0])
	}
	expect(t, "the audit log", serve(h, &vic, http.MethodGet, "/console/audit?from=2026-01-01&to=2030-01-01", nil), http.StatusOK,
		"list.export", "list:breaks")
}

// TestBreaksAreWorkedSeveralAtOnceAndReopened (issue 47, 3, 4, 5 and 11): an officer selects
// breaks and accepts their side in one proposal; the dashboard says who made it, what it is
// about and links to its breaks, shows the maker no Approve button but "waiting for a second
// officer", and the second officer approves it whole. Breaks whose money agrees are explained
// together at once; an explained break is reopened through a proposal a second officer
// approves, and is then open with its actions.
func TestBreaksAreWorkedSeveralAtOnceAndReopened(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	h, _ := e.console(t)
	olga, bob := e.as(t, "olga", domain.RoleOfficer), e.as(t, "bob", domain.RoleOfficer)
	day := domain.BusinessDate(time.Now()).AddDate(0, 0, -1)
	breaks := recordBreaks(t, e, day, "HUMO", 6)
	byLine := map[string]ports.BreakRecord{}
	for _, b := range breaks {
		byLine[b.LineID] = b
	}
	done, agree1, agree2 := byLine["HUMO-D-0001"], byLine["HUMO-D-0000"], byLine["HUMO-D-0003"]
	other := byLine["HUMO-D-0002"]
	rec := store.NewReconciliationRepository(e.db)
	status := func(b ports.BreakRecord) string { return must(rec.Break(context.Background(), b.ID)).Status }
	bulk := func(s operatorSession, action, note string, bs ...ports.BreakRecord) string {
		form := url.Values{"csrf": {s.csrf}, "action": {action}, "note": {note}, "filter": {"source=HUMO"}}
		for _, b := range bs {
			form.Add("break", b.ID.String())
		}
		r := serve(h, &s, http.MethodPost, "/console/reconciliation/breaks", form)
		expect(t, action, r, http.StatusSeeOther)
		return r.Header().Get("Location")
	}

	if to := bulk(olga, "accept", "HUMO's file lists both debits", done, other); !strings.Contains(to, "done=accept_proposed") ||
		!strings.Contains(to, "source=HUMO") {
		t.Fatalf("the acceptance went to %s", to)
	}
	mine := expect(t, "the maker's dashboard", serve(h, &olga, http.MethodGet, "/console/", nil), http.StatusOK,
		"ACCEPT_BREAK", "olga", "2 breaks", "MISSING_IN_TIYIN", day.Format(time.DateOnly), "600.03", "Waiting for a second officer.",
		"/console/reconciliation?break=")
	if strings.Contains(mine, "/approve") {
		t.Fatal("the maker is offered an Approve button for their own proposal")
	}
	theirs := expect(t, "the checker's dashboard", serve(h, &bob, http.MethodGet, "/console/", nil), http.StatusOK, "olga")
	approve := regexp.MustCompile(`/console/proposals/([0-9a-f-]{36})/approve`).FindStringSubmatch(theirs)
	if approve == nil {
		t.Fatal("the checker is not offered the proposal")
	}
	link := regexp.MustCompile(`href="(/console/reconciliation\?break=[^"]*)"`).FindStringSubmatch(mine)
	expect(t, "the proposal's breaks", serve(h, &olga, http.MethodGet, html.UnescapeString(link[1]), nil), http.StatusOK,
		"2 breaks match.", "HUMO-D-0001", "HUMO-D-0002", "Waiting for a second officer.")
	expect(t, "the approval", serve(h, &bob, http.MethodPost, approve[0], url.Values{"csrf": {bob.csrf}}), http.StatusSeeOther)
	if status(done) != ports.BreakResolved || status(other) != ports.BreakResolved {
		t.Fatalf("approved, the breaks are %s and %s", status(done), status(other))
	}

	if to := bulk(olga, "explain", "another bank's client, reversed", agree1, agree2); !strings.Contains(to, "done=explained") {
		t.Fatalf("the explanation went to %s", to)
	}
	if status(agree1) != ports.BreakExplained || status(agree2) != ports.BreakExplained {
		t.Fatal("breaks whose money agrees were not explained at once")
	}
	page := expect(t, "the explained breaks", serve(h, &olga, http.MethodGet, "/console/reconciliation?status=EXPLAINED", nil), http.StatusOK,
		"/console/reconciliation/breaks/"+agree1.ID.String()+"/reopen")
	if strings.Contains(page, "/breaks/"+agree1.ID.String()+"/accept") {
		t.Fatal("an explained break offers acceptance")
	}
	expect(t, "the reopening", serve(h, &olga, http.MethodPost, "/console/reconciliation/breaks/"+agree1.ID.String()+"/reopen",
		url.Values{"csrf": {olga.csrf}, "note": {"not another bank's client after all"}}), http.StatusSeeOther, "done=reopen_proposed")
	if status(agree1) != ports.BreakExplained {
		t.Fatal("one officer reopened a break")
	}
	approve = regexp.MustCompile(`/console/proposals/([0-9a-f-]{36})/approve`).FindStringSubmatch(
		serve(h, &bob, http.MethodGet, "/console/", nil).Body.String())
	expect(t, "approving the reopening", serve(h, &bob, http.MethodPost, approve[0], url.Values{"csrf": {bob.csrf}}), http.StatusSeeOther)
	if status(agree1) != ports.BreakOpen {
		t.Fatalf("approved, the reopened break is %s", status(agree1))
	}
	expect(t, "the reopened break", serve(h, &olga, http.MethodGet, "/console/reconciliation?source=HUMO", nil), http.StatusOK,
		"/console/reconciliation/breaks/"+agree1.ID.String()+"/explain", "reopened: not another bank")
	expect(t, "the audit log", serve(h, &bob, http.MethodGet, "/console/audit?from=2026-01-01&to=2030-01-01", nil), http.StatusOK,
		"break.reopen", "break.explain", "proposal.approve")
}
