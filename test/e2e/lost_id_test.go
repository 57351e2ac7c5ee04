package e2e

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
)

// TestALostApplicationIDIsFoundAgain walks what a partner does after a registration timed out,
// over real HTTP against the built binary: the same envelope id again gets the first answer,
// marked Idempotent-Replayed (the first is not); the find call finds the application by the
// partner's externalId, as info shows it; and a registration under a new id with the same
// externalId answers 1011 naming the application.
func TestALostApplicationIDIsFoundAgain(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, d store.Dialect) {
		s := start(t, d)
		ext, id := uuid.NewString(), uuid.NewString()
		params := map[string]any{"externalId": ext, "isAgreementAccepted": true, "phoneNumber": "998901234567",
			"clientData": clientData("31234567890123")}
		first := s.callWith(t, s.key, id, "/microloans/applications/pre-scoring/register", params)
		again := s.callWith(t, s.key, id, "/microloans/applications/pre-scoring/register", params)
		if first.code() != 0 || !bytes.Equal(first.Raw, again.Raw) {
			t.Fatalf("the same id again:\n%s\n%s", first.Raw, again.Raw)
		}
		if _, ok := first.Header["Idempotent-Replayed"]; ok || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("Idempotent-Replayed: first %q, again %q; want none, then true",
				first.Header.Values("Idempotent-Replayed"), again.Header.Values("Idempotent-Replayed"))
		}
		app := first.Result["applicationId"].(string)
		settled := s.waitFor(t, app, "PENDING", nil) // pre-scoring runs beside us: compare a settled answer

		found := s.must(t, "/microloans/applications/find", map[string]any{"externalId": ext})
		if found["applicationId"] != app || found["externalId"] != ext {
			t.Fatalf("find by externalId: %v, want application %s", found, app)
		}
		if found["status"] != settled.Status || fmt.Sprint(found["preScoreResult"]) != fmt.Sprint(settled.Result["preScoreResult"]) {
			t.Fatalf("find says %v, info %v", found, settled.Result)
		}
		if a := s.call(t, "/microloans/applications/find", map[string]any{"externalId": uuid.NewString()}); a.code() != 1001 || a.Status != 404 {
			t.Fatalf("an unknown externalId: %s", a.Raw)
		}

		used := s.call(t, "/microloans/applications/pre-scoring/register", params)
		if used.code() != 1011 || !strings.HasSuffix(used.Error.Message, "application "+app) {
			t.Fatalf("the same externalId under a new id: %s, want 1011 naming %s", used.Raw, app)
		}
		if used.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("a first answer marked as a replay: %v", used.Header)
		}
	})
}
