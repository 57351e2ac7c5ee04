package server

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
)

// TestReconcileListsTheNewBreaksAndHowTheDayStands (issue 47, 7 and 14): `tiyin reconcile`
// lists each break it found first, with its kind, source, line and both sides, and says how
// many of the day's breaks are open, resolved or explained; a second run finds the break again
// and lists nothing new. --json keeps its figures and adds the new breaks and the standing.
// Today is refused: it is not over.
func TestReconcileListsTheNewBreaksAndHowTheDayStands(t *testing.T) {
	t.Setenv("TIYIN_SANDBOX", "true")
	t.Setenv("TIYIN_SQLITE_PATH", filepath.Join(t.TempDir(), "tiyin.db"))
	yesterday := domain.BusinessDate(time.Now()).AddDate(0, 0, -1)
	err := openDB(context.Background(), applied(nil), schemaApply, func(ctx context.Context, in cli) error {
		start, _ := domain.BusinessDay(yesterday)
		return store.NewNetworkJournal(in.db).Record(ctx, domain.NetworkHumo, domain.StatementLine{ID: "D-9", Kind: domain.LineDebit,
			Amount: 300, At: start.Add(12 * time.Hour), Status: domain.LineDone}, "", 0)
	})
	if err != nil {
		t.Fatal(err)
	}
	day := yesterday.Format(time.DateOnly)
	first := stdoutOf(t, "reconcile", "--date", day, "--network", "HUMO")
	for _, want := range []string{day + " HUMO: tiyin 0 lines, theirs 1, matched 0; breaks found 1 (1 new); the day's breaks: 1 open, 0 resolved, 0 explained",
		"  new MISSING_IN_TIYIN HUMO D-9: tiyin -, HUMO 300 DONE (OPEN)"} {
		if !strings.Contains(first, want) {
			t.Fatalf("the first run printed\n%s\nwithout %q", first, want)
		}
	}
	again := stdoutOf(t, "reconcile", "--date", day, "--network", "HUMO")
	if !strings.Contains(again, "breaks found 1 (0 new); the day's breaks: 1 open") || strings.Contains(again, "new MISSING") {
		t.Fatalf("the second run printed\n%s", again)
	}
	var out map[string]struct {
		Ours, Theirs, Matched, New int
		Found                      []string
		NewBreaks                  []struct{ Kind, LineID, Status string }
		Standing                   map[string]int
	}
	if err := json.Unmarshal([]byte(stdoutOf(t, "reconcile", "--date", day, "--network", "HUMO", "--json")), &out); err != nil {
		t.Fatal(err)
	}
	if h := out["HUMO"]; h.Theirs != 1 || h.New != 0 || len(h.Found) != 1 || h.Found[0] != "MISSING_IN_TIYIN D-9" || len(h.NewBreaks) != 0 ||
		h.Standing["OPEN"] != 1 {
		t.Fatalf("--json: %+v", out)
	}
	if code := Run([]string{"reconcile", "--date", domain.BusinessDate(time.Now()).Format(time.DateOnly)}); code != 1 {
		t.Fatalf("reconciling today: exit %d, want 1", code)
	}
}
