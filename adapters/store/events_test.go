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

// due numbers the events recorded so far, then claims what is due at now.
func due(t *testing.T, outbox *store.EventOutbox, now time.Time, limit int) []ports.OutboundEvent {
	t.Helper()
	// The sequencer's advisory lock is one per PostgreSQL database, and the package's tests run
	// in parallel, each in a schema of its own: a pass that found the lock taken numbers
	// nothing, so number until five passes in a row, 50 ms apart, found nothing left (a loaded
	// machine held the lock past three passes 10 ms apart).
	for idle := 0; idle < 5; {
		n, err := outbox.Sequence(context.Background(), 1000)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			idle = 0
			continue
		}
		idle++
		time.Sleep(50 * time.Millisecond)
	}
	return must(outbox.ClaimDue(context.Background(), ports.Partners{}, now, lease, limit))
}

// numbered runs one pass of the sequencer that got its lock (see due) and returns how many
// events it numbered; a second of passes that all found the lock taken is a failure.
func numbered(t *testing.T, outbox *store.EventOutbox, limit int) int {
	t.Helper()
	for range 100 {
		n, err := outbox.Sequence(context.Background(), limit)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the sequencer numbered nothing for a second")
	return 0
}

// sequences are the listed events' numbers, each checked against its body.
func sequences(t *testing.T, evs []ports.ListedEvent) []int64 {
	t.Helper()
	var out []int64
	for _, e := range evs {
		var body struct{ Sequence int64 }
		if err := json.Unmarshal(e.Body, &body); err != nil || body.Sequence != e.Sequence {
			t.Fatalf("listed %d, body %s", e.Sequence, e.Body)
		}
		out = append(out, e.Sequence)
	}
	return out
}

// TestEventsAreStoredWithTheirChangeForEveryPartner: every partner's events are recorded with
// the change that made them (a rolled back change leaves none) and numbered per partner; only a
// partner with a webhook has them delivered, one object's in order.
func TestEventsAreStoredWithTheirChangeForEveryPartner(t *testing.T) {
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

		// acme's application changed twice: the second change waits for the first's delivery.
		for round := range 2 {
			claimed := due(t, outbox, t0, 100)
			if types := eventTypes(t, claimed); len(types) != 1 || types[0] != "APPLICATION_STATUS_CHANGED" {
				t.Fatalf("round %d: claimed %v, want one change of acme's application", round, types)
			}
			e := claimed[0]
			if e.PartnerID != s.partner.ID || e.URL != "https://acme.example/hooks" || e.SealedSecret != "sealed-acme" ||
				e.Attempts != 0 || !e.CreatedAt.Equal(t0) {
				t.Fatalf("claimed %+v", e)
			}
			if err := outbox.Settle(ctx, e.ID, ports.EventOutcome{Attempts: 1, DeliveredAt: t0}); err != nil {
				t.Fatal(err)
			}
		}
		if left := due(t, outbox, t0, 100); len(left) != 0 {
			t.Fatalf("the partner without a webhook had %v claimed", eventTypes(t, left))
		}
		// Both partners' events are listed, each numbered from 1.
		for _, p := range []uuid.UUID{s.partner.ID, quiet.ID} {
			listed := must(outbox.List(ctx, ports.EventQuery{PartnerID: p, Since: t0, Limit: 100}))
			if got := sequences(t, listed); len(got) != 2 || got[0] != 1 || got[1] != 2 {
				t.Fatalf("partner %s lists %v, want 1 and 2", p, got)
			}
		}
	})
}

// TestListingKeepsToItsQuery: a page starts after the sequence asked, holds the types asked,
// at most the limit, and nothing recorded before the window.
func TestListingKeepsToItsQuery(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		outbox := store.NewEventOutbox(s.db)
		for range 3 {
			s.approve(t, s.stored(t).ID(), t0)
		}
		if n := numbered(t, outbox, 4); n != 4 {
			t.Fatalf("numbered %d, want the 4 asked", n)
		}
		if n := numbered(t, outbox, 100); n != 2 {
			t.Fatalf("numbered %d, want the 2 left", n)
		}
		q := ports.EventQuery{PartnerID: s.partner.ID, Since: t0, Limit: 100}
		if got := sequences(t, must(outbox.List(ctx, q))); len(got) != 6 || got[5] != 6 {
			t.Fatalf("all: %v", got)
		}
		q.AfterSequence, q.Limit = 2, 3
		if got := sequences(t, must(outbox.List(ctx, q))); len(got) != 3 || got[0] != 3 || got[2] != 5 {
			t.Fatalf("after 2, 3 of them: %v", got)
		}
		q.AfterSequence, q.Limit, q.Types = 0, 100, []string{"CARD_ATTACHED"}
		if got := must(outbox.List(ctx, q)); len(got) != 0 {
			t.Fatalf("another type: %d", len(got))
		}
		q.Types, q.Since = nil, t0.Add(time.Second)
		if got := must(outbox.List(ctx, q)); len(got) != 0 {
			t.Fatalf("recorded before the window: %d", len(got))
		}
	})
}

func TestClaimLeasesAndSettleRecordsTheOutcome(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		outbox := store.NewEventOutbox(s.db)
		s.setWebhook(t, "acme", "https://acme.example/hooks")
		a, b := s.stored(t), s.stored(t)
		s.approve(t, a.ID(), t0) // two events each: a1, a2, b1, b2
		s.approve(t, b.ID(), t0)
		first := due(t, outbox, t0, 100)
		if len(first) != 2 {
			t.Fatalf("claimed %d, want the first event of each application", len(first))
		}
		if again := due(t, outbox, t0.Add(lease-time.Second), 100); len(again) != 0 {
			t.Fatalf("leased events claimed again: %d", len(again))
		}
		// The deliverer crashed: the lease ends and the events are due again.
		first = due(t, outbox, t0.Add(lease), 100)
		if len(first) != 2 {
			t.Fatalf("after the lease %d", len(first))
		}
		now := t0.Add(lease)
		delivered, failed := first[0], first[1]
		if err := outbox.Settle(ctx, delivered.ID, ports.EventOutcome{Attempts: 1, DeliveredAt: now}); err != nil {
			t.Fatal(err)
		}
		if err := outbox.Settle(ctx, failed.ID, ports.EventOutcome{Attempts: 1, NextAttemptAt: now.Add(time.Minute), Error: "HTTP 503"}); err != nil {
			t.Fatal(err)
		}
		// The delivered event's successor is due; the failed one waits for its retry, and its
		// successor for it.
		next := due(t, outbox, now.Add(59*time.Second), 100)
		if len(next) != 1 || next[0].ID == failed.ID {
			t.Fatalf("before the retry: %+v", next)
		}
		retry := due(t, outbox, now.Add(time.Minute), 100)
		if len(retry) != 1 || retry[0].ID != failed.ID || retry[0].Attempts != 1 {
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
		numbered(t, outbox, 100)
		var mu sync.Mutex
		seen := map[uuid.UUID]int{}
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for idle := 0; idle < 3; {
					claimed, err := outbox.ClaimDue(ctx, ports.Partners{}, t0, lease, 3)
					if err != nil {
						t.Error(err)
						return
					}
					if len(claimed) == 0 {
						idle++ // another claimer may be about to deliver an object's first event
						time.Sleep(10 * time.Millisecond)
						continue
					}
					idle = 0
					mu.Lock()
					for _, e := range claimed {
						seen[e.ID]++
					}
					mu.Unlock()
					for _, e := range claimed {
						if err := outbox.Settle(ctx, e.ID, ports.EventOutcome{Attempts: 1, DeliveredAt: t0}); err != nil {
							t.Error(err)
						}
					}
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
		claimed := due(t, outbox, t0, 1)
		// One byte, then 600 two-byte characters: a cut at 500 bytes would split one.
		long := "x" + strings.Repeat("ў", 600)
		if err := outbox.Settle(ctx, claimed[0].ID, ports.EventOutcome{Attempts: 1, NextAttemptAt: t0, Error: long}); err != nil {
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
		if claimed := due(t, outbox, t0, 100); len(claimed) != 0 {
			t.Fatalf("a failed request left events %v", eventTypes(t, claimed))
		}

		if err := s.request(ctx, "done", cancel); err != nil {
			t.Fatal(err)
		}
		if types := eventTypes(t, due(t, outbox, t0, 100)); len(types) != 1 || types[0] != "APPLICATION_STATUS_CHANGED" {
			t.Fatalf("claimed %v, want the cancellation's status change", types)
		}
		if code := s.outcome("done"); code != "result" {
			t.Fatalf("outcome stored %s, want a result", code)
		}
	})
}
