package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tiyin/tiyin/adapters/journal"
	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
	"github.com/tiyin/tiyin/domain"
)

// TestTheBooksPageShowsTheClosesTheTrialBalanceAndTheProvisions: after a sandbox partner's
// loan is closed on its clock 40 days ahead (a date missed), a viewer's Books page lists the
// close, the day's trial balance with every kind's GL account and equal totals, and the loan
// in its provision class, in each language; the journal downloads are the command's CSV and
// JSON of the day.
func TestTheBooksPageShowsTheClosesTheTrialBalanceAndTheProvisions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite))
	_, loan := e.issuedLoan(t)
	ctx := context.Background()
	if _, err := e.clock.Advance(ctx, e.pid, 40*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := e.clock.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	day := domain.BusinessDate(e.clock.Now(e.pid))
	if _, err := e.app.Operations.CloseBooks.Close(ctx, day); err != nil {
		t.Fatal(err)
	}
	date := day.Format(time.DateOnly)
	h, _ := e.console(t)
	viewer := e.as(t, "vic", domain.RoleViewer)

	page := serveLang(h, &viewer, "/console/books", "en").Body.String()
	for _, want := range []string{`<a href="/console/books">Books</a>`, "sandbox partner acme", "Trial balance on " + date,
		"<td>INTEREST_RECEIVABLE</td><td>" + domain.DefaultChart().GL(domain.AccountInterestReceivable) + "</td>",
		"The day balances: its debits equal its credits.", "<td>SUBSTANDARD</td><td>1–30</td><td>10.00 %</td><td>1</td>",
		`href="/console/books/journal.csv?day=` + date + `"`, `href="/console/books/journal.json?day=` + date + `"`,
		"The bank&#39;s general ledger acknowledged the day&#39;s journal.", "Balance sheet and income on " + date,
		`<td title="LOAN, OVERDUE_PRINCIPAL">Loans to clients, principal</td>`, "<b>Income and expenses</b>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// The report's balance sheet balances, at the figure the use case reads.
	sides := regexp.MustCompile(`The balance sheet balances: assets ([-0-9 .]+), liabilities and the result to date ([-0-9 .]+)\.`).
		FindStringSubmatch(page)
	report, err := e.app.Operations.TrialBalance.Handle(ctx, day)
	if err != nil {
		t.Fatal(err)
	}
	if sides == nil || sides[1] != sides[2] ||
		strings.TrimLeft(strings.NewReplacer(" ", "", ".", "").Replace(sides[1]), "0") != strconv.FormatInt(report.Report.Assets, 10) {
		t.Errorf("the page's balance sheet %q, the report's assets %d", sides, report.Report.Assets)
	}
	total := regexp.MustCompile(`<tr class="total"><td><b>total</b></td><td></td><td></td><td><b>([-0-9 .]+)</b></td><td><b>([-0-9 .]+)</b></td><td></td></tr>`).
		FindStringSubmatch(page)
	if total == nil || total[1] != total[2] || total[1] == "0.00" {
		t.Fatalf("the trial balance's totals %q do not balance:\n%s", total, page)
	}
	tb, err := e.app.Operations.TrialBalance.Handle(ctx, day)
	if shown := strings.TrimLeft(strings.NewReplacer(" ", "", ".", "").Replace(total[1]), "0"); err != nil || tb.Debits != tb.Credits ||
		shown != strconv.FormatInt(tb.Debits, 10) {
		t.Errorf("the page's total %s is not the trial balance's %d tiyin (%v)", total[1], tb.Debits, err)
	}
	for lang, words := range map[string][]string{
		"ru": {"Бухгалтерия", "Закрытия дней", "партнёр песочницы acme", "Оборотно-сальдовая ведомость за " + date, "Резервы по классам", "Скачать CSV",
			"Баланс и доходы на " + date, "Главная книга банка подтвердила журнал дня."},
		"uz": {"Buxgalteriya", "Kunlarning yopilishi", "sandbox hamkori acme", date + " kungi aylanma-saldo qaydnomasi", "Sinflar boʻyicha zaxiralar", "CSV yuklab olish",
			date + " holatiga balans va daromadlar", "Bankning bosh daftari kun jurnalini tasdiqladi."},
	} {
		got := serveLang(h, &viewer, "/console/books", lang).Body.String()
		for _, w := range words {
			if !strings.Contains(got, w) {
				t.Errorf("%s: the page lacks %q", lang, w)
			}
		}
		if strings.Contains(got, "Trial balance") || strings.Contains(got, "Provisions by class") {
			t.Errorf("%s: the page speaks English", lang)
		}
	}

	lines, err := e.app.Operations.Journal.Handle(ctx, day)
	if err != nil || len(lines) == 0 {
		t.Fatalf("the day's journal: %d lines (%v)", len(lines), err)
	}
	var wantCSV, wantJSON bytes.Buffer
	if err := journal.WriteCSV(&wantCSV, lines); err != nil {
		t.Fatal(err)
	}
	if err := journal.WriteJSON(&wantJSON, date, lines); err != nil {
		t.Fatal(err)
	}
	csv := serve(h, &viewer, http.MethodGet, "/console/books/journal.csv?day="+date, nil)
	if ct := csv.Header().Get("Content-Type"); ct != "text/csv; charset=utf-8" || csv.Body.String() != wantCSV.String() ||
		!strings.HasPrefix(csv.Body.String(), "posting,kind,ref,at,account,loan,gl,debit,credit\n") ||
		!strings.Contains(csv.Body.String(), loan.ID().String()) {
		t.Errorf("the CSV (%s):\n%s", ct, csv.Body)
	}
	if cd := csv.Header().Get("Content-Disposition"); cd != `attachment; filename="tiyin-journal-`+date+`.csv"` {
		t.Errorf("the CSV's disposition %q", cd)
	}
	js := serve(h, &viewer, http.MethodGet, "/console/books/journal.json?day="+date, nil)
	var doc struct {
		Date    string         `json:"date"`
		Entries []journal.Line `json:"entries"`
	}
	if ct := js.Header().Get("Content-Type"); ct != "application/json" || js.Body.String() != wantJSON.String() ||
		json.Unmarshal(js.Body.Bytes(), &doc) != nil || doc.Date != date || len(doc.Entries) != len(lines) {
		t.Errorf("the JSON (%s):\n%s", ct, js.Body)
	}
}
