package e2e

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
)

// bannerKey is the sandbox key of the last banner in out.
var bannerKey = regexp.MustCompile(`API key of partner "sandbox": (\S+)`)

// printedKeys waits until out shows n banners and returns their keys.
func printedKeys(t *testing.T, s *server, n int) []string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		ms := bannerKey.FindAllStringSubmatch(s.out.String(), -1)
		if len(ms) >= n {
			keys := make([]string, len(ms))
			for i, m := range ms {
				keys[i] = m[1]
			}
			return keys
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d banners, want %d:\n%s", len(ms), n, s.out)
		}
	}
}

// TestTheSandboxKeyOutlivesARestart: without TIYIN_SANDBOX_API_KEY the first start makes the
// sandbox partner's key, and a second start on the same database prints the same key, which
// still works; a key given in TIYIN_SANDBOX_API_KEY wins, and is kept in turn (issue 48).
func TestTheSandboxKeyOutlivesARestart(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, d store.Dialect) {
		s := start(t, d, "TIYIN_SANDBOX_API_KEY=")
		restart := func(env ...string) {
			t.Helper()
			if err := s.stop(); err != nil {
				t.Fatalf("stop: %v\n%s", err, s.out)
			}
			s.env = append(s.env, env...)
			s.launch(t)
			s.waitReady(t)
		}
		first := printedKeys(t, s, 1)[0]
		if first == sandboxKey || !strings.HasPrefix(first, "tiyin_") {
			t.Fatalf("first start printed %q, want a key of its own", first)
		}
		s.key = first
		s.must(t, "/sandbox/clock/advance", map[string]any{"duration": "0s"})

		restart()
		if again := printedKeys(t, s, 2)[1]; again != first {
			t.Fatalf("the second start printed %q, the first %q", again, first)
		}
		s.must(t, "/sandbox/clock/advance", map[string]any{"duration": "0s"}) // the key works after the restart

		restart("TIYIN_SANDBOX_API_KEY=" + sandboxKey)
		if given := printedKeys(t, s, 3)[2]; given != sandboxKey {
			t.Fatalf("a start with TIYIN_SANDBOX_API_KEY printed %q", given)
		}
		if a := s.call(t, "/sandbox/clock/advance", map[string]any{"duration": "0s"}); a.code() != 2 {
			t.Fatalf("the replaced key still works: %s", a.Raw)
		}
		s.key = sandboxKey
		s.must(t, "/sandbox/clock/advance", map[string]any{"duration": "0s"})
		restart("TIYIN_SANDBOX_API_KEY=")
		if kept := printedKeys(t, s, 4)[3]; kept != sandboxKey {
			t.Fatalf("the key given at the start before is not kept: %q", kept)
		}
		s.must(t, "/sandbox/clock/advance", map[string]any{"duration": "0s"})
	})
}

var (
	demoApplication = regexp.MustCompile(`applicationId ([0-9a-f-]{36})`)
	demoLoan        = regexp.MustCompile(`loanId ([0-9]+)`)
	demoCard        = regexp.MustCompile(`cardId ([0-9a-f-]{36})`)
)

// demoRun is what one `tiyin demo` made.
type demoRun struct{ application, loan, card string }

// runDemo walks the whole process for the partner with key: application, loan, transfer,
// clock, repayment, card order, attach.
func runDemo(t *testing.T, s *server, key string) demoRun {
	t.Helper()
	cmd := exec.Command(binary, "demo", "--url", s.url, "--key", key)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	app, loan, card := demoApplication.FindSubmatch(out), demoLoan.FindSubmatch(out), demoCard.FindSubmatch(out)
	if app == nil || loan == nil || card == nil {
		t.Fatalf("demo output lacks an id:\n%s", out)
	}
	return demoRun{application: string(app[1]), loan: string(loan[1]), card: string(card[1])}
}

// TestAPartnerResetsItsOwnSandbox: two partners walk the whole process on one sandbox; one
// resets its sandbox. Its objects are gone (application, loan, card, events, SMS codes), its
// clock is the real time again, and it walks the process again from the start; the other's
// objects and clock are as they were. The ledger is consistent after the reset (the bank-wide
// accounts lost whole balanced postings) (issue 48).
func TestAPartnerResetsItsOwnSandbox(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, d store.Dialect) {
		s := start(t, d)
		cmd := exec.Command(binary, "partner", "create", "--name", "postman", "--json")
		cmd.Env = s.env
		out, err := cmd.Output()
		var created struct{ APIKey string }
		if err != nil || json.Unmarshal(out, &created) != nil || created.APIKey == "" {
			t.Fatalf("partner create: %v %s", err, out)
		}
		mine, theirs := created.APIKey, s.key
		as := func(key, path string, params any) answer {
			t.Helper()
			return s.callWith(t, key, uuid.NewString(), path, params)
		}
		must := func(key, path string, params any) map[string]any {
			t.Helper()
			a := as(key, path, params)
			if a.code() != 0 {
				t.Fatalf("%s: %s", path, a.Raw)
			}
			return a.Result
		}
		clock := func(key string) time.Time {
			t.Helper()
			now, err := time.Parse(time.RFC3339, must(key, "/sandbox/clock/advance", map[string]any{"duration": "0s"})["now"].(string))
			if err != nil {
				t.Fatal(err)
			}
			return now
		}
		ledgerCheck := func() {
			t.Helper()
			cmd := exec.Command(binary, "ledger", "check")
			cmd.Env = s.env
			if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "ledger consistent") {
				t.Fatalf("ledger check: %v\n%s", err, out)
			}
		}
		type snapshot struct {
			app, loan, card map[string]any
			events          int
		}
		look := func(key string, r demoRun) snapshot {
			t.Helper()
			return snapshot{
				app:    must(key, "/microloans/applications/info", map[string]any{"applicationId": r.application}),
				loan:   must(key, "/microloans/info", map[string]any{"applicationId": r.application}),
				card:   must(key, "/cards/status", map[string]any{"cardId": r.card}),
				events: len(must(key, "/events/list", map[string]any{"afterSequence": 0})["events"].([]any)),
			}
		}

		runMine, runTheirs := runDemo(t, s, mine), runDemo(t, s, theirs)
		must(theirs, "/sandbox/clock/advance", map[string]any{"duration": "240h"})
		ledgerCheck()
		before := look(theirs, runTheirs)
		theirClock := clock(theirs)
		if clock(mine).Before(time.Now().Add(30 * time.Minute)) {
			t.Fatal("the demo did not move the partner's clock")
		}
		myEvents := must(mine, "/events/list", map[string]any{"afterSequence": 0})
		if len(myEvents["events"].([]any)) == 0 {
			t.Fatal("the demo made no events")
		}
		lastSequence := myEvents["nextSequence"].(float64)

		now, err := time.Parse(time.RFC3339, must(mine, "/sandbox/reset", map[string]any{})["now"].(string))
		if err != nil || time.Until(now).Abs() > 5*time.Second {
			t.Fatalf("reset answered now %v (%v), want the real time", now, err)
		}
		if got := clock(mine); time.Until(got).Abs() > 5*time.Second {
			t.Fatalf("the reset partner's clock reads %v, want the real time", got)
		}
		for _, c := range []struct {
			path   string
			params map[string]any
			code   int
		}{
			{"/microloans/applications/info", map[string]any{"applicationId": runMine.application}, 1001},
			{"/microloans/info", map[string]any{"applicationId": runMine.application}, 1012},
			{"/microloans/schedule", map[string]any{"loanId": runMine.loan}, 1012},
			{"/cards/status", map[string]any{"cardId": runMine.card}, 1007},
		} {
			if a := as(mine, c.path, c.params); a.code() != c.code {
				t.Errorf("after the reset %s answers %s, want code %d", c.path, a.Raw, c.code)
			}
		}
		if evs := must(mine, "/events/list", map[string]any{"afterSequence": 0})["events"].([]any); len(evs) != 0 {
			t.Errorf("after the reset %d events are listed", len(evs))
		}
		if msgs := must(mine, "/sandbox/sms/outbox", map[string]any{"phoneNumber": "998933066723"})["messages"].([]any); len(msgs) != 0 {
			t.Errorf("after the reset the SMS outbox shows %d messages", len(msgs))
		}
		ledgerCheck()

		// The other partner's objects and clock are as they were.
		time.Sleep(1500 * time.Millisecond) // background passes run on both clocks meanwhile
		after := look(theirs, runTheirs)
		for _, k := range []string{"status", "totalResidue", "totalFine", "loanId"} {
			if before.loan[k] != after.loan[k] {
				t.Errorf("the other partner's loan %s: %v before the reset, %v after", k, before.loan[k], after.loan[k])
			}
		}
		if before.app["status"] != after.app["status"] || before.card["status"] != after.card["status"] || after.events < before.events {
			t.Errorf("the other partner's objects changed: %+v, then %+v", before, after)
		}
		if gap := clock(theirs).Sub(theirClock); gap < 0 || gap > time.Minute {
			t.Errorf("the other partner's clock moved by %v across the reset", gap)
		}

		// The reset partner starts again from nothing: the same card attaches, the same
		// externalIds are free; its events' sequence keeps growing, so that a receiver that
		// keeps the highest it processed misses none.
		again := runDemo(t, s, mine)
		if again.application == runMine.application {
			t.Fatal("the demo after the reset found the old application")
		}
		evs := must(mine, "/events/list", map[string]any{"afterSequence": 0})["events"].([]any)
		if len(evs) == 0 || evs[0].(map[string]any)["sequence"].(float64) <= lastSequence {
			t.Errorf("after the reset the events start at %v, the last before it was %v", evs, lastSequence)
		}
		ledgerCheck()
	})
}
