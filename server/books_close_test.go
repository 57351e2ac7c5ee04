package server

import (
	"strings"
	"testing"
	"time"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
)

// TestBooksClosePrintsEachDaysProof: `tiyin books close` prints, for each day it posted, what
// the books' daily proof found, and exits non-zero, saying why, when it found a break. A close of
// yesterday on books that agree: no breaks. Then core banking's acknowledgement of yesterday's
// post says other debits than were posted: the close of today proves yesterday again, finds one
// GL_ACK_DIFFERS break and fails; today is not over, not proved yet.
func TestBooksClosePrintsEachDaysProof(t *testing.T) {
	db := cliDB(t, store.SQLite)
	today := domain.BusinessDate(time.Now())
	yesterday, day := today.AddDate(0, 0, -1).Format(time.DateOnly), today.Format(time.DateOnly)

	status, out, errs := runCLI(t, "books", "close", "--date", yesterday)
	if status != 0 || !strings.Contains(out, "system clock: closed through "+yesterday) ||
		!strings.Contains(out, yesterday+": the daily proof found no breaks") {
		t.Fatalf("the close of %s: %d\n%s%s", yesterday, status, out, errs)
	}

	// Core banking's acknowledgement of yesterday's post, as recorded, says 100 tiyin more debits.
	if _, err := db.SQL.Exec("UPDATE books_gl_posts SET acknowledged_debits = acknowledged_debits + 100 WHERE day = ?",
		yesterday); err != nil {
		t.Fatal(err)
	}
	status, out, errs = runCLI(t, "books", "close", "--date", day)
	if status != 1 || !strings.Contains(out, yesterday+": the daily proof found 1 break (GL_ACK_DIFFERS 1; 1 new)") ||
		!strings.Contains(out, day+": not proved yet: the day is not over") ||
		!strings.Contains(errs, "the books' daily proof found breaks: 1 on "+yesterday) ||
		!strings.Contains(errs, "core banking acknowledged other totals") || !strings.Contains(errs, "reconciliation page") {
		t.Fatalf("the close of %s with a drifted receivable: %d\n%s%s", day, status, out, errs)
	}
}
