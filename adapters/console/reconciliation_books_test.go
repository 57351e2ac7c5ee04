package console_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// TestAnOfficerWorksABreakOfTheBooksProof: a loan's books are closed, and its interest
// receivable's kept balance is then moved by 7 tiyin by SQL. An officer's "Reconcile now" of
// yesterday proves the books and finds one SUBLEDGER_DIFFERS break; the page shows it under
// source BOOKS with both figures (the sum over loans, the control account) and what each side
// is, in each language, with no "Accept their side" (refused if asked: the books are never
// booked away) and an explanation that waits for a second officer, who approves it.
func TestAnOfficerWorksABreakOfTheBooksProof(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	_, loan := e.issuedLoan(t)
	ctx := context.Background()
	if _, err := e.app.Operations.CloseBooks.Close(ctx, time.Time{}); err != nil {
		t.Fatal(err)
	}
	yesterday := domain.BusinessDate(time.Now()).AddDate(0, 0, -1)
	tb, err := e.app.Operations.TrialBalance.Handle(ctx, yesterday)
	if err != nil {
		t.Fatal(err)
	}
	var control int64
	for _, l := range tb.Accounts {
		if l.Kind == domain.AccountInterestReceivable {
			control = l.Closing
		}
	}
	if control == 0 {
		t.Fatalf("no interest receivable on %s: %+v", yesterday.Format(time.DateOnly), tb.Accounts)
	}
	key := domain.LoanAccount(domain.AccountInterestReceivable, loan.ID()).Key()
	if err := e.db.Gorm.Exec("UPDATE ledger_accounts SET balance = balance + 7 WHERE key = ?", key).Error; err != nil {
		t.Fatal(err)
	}

	h, _ := e.console(t)
	olga, bob := e.as(t, "olga", domain.RoleOfficer), e.as(t, "bob", domain.RoleOfficer)
	expect(t, "reconcile now", serve(h, &olga, http.MethodPost, "/console/reconciliation/run",
		url.Values{"csrf": {olga.csrf}, "day": {yesterday.Format(time.DateOnly)}}), http.StatusSeeOther, "done=reconciled")
	page := expect(t, "the books' breaks", serve(h, &olga, http.MethodGet, "/console/reconciliation?source=BOOKS", nil), http.StatusOK,
		"1 breaks match.", "<td>BOOKS</td>", "SUBLEDGER_DIFFERS", "<code>INTEREST_RECEIVABLE</code>",
		"tiyin: the sum over loans; their side: the control account (the trial balance)",
		soms(control+7), soms(control), "the money differs: a second officer approves")
	id := regexp.MustCompile(`<tr id="break-([0-9a-f-]{36})"`).FindStringSubmatch(page)
	if id == nil || strings.Contains(page, "/breaks/"+id[1]+"/accept") {
		t.Fatalf("the break is not shown, or offers acceptance:\n%s", page)
	}
	for lang, want := range map[string]string{
		"ru": "tiyin: сумма по кредитам; их сторона: контрольный счёт (оборотно-сальдовая ведомость)",
		"uz": "tiyin: kreditlar boʻyicha yigʻindi; ularning tomoni: nazorat hisobvarogʻi (aylanma-saldo qaydnomasi)",
	} {
		if got := serveLang(h, &olga, "/console/reconciliation?source=BOOKS", lang).Body.String(); !strings.Contains(got, want) ||
			!strings.Contains(got, soms(control+7)) {
			t.Errorf("%s: the page lacks %q or the figures", lang, want)
		}
	}
	expect(t, "accepting their side", serve(h, &olga, http.MethodPost, "/console/reconciliation/breaks/"+id[1]+"/accept",
		url.Values{"csrf": {olga.csrf}, "note": {"the trial balance is right"}}), http.StatusConflict,
		html.EscapeString("a break of the books' daily proof is never booked away"))

	expect(t, "the explanation", serve(h, &olga, http.MethodPost, "/console/reconciliation/breaks/"+id[1]+"/explain",
		url.Values{"csrf": {olga.csrf}, "note": {"a balance moved by hand in the database, put back by the DBA"}}),
		http.StatusSeeOther, "done=explain_proposed")
	approve := regexp.MustCompile(`/console/proposals/([0-9a-f-]{36})/approve`).FindStringSubmatch(
		serve(h, &bob, http.MethodGet, "/console/", nil).Body.String())
	if approve == nil {
		t.Fatal("the second officer is not offered the explanation")
	}
	expect(t, "the approval", serve(h, &bob, http.MethodPost, approve[0], url.Values{"csrf": {bob.csrf}}), http.StatusSeeOther)
	rec := store.NewReconciliationRepository(e.db)
	got, err := rec.Breaks(ctx, ports.BreakQuery{Source: domain.SourceBooks, Limit: 10})
	if err != nil || len(got) != 1 || got[0].Status != ports.BreakExplained || got[0].Kind != domain.BreakSubledgerDiffers ||
		got[0].Ours.Amount != control+7 || got[0].Theirs.Amount != control {
		t.Fatalf("the books' breaks after the approval: %+v (%v)", got, err)
	}
}

// soms writes tiyin as the console does: so'm with a space between thousands, two decimals.
func soms(tiyin int64) string {
	whole := strconv.FormatInt(tiyin/100, 10)
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteRune(' ')
		}
		b.WriteRune(r)
	}
	return fmt.Sprintf("%s.%02d", b.String(), tiyin%100)
}
