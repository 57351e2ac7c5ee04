package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
	appconsole "github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// TestOnlyAClosedDayIsReconciledFromTheConsole (issue 47, 7): "Reconcile now" refuses today and
// any later day with the reason, and its form offers the day closed last, and no later one.
func TestOnlyAClosedDayIsReconciledFromTheConsole(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	h, _ := e.console(t)
	officer := e.as(t, "olga", domain.RoleOfficer)
	today := domain.BusinessDate(time.Now())
	for _, day := range []time.Time{today, today.AddDate(0, 0, 1)} {
		rec := serve(h, &officer, http.MethodPost, "/console/reconciliation/run",
			url.Values{"csrf": {officer.csrf}, "day": {day.Format(time.DateOnly)}})
		expect(t, "reconciling "+day.Format(time.DateOnly), rec, http.StatusBadRequest, "Only a closed business day can be reconciled")
	}
	closed := today.AddDate(0, 0, -1).Format(time.DateOnly)
	expect(t, "the reconciliation page", serve(h, &officer, http.MethodGet, "/console/reconciliation", nil), http.StatusOK,
		`value="`+closed+`" max="`+closed+`"`)
}

// TestTheDashboardShowsTheOpenBreaks (issue 47, 8): open reconciliation breaks need attention:
// the dashboard counts them, names the oldest day and links to the reconciliation page, in each
// language, and no longer says that nothing waits.
func TestTheDashboardShowsTheOpenBreaks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	h, _ := e.console(t)
	viewer := e.as(t, "vic", domain.RoleViewer)
	expect(t, "the quiet dashboard", serve(h, &viewer, http.MethodGet, "/console/", nil), http.StatusOK, "Nothing waits too long.")
	rec := store.NewReconciliationRepository(e.db)
	ctx := context.Background()
	oldest := domain.BusinessDate(time.Now()).AddDate(0, 0, -3)
	for i, day := range []time.Time{oldest, oldest.AddDate(0, 0, 1), oldest.AddDate(0, 0, 1)} {
		line := "D-" + string(rune('1'+i))
		b := domain.Break{Kind: domain.BreakMissingInTiyin, LineID: line,
			Theirs: &domain.StatementLine{ID: line, Kind: domain.LineDebit, Amount: 300, At: day, Status: domain.LineDone}}
		if err := store.NewUnitOfWork(e.db).Do(ctx, func(ctx context.Context) error {
			_, err := rec.Record(ctx, ports.ReconciliationRun{ID: uuid.New(), Day: day, Source: "UZCARD", At: time.Now()}, []domain.Break{b})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	for lang, want := range map[string]string{
		"en": "3 reconciliation breaks are open, the oldest of " + oldest.Format(time.DateOnly),
		"ru": "Открытых расхождений сверки: 3, самое старое за " + oldest.Format(time.DateOnly),
		"uz": "Solishtirishning ochiq tafovutlari: 3, eng eskisi " + oldest.Format(time.DateOnly),
	} {
		req := serveLang(h, &viewer, "/console/", lang)
		body := expect(t, "the dashboard in "+lang, req, http.StatusOK, want, `href="/console/reconciliation"`)
		if strings.Contains(body, "Nothing waits too long.") {
			t.Fatalf("the dashboard in %s says nothing waits with breaks open", lang)
		}
	}

	// A team far behind: the front page counts up to its bound and says "more than".
	many := make([]domain.Break, appconsole.DashboardCountedBreaks)
	for i := range many {
		line := fmt.Sprintf("M-%d", i)
		many[i] = domain.Break{Kind: domain.BreakMissingInTiyin, LineID: line,
			Theirs: &domain.StatementLine{ID: line, Kind: domain.LineDebit, Amount: 300, At: oldest, Status: domain.LineDone}}
	}
	if err := store.NewUnitOfWork(e.db).Do(ctx, func(ctx context.Context) error {
		_, err := rec.Record(ctx, ports.ReconciliationRun{ID: uuid.New(), Day: oldest, Source: "HUMO", At: time.Now()}, many)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	expect(t, "the dashboard past its count", serve(h, &viewer, http.MethodGet, "/console/", nil), http.StatusOK,
		fmt.Sprintf("More than %d reconciliation breaks are open, the oldest of %s", appconsole.DashboardCountedBreaks, oldest.Format(time.DateOnly)))
}

// serveLang gets path with the session from a browser asking for lang.
func serveLang(h http.Handler, s *operatorSession, path, lang string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Accept-Language", lang)
	req.AddCookie(s.cookie)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestExplainingABreakClosesItsProposedAcceptance (issue 47, 6), on the store: one officer
// proposes accepting a break's other side, another explains the break instead; the proposal
// is closed with it (no longer on the dashboard, audited), and approving it is refused as a
// proposal no longer open.
func TestExplainingABreakClosesItsProposedAcceptance(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	h, _ := e.console(t)
	olga, bob := e.as(t, "olga", domain.RoleOfficer), e.as(t, "bob", domain.RoleOfficer)
	rec := store.NewReconciliationRepository(e.db)
	ctx := context.Background()
	day := domain.BusinessDate(time.Now()).AddDate(0, 0, -1)
	b := domain.Break{Kind: domain.BreakMissingInTiyin, LineID: "D-9",
		Theirs: &domain.StatementLine{ID: "D-9", Kind: domain.LineDebit, Amount: 300, At: day, Status: domain.LineDone}}
	if err := store.NewUnitOfWork(e.db).Do(ctx, func(ctx context.Context) error {
		_, err := rec.Record(ctx, ports.ReconciliationRun{ID: uuid.New(), Day: day, Source: "HUMO", At: time.Now()}, []domain.Break{b})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	id := must(rec.Breaks(ctx, ports.BreakQuery{Limit: 1}))[0].ID.String()
	expect(t, "the proposal", serve(h, &olga, http.MethodPost, "/console/reconciliation/breaks/"+id+"/accept",
		url.Values{"csrf": {olga.csrf}, "note": {"HUMO's file lists the debit"}}), http.StatusSeeOther)
	proposal := regexp.MustCompile(`/console/proposals/([0-9a-f-]{36})/approve`).FindStringSubmatch(
		serve(h, &bob, http.MethodGet, "/console/", nil).Body.String())
	if proposal == nil {
		t.Fatal("the dashboard does not offer the proposal to approve")
	}
	// The debit's money differs: explaining it is a proposal of its own (issue 47, 4), which
	// replaces the acceptance.
	explained := serve(h, &bob, http.MethodPost, "/console/reconciliation/breaks/"+id+"/explain",
		url.Values{"csrf": {bob.csrf}, "note": {"refunded at the desk"}})
	expect(t, "the explanation", explained, http.StatusSeeOther)
	if to := explained.Header().Get("Location"); !strings.Contains(to, "done=explain_proposed") {
		t.Fatalf("the explanation went to %s", to)
	}
	if body := serve(h, &bob, http.MethodGet, "/console/", nil).Body.String(); strings.Contains(body, proposal[1]) {
		t.Fatalf("the dashboard still offers the proposal:\n%s", body)
	}
	expect(t, "approving the superseded proposal", serve(h, &bob, http.MethodPost, "/console/proposals/"+proposal[1]+"/approve",
		url.Values{"csrf": {bob.csrf}}), http.StatusConflict, "The proposal is no longer open")
	explanation := regexp.MustCompile(`/console/proposals/([0-9a-f-]{36})/approve`).FindStringSubmatch(
		serve(h, &olga, http.MethodGet, "/console/", nil).Body.String())
	if explanation == nil {
		t.Fatal("the dashboard does not offer the explanation to approve")
	}
	expect(t, "approving the explanation", serve(h, &olga, http.MethodPost, "/console/proposals/"+explanation[1]+"/approve",
		url.Values{"csrf": {olga.csrf}}), http.StatusSeeOther)
	if got := must(rec.Breaks(ctx, ports.BreakQuery{Limit: 1}))[0]; got.Status != ports.BreakExplained {
		t.Fatalf("approved, the break is %s", got.Status)
	}
	expect(t, "the audit log", serve(h, &bob, http.MethodGet, "/console/audit?from=2026-01-01&to=2030-01-01", nil), http.StatusOK,
		"break.explain", "proposal.supersede")
}

// TestABreakLeadsToItsObjectAndSearchFindsALoanByItsNumbers (issue 47, 9): a closing balance's
// break links to its loan; the loan's demand account's number and its contract number each
// find the loan and open its page.
func TestABreakLeadsToItsObjectAndSearchFindsALoanByItsNumbers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	_, loan := e.issuedLoan(t)
	ctx := context.Background()
	if err := e.loans.Update(ctx, loan.ID(), func(l *domain.Loan) error { return l.AssignContract("2026000417", time.Now()) }); err != nil {
		t.Fatal(err)
	}
	loan, _ = e.loans.Get(ctx, loan.ID())
	h, _ := e.console(t)
	viewer := e.as(t, "vic", domain.RoleViewer)
	day := domain.BusinessDate(time.Now()).AddDate(0, 0, -1)
	line := domain.BalanceLineID(loan.AccountNumber(), domain.LineDemand)
	b := domain.Break{Kind: domain.BreakBalanceDiffers, LineID: line,
		Ours:   &domain.StatementLine{ID: line, Kind: domain.LineDemand, Amount: 0, At: day, Status: domain.LineDone},
		Theirs: &domain.StatementLine{ID: line, Kind: domain.LineDemand, Amount: 700, At: day, Status: domain.LineDone}}
	if err := store.NewUnitOfWork(e.db).Do(ctx, func(ctx context.Context) error {
		_, err := store.NewReconciliationRepository(e.db).Record(ctx, ports.ReconciliationRun{ID: uuid.New(), Day: day,
			Source: domain.SourceCoreBanking, At: time.Now()}, []domain.Break{b})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	expect(t, "the reconciliation page", serve(h, &viewer, http.MethodGet, "/console/reconciliation", nil), http.StatusOK,
		`<a href="/console/loans/`+loan.ID().String()+`" title="Loan"><code>`+line+`</code></a>`)
	for _, q := range []string{loan.AccountNumber(), loan.ContractNumber()} {
		if q == "" {
			t.Fatal("the loan has no number to search by")
		}
		rec := serve(h, &viewer, http.MethodGet, "/console/search?q="+url.QueryEscape(q), nil)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/console/loans/"+loan.ID().String() {
			t.Errorf("searching %q: %d to %q, want the loan's page", q, rec.Code, rec.Header().Get("Location"))
		}
	}
}
