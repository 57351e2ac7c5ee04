package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

const lease = 30 * time.Second

func (s *suite) setWebhook(t *testing.T, name, url string) {
	t.Helper()
	err := s.partners.Update(context.Background(), name, func(p *domain.Partner) error {
		p.WebhookURL, p.WebhookSecret = url, "sealed-"+name
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func eventTypes(t *testing.T, evs []ports.OutboundEvent) []string {
	t.Helper()
	var out []string
	for _, e := range evs {
		var body struct{ ID, Type string }
		if err := json.Unmarshal(e.Body, &body); err != nil || body.ID != e.ID.String() || body.Type != e.Type {
			t.Fatalf("body %s does not carry event %s %s: %v", e.Body, e.ID, e.Type, err)
		}
		out = append(out, e.Type)
	}
	return out
}

func TestEventsAreStoredWithTheirChangeForPartnersWithAWebhook(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		outbox := store.NewEventOutbox(s.db)
		s.setWebhook(t, "acme", "https://acme.example/hooks")
		quiet := s.newPartner(t, "quiet")

		mine := s.stored(t)
		s.approve(t, mine.ID(), t0)
		theirs := s.newApplication(t, quiet, uuid.New())
		if err := s.apps.Create(ctx, theirs); err != nil {
			t.Fatal(err)
		}
		s.approve(t, theirs.ID(), t0)
		// A change rolled back takes its event with it.
		boom := errors.New("boom")
		err := s.uow.Do(ctx, func(ctx context.Context) error {
			if err := s.apps.Update(ctx, mine.ID(), func(a *domain.Application) error { return a.Cancel(domain.InitiatorPartner, t0) }); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatal(err)
		}

		due := must(outbox.ClaimDue(ctx, ports.Partners{}, t0, lease, 100))
		types := eventTypes(t, due)
		if len(types) != 2 || types[0] != "APPLICATION_STATUS_CHANGED" || types[1] != "APPLICATION_STATUS_CHANGED" {
			t.Fatalf("claimed %v, want the two changes of acme's application only", types)
		}
		for _, e := range due {
			if e.PartnerID != s.partner.ID || e.URL != "https://acme.example/hooks" || e.SealedSecret != "sealed-acme" ||
				e.Attempts != 0 || !e.CreatedAt.Equal(t0) {
				t.Fatalf("claimed %+v", e)
			}
		}
	})
}

func TestClaimLeasesAndSettleRecordsTheOutcome(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		outbox := store.NewEventOutbox(s.db)
		s.setWebhook(t, "acme", "https://acme.example/hooks")
		s.approve(t, s.stored(t).ID(), t0)
		due := must(outbox.ClaimDue(ctx, ports.Partners{}, t0, lease, 100))
		if len(due) != 2 {
			t.Fatalf("claimed %d", len(due))
		}
		if again := must(outbox.ClaimDue(ctx, ports.Partners{}, t0.Add(lease-time.Second), lease, 100)); len(again) != 0 {
			t.Fatalf("leased events claimed again: %d", len(again))
		}
		// The deliverer crashed: the lease ends and the events are due again.
		due = must(outbox.ClaimDue(ctx, ports.Partners{}, t0.Add(lease), lease, 100))
		if len(due) != 2 {
			t.Fatalf("after the lease %d", len(due))
		}
		now := t0.Add(lease)
		if err := outbox.Settle(ctx, due[0].ID, ports.EventOutcome{Attempts: 1, DeliveredAt: now}); err != nil {
			t.Fatal(err)
		}
		if err := outbox.Settle(ctx, due[1].ID, ports.EventOutcome{Attempts: 1, NextAttemptAt: now.Add(time.Minute), Error: "HTTP 503"}); err != nil {
			t.Fatal(err)
		}
		if early := must(outbox.ClaimDue(ctx, ports.Partners{}, now.Add(59*time.Second), lease, 100)); len(early) != 0 {
			t.Fatalf("retry claimed before its time: %d", len(early))
		}
		retry := must(outbox.ClaimDue(ctx, ports.Partners{}, now.Add(time.Minute), lease, 100))
		if len(retry) != 1 || retry[0].ID != due[1].ID || retry[0].Attempts != 1 {
			t.Fatalf("retry %+v", retry)
		}
		if err := outbox.Settle(ctx, retry[0].ID, ports.EventOutcome{Attempts: 2, Error: "given up"}); err != nil {
			t.Fatal(err)
		}
		if n := must(outbox.Purge(ctx, t0)); n != 0 {
			t.Fatalf("purged %d events recorded at the cut-off", n)
		}
		if n := must(outbox.Purge(ctx, t0.Add(time.Second))); n != 2 {
			t.Fatalf("purged %d settled events, want 2", n)
		}
	})
}

func TestConcurrentClaimersNeverShareAnEvent(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		outbox := store.NewEventOutbox(s.db)
		s.setWebhook(t, "acme", "https://acme.example/hooks")
		for range 10 {
			s.approve(t, s.stored(t).ID(), t0)
		}
		var mu sync.Mutex
		seen := map[uuid.UUID]int{}
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for {
					due, err := outbox.ClaimDue(ctx, ports.Partners{}, t0, lease, 3)
					if err != nil {
						t.Error(err)
						return
					}
					if len(due) == 0 {
						return
					}
					mu.Lock()
					for _, e := range due {
						seen[e.ID]++
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(seen) != 20 {
			t.Fatalf("claimed %d distinct events, want 20", len(seen))
		}
		for id, n := range seen {
			if n != 1 {
				t.Fatalf("event %s claimed %d times", id, n)
			}
		}
	})
}

func TestSettleCutsALongErrorOnACharacter(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		outbox := store.NewEventOutbox(s.db)
		s.setWebhook(t, "acme", "https://acme.example/hooks")
		s.approve(t, s.stored(t).ID(), t0)
		due := must(outbox.ClaimDue(ctx, ports.Partners{}, t0, lease, 1))
		// One byte, then 600 two-byte characters: a cut at 500 bytes would split one.
		long := "x" + strings.Repeat("ў", 600)
		if err := outbox.Settle(ctx, due[0].ID, ports.EventOutcome{Attempts: 1, NextAttemptAt: t0, Error: long}); err != nil {
			t.Fatalf("settle with a long error: %v", err)
		}
	})
}

// TestARequestsEventsGoWithItsAnswer: events wait for the request's COMMIT (sent with it in one
// round trip on PostgreSQL); those of a use case that failed are dropped with its effects while
// its answer is stored, those of one that succeeded are stored with its answer.
func TestARequestsEventsGoWithItsAnswer(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		outbox := store.NewEventOutbox(s.db)
		s.setWebhook(t, "acme", "https://acme.example/hooks")
		a := s.stored(t)
		cancel := func(ctx context.Context) error {
			return s.apps.Update(ctx, a.ID(), func(a *domain.Application) error { return a.Cancel(domain.InitiatorPartner, t0) })
		}

		s.answerAfterFailure(t, "failed", cancel)
		if due := must(outbox.ClaimDue(ctx, ports.Partners{}, t0, lease, 100)); len(due) != 0 {
			t.Fatalf("a failed request left events %v", eventTypes(t, due))
		}

		if err := s.request(ctx, "done", cancel); err != nil {
			t.Fatal(err)
		}
		due := must(outbox.ClaimDue(ctx, ports.Partners{}, t0, lease, 100))
		if types := eventTypes(t, due); len(types) != 1 || types[0] != "APPLICATION_STATUS_CHANGED" {
			t.Fatalf("claimed %v, want the cancellation's status change", types)
		}
		if code := s.code("done"); code != 0 {
			t.Fatalf("answer stored with code %d, want 0", code)
		}
	})
}
