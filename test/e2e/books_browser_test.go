package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
)

// TestTheBooksPageInChromium issues a loan in the sandbox, moves the partner's clock 10 days
// on and closes the books with the command, then a viewer opens the Books page from the
// console's navigation in real Chromium: the close is listed, the day's trial balance totals
// are the command's and equal, and the journal downloaded from the page (CSV and JSON) is
// what tiyin books journal prints.
func TestTheBooksPageInChromium(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	s := startConsole(t, store.SQLite)
	s.issuedLoan(t, "31234567890123")
	now, err := time.Parse(time.RFC3339Nano, s.must(t, "/sandbox/clock/advance", map[string]any{"duration": "240h"})["now"].(string))
	if err != nil {
		t.Fatal(err)
	}
	day := domain.BusinessDate(now).Format(time.DateOnly)
	if closed := s.tiyin(t, "books", "close", "--date", day); !strings.Contains(closed, "closed through "+day) {
		t.Fatalf("close: %s", closed)
	}
	var tb struct{ Debits, Credits int64 }
	if err := json.Unmarshal([]byte(s.tiyin(t, "books", "trial-balance", "--date", day, "--json")), &tb); err != nil || tb.Debits == 0 {
		t.Fatalf("trial balance %+v (%v)", tb, err)
	}
	wantCSV, wantJSON := s.tiyin(t, "books", "journal", "--date", day), s.tiyin(t, "books", "journal", "--date", day, "--json")

	vera := newBrowser(t, exe)
	// The journal's links download their files: Chromium saves each under its download's id.
	downloads, dir := make(chan string, 2), t.TempDir()
	chromedp.ListenTarget(vera, func(ev any) {
		if e, ok := ev.(*cdpbrowser.EventDownloadProgress); ok && e.State == cdpbrowser.DownloadProgressStateCompleted {
			downloads <- e.GUID
		}
	})
	var page, debits, credits, csv, js string
	download := func(ext string, into *string) chromedp.Tasks {
		return chromedp.Tasks{
			chromedp.Click(`a[href="/console/books/journal.` + ext + `?day=` + day + `"]`),
			chromedp.ActionFunc(func(ctx context.Context) error {
				select {
				case id := <-downloads:
					b, err := os.ReadFile(filepath.Join(dir, id))
					*into = string(b)
					return err
				case <-ctx.Done():
					return ctx.Err()
				}
			}),
		}
	}
	err = chromedp.Run(vera,
		cdpbrowser.SetDownloadBehavior(cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName).WithDownloadPath(dir).WithEventsEnabled(true),
		firstLogin(s.admin, "vera", s.operator(t, "vera", "viewer"), "vera-long-password-1"),
		chromedp.Click(`//nav/a[@href="/console/books"]`),
		chromedp.WaitVisible(`#trial-balance-table`), shot("books"),
		chromedp.Text(`main`, &page),
		chromedp.Text(`//table[@id="trial-balance-table"]//tr[@class="total"]/td[4]`, &debits),
		chromedp.Text(`//table[@id="trial-balance-table"]//tr[@class="total"]/td[5]`, &credits),
		download("csv", &csv), download("json", &js),
	)
	if err != nil {
		t.Fatalf("vera: %v", err)
	}
	for _, want := range []string{"Trial balance on " + day, "INTEREST_RECEIVABLE", "The day balances", "Provisions by class", "STANDARD"} {
		if !strings.Contains(page, want) {
			t.Errorf("the Books page lacks %q:\n%s", want, page)
		}
	}
	tiyin := func(soum string) string {
		return strings.NewReplacer(" ", "", ".", "").Replace(strings.TrimSpace(soum))
	}
	if want := strconv.FormatInt(tb.Debits, 10); tiyin(debits) != want || tiyin(credits) != strconv.FormatInt(tb.Credits, 10) {
		t.Errorf("the page's totals are %s and %s, the command's %d and %d", debits, credits, tb.Debits, tb.Credits)
	}
	if csv != wantCSV || !strings.HasPrefix(csv, "posting,kind,ref,at,account,loan,gl,debit,credit\n") || !strings.Contains(csv, "CLOSE") {
		t.Errorf("the CSV downloaded is not the command's:\n%s\nwant:\n%s", csv, wantCSV)
	}
	// The command's JSON also says what the general ledger acknowledged; the download is the
	// journal alone: its date and entries must be the command's.
	type journalJSON struct {
		Date    string            `json:"date"`
		Entries []json.RawMessage `json:"entries"`
	}
	var got, want journalJSON
	if err := json.Unmarshal([]byte(js), &got); err != nil || json.Unmarshal([]byte(wantJSON), &want) != nil {
		t.Fatalf("the JSON journals: %v\n%s\n%s", err, js, wantJSON)
	}
	if g, w := fmt.Sprint(got), fmt.Sprint(want); g != w || got.Date != day || len(got.Entries) == 0 {
		t.Errorf("the JSON downloaded is not the command's journal:\n%s\nwant:\n%s", js, wantJSON)
	}
}
