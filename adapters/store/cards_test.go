package store_test

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

func (s *suite) newCard(t *testing.T, hash string) *domain.Card {
	t.Helper()
	return domain.NewAttachedCard(domain.NewAttachedCardParams{ID: uuid.New(), PartnerID: s.partner.ID,
		PAN: must(domain.ParsePAN("8600123456789012")), PANHash: []byte(hash), Expiry: must(domain.ParseExpiry("3012", t0)),
		Network: domain.NetworkUzcard, Phone: must(domain.ParsePhone("998901234567")), NetworkRef: "REF",
		OTPHash: []byte("otp"), OTPTTL: domain.DefaultOTPTTL, Now: t0})
}

func TestCardRoundTripAndOneLiveCardPerPAN(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		c := s.newCard(t, "hash-1")
		if err := s.cards.Create(ctx, c); err != nil {
			t.Fatal(err)
		}
		got := must(s.cards.Get(ctx, c.ID()))
		if !reflect.DeepEqual(got.State(), c.State()) {
			t.Fatalf("got %+v\nwant %+v", got.State(), c.State())
		}
		if found := must(s.cards.FindLive(ctx, s.partner.ID, [][]byte{[]byte("hash-0"), []byte("hash-1")})); found.ID() != c.ID() {
			t.Fatal("FindLive missed the card")
		}
		// Concurrent attaches of another card: exactly one is stored.
		errs := make([]error, 5)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() {
				errs[i] = s.uow.Do(ctx, func(ctx context.Context) error { return s.cards.Create(ctx, s.newCard(t, "hash-2")) })
			})
		}
		wg.Wait()
		created := 0
		for _, err := range errs {
			switch {
			case err == nil:
				created++
			case !errors.Is(err, domain.ErrCardAttached):
				t.Fatalf("unexpected: %v", err)
			}
		}
		if created != 1 {
			t.Fatalf("%d cards for one PAN: %v", created, errs)
		}
		// A deleted card frees its PAN for a new attach.
		err := s.cards.Update(ctx, c.ID(), func(c *domain.Card) error { _, err := c.ChangeStatus(domain.CardDeleted, "gone", t0); return err })
		if err != nil {
			t.Fatal(err)
		}
		if err := s.cards.Create(ctx, s.newCard(t, "hash-1")); err != nil {
			t.Fatalf("attach after delete: %v", err)
		}
	})
}

// TestCodeCounterCountsToItsLimit (issue 46, finding 4): the counter takes codes up to the
// limit per scope, subject and day; of ten attaches at once on a limit of 4 exactly 4 take
// one; a rolled-back take gives its code back; a purge drops the days before the one given.
func TestCodeCounterCountsToItsLimit(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		counts := store.NewCodeCounter(s.db)
		day := domain.BusinessDate(t0)
		take := func(ctx context.Context, scope domain.CodeCapScope, subject string, day time.Time, limit int) bool {
			t.Helper()
			var taken bool
			if err := s.uow.Do(ctx, func(ctx context.Context) (err error) {
				taken, err = counts.Take(ctx, ports.CodeCount{Scope: scope, Key: subject, Day: day, Limit: limit})
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return taken
		}
		var wg sync.WaitGroup
		var taken atomic.Int32
		for range 10 {
			wg.Go(func() {
				if take(ctx, domain.CodeCapCard, "pan-hash", day, 4) {
					taken.Add(1)
				}
			})
		}
		wg.Wait()
		if taken.Load() != 4 {
			t.Fatalf("%d of 10 concurrent takes passed a limit of 4", taken.Load())
		}
		if take(ctx, domain.CodeCapCard, "pan-hash", day, 4) {
			t.Fatal("a fifth take passed a limit of 4")
		}
		// Another scope, subject or day counts apart.
		if !take(ctx, domain.CodeCapPhone, "pan-hash", day, 1) || !take(ctx, domain.CodeCapCard, "other", day, 1) ||
			!take(ctx, domain.CodeCapCard, "pan-hash", day.AddDate(0, 0, 1), 1) {
			t.Fatal("a take under another scope, subject or day was refused")
		}
		// A rollback gives the code back.
		boom := errors.New("rolled back")
		err := s.uow.Do(ctx, func(ctx context.Context) error {
			if ok, err := counts.Take(ctx, ports.CodeCount{Scope: domain.CodeCapPartner, Key: "p", Day: day, Limit: 1}); !ok || err != nil {
				t.Fatalf("take: %v, %v", ok, err)
			}
			return boom
		})
		if !errors.Is(err, boom) || !take(ctx, domain.CodeCapPartner, "p", day, 1) {
			t.Fatalf("a rolled-back take kept its code (%v)", err)
		}
		// A code given back (the SMS gateway refused it) can be taken again; a count at zero
		// stays there.
		giveBack := func(subject string) {
			t.Helper()
			if err := s.uow.Do(ctx, func(ctx context.Context) error {
				return counts.GiveBack(ctx, ports.CodeCount{Scope: domain.CodeCapCard, Key: subject, Day: day, Limit: 4})
			}); err != nil {
				t.Fatal(err)
			}
		}
		giveBack("pan-hash")
		if !take(ctx, domain.CodeCapCard, "pan-hash", day, 4) || take(ctx, domain.CodeCapCard, "pan-hash", day, 4) {
			t.Fatal("a code given back was not taken again once, exactly")
		}
		giveBack("never-taken")
		if !take(ctx, domain.CodeCapCard, "never-taken", day, 1) {
			t.Fatal("a give-back on a count never taken went below zero")
		}
		var purged int64
		if err := s.uow.Do(ctx, func(ctx context.Context) (err error) {
			purged, err = counts.Purge(ctx, day.AddDate(0, 0, 1))
			return err
		}); err != nil || purged != 5 {
			t.Fatalf("purged %d (%v), want the day's 5 rows", purged, err)
		}
		if !take(ctx, domain.CodeCapCard, "pan-hash", day, 1) || take(ctx, domain.CodeCapCard, "pan-hash", day.AddDate(0, 0, 1), 1) {
			t.Fatal("the purge dropped the wrong day")
		}
	})
}
