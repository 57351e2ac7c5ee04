package application_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/mock/gomock"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/ports/mocks"
)

// The sandbox partner is seeded at every start: re-keyed when it is enabled, left alone
// (disabled, its key unchanged) when an operator disabled it.
func TestEnsurePartnerLeavesADisabledPartnerDisabled(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		disabled bool
		want     error
	}{
		{"enabled: re-keyed", false, nil},
		{"disabled: left alone", true, application.ErrPartnerDisabled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctrl := gomock.NewController(t)
			partners := mocks.NewMockPartnerRepository(ctrl)
			p := domain.Partner{ID: uuid.New(), Name: domain.SandboxPartnerName, KeyHash: []byte("old"), Disabled: tt.disabled}
			partners.EXPECT().Update(gomock.Any(), p.Name, gomock.Any()).DoAndReturn(
				func(_ context.Context, _ string, fn func(*domain.Partner) error) error {
					q := p
					if err := fn(&q); err != nil {
						return err
					}
					p = q
					return nil
				})
			uow := mocks.NewMockUnitOfWork(ctrl)
			uow.EXPECT().Do(gomock.Any(), gomock.Any()).DoAndReturn(func(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) })
			key, err := (&application.EnsurePartnerHandler{Clock: mocks.NewMockClock(ctrl), UoW: uow, Partners: partners, Sealer: testSealer}).Handle(context.Background(),
				application.EnsurePartner{Name: p.Name, APIKey: "sk_sandbox_new"})
			if !errors.Is(err, tt.want) {
				t.Fatalf("err %v, want %v", err, tt.want)
			}
			rekeyed := string(p.KeyHash) == string(application.HashAPIKey("sk_sandbox_new"))
			if p.Disabled != tt.disabled || rekeyed == tt.disabled || (key != "") == tt.disabled {
				t.Fatalf("partner %+v, key %q", p, key)
			}
		})
	}
}

// The sandbox partner's key is kept sealed, so a start without TIYIN_SANDBOX_API_KEY gives the
// key of the start before (issue 48); a key given wins and is kept in turn; a kept key that is
// no longer the partner's (an operator rotated it) or no longer opens is replaced by a new one.
func TestEnsurePartnerKeepsTheSandboxKey(t *testing.T) {
	t.Parallel()
	ctrl := gomock.NewController(t)
	var stored *domain.Partner
	partners := mocks.NewMockPartnerRepository(ctrl)
	partners.EXPECT().Update(gomock.Any(), domain.SandboxPartnerName, gomock.Any()).DoAndReturn(
		func(_ context.Context, _ string, fn func(*domain.Partner) error) error {
			if stored == nil {
				return domain.ErrPartnerNotFound
			}
			q := *stored
			if err := fn(&q); err != nil {
				return err
			}
			*stored = q
			return nil
		}).AnyTimes()
	partners.EXPECT().Create(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, p domain.Partner) error {
		stored = &p
		return nil
	})
	uow := mocks.NewMockUnitOfWork(ctrl)
	uow.EXPECT().Do(gomock.Any(), gomock.Any()).DoAndReturn(func(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) }).AnyTimes()
	clock := mocks.NewMockClock(ctrl)
	clock.EXPECT().Now(gomock.Any()).Return(time.Now()).AnyTimes()
	h := &application.EnsurePartnerHandler{Clock: clock, UoW: uow, Partners: partners, Sealer: testSealer}
	start := func(given string) string {
		t.Helper()
		key, err := h.Handle(context.Background(), application.EnsurePartner{Name: domain.SandboxPartnerName, APIKey: given})
		if err != nil || key == "" || string(stored.KeyHash) != string(application.HashAPIKey(key)) {
			t.Fatalf("start(%q): key %q, err %v", given, key, err)
		}
		if strings.Contains(stored.SandboxKey, key) {
			t.Fatalf("the key is stored in the clear: %q", stored.SandboxKey)
		}
		return key
	}
	first := start("")
	if again := start(""); again != first {
		t.Fatalf("second start: key %q, want the first's %q", again, first)
	}
	if given := start("sk_sandbox_given_key"); given != "sk_sandbox_given_key" {
		t.Fatalf("a given key does not win: %q", given)
	}
	if kept := start(""); kept != "sk_sandbox_given_key" {
		t.Fatalf("the given key is not kept: %q", kept)
	}
	stored.KeyHash = application.HashAPIKey("sk_rotated_by_an_operator")
	if fresh := start(""); fresh == "sk_sandbox_given_key" || fresh == first {
		t.Fatalf("after a rotation the start reused a key that no longer works: %q", fresh)
	}
	stored.SandboxKey = "not sealed"
	if fresh := start(""); fresh == "" {
		t.Fatal("a kept key that does not open stops the start")
	}
}

// An operator's rotate-key of the sandbox partner is kept across restarts: the next start
// prints the rotated key, which works, not a new one that would stop it (issue 48); the old key
// works for the overlap only. Another partner's rotated key is kept as its hash alone; a
// rotation without the data key leaves nothing kept, and the next start makes a new key.
func TestARotatedSandboxKeyIsKeptAcrossRestarts(t *testing.T) {
	t.Parallel()
	ctrl := gomock.NewController(t)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, domain.Tashkent)
	stored := map[string]*domain.Partner{}
	partners := mocks.NewMockPartnerRepository(ctrl)
	partners.EXPECT().Update(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(
		func(_ context.Context, name string, fn func(*domain.Partner) error) error {
			p, ok := stored[name]
			if !ok {
				return domain.ErrPartnerNotFound
			}
			q := *p
			if err := fn(&q); err != nil {
				return err
			}
			*p = q
			return nil
		}).AnyTimes()
	partners.EXPECT().Create(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, p domain.Partner) error {
		stored[p.Name] = &p
		return nil
	}).AnyTimes()
	uow := mocks.NewMockUnitOfWork(ctrl)
	uow.EXPECT().Do(gomock.Any(), gomock.Any()).DoAndReturn(func(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) }).AnyTimes()
	clock := mocks.NewMockClock(ctrl)
	clock.EXPECT().Now(gomock.Any()).Return(now).AnyTimes()
	ensure := &application.EnsurePartnerHandler{Clock: clock, UoW: uow, Partners: partners, Sealer: testSealer}
	start := func() string {
		t.Helper()
		key, err := ensure.Handle(context.Background(), application.EnsurePartner{Name: domain.SandboxPartnerName})
		if err != nil {
			t.Fatal(err)
		}
		return key
	}
	rotate := func(sealer ports.Sealer, name string) string {
		t.Helper()
		k, err := (&application.RotatePartnerKeyHandler{Clock: clock, UoW: uow, Partners: partners, Sealer: sealer}).Handle(context.Background(),
			application.RotatePartnerKey{Name: name, Overlap: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		return k.APIKey
	}
	works := func(name, key string, at time.Time) bool {
		_, ok := stored[name].KeyWorksUntil(application.HashAPIKey(key), at)
		return ok
	}
	first := start()
	rotated := rotate(testSealer, domain.SandboxPartnerName)
	if again := start(); again != rotated {
		t.Fatalf("the start after a rotation printed %q, want the rotated key %q", again, rotated)
	}
	if !works(domain.SandboxPartnerName, rotated, now.Add(2*time.Hour)) || works(domain.SandboxPartnerName, first, now.Add(2*time.Hour)) {
		t.Fatal("after the restart and the overlap, the rotated key does not work, or the first one still does")
	}
	if strings.Contains(stored[domain.SandboxPartnerName].SandboxKey, rotated) {
		t.Fatal("the rotated key is kept in the clear")
	}

	stored["acme"] = &domain.Partner{Name: "acme", KeyHash: application.HashAPIKey("sk_acme")}
	if rotate(testSealer, "acme"); stored["acme"].SandboxKey != "" {
		t.Fatal("another partner's rotated key is kept sealed: only the sandbox partner's is")
	}

	unkept := rotate(nil, domain.SandboxPartnerName)
	if stored[domain.SandboxPartnerName].SandboxKey != "" {
		t.Fatal("a rotation without the data key left a key kept that is no longer the partner's")
	}
	if fresh := start(); fresh == unkept || fresh == rotated || !works(domain.SandboxPartnerName, fresh, now) {
		t.Fatalf("the start after a rotation without the data key printed %q", fresh)
	}
}

// Unknown keys cost their sender's address: after a burst, that address's unknown keys are
// answered "too many" (each still looked up once); other addresses and good keys are
// untouched, a good key first seen from the limited address included (behind a proxy every
// partner shares one address, issue 33); an unknown key asked again is answered from memory.
func TestUnknownKeysAreLimitedPerAddressAndRemembered(t *testing.T) {
	t.Parallel()
	ctrl := gomock.NewController(t)
	partners := mocks.NewMockPartnerRepository(ctrl)
	good := domain.Partner{ID: uuid.New(), Name: "acme", KeyHash: application.HashAPIKey("sk_good")}
	lookups := 0
	other := domain.Partner{ID: uuid.New(), Name: "other", KeyHash: application.HashAPIKey("sk_other")}
	partners.EXPECT().ByKeyHash(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, hash []byte) (domain.Partner, error) {
		lookups++
		for _, p := range []domain.Partner{good, other} {
			if string(hash) == string(p.KeyHash) {
				return p, nil
			}
		}
		return domain.Partner{}, domain.ErrPartnerNotFound
	}).AnyTimes()
	auth := application.NewAuthenticateHandler(partners)
	ctx := context.Background()
	if p, err := auth.Handle(ctx, "sk_good", "10.0.0.1"); err != nil || p.ID != good.ID {
		t.Fatalf("good key: %v", err)
	}
	refused := 0
	for i := range 40 {
		_, err := auth.Handle(ctx, "sk_bad_"+uuid.NewString(), "10.0.0.1")
		switch {
		case errors.Is(err, application.ErrTooManyBadKeys):
			refused++
		case !errors.Is(err, application.ErrUnauthenticated):
			t.Fatalf("bad key %d: %v", i, err)
		}
	}
	if refused < 15 || lookups != 1+40 {
		t.Fatalf("%d of 40 bad keys refused, %d lookups", refused, lookups)
	}
	if p, err := auth.Handle(ctx, "sk_good", "10.0.0.1"); err != nil || p.ID != good.ID {
		t.Fatalf("a known key from a limited address: %v", err)
	}
	if p, err := auth.Handle(ctx, "sk_other", "10.0.0.1"); err != nil || p.ID != other.ID {
		t.Fatalf("a good key not yet cached, from a limited address: %v", err)
	}
	before := lookups
	for range 2 {
		if _, err := auth.Handle(ctx, "sk_bad_same", "10.0.0.2"); !errors.Is(err, application.ErrUnauthenticated) {
			t.Fatalf("another address: %v", err)
		}
	}
	if lookups != before+1 {
		t.Fatalf("an unknown key asked twice cost %d lookups", lookups-before)
	}
}
