package http_test

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/google/uuid"
)

type eventPage struct {
	Events []struct {
		ID, Type, CreatedAt string
		Sequence            int64
		Data                json.RawMessage
	}
	NextSequence int64
}

func (h *harness) listEvents(t *testing.T, key string, params map[string]any) (eventPage, answer) {
	t.Helper()
	a := h.callAs(t, key, uuid.NewString(), "/events/list", params)
	var p eventPage
	if a.code() == 0 {
		if err := json.Unmarshal(a.Result, &p); err != nil {
			t.Fatalf("list: %s", a.Raw)
		}
	}
	return p, a
}

// number runs the delivery pass, which numbers the events recorded so far.
func (h *harness) number(t *testing.T) {
	t.Helper()
	if _, err := h.app.Partners.DeliverEvents.Handle(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestEventsAreListedAfterASequence: a partner without a webhook lists its events, numbered
// from 1 in the order they happened, with milliseconds; a page starts after the number asked,
// holds at most the limit and the types asked; another partner sees none of them; a test event
// is listed like any other.
func TestEventsAreListedAfterASequence(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.register(t) // NEW, IN_PROGRESS, PENDING: the stages run at once here
	h.number(t)
	all, a := h.listEvents(t, h.key, map[string]any{})
	if a.code() != 0 || len(all.Events) < 2 {
		t.Fatalf("list: %s", a.Raw)
	}
	millis := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+05:00$`)
	for i, e := range all.Events {
		if e.Sequence != int64(i+1) || e.Type != "APPLICATION_STATUS_CHANGED" || !millis.MatchString(e.CreatedAt) {
			t.Fatalf("event %d: %+v", i, e)
		}
	}
	if all.NextSequence != int64(len(all.Events)) {
		t.Fatalf("nextSequence %d after %d events", all.NextSequence, len(all.Events))
	}
	if rest, _ := h.listEvents(t, h.key, map[string]any{"afterSequence": all.NextSequence}); len(rest.Events) != 0 || rest.NextSequence != all.NextSequence {
		t.Fatalf("after the last: %+v", rest)
	}
	if two, _ := h.listEvents(t, h.key, map[string]any{"afterSequence": 0, "limit": 1}); len(two.Events) != 1 || two.NextSequence != 1 {
		t.Fatalf("limit 1: %+v", two)
	}
	if none, _ := h.listEvents(t, h.key, map[string]any{"types": []string{"CARD_ATTACHED"}}); len(none.Events) != 0 {
		t.Fatalf("another type: %+v", none)
	}
	if theirs, _ := h.listEvents(t, h.otherKey, map[string]any{}); len(theirs.Events) != 0 {
		t.Fatalf("another partner lists %+v", theirs)
	}
	for _, bad := range []map[string]any{{"limit": 0}, {"limit": 101}, {"afterSequence": -1}, {"types": []string{"NOPE"}}, {"limit": "ten"}} {
		if _, a := h.listEvents(t, h.key, bad); a.code() != 4 {
			t.Fatalf("%v: %s", bad, a.Raw)
		}
	}

	sent := h.call(t, "/sandbox/events/test", map[string]any{})
	var r struct{ EventID string }
	if err := json.Unmarshal(sent.Result, &r); err != nil || sent.code() != 0 || r.EventID == "" {
		t.Fatalf("test event: %s", sent.Raw)
	}
	h.number(t)
	tests, _ := h.listEvents(t, h.key, map[string]any{"afterSequence": all.NextSequence, "types": []string{"TEST"}})
	if len(tests.Events) != 1 || tests.Events[0].ID != r.EventID || tests.Events[0].Sequence != all.NextSequence+1 {
		t.Fatalf("the test event: %+v", tests)
	}
}
