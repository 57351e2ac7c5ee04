package http_test

import (
	"testing"

	"github.com/google/uuid"
)

// POST /sandbox/reset erases the caller's objects and answers its time; the same id again
// replays that answer and erases nothing more; outside the sandbox the path does not exist.
func TestSandboxResetOverHTTP(t *testing.T) {
	t.Parallel()
	h := setup(t)
	before := h.register(t)
	id := uuid.NewString()
	if a := h.callAs(t, h.key, id, "/sandbox/reset", map[string]any{}); a.code() != 0 || a.Status != 200 {
		t.Fatalf("reset: %d %s", a.Status, a.Raw)
	}
	if a := h.call(t, "/microloans/applications/info", map[string]any{"applicationId": before}); a.code() != 1001 {
		t.Fatalf("the application made before the reset: %s", a.Raw)
	}
	after := h.register(t)
	if a := h.callAs(t, h.key, id, "/sandbox/reset", map[string]any{}); a.code() != 0 {
		t.Fatalf("the reset replayed: %s", a.Raw)
	}
	if a := h.call(t, "/microloans/applications/info", map[string]any{"applicationId": after}); a.code() != 0 {
		t.Fatalf("a replayed reset erased the application made after it: %s", a.Raw)
	}
	if a := h.call(t, "/sandbox/reset", map[string]any{"unknown": 1}); a.code() != 0 {
		t.Fatalf("unknown params are ignored: %s", a.Raw)
	}

	off := setupWith(t, false, func(s *harnessSetup) { s.http.Sandbox = false })
	if a := off.call(t, "/sandbox/reset", map[string]any{}); a.code() != 6 || a.Status != 404 {
		t.Fatalf("outside the sandbox: %d %s", a.Status, a.Raw)
	}
}
