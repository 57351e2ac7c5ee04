package e2e

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
)

// TestTwoPartnersShareOneSandboxAndSeeNothingOfEachOther: two partners on one sandbox each
// register an application and attach a card for the same phone number; each reads only its own
// SMS code; each moves its own clock. Afterwards every object of each is in the state its own
// clock implies: the partner that moved 73 hours has an expired application and an expired
// code, the one that moved 2 minutes a pending application and a code still good.
func TestTwoPartnersShareOneSandboxAndSeeNothingOfEachOther(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, d store.Dialect) {
		s := start(t, d)
		cmd := exec.Command(binary, "partner", "create", "--name", "second partner", "--json")
		cmd.Env = s.env
		out, err := cmd.Output() // the database it used is noted on stderr
		var created struct{ APIKey string }
		if err != nil || json.Unmarshal(out, &created) != nil || created.APIKey == "" {
			t.Fatalf("partner create: %v %s", err, out)
		}
		type partner struct {
			name, key, app, card, pan, code string
		}
		first := &partner{name: "sandbox", key: s.key, pan: "9860123456780011"}
		second := &partner{name: "second partner", key: created.APIKey, pan: "9860123456780029"}
		const phone = "998907770011" // both partners' clients share it
		as := func(p *partner, path string, params any) answer {
			t.Helper()
			return s.callWith(t, p.key, uuid.NewString(), path, params)
		}
		must := func(p *partner, path string, params any) map[string]any {
			t.Helper()
			a := as(p, path, params)
			if a.code() != 0 {
				t.Fatalf("%s %s: %s", p.name, path, a.Raw)
			}
			return a.Result
		}
		status := func(p *partner) string {
			t.Helper()
			return must(p, "/microloans/applications/info", map[string]any{"applicationId": p.app})["status"].(string)
		}

		for _, p := range []*partner{first, second} {
			p.app = must(p, "/microloans/applications/pre-scoring/register", map[string]any{"externalId": uuid.NewString(),
				"isAgreementAccepted": true, "phoneNumber": phone, "clientData": clientData("31234567890123")})["applicationId"].(string)
			p.card = must(p, "/cards/attach", map[string]any{"pan": p.pan, "expiry": "3012", "processingType": "HUMO",
				"phoneNumber": phone})["cardId"].(string)
		}
		for _, p := range []*partner{first, second} {
			deadline := time.Now().Add(30 * time.Second)
			for status(p) != "PENDING" {
				if time.Now().After(deadline) {
					t.Fatalf("%s: application never reached PENDING", p.name)
				}
				time.Sleep(100 * time.Millisecond)
			}
			msgs := must(p, "/sandbox/sms/outbox", map[string]any{"phoneNumber": phone})["messages"].([]any)
			if len(msgs) != 1 {
				t.Fatalf("%s reads %d messages for the shared phone, want its own one: %v", p.name, len(msgs), msgs)
			}
			m := msgs[0].(map[string]any)
			if text := m["text"].(string); !strings.Contains(text, p.pan[len(p.pan)-4:]) {
				t.Fatalf("%s reads a message about another card: %q", p.name, text)
			}
			p.code = m["code"].(string)
			if a := as(p, "/microloans/applications/info", map[string]any{"applicationId": other(first, second, p).app}); a.code() != 1001 {
				t.Fatalf("%s reads the other's application: %s", p.name, a.Raw)
			}
		}

		// Each partner moves its own clock; "0s" reads it.
		clock := func(p *partner, by string) time.Time {
			t.Helper()
			now, err := time.Parse(time.RFC3339, must(p, "/sandbox/clock/advance", map[string]any{"duration": by})["now"].(string))
			if err != nil {
				t.Fatal(err)
			}
			return now
		}
		clock(first, "73h")
		clock(second, "2m")
		if gap := clock(first, "0s").Sub(clock(second, "0s")); gap < 72*time.Hour+57*time.Minute || gap > 72*time.Hour+59*time.Minute {
			t.Fatalf("the clocks are %v apart, want 72 h 58 m", gap)
		}

		// The first partner's clock passed the 72 h life of its application: the reconciler
		// expires it, and only it.
		deadline := time.Now().Add(30 * time.Second)
		for status(first) != "EXPIRED" {
			if time.Now().After(deadline) {
				t.Fatal("the first partner's application never expired")
			}
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(2 * time.Second) // a few more reconciler passes
		if got := status(second); got != "PENDING" {
			t.Fatalf("the second partner's application is %s after the first partner's advance", got)
		}
		// The first partner's code outlived its 3 minutes; the second's did not.
		if a := as(first, "/cards/attach/confirm", map[string]any{"cardId": first.card, "otpCode": first.code}); a.code() != 1008 {
			t.Fatalf("the first partner's code, 73 h on: %s", a.Raw)
		}
		must(second, "/cards/attach/confirm", map[string]any{"cardId": second.card, "otpCode": second.code})
		if got := must(second, "/cards/status", map[string]any{"cardId": second.card})["status"]; got != "ACTIVE" {
			t.Fatalf("the second partner's card is %v", got)
		}
		if a := as(second, "/cards/status", map[string]any{"cardId": first.card}); a.code() != 1007 {
			t.Fatalf("the second partner reads the first's card: %s", a.Raw)
		}
	})
}

// other is whichever of a and b is not p.
func other[T comparable](a, b, p T) T {
	if p == a {
		return b
	}
	return a
}
