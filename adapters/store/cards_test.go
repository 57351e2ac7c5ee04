package store_test

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
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
