package store_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

var t0 = time.Date(2026, 11, 22, 9, 30, 15, 123456000, time.UTC)

// suite is the repository contract: every test runs on SQLite and on PostgreSQL.
type suite struct {
	db         *store.DB
	uow        *store.UnitOfWork
	apps       *store.ApplicationRepository
	loans      *store.LoanRepository
	partners   *store.PartnerRepository
	ledger     *store.LedgerRepository
	transfers  *store.TransferRepository
	repayments *store.RepaymentRepository
	cards      *store.CardRepository
	back       *store.BackOffice
	partner    domain.Partner
}

func setup(t *testing.T, d store.Dialect) *suite {
	t.Helper()
	db := storetest.Open(t, d)
	s := &suite{db: db, uow: store.NewUnitOfWork(db), apps: store.NewApplicationRepository(db),
		loans: store.NewLoanRepository(db), partners: store.NewPartnerRepository(db),
		ledger: store.NewLedgerRepository(db), transfers: store.NewTransferRepository(db),
		repayments: store.NewRepaymentRepository(db), cards: store.NewCardRepository(db), back: store.NewBackOffice(db)}
	s.partner = s.newPartner(t, "acme")
	return s
}

func (s *suite) newPartner(t *testing.T, name string) domain.Partner {
	t.Helper()
	p := domain.Partner{ID: uuid.New(), Name: name, KeyHash: []byte(name + "-hash-0123456789abcdef"), CreatedAt: t0}
	if err := s.partners.Create(context.Background(), p); err != nil {
		t.Fatalf("create partner: %v", err)
	}
	return p
}

func clientData(t *testing.T, pinfl string) domain.ClientData {
	t.Helper()
	cd, err := domain.ParseClientData(domain.ClientDataInput{
		PINFL: pinfl, INN: "123456789", LastName: "Oʻrinboyev", FirstName: "Aziz", MiddleName: "Karimovich",
		BirthDate: "1990-05-17", Gender: "MALE", DocumentType: "PASSPORT", DocumentSeries: "AA",
		DocumentNumber: "1234567", DocumentIssuedBy: "Toshkent IIB", DocumentIssued: "2020-01-10",
		DocumentExpiry: "2030-01-09", Region: "Toshkent", District: "Chilonzor", Address: "Bunyodkor 1",
		Email: "aziz@example.uz", Phone: "998901234567",
	}, domain.BusinessDate(t0))
	if err != nil {
		t.Fatal(err)
	}
	return cd
}

func (s *suite) newApplication(t *testing.T, partner domain.Partner, ext uuid.UUID) *domain.Application {
	t.Helper()
	phone, _ := domain.ParsePhone("998901234567")
	a, err := domain.NewApplication(domain.NewApplicationParams{ID: uuid.New(), PartnerID: partner.ID, ExternalID: ext,
		Phone: phone, ClientData: clientData(t, "31234567890123"), AgreementAccepted: true, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (s *suite) stored(t *testing.T) *domain.Application {
	t.Helper()
	a := s.newApplication(t, s.partner, uuid.New())
	if err := s.apps.Create(context.Background(), a); err != nil {
		t.Fatalf("create: %v", err)
	}
	return a
}

// approve drives a stored application to PENDING after pre-scoring, through the repository.
func (s *suite) approve(t *testing.T, id uuid.UUID, now time.Time) {
	t.Helper()
	ctx := context.Background()
	pct, _ := domain.PercentFromHundredths(2800)
	for _, stage := range []domain.StageName{domain.StagePreScoring, domain.StagePreScoringInfo} {
		err := s.apps.Update(ctx, id, func(a *domain.Application) error {
			if err := a.BeginStage(stage, now); err != nil {
				return err
			}
			_, err := a.CompleteStage(stage, domain.StageResult{Outcome: domain.OutcomeDone,
				PreScore: domain.PreScoreResult{AmountLimit: 5_000_000_000, Percent: pct, MonthPeriod: 12}}, domain.LoanProduct{}, now)
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v", stage, err)
		}
	}
}

func forEachDialect(t *testing.T, fn func(t *testing.T, s *suite)) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			fn(t, setup(t, d))
		})
	}
}

func TestApplicationRoundTripKeepsEveryField(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		a := s.stored(t)
		s.approve(t, a.ID(), t0)
		backup, _ := domain.ParsePhone("998911112233")
		pct, _ := domain.PercentFromHundredths(2800)
		offer := domain.Offer{Amount: 2_000_000_000, Percent: pct, MonthPeriod: 12, BackupPhone: backup}
		err := s.apps.Update(ctx, a.ID(), func(a *domain.Application) error {
			return a.Verify(offer, domain.PostScoreResult{Approved: true, PhoneCallRequired: true, CallCentrePhone: "998781400000"}, t0)
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.apps.Get(ctx, a.ID())
		if err != nil {
			t.Fatal(err)
		}
		want := a.State()
		_ = s.apps.Update(ctx, a.ID(), func(x *domain.Application) error { want = x.State(); return nil })
		if !sameState(got.State(), want) {
			t.Fatalf("round trip differs:\n got %+v\nwant %+v", got.State(), want)
		}
		st := got.State()
		if st.PreScore == nil || st.Offer == nil || *st.Offer != offer || st.CallCentrePhone != "998781400000" || !st.UpdatedAt.Equal(t0) ||
			!st.PendingSince.Equal(t0) || !st.VerificationRequestedAt.Equal(t0) || st.ClientData.Fields().LastName != "O'RINBOYEV" {
			t.Fatalf("fields lost: %+v", st)
		}
	})
}

// A summary is the application's own summary, read outside and inside a unit of work, before
// and after pre-scoring filled its offer range; an unknown id is not found.
func TestApplicationSummaryIsTheApplicationsOwn(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		a := s.stored(t)
		check := func(when string) {
			t.Helper()
			want, err := s.apps.Get(ctx, a.ID())
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.apps.Summary(ctx, a.ID())
			if err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			var inTx domain.ApplicationSummary
			if err := s.uow.Do(ctx, func(ctx context.Context) (err error) { inTx, err = s.apps.Summary(ctx, a.ID()); return err }); err != nil {
				t.Fatalf("%s, in a unit of work: %v", when, err)
			}
			for name, sum := range map[string]domain.ApplicationSummary{"outside": got, "inside": inTx} {
				if !reflect.DeepEqual(sum, want.Summary()) {
					t.Errorf("%s, %s a unit of work:\n got %+v\nwant %+v", when, name, sum, want.Summary())
				}
			}
		}
		check("new")
		s.approve(t, a.ID(), t0)
		check("pre-scored")
		if got, _ := s.apps.Summary(ctx, a.ID()); got.PreScore == nil || got.PreScore.AmountLimit != 5_000_000_000 || got.Status != domain.StatusPending {
			t.Fatalf("pre-scored summary: %+v", got)
		}
		if _, err := s.apps.Summary(ctx, uuid.New()); !errors.Is(err, domain.ErrApplicationNotFound) {
			t.Fatalf("unknown id: %v", err)
		}
	})
}

// sameState compares two states by value, following the pointers.
func sameState(a, b domain.ApplicationState) bool {
	pa, pb, oa, ob := a.PreScore, b.PreScore, a.Offer, b.Offer
	a.PreScore, b.PreScore, a.Offer, b.Offer = nil, nil, nil, nil
	return a == b && (pa == nil) == (pb == nil) && (pa == nil || *pa == *pb) &&
		(oa == nil) == (ob == nil) && (oa == nil || *oa == *ob)
}

func TestExternalIDIsUniquePerPartner(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		ext := uuid.New()
		first := s.newApplication(t, s.partner, ext)
		if err := s.apps.Create(ctx, first); err != nil {
			t.Fatal(err)
		}
		err := s.apps.Create(ctx, s.newApplication(t, s.partner, ext))
		var used domain.ExternalIDUsedError
		if !errors.Is(err, domain.ErrExternalIDUsed) || !errors.As(err, &used) || used.ApplicationID != first.ID() {
			t.Fatalf("same partner, same externalId: got %v, want the refusal naming %s", err, first.ID())
		}
		// Inside a unit of work the refusal leaves the transaction usable: what else it wrote
		// commits when the caller carries on.
		kept := s.newApplication(t, s.partner, uuid.New())
		if err := s.uow.Do(ctx, func(ctx context.Context) error {
			if err := s.apps.Create(ctx, s.newApplication(t, s.partner, ext)); !errors.As(err, &used) || used.ApplicationID != first.ID() {
				t.Errorf("in a unit of work: got %v", err)
			}
			return s.apps.Create(ctx, kept)
		}); err != nil {
			t.Fatalf("the unit of work after the refusal: %v", err)
		}
		if _, err := s.apps.Get(ctx, kept.ID()); err != nil {
			t.Fatalf("the application written after the refusal: %v", err)
		}
		other := s.newPartner(t, "other")
		if err := s.apps.Create(ctx, s.newApplication(t, other, ext)); err != nil {
			t.Fatalf("another partner may use the same externalId: %v", err)
		}
	})
}

// An application is found by its partner's externalId, among that partner's applications
// only: the same externalId of another partner finds that partner's own, one only another
// partner used is not found, and a unit of work reads it too.
func TestAnApplicationIsFoundByItsPartnersExternalID(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		mine := s.stored(t)
		s.approve(t, mine.ID(), t0)
		other := s.newPartner(t, "other")
		theirs := s.newApplication(t, other, mine.ExternalID())
		if err := s.apps.Create(ctx, theirs); err != nil {
			t.Fatal(err)
		}
		want, err := s.apps.Summary(ctx, mine.ID())
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.apps.SummaryByExternalID(ctx, s.partner.ID, mine.ExternalID())
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("by externalId: %+v %v, want %+v", got, err, want)
		}
		var inTx domain.ApplicationSummary
		if err := s.uow.Do(ctx, func(ctx context.Context) (err error) {
			inTx, err = s.apps.SummaryByExternalID(ctx, s.partner.ID, mine.ExternalID())
			return err
		}); err != nil || !reflect.DeepEqual(inTx, want) {
			t.Fatalf("in a unit of work: %+v %v", inTx, err)
		}
		if got, err := s.apps.SummaryByExternalID(ctx, other.ID, mine.ExternalID()); err != nil || got.ID != theirs.ID() || got.PartnerID != other.ID {
			t.Fatalf("the other partner's own: %+v %v", got, err)
		}
		lonely := s.newPartner(t, "lonely")
		if _, err := s.apps.SummaryByExternalID(ctx, lonely.ID, mine.ExternalID()); !errors.Is(err, domain.ErrApplicationNotFound) {
			t.Fatalf("another partner's externalId: %v", err)
		}
		if _, err := s.apps.SummaryByExternalID(ctx, s.partner.ID, uuid.New()); !errors.Is(err, domain.ErrApplicationNotFound) {
			t.Fatalf("unknown externalId: %v", err)
		}
	})
}

func TestUnknownApplicationIsNotFound(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		_, err := s.apps.Get(context.Background(), uuid.New())
		if !errors.Is(err, domain.ErrApplicationNotFound) {
			t.Fatalf("get: %v", err)
		}
		err = s.apps.Update(context.Background(), uuid.New(), func(*domain.Application) error { return nil })
		if !errors.Is(err, domain.ErrApplicationNotFound) {
			t.Fatalf("update: %v", err)
		}
	})
}

func TestFailedUnitOfWorkRollsEverythingBack(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		existing := s.stored(t)
		fresh := s.newApplication(t, s.partner, uuid.New())
		boom := errors.New("boom")
		err := s.uow.Do(ctx, func(ctx context.Context) error {
			if err := s.apps.Create(ctx, fresh); err != nil {
				return err
			}
			if err := s.apps.Update(ctx, existing.ID(), func(a *domain.Application) error {
				return a.Cancel(domain.InitiatorPartner, t0)
			}); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("got %v", err)
		}
		if _, err := s.apps.Get(ctx, fresh.ID()); !errors.Is(err, domain.ErrApplicationNotFound) {
			t.Fatalf("created application survived the rollback: %v", err)
		}
		got, _ := s.apps.Get(ctx, existing.ID())
		if got.Status() != domain.StatusNew {
			t.Fatalf("update survived the rollback: %s", got.Status())
		}
	})
}

// TestAFailedStatementFailsTheCommit: on PostgreSQL a failed statement aborts its transaction;
// a use case that carried on regardless must not be told its changes were stored, and the
// connection must come back to the pool usable.
func TestAFailedStatementFailsTheCommit(t *testing.T) {
	t.Parallel()
	s := setup(t, store.Postgres)
	ctx := context.Background()
	first := s.newApplication(t, s.partner, uuid.New())
	if err := s.apps.Create(ctx, first); err != nil {
		t.Fatal(err)
	}
	// The same id again under another externalId: the primary key refuses the statement (a
	// used externalId is skipped by the insert and never fails it).
	st := first.State()
	st.ExternalID = uuid.New()
	fresh, clash := s.newApplication(t, s.partner, uuid.New()), domain.RestoreApplication(st)
	for range 30 { // more than the pool's connections: each must come back clean
		err := s.uow.Do(ctx, func(ctx context.Context) error {
			if err := s.apps.Create(ctx, fresh); err != nil {
				return err
			}
			if err := s.apps.Create(ctx, clash); err == nil {
				t.Error("the same id twice was stored")
			}
			return nil // carries on regardless
		})
		if err == nil {
			t.Fatal("the commit of an aborted transaction succeeded")
		}
	}
	if _, err := s.apps.Get(ctx, fresh.ID()); !errors.Is(err, domain.ErrApplicationNotFound) {
		t.Fatalf("a change of the aborted transaction was stored: %v", err)
	}
	if err := s.uow.Do(ctx, func(ctx context.Context) error { return s.apps.Create(ctx, fresh) }); err != nil {
		t.Fatalf("after the aborted transactions: %v", err)
	}
}

func TestConcurrentUpdatesSerialise(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		a := s.stored(t)
		const n = 8
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.uow.Do(context.Background(), func(ctx context.Context) error {
					return s.apps.Update(ctx, a.ID(), func(a *domain.Application) error {
						return a.Cancel(domain.InitiatorPartner, t0)
					})
				})
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, domain.ErrWrongState):
				t.Fatalf("unexpected error: %v", err)
			}
		}
		if won != 1 {
			t.Fatalf("%d cancels won, want exactly 1", won)
		}
	})
}

func TestListsOfDueWork(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		due := s.stored(t) // NEW: due at t0
		pending := s.stored(t)
		s.approve(t, pending.ID(), t0.Add(time.Hour))
		ids, err := s.apps.ListDue(ctx, ports.Partners{}, t0, 10)
		if err != nil || len(ids) != 1 || ids[0] != due.ID() {
			t.Fatalf("due at t0: %v %v", ids, err)
		}
		if ids, _ := s.apps.ListDue(ctx, ports.Partners{}, t0.Add(-time.Millisecond), 10); len(ids) != 0 {
			t.Fatalf("nothing is due before t0: %v", ids)
		}
		if ids, _ := s.apps.ListPendingBefore(ctx, ports.Partners{}, t0.Add(time.Hour), 10); len(ids) != 0 {
			t.Fatalf("pending since exactly the bound is not before it: %v", ids)
		}
		ids, err = s.apps.ListPendingBefore(ctx, ports.Partners{}, t0.Add(time.Hour+time.Microsecond), 10)
		if err != nil || len(ids) != 1 || ids[0] != pending.ID() {
			t.Fatalf("pending: %v %v", ids, err)
		}
		if ids, _ := s.apps.ListAwaitingCall(ctx, ports.Partners{}, t0.Add(100*time.Hour), 10); len(ids) != 0 {
			t.Fatalf("nobody awaits a call: %v", ids)
		}
	})
}

// TestUnknownOutcomesAreCountedFromTheFirstUnansweredCall: an application whose stage's call
// went unanswered is counted once it has been so since before the bound, and no longer once
// the answer came.
func TestUnknownOutcomesAreCountedFromTheFirstUnansweredCall(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		a := s.stored(t)
		step := func(r domain.StageResult, at time.Time) {
			t.Helper()
			err := s.apps.Update(ctx, a.ID(), func(a *domain.Application) error {
				if err := a.BeginStage(domain.StagePreScoring, at); err != nil {
					return err
				}
				_, err := a.CompleteStage(domain.StagePreScoring, r, domain.LoanProduct{}, at)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		count := func(before time.Time) int {
			t.Helper()
			n, err := s.apps.CountUnknownBefore(ctx, before)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		step(domain.StageResult{Outcome: domain.OutcomeUnknown}, t0)
		step(domain.StageResult{Outcome: domain.OutcomeUnknown}, t0.Add(time.Hour))
		if got := count(t0); got != 0 {
			t.Fatalf("unknown since exactly the bound: counted %d", got)
		}
		if got := count(t0.Add(time.Second)); got != 1 {
			t.Fatalf("unknown since before the bound: counted %d, want 1", got)
		}
		step(domain.StageResult{Outcome: domain.OutcomeDone}, t0.Add(2*time.Hour))
		if got := count(t0.Add(3 * time.Hour)); got != 0 {
			t.Fatalf("answered: counted %d", got)
		}
		if n, err := s.transfers.CountProcessingBefore(ctx, t0.Add(time.Hour)); err != nil || n != 0 {
			t.Fatalf("transfers: %d %v", n, err)
		}
	})
}

// TestListsOfDueWorkKeepToTheirPartners: background work is listed for one partner, or for
// every partner but some, so each partner's work is decided against its own clock.
func TestListsOfDueWorkKeepToTheirPartners(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		other := s.newPartner(t, "other")
		mine := s.stored(t)
		theirs := s.newApplication(t, other, uuid.New())
		if err := s.apps.Create(ctx, theirs); err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			name     string
			partners ports.Partners
			want     []uuid.UUID
		}{
			{"every partner", ports.Partners{}, []uuid.UUID{mine.ID(), theirs.ID()}},
			{"only the other", ports.Partners{Only: other.ID}, []uuid.UUID{theirs.ID()}},
			{"all but the other", ports.Partners{Except: []uuid.UUID{other.ID}}, []uuid.UUID{mine.ID()}},
			{"all but both", ports.Partners{Except: []uuid.UUID{other.ID, s.partner.ID}}, nil},
		} {
			ids, err := s.apps.ListDue(ctx, tt.partners, t0, 10)
			if err != nil || len(ids) != len(tt.want) {
				t.Fatalf("%s: %v %v, want %v", tt.name, ids, err, tt.want)
			}
			for _, id := range tt.want {
				if !slices.Contains(ids, id) {
					t.Fatalf("%s: %v, want %v", tt.name, ids, tt.want)
				}
			}
		}
	})
}

func TestLoanRoundTrip(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		a := s.stored(t)
		rate, _ := domain.PercentFromHundredths(2850)
		l := domain.RestoreLoan(domain.LoanState{ID: uuid.New(), ApplicationID: a.ID(), PartnerID: s.partner.ID,
			Amount: 1_000_000, MonthPeriod: 12, Rate: rate, ServiceRate: must(domain.PercentFromHundredths(120)),
			PenaltyDaily: must(domain.PercentFromHundredths(5)), ScheduleType: domain.ScheduleDifferentiated,
			AccountNumber: "20208000123456789012", IssuedAt: t0})
		if err := s.loans.Create(ctx, l); err != nil {
			t.Fatal(err)
		}
		got, err := s.loans.GetByApplication(ctx, a.ID())
		if err != nil || got.State() != l.State() {
			t.Fatalf("got %+v, %v", got, err)
		}
		if _, err := s.loans.GetByApplication(ctx, uuid.New()); !errors.Is(err, domain.ErrLoanNotFound) {
			t.Fatalf("unknown: %v", err)
		}
	})
}

func TestPartners(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		if err := s.partners.Create(ctx, domain.Partner{ID: uuid.New(), Name: "acme", KeyHash: []byte("x"), CreatedAt: t0}); !errors.Is(err, domain.ErrPartnerExists) {
			t.Fatalf("duplicate name: %v", err)
		}
		p, err := s.partners.ByKeyHash(ctx, s.partner.KeyHash)
		if err != nil || p.ID != s.partner.ID {
			t.Fatalf("by key: %+v %v", p, err)
		}
		err = s.partners.Update(ctx, "acme", func(p *domain.Partner) error { p.Disabled, p.KeyHash = true, []byte("new"); return nil })
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.partners.ByKeyHash(ctx, s.partner.KeyHash); !errors.Is(err, domain.ErrPartnerNotFound) {
			t.Fatalf("old key still works: %v", err)
		}
		p, _ = s.partners.ByName(ctx, "acme")
		if !p.Disabled || string(p.KeyHash) != "new" {
			t.Fatalf("update lost: %+v", p)
		}
		if err := s.partners.Update(ctx, "nobody", func(*domain.Partner) error { return nil }); !errors.Is(err, domain.ErrPartnerNotFound) {
			t.Fatalf("unknown: %v", err)
		}
	})
}

// TestAReplacedWebhookSecretIsKeptForItsOverlap: the partner's webhook keeps the secret a new
// one replaced, with its end, and the outbox hands both to the delivery.
func TestAReplacedWebhookSecretIsKeptForItsOverlap(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		set := func(secret string) {
			t.Helper()
			if err := s.partners.Update(ctx, "acme", func(p *domain.Partner) error {
				return p.SetWebhook("https://partner.example/hook", secret, t0, time.Hour)
			}); err != nil {
				t.Fatal(err)
			}
		}
		set("sealed-1")
		set("sealed-2")
		p, err := s.partners.ByName(ctx, "acme")
		if err != nil || p.WebhookSecret != "sealed-2" || p.PreviousWebhookSecret != "sealed-1" || !p.PreviousWebhookSecretUntil.Equal(t0.Add(time.Hour)) {
			t.Fatalf("%+v %v", p, err)
		}
	})
}

// TestARotatedKeyIsFoundDuringItsOverlap: the key a rotation replaced is stored with its end
// and finds its partner (the application checks the end); a second rotation forgets it.
func TestARotatedKeyIsFoundDuringItsOverlap(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		old := s.partner.KeyHash
		rotate := func(hash string, overlap time.Duration) {
			t.Helper()
			if err := s.partners.Update(ctx, "acme", func(p *domain.Partner) error { return p.RotateKey([]byte(hash), t0, overlap) }); err != nil {
				t.Fatal(err)
			}
		}
		rotate("second", time.Hour)
		for _, h := range [][]byte{old, []byte("second")} {
			p, err := s.partners.ByKeyHash(ctx, h)
			if err != nil || p.ID != s.partner.ID || string(p.PreviousKeyHash) != string(old) || !p.PreviousKeyUntil.Equal(t0.Add(time.Hour)) {
				t.Fatalf("by %q: %+v %v", h, p, err)
			}
		}
		rotate("third", 0)
		if _, err := s.partners.ByKeyHash(ctx, old); !errors.Is(err, domain.ErrPartnerNotFound) {
			t.Fatalf("a key two rotations old: %v", err)
		}
		if p, err := s.partners.ByKeyHash(ctx, []byte("third")); err != nil || p.PreviousKeyHash != nil || !p.PreviousKeyUntil.IsZero() {
			t.Fatalf("after a rotation without overlap: %+v %v", p, err)
		}
	})
}

func record(s *suite, key string) ports.IdempotencyRecord {
	return ports.IdempotencyRecord{PartnerID: s.partner.ID, Key: key, Endpoint: "/x", Fingerprint: []byte{1, 2}, CreatedAt: t0}
}

// request runs effect as the use case of request key does, through the application's
// idempotency step: one transaction claims the key, runs effect and stores a success's answer;
// when effect is refused (a business error), its effects roll back and a second transaction
// stores the refusal's answer under the claim alone.
func (s *suite) request(ctx context.Context, key string, effect func(ctx context.Context) error) error {
	err := s.uow.Do(ctx, func(ctx context.Context) error {
		if err := s.uow.Claim(ctx, record(s, key)); err != nil {
			return err
		}
		if err := effect(ctx); err != nil {
			return err
		}
		return s.uow.Answer(ctx, s.partner.ID, key, ports.Outcome{Result: struct{}{}})
	})
	if !errors.Is(err, domain.ErrWrongState) && !errors.Is(err, domain.ErrApplicationNotFound) {
		return err
	}
	return s.uow.Do(ctx, func(ctx context.Context) error {
		if err := s.uow.Claim(ctx, record(s, key)); err != nil {
			return err
		}
		return s.uow.Answer(ctx, s.partner.ID, key, ports.Outcome{Refusal: "wrong-state", Message: domain.ErrWrongState.Error()})
	})
}

// answerAfterFailure runs effect as the use case of request key, then fails the use case with
// a business error, whose answer is stored.
func (s *suite) answerAfterFailure(t *testing.T, key string, effect func(ctx context.Context) error) {
	t.Helper()
	err := s.request(context.Background(), key, func(ctx context.Context) error {
		if err := effect(ctx); err != nil {
			return err
		}
		return domain.ErrWrongState
	})
	if err != nil {
		t.Fatal(err)
	}
}

// outcome is what is stored under key: "result", the refusal's name, or "none".
func (s *suite) outcome(key string) string {
	rec := must(s.uow.Lookup(context.Background(), s.partner.ID, key))
	switch {
	case rec == nil || !rec.Answered:
		return "none"
	case rec.Outcome.Refusal != "":
		return rec.Outcome.Refusal
	}
	return "result"
}

// decoded is the result stored in rec, decoded as a T.
func decoded[T any](t *testing.T, s *suite, rec *ports.IdempotencyRecord) T {
	t.Helper()
	var v T
	enc, ok := rec.Outcome.Result.(ports.EncodedResult)
	if !ok {
		t.Fatalf("stored result %T, want it encoded", rec.Outcome.Result)
	}
	if err := s.uow.DecodeResult(enc, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestIdempotentAnswerIsStoredWithTheEffects(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		a := s.newApplication(t, s.partner, uuid.New())
		if err := s.request(ctx, "k1", func(ctx context.Context) error { return s.apps.Create(ctx, a) }); err != nil {
			t.Fatal(err)
		}
		rec, err := s.uow.Lookup(ctx, s.partner.ID, "k1")
		if err != nil || rec == nil || rec.Outcome.Refusal != "" || rec.Outcome.Sent != nil || !rec.Answered ||
			rec.Endpoint != "/x" || string(rec.Fingerprint) != "\x01\x02" {
			t.Fatalf("lookup: %+v %v", rec, err)
		}
		if _, err := s.apps.Get(ctx, a.ID()); err != nil {
			t.Fatalf("effect lost: %v", err)
		}

		// A second request with the same key loses the claim and changes nothing.
		b := s.newApplication(t, s.partner, uuid.New())
		err = s.request(ctx, "k1", func(ctx context.Context) error { return s.apps.Create(ctx, b) })
		if !errors.Is(err, ports.ErrDuplicateRequest) {
			t.Fatalf("duplicate: %v", err)
		}
		if _, err := s.apps.Get(ctx, b.ID()); !errors.Is(err, domain.ErrApplicationNotFound) {
			t.Fatalf("duplicate had an effect: %v", err)
		}
	})
}

// TestAClaimWithItsAnswer: a single-transaction request claims its key with its answer, in
// one insert after its effects.
func TestAClaimWithItsAnswer(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		rec := record(s, "a1")
		rec.Answered, rec.Outcome = true, ports.Outcome{Refusal: "external-id-used", Message: "externalId already used by this partner: Oʻ"}
		if err := s.uow.Do(ctx, func(ctx context.Context) error { return s.uow.Claim(ctx, rec) }); err != nil {
			t.Fatal(err)
		}
		got := must(s.uow.Lookup(ctx, s.partner.ID, "a1"))
		if got == nil || !got.Answered || got.Outcome != rec.Outcome {
			t.Fatalf("stored %+v", got)
		}
		err := s.uow.Do(ctx, func(ctx context.Context) error { return s.uow.Claim(ctx, rec) })
		if !errors.Is(err, ports.ErrDuplicateRequest) {
			t.Fatalf("the same key again: %v", err)
		}
	})
}

// TestAnAnswerStoredAsSentIsReplayedAsItIs: a record written before outcomes were stored holds
// the envelope's code and body as they were sent; it reads back as that answer, byte for byte.
func TestAnAnswerStoredAsSentIsReplayedAsItIs(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		body := []byte(`{"id":"0B3A1F56-7C4D-4E2A-9F1B-2C3D4E5F6A7B","result":null,"error":{"code":1011,"message":"externalId already used by this partner"}}`)
		if err := s.db.Gorm.Exec(`INSERT INTO idempotency_records (partner_id, key, endpoint, fingerprint, code, body, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, s.partner.ID, "legacy", "/x", []byte{1, 2}, 1011, body, t0).Error; err != nil {
			t.Fatal(err)
		}
		rec := must(s.uow.Lookup(ctx, s.partner.ID, "legacy"))
		if rec == nil || !rec.Answered || rec.Outcome.Sent == nil || rec.Outcome.Sent.Code != 1011 ||
			!bytes.Equal(rec.Outcome.Sent.Body, body) || rec.Outcome.Refusal != "" || rec.Outcome.Result != nil {
			t.Fatalf("legacy record %+v", rec)
		}
	})
}

// TestARefusedWriteRollsBackItsClaim: a write refused by a constraint is its domain error,
// and the transaction that claimed the key leaves neither the write nor the claim.
func TestARefusedWriteRollsBackItsClaim(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		ext := uuid.New()
		if err := s.apps.Create(ctx, s.newApplication(t, s.partner, ext)); err != nil {
			t.Fatal(err)
		}
		again := s.newApplication(t, s.partner, ext)
		err := s.uow.Do(ctx, func(ctx context.Context) error {
			if err := s.uow.Claim(ctx, record(s, "w1")); err != nil {
				return err
			}
			return s.apps.Create(ctx, again)
		})
		if !errors.Is(err, domain.ErrExternalIDUsed) {
			t.Fatalf("used externalId: %v", err)
		}
		if rec, _ := s.uow.Lookup(ctx, s.partner.ID, "w1"); rec != nil {
			t.Fatalf("claim kept: %+v", rec)
		}
		if _, err := s.apps.Get(ctx, again.ID()); !errors.Is(err, domain.ErrApplicationNotFound) {
			t.Fatalf("refused write stored: %v", err)
		}
	})
}

// TestAnApplicationsUpdateIsSeenInItsTransaction: an application's update is what the
// transaction's next read finds, and what it commits.
func TestAnApplicationsUpdateIsSeenInItsTransaction(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		a := s.stored(t)
		err := s.uow.Do(ctx, func(ctx context.Context) error {
			err := s.apps.Update(ctx, a.ID(), func(a *domain.Application) error { return a.Cancel(domain.InitiatorPartner, t0) })
			if err != nil {
				return err
			}
			if got := must(s.apps.Get(ctx, a.ID())); got.Status() != domain.StatusCanceled {
				t.Errorf("read in the transaction: %s, want CANCELED", got.Status())
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := must(s.apps.Get(ctx, a.ID())); got.Status() != domain.StatusCanceled {
			t.Fatalf("committed: %s, want CANCELED", got.Status())
		}
	})
}

// resumed is a use case's result as the tests store it.
type resumed struct {
	ID     string
	Amount int64
}

// TestAClaimResumedByItsLastStep: a request whose first step committed its claim without an
// answer is ended by a later transaction that locks the claim (Resume) and answers it; a
// second run that resumes after that finds it answered.
func TestAClaimResumedByItsLastStep(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		if err := s.uow.Do(ctx, func(ctx context.Context) error { return s.uow.Claim(ctx, record(s, "r1")) }); err != nil {
			t.Fatal(err)
		}
		if rec := must(s.uow.Lookup(ctx, s.partner.ID, "r1")); rec == nil || rec.Answered {
			t.Fatalf("after the first step: %+v, want claimed and unanswered", rec)
		}
		end := func() (*ports.IdempotencyRecord, error) {
			var got *ports.IdempotencyRecord
			err := s.uow.Do(ctx, func(ctx context.Context) error {
				rec, err := s.uow.Resume(ctx, s.partner.ID, "r1")
				if err != nil || rec.Answered {
					got = rec
					return err
				}
				got = rec
				return s.uow.Answer(ctx, s.partner.ID, "r1", ports.Outcome{Result: resumed{ID: "t-1", Amount: 1_000_000_00}})
			})
			return got, err
		}
		if rec, err := end(); err != nil || rec.Answered {
			t.Fatalf("last step: %+v %v", rec, err)
		}
		if rec, err := end(); err != nil || !rec.Answered || decoded[resumed](t, s, rec) != (resumed{ID: "t-1", Amount: 1_000_000_00}) {
			t.Fatalf("a second run's last step: %+v %v, want the stored outcome", rec, err)
		}
		err := s.uow.Do(ctx, func(ctx context.Context) error {
			_, err := s.uow.Resume(ctx, s.partner.ID, "never")
			return err
		})
		if err == nil {
			t.Fatal("resumed a request that was never claimed")
		}
		if err := s.uow.Do(ctx, func(ctx context.Context) error {
			return s.uow.Answer(ctx, s.partner.ID, "never", ports.Outcome{Result: struct{}{}})
		}); err == nil {
			t.Fatal("answered a request that was never claimed")
		}
	})
}

func TestBusinessErrorAnswerDropsPartialEffects(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		a := s.newApplication(t, s.partner, uuid.New())
		s.answerAfterFailure(t, "k2", func(ctx context.Context) error { return s.apps.Create(ctx, a) })
		if _, err := s.apps.Get(ctx, a.ID()); !errors.Is(err, domain.ErrApplicationNotFound) {
			t.Fatalf("a failed use case left its effect: %v", err)
		}
		if code := s.outcome("k2"); code != "wrong-state" {
			t.Fatalf("outcome stored %s, want the refusal wrong-state", code)
		}
	})
}

func TestConcurrentDuplicateWaitsForTheFirst(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		claimed, release := make(chan struct{}), make(chan struct{})
		first := make(chan error, 1)
		go func() {
			first <- s.request(ctx, "k3", func(ctx context.Context) error {
				close(claimed)
				<-release
				return s.apps.Create(ctx, s.newApplication(t, s.partner, uuid.New()))
			})
		}()
		<-claimed
		done := make(chan error, 1)
		go func() {
			done <- s.request(ctx, "k3", func(ctx context.Context) error { return nil })
		}()
		select {
		case err := <-done:
			t.Errorf("the duplicate did not wait for the first: %v", err)
		case <-time.After(200 * time.Millisecond):
		}
		close(release)
		if err := <-first; err != nil {
			t.Fatal(err)
		}
		if err := <-done; !errors.Is(err, ports.ErrDuplicateRequest) {
			t.Fatalf("after the first committed: %v", err)
		}
	})
}

// TestADuplicateHeldPastItsWaitIsInProgress: a request whose claim waits past the lock wait
// for a duplicate that holds the same key uncommitted is "still in progress" (code 9).
func TestADuplicateHeldPastItsWaitIsInProgress(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		if s.db.Dialect != store.Postgres {
			t.Skip("SQLite has one connection per process: a duplicate waits for it, not for a lock")
		}
		ctx := context.Background()
		claimed, release := make(chan struct{}), make(chan struct{})
		holder := make(chan error, 1)
		go func() {
			holder <- s.uow.Do(ctx, func(ctx context.Context) error {
				if err := s.uow.Claim(ctx, record(s, "held")); err != nil {
					return err
				}
				close(claimed)
				<-release
				return nil
			})
		}()
		<-claimed
		err := s.uow.Do(ctx, func(ctx context.Context) error { return s.uow.Claim(ctx, record(s, "held")) })
		close(release)
		if !errors.Is(err, ports.ErrRequestInProgress) {
			t.Fatalf("waited past the lock wait for a duplicate: %v, want ErrRequestInProgress", err)
		}
		if err := <-holder; err != nil {
			t.Fatal(err)
		}
	})
}

// TestALockHeldPastItsWaitIsRetry: a statement that waits for a row lock longer than the
// lock wait is "unavailable, retry" (code 10), not "a request with this id is in progress":
// nothing says the holder is a duplicate.
func TestALockHeldPastItsWaitIsRetry(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		if s.db.Dialect != store.Postgres {
			t.Skip("SQLite has one connection per process: a second writer waits for it, not for a lock")
		}
		ctx := context.Background()
		a := s.stored(t)
		locked, release := make(chan struct{}), make(chan struct{})
		holder := make(chan error, 1)
		go func() {
			holder <- s.apps.Update(ctx, a.ID(), func(*domain.Application) error {
				close(locked)
				<-release
				return nil
			})
		}()
		<-locked
		err := s.apps.Update(ctx, a.ID(), func(*domain.Application) error { return nil })
		close(release)
		if !errors.Is(err, ports.ErrUnavailable) || errors.Is(err, ports.ErrRequestInProgress) {
			t.Fatalf("waited past the lock wait: %v, want ErrUnavailable only", err)
		}
		if err := <-holder; err != nil {
			t.Fatal(err)
		}
	})
}

// TestSandboxClockIsOnePerPartnerAndPersists: an advance moves its partner's clock only; the
// offset is kept, so another node (or a restart) tells every partner's time alike; the total is
// bounded.
func TestSandboxClockIsOnePerPartnerAndPersists(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		other := s.newPartner(t, "other")
		c := store.NewSandboxClock(s.db)
		before := time.Now()
		now, err := c.Advance(ctx, s.partner.ID, 31*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if now.Sub(before) < 31*time.Minute || time.Until(c.Now(s.partner.ID)) < 30*time.Minute {
			t.Fatalf("clock did not move: %v", now)
		}
		if d := time.Until(c.Now(other.ID)); d > time.Second {
			t.Fatalf("the other partner's clock moved by %v", d)
		}
		if ahead := c.Ahead(); len(ahead) != 1 || ahead[0] != s.partner.ID {
			t.Fatalf("ahead: %v", ahead)
		}
		if _, err := c.Advance(ctx, s.partner.ID, -time.Second); err == nil {
			t.Fatal("moved backwards")
		}
		if _, err := c.Advance(ctx, other.ID, ports.MaxClockOffset+time.Second); !errors.Is(err, ports.ErrClockBound) {
			t.Fatalf("past the bound: %v", err)
		}
		if _, err := c.Advance(ctx, s.partner.ID, time.Hour); err != nil {
			t.Fatal(err)
		}
		node := store.NewSandboxClock(s.db) // another node, or a restart
		if err := node.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		want := 91 * time.Minute
		if d := time.Until(node.Now(s.partner.ID)); d < want-time.Second || d > want+time.Second {
			t.Fatalf("another node sees offset %v, want %v", d, want)
		}
		if d := time.Until(node.Now(other.ID)); d > time.Second {
			t.Fatalf("another node sees the other partner's clock moved by %v", d)
		}
	})
}

// TestASandboxResetSetsTheClockBackOnEveryNode: a reset sets the partner's offset to zero, and
// another node, which otherwise keeps the largest offset it has read, takes the zero from the
// later reset; the other partner's clock keeps its offset; advances after the reset count from
// zero.
func TestASandboxResetSetsTheClockBackOnEveryNode(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		other := s.newPartner(t, "other")
		c, node := store.NewSandboxClock(s.db), store.NewSandboxClock(s.db)
		for _, p := range []uuid.UUID{s.partner.ID, other.ID} {
			if _, err := c.Advance(ctx, p, 90*time.Minute); err != nil {
				t.Fatal(err)
			}
		}
		if err := node.Refresh(ctx); err != nil || time.Until(node.Now(s.partner.ID)) < 89*time.Minute {
			t.Fatalf("the other node did not see the advance: %v", err)
		}
		now, err := c.Reset(ctx, s.partner.ID)
		if err != nil || time.Since(now).Abs() > time.Second || time.Until(c.Now(s.partner.ID)).Abs() > time.Second {
			t.Fatalf("reset: %v, %v; the clock reads %v", now, err, c.Now(s.partner.ID))
		}
		if err := node.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		if d := time.Until(node.Now(s.partner.ID)); d.Abs() > time.Second {
			t.Fatalf("the other node keeps the offset %v after the reset", d)
		}
		for _, k := range []*store.SandboxClock{c, node} {
			if d := time.Until(k.Now(other.ID)); d < 89*time.Minute {
				t.Fatalf("the other partner's clock lost its offset: %v", d)
			}
			if ahead := k.Ahead(); len(ahead) != 1 || ahead[0] != other.ID {
				t.Fatalf("ahead after the reset: %v", ahead)
			}
		}
		if _, err := c.Advance(ctx, s.partner.ID, 10*time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := node.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		if d := time.Until(node.Now(s.partner.ID)); d < 9*time.Minute || d > 11*time.Minute {
			t.Fatalf("after the reset an advance of 10 min reads %v on the other node", d)
		}
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestTheSQLiteFileIsTiyinsAlone: the database holds partners' data, so it and its journal
// files are created readable and writable by their owner only.
func TestTheSQLiteFileIsTiyinsAlone(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := store.Open(context.Background(), store.Config{SQLitePath: path, Sealer: storetest.Sealer})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v", filepath.Base(f), st.Mode().Perm())
		}
	}
}

// TestPlainFingerprintsAreRekeyed: a record an earlier version stored with a plain SHA-256
// fingerprint is re-keyed in place (keyed records are left alone), and keeps its answer.
func TestPlainFingerprintsAreRekeyed(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		plain := bytes.Repeat([]byte{7}, 32)
		for key, fp := range map[string][]byte{"old": plain, "new": append([]byte{1}, plain...)} {
			rec := record(s, key)
			rec.Fingerprint, rec.Answered, rec.Outcome = fp, true, ports.Outcome{Result: resumed{ID: key}}
			if err := s.uow.Do(ctx, func(ctx context.Context) error { return s.uow.Claim(ctx, rec) }); err != nil {
				t.Fatal(err)
			}
		}
		rekey := func(old []byte) []byte { return append([]byte{2}, bytes.ToUpper(old)...) }
		if n, err := s.uow.RekeyPlainFingerprints(ctx, func(old []byte) []byte { return append([]byte{2}, old...) }); err != nil || n != 1 {
			t.Fatalf("re-keyed %d, %v; want 1", n, err)
		}
		if old := must(s.uow.Lookup(ctx, s.partner.ID, "old")); !bytes.Equal(old.Fingerprint, append([]byte{2}, plain...)) ||
			decoded[resumed](t, s, old) != (resumed{ID: "old"}) {
			t.Fatalf("old record %+v", old)
		}
		if kept := must(s.uow.Lookup(ctx, s.partner.ID, "new")); !bytes.Equal(kept.Fingerprint, append([]byte{1}, plain...)) {
			t.Fatalf("a keyed record changed: %x", kept.Fingerprint)
		}
		if n, err := s.uow.RekeyPlainFingerprints(ctx, rekey); err != nil || n != 0 {
			t.Fatalf("a second pass re-keyed %d, %v", n, err)
		}
	})
}
