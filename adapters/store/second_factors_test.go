package store_test

import (
	"context"
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

// storedOperator stores an operator named name.
func storedOperator(t *testing.T, s *suite, name string) *domain.Operator {
	t.Helper()
	o, err := domain.NewOperator(uuid.New(), name, domain.RoleOfficer, "hash", t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.NewOperatorRepository(s.db).Create(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	return o
}

// TestSecondFactorsAreKeptSealedAndUsedOnce (issue 46): a factor being enrolled is stored once
// per operator and kind, its secret sealed; enrolling and each login's time step commit under
// the row's lock, so of two logins with one code one wins; recovery codes are kept as hashes
// and each is used once, even by two logins at once; a reset removes both; a unit of work
// that fails leaves none of it.
func TestSecondFactorsAreKeptSealedAndUsedOnce(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		factors := store.NewSecondFactorRepository(s.db)
		o := storedOperator(t, s, "off2")
		if _, err := factors.Factor(ctx, o.ID(), domain.FactorTOTP); !errors.Is(err, domain.ErrNoSecondFactor) {
			t.Fatalf("no factor yet: %v", err)
		}
		const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
		f := domain.NewTOTPFactor(uuid.New(), o.ID(), secret, t0)
		if created, err := factors.CreateFactor(ctx, f); err != nil || !created {
			t.Fatalf("create: %v %v", created, err)
		}
		if created, err := factors.CreateFactor(ctx, domain.NewTOTPFactor(uuid.New(), o.ID(), "OTHERSECRET234567", t0)); err != nil || created {
			t.Fatalf("a second TOTP factor of one operator: created %v, %v", created, err)
		}
		var raw string
		s.db.Gorm.Raw("SELECT secret FROM operator_factors WHERE id = ?", f.ID()).Scan(&raw)
		if !strings.HasPrefix(raw, "v1:") || strings.Contains(raw, secret) {
			t.Fatalf("the secret is stored as %q", raw)
		}
		step := domain.TOTPStep(t0)
		if err := factors.UpdateFactor(ctx, f.ID(), func(f *domain.SecondFactor) error { return f.Enrol(step, t0) }); err != nil {
			t.Fatal(err)
		}
		got, err := factors.Factor(ctx, o.ID(), domain.FactorTOTP)
		if err != nil || got.State() != (domain.SecondFactorState{ID: f.ID(), OperatorID: o.ID(), Kind: domain.FactorTOTP, Secret: secret,
			LastStep: step, CreatedAt: t0, EnrolledAt: t0}) {
			t.Fatalf("round trip: %+v, %v", got.State(), err)
		}
		if enrolled, err := factors.Enrolled(ctx); err != nil || len(enrolled) != 1 || !enrolled[o.ID()].Equal(t0) {
			t.Fatalf("enrolled: %v, %v", enrolled, err)
		}
		// Two logins with the next step's code at once: one is let in.
		const n = 6
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				errs[i] = s.uow.Do(ctx, func(ctx context.Context) error {
					return factors.UpdateFactor(ctx, f.ID(), func(f *domain.SecondFactor) error { return f.Use(step + 1) })
				})
			})
		}
		wg.Wait()
		if won := count(errs, domain.ErrCodeUsed, t); won != 1 {
			t.Fatalf("%d logins with one code won, want 1", won)
		}

		hashes := [][]byte{[]byte("hash-of-code-1"), []byte("hash-of-code-2")}
		if err := factors.ReplaceRecoveryCodes(ctx, o.ID(), hashes, t0); err != nil {
			t.Fatal(err)
		}
		if used, err := factors.UseRecoveryCode(ctx, o.ID(), hashes[0], t0); err != nil || !used {
			t.Fatalf("a recovery code: %v %v", used, err)
		}
		for _, h := range [][]byte{hashes[0], []byte("no such code")} {
			if used, err := factors.UseRecoveryCode(ctx, o.ID(), h, t0); err != nil || used {
				t.Fatalf("a used or unknown recovery code %q: %v %v", h, used, err)
			}
		}
		uses := make([]bool, n)
		for i := range n {
			wg.Go(func() { uses[i], errs[i] = factors.UseRecoveryCode(ctx, o.ID(), hashes[1], t0) })
		}
		wg.Wait()
		won := 0
		for i := range n {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if uses[i] {
				won++
			}
		}
		if won != 1 {
			t.Fatalf("one recovery code let %d logins in at once", won)
		}

		if err := factors.RemoveFactors(ctx, o.ID()); err != nil {
			t.Fatal(err)
		}
		if _, err := factors.Factor(ctx, o.ID(), domain.FactorTOTP); !errors.Is(err, domain.ErrNoSecondFactor) {
			t.Fatalf("after a reset: %v", err)
		}
		var codes int64
		s.db.Gorm.Raw("SELECT count(*) FROM operator_recovery_codes").Scan(&codes)
		if codes != 0 {
			t.Fatalf("%d recovery codes left after the reset", codes)
		}
		if err := factors.UpdateFactor(ctx, f.ID(), func(*domain.SecondFactor) error { return nil }); !errors.Is(err, domain.ErrNoSecondFactor) {
			t.Fatalf("updating a removed factor: %v", err)
		}

		// A failed unit of work keeps none of an enrolment.
		rollback := errors.New("rolled back")
		err = s.uow.Do(ctx, func(ctx context.Context) error {
			if _, err := factors.CreateFactor(ctx, domain.NewTOTPFactor(uuid.New(), o.ID(), secret, t0)); err != nil {
				return err
			}
			if err := factors.ReplaceRecoveryCodes(ctx, o.ID(), hashes, t0); err != nil {
				return err
			}
			return rollback
		})
		if !errors.Is(err, rollback) {
			t.Fatal(err)
		}
		s.db.Gorm.Raw("SELECT count(*) FROM operator_recovery_codes").Scan(&codes)
		if _, err := factors.Factor(ctx, o.ID(), domain.FactorTOTP); !errors.Is(err, domain.ErrNoSecondFactor) || codes != 0 {
			t.Fatalf("after a rollback: %v, %d codes", err, codes)
		}
	})
}

// count returns how many errs are nil; any error but want fails the test.
func count(errs []error, want error, t *testing.T) int {
	t.Helper()
	n := 0
	for _, err := range errs {
		switch {
		case err == nil:
			n++
		case !errors.Is(err, want):
			t.Fatalf("unexpected error: %v", err)
		}
	}
	return n
}

// TestWhoHandedOutCredentialsIsKept: who gave an operator their password, who asked for and
// approved their second factor's reset, a reset waiting for a second admin, and whether a
// session proved the second factor all read back as written.
func TestWhoHandedOutCredentialsIsKept(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		ops := store.NewOperatorRepository(s.db)
		o := storedOperator(t, s, "off2")
		adm2, _ := domain.NewOperator(uuid.New(), "adm2", domain.RoleAdmin, "hash", t0)
		later := t0.Add(time.Hour)
		err := ops.Update(ctx, o.ID(), func(o *domain.Operator) error {
			o.GivePassword("new-hash", "adm1", t0)
			return o.AskSecondFactorReset("adm1", t0)
		})
		if err != nil {
			t.Fatal(err)
		}
		back, _ := ops.Get(ctx, o.ID())
		if g := back.Grant(); !g.ResetSecondFactor || !g.Pending() || g.RequestedBy != "adm1" || g.Role != "" {
			t.Fatalf("the reset awaiting a second admin: %+v", g)
		}
		if err := ops.Update(ctx, o.ID(), func(o *domain.Operator) error { _, err := o.ApproveGrant(adm2, later); return err }); err != nil {
			t.Fatal(err)
		}
		back, _ = ops.Get(ctx, o.ID())
		if back.PasswordSet() != (domain.CredentialSet{By: "adm1", At: t0}) || back.PasswordHash() != "new-hash" || !back.MustChangePassword() ||
			back.SecondFactorSet() != (domain.CredentialSet{By: "adm1", ApprovedBy: "adm2", At: later}) || back.Grant().Pending() {
			t.Fatalf("round trip: %+v", back.State())
		}
		if err := back.MayApprove("adm1", later); !errors.Is(err, domain.ErrApproverCredentials) {
			t.Fatalf("the stored operator approves adm1's proposal: %v", err)
		}
		for _, proved := range []bool{false, true} {
			sess := ports.OperatorSession{TokenHash: []byte{byte(len(t.Name())), map[bool]byte{false: 0, true: 1}[proved]}, OperatorID: o.ID(),
				CSRF: "csrf", CreatedAt: t0, LastSeenAt: t0, SecondFactor: proved}
			if err := ops.CreateSession(ctx, sess); err != nil {
				t.Fatal(err)
			}
			if got, err := ops.Session(ctx, sess.TokenHash); err != nil || got.SecondFactor != proved {
				t.Fatalf("a session that proved the second factor %v reads back %+v, %v", proved, got, err)
			}
		}
	})
}
