package application_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/mock/gomock"

	"github.com/tiyin/tiyin/adapters/keyring"
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/ports/mocks"
	"github.com/tiyin/tiyin/test/testkit"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, domain.Tashkent)

// deps is the bundle of mocks behind the use cases. Applications live in a map that the
// repository mock reads and writes, so tests can look at what a use case stored.
type deps struct {
	cfg       application.Config
	clock     *mocks.MockClock
	uow       *mocks.MockUnitOfWork
	apps      *mocks.MockApplicationRepository
	loans     *mocks.MockLoanRepository
	partners  *mocks.MockPartnerRepository
	queue     *mocks.MockWorkQueue
	scoring   *mocks.MockScoring
	core      *mocks.MockCoreBanking
	ledger    *mocks.MockLedgerRepository
	transfers *mocks.MockTransferRepository
	cards     *mocks.MockProcessing
	payments  *mocks.MockRepaymentRepository
	cardRepo  *mocks.MockCardRepository
	codes     *mocks.MockCodeCounter
	orders    *mocks.MockCardOrderRepository
	issuer    *mocks.MockCardIssuer
	sms       *mocks.MockSMSSender
	requests  *fakeRequests
	stored    map[uuid.UUID]*domain.Application
	// inTx is true while a unit of work's function runs.
	inTx bool
	// committed counts the transactions committed, but for those that stored a refusal's
	// answer (which change nothing else, unless the use case kept an effect with it).
	committed int
	// rollbacks counts the transactions rolled back.
	rollbacks int
	partner   uuid.UUID
	// told is what the use cases told the on-call engineer (ports.OpsLog), toldFor the request
	// id each one's context carried.
	told    []ports.Failure
	toldFor []string
}

// opsRecorder keeps what a use case tells the on-call engineer.
type opsRecorder struct{ d *deps }

func (o opsRecorder) Failure(ctx context.Context, f ports.Failure) {
	o.d.told, o.d.toldFor = append(o.d.told, f), append(o.d.toldFor, ports.RequestID(ctx))
}

func setup(t *testing.T) *deps {
	t.Helper()
	ctrl := gomock.NewController(t)
	d := &deps{
		clock: mocks.NewMockClock(ctrl), uow: mocks.NewMockUnitOfWork(ctrl),
		apps: mocks.NewMockApplicationRepository(ctrl), loans: mocks.NewMockLoanRepository(ctrl),
		partners: mocks.NewMockPartnerRepository(ctrl), queue: mocks.NewMockWorkQueue(ctrl),
		scoring: mocks.NewMockScoring(ctrl), core: mocks.NewMockCoreBanking(ctrl), ledger: mocks.NewMockLedgerRepository(ctrl),
		transfers: mocks.NewMockTransferRepository(ctrl), cards: mocks.NewMockProcessing(ctrl),
		payments: mocks.NewMockRepaymentRepository(ctrl), cardRepo: mocks.NewMockCardRepository(ctrl), codes: mocks.NewMockCodeCounter(ctrl),
		orders: mocks.NewMockCardOrderRepository(ctrl), issuer: mocks.NewMockCardIssuer(ctrl), sms: mocks.NewMockSMSSender(ctrl),
		stored: map[uuid.UUID]*domain.Application{}, partner: uuid.New(), requests: newFakeRequests(),
	}
	d.clock.EXPECT().Now(gomock.Any()).Return(t0).AnyTimes()
	d.clock.EXPECT().Ahead().Return(nil).AnyTimes()
	d.uow.EXPECT().Do(gomock.Any(), gomock.Any()).DoAndReturn(func(ctx context.Context, fn func(context.Context) error) error {
		d.inTx = true
		err := fn(ctx)
		d.inTx = false
		if err != nil {
			d.requests.rollback()
			d.rollbacks++
			return err
		}
		if !d.requests.commit() {
			d.committed++
		}
		return nil
	}).AnyTimes()
	d.orders.EXPECT().ListDue(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).Return(nil, nil).AnyTimes()
	d.apps.EXPECT().Get(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, id uuid.UUID) (*domain.Application, error) {
		a, ok := d.stored[id]
		if !ok {
			return nil, domain.ErrApplicationNotFound
		}
		return domain.RestoreApplication(a.State()), nil
	}).AnyTimes()
	d.apps.EXPECT().Summary(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, id uuid.UUID) (domain.ApplicationSummary, error) {
		a, ok := d.stored[id]
		if !ok {
			return domain.ApplicationSummary{}, domain.ErrApplicationNotFound
		}
		return a.Summary(), nil
	}).AnyTimes()
	d.apps.EXPECT().SummaryByExternalID(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, partnerID, ext uuid.UUID) (domain.ApplicationSummary, error) {
		for _, a := range d.stored {
			if a.PartnerID() == partnerID && a.ExternalID() == ext {
				return a.Summary(), nil
			}
		}
		return domain.ApplicationSummary{}, domain.ErrApplicationNotFound
	}).AnyTimes()
	d.apps.EXPECT().Update(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, id uuid.UUID, fn func(*domain.Application) error) error {
		a, ok := d.stored[id]
		if !ok {
			return domain.ErrApplicationNotFound
		}
		cp := domain.RestoreApplication(a.State())
		if err := fn(cp); err != nil {
			return err
		}
		d.stored[id] = cp
		return nil
	}).AnyTimes()
	d.cfg = application.Config{ApplicationTTL: 72 * time.Hour, LoanContractDelay: 30 * time.Minute,
		Product: application.Product{ScheduleType: domain.ScheduleAnnuity}}
	return d
}

// Each use case is built on the ports it names, and no other: a test mocks only those.

func (d *deps) authenticate() *application.AuthenticateHandler {
	return application.NewAuthenticateHandler(d.partners)
}

func (d *deps) cancelApplication() *application.CancelApplicationHandler {
	return application.NewCancelApplicationHandler(d.clock, d.uow, d.requests, d.apps, d.cfg)
}

func (d *deps) checkRepayment() *application.CheckRepaymentHandler {
	return &application.CheckRepaymentHandler{Clock: d.clock, Loans: d.loans, Repayments: d.payments, Requests: application.Requests{UoW: d.uow, Store: d.requests}}
}

func (d *deps) completeVerification() *application.CompleteVerificationHandler {
	return application.NewCompleteVerificationHandler(d.clock, d.uow, d.requests, d.apps, d.cfg)
}

func (d *deps) getApplication() *application.GetApplicationHandler {
	return &application.GetApplicationHandler{Applications: d.apps}
}

func (d *deps) getRepayment() *application.GetRepaymentHandler {
	return &application.GetRepaymentHandler{Clock: d.clock, Loans: d.loans, Repayments: d.payments}
}

func (d *deps) issueApplication() *application.IssueApplicationHandler {
	return application.NewIssueApplicationHandler(d.clock, d.uow, d.requests, d.apps, d.queue, d.cfg)
}

func (d *deps) payRepayment() *application.PayRepaymentHandler {
	return &application.PayRepaymentHandler{Clock: d.clock, Loans: d.loans, Ledger: d.ledger, Processing: d.cards, Repayments: d.payments, Requests: application.Requests{UoW: d.uow, Store: d.requests}}
}

func (d *deps) processApplication() *application.ProcessApplicationHandler {
	return application.NewProcessApplicationHandler(d.clock, d.uow, d.apps, d.loans, d.scoring, d.core, d.ledger, opsRecorder{d}, d.cfg)
}

func (d *deps) reconcile() *application.ReconcileHandler {
	return &application.ReconcileHandler{Clock: d.clock, UoW: d.uow, Applications: d.apps, Loans: d.loans, Queue: d.queue, CoreBanking: d.core, Transfers: d.transfers, Processing: d.cards, CardOrders: d.orders, Settlement: application.TransferSettlement{UoW: d.uow, Transfers: d.transfers, Ledger: d.ledger, Clock: d.clock}, Orders: application.NewProcessCardOrderHandler(d.clock, d.uow, d.cards, d.cardRepo, d.orders, d.issuer, opsRecorder{d}), Cfg: d.cfg}
}

func (d *deps) registerApplication() *application.RegisterApplicationHandler {
	return &application.RegisterApplicationHandler{Clock: d.clock, Applications: d.apps, Queue: d.queue, Requests: application.Requests{UoW: d.uow, Store: d.requests}}
}

func (d *deps) verifyApplication() *application.VerifyApplicationHandler {
	return application.NewVerifyApplicationHandler(d.clock, d.uow, d.requests, d.apps, d.scoring, d.cfg)
}

// testSealer seals and blinds under a fixed test key.
var testSealer = func() *keyring.Keyring {
	k, err := keyring.New([]byte("tiyin-test-data-key-0123456789ab"))
	if err != nil {
		panic(err)
	}
	return k
}()

func clientData(t *testing.T, pinfl string) domain.ClientData {
	t.Helper()
	cd, err := domain.ParseClientData(domain.ClientDataInput{PINFL: pinfl, LastName: "Karimov", FirstName: "Aziz",
		BirthDate: "1990-05-17", DocumentType: "PASSPORT", DocumentSeries: "AA", DocumentNumber: "1234567",
		DocumentIssuedBy: "IIB", DocumentIssued: "2020-01-10", DocumentExpiry: "2030-01-09",
		Region: "Toshkent", District: "Chilonzor", Address: "Bunyodkor 1", Phone: "998901234567"}, domain.BusinessDate(t0))
	if err != nil {
		t.Fatal(err)
	}
	return cd
}

// put stores an application of the test partner driven to the named point.
func (d *deps) put(t *testing.T, point string) *domain.Application {
	t.Helper()
	phone, _ := domain.ParsePhone("998901234567")
	a, _ := domain.NewApplication(domain.NewApplicationParams{ID: uuid.New(), PartnerID: d.partner, ExternalID: uuid.New(),
		Phone: phone, ClientData: clientData(t, "31234567890123"), AgreementAccepted: true, Now: t0})
	pct, _ := domain.PercentFromHundredths(2800)
	done := domain.StageResult{Outcome: domain.OutcomeDone, Ref: "R", PreScore: domain.PreScoreResult{AmountLimit: 5_000_000_000, Percent: pct, MonthPeriod: 12}}
	if point != "new" {
		for _, s := range []domain.StageName{domain.StagePreScoring, domain.StagePreScoringInfo} {
			_ = a.BeginStage(s, t0)
			_, _ = a.CompleteStage(s, done, domain.LoanProduct{}, t0)
		}
	}
	if point == "issuing" {
		_ = a.Verify(offer(1_000_000, 6), domain.PostScoreResult{Approved: true}, t0)
		_ = a.Issue(clientData(t, "31234567890123"), t0)
	}
	if point == "verified" {
		_ = a.Verify(offer(1_000_000, 6), domain.PostScoreResult{Approved: true}, t0)
	}
	d.stored[a.ID()] = a
	return a
}

func offer(amount int64, months int) domain.Offer {
	pct, _ := domain.PercentFromHundredths(2800)
	phone, _ := domain.ParsePhone("998911112233")
	return domain.Offer{Amount: domain.Amount(amount), Percent: pct, MonthPeriod: months, BackupPhone: phone}
}

func TestRegisterStoresAndEnqueuesInOneTransaction(t *testing.T) {
	t.Parallel()
	d := setup(t)
	var created *domain.Application
	d.apps.EXPECT().Create(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, a *domain.Application) error {
		created = a
		return nil
	})
	enqueued := 0
	d.queue.EXPECT().EnqueueApplications(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, id uuid.UUID) error {
		if !d.inTx || d.committed != 0 || id != created.ID() {
			t.Errorf("enqueued %s outside the transaction that stores it (commits %d)", id, d.committed)
		}
		enqueued++
		return nil
	})
	phone, _ := domain.ParsePhone("998901234567")
	ext := uuid.New()
	id, err := run(d, d.registerApplication().Handle, application.RegisterApplication{
		PartnerID: d.partner, ExternalID: ext, Phone: phone, ClientData: clientData(t, "31234567890123"), AgreementAccepted: true})
	if err != nil {
		t.Fatal(err)
	}
	if enqueued != 1 || created.ID() != id || created.PartnerID() != d.partner || created.ExternalID() != ext ||
		created.Status() != domain.StatusNew || !created.NextRunAt().Equal(t0) {
		t.Fatalf("created %+v, enqueued %d", created.State(), enqueued)
	}
}

func TestRegisterReportsUsedExternalIDAndEnqueuesNothing(t *testing.T) {
	t.Parallel()
	d := setup(t)
	d.apps.EXPECT().Create(gomock.Any(), gomock.Any()).Return(domain.ErrExternalIDUsed)
	phone, _ := domain.ParsePhone("998901234567")
	_, err := run(d, d.registerApplication().Handle, application.RegisterApplication{
		PartnerID: d.partner, ExternalID: uuid.New(), Phone: phone, ClientData: clientData(t, "31234567890123"), AgreementAccepted: true})
	if !errors.Is(err, domain.ErrExternalIDUsed) {
		t.Fatalf("got %v", err)
	}
}

// TestRegisterNamesTheApplicationThatHasTheExternalID: a registration with an externalId the
// partner used before is refused with 1011's sentinel naming that application (the store's
// refusal, kept as it is), enqueues nothing, and its retry gets the same refusal again, marked
// as a replay.
func TestRegisterNamesTheApplicationThatHasTheExternalID(t *testing.T) {
	t.Parallel()
	d := setup(t)
	a := d.put(t, "choosing")
	// Twice: the retry does its work again and its claim then finds the stored refusal. No
	// EnqueueApplications expectation: the mock fails the test if it is called.
	d.apps.EXPECT().Create(gomock.Any(), gomock.Any()).Return(domain.ExternalIDUsedError{ApplicationID: a.ID()}).Times(2)
	phone, _ := domain.ParsePhone("998901234567")
	call := application.Call{PartnerID: d.partner, Key: uuid.NewString(), Endpoint: "/test",
		Fingerprints: [][]byte{[]byte("params")}}
	cmd := application.RegisterApplication{PartnerID: d.partner, ExternalID: a.ExternalID(), Phone: phone,
		ClientData: clientData(t, "31234567890123"), AgreementAccepted: true}
	first, err := d.registerApplication().Handle(context.Background(), call, cmd)
	var used domain.ExternalIDUsedError
	if !errors.As(err, &used) || used.ApplicationID != a.ID() || !errors.Is(err, domain.ErrExternalIDUsed) ||
		err.Error() != "externalId already used by this partner: application "+a.ID().String() || first.Replayed {
		t.Fatalf("got %v (replayed %v), want 1011 naming %s", err, first.Replayed, a.ID())
	}
	again, err2 := d.registerApplication().Handle(context.Background(), call, cmd)
	if again.Result != uuid.Nil || !errors.Is(err2, domain.ErrExternalIDUsed) || err2.Error() != err.Error() || !again.Replayed {
		t.Fatalf("retry: %v (replayed %v), want the stored refusal, replayed", err2, again.Replayed)
	}
}

// TestAReplayedOutcomeIsMarkedAndAFirstIsNot: the first run of a call replies with Replayed
// false; the same call again returns the stored result with Replayed set.
func TestAReplayedOutcomeIsMarkedAndAFirstIsNot(t *testing.T) {
	t.Parallel()
	d := setup(t)
	// The duplicate does its work again and is rolled back when its claim finds the first's.
	d.apps.EXPECT().Create(gomock.Any(), gomock.Any()).Return(nil).Times(2)
	d.queue.EXPECT().EnqueueApplications(gomock.Any(), gomock.Any()).Return(nil).Times(2)
	phone, _ := domain.ParsePhone("998901234567")
	cmd := application.RegisterApplication{PartnerID: d.partner, ExternalID: uuid.New(), Phone: phone,
		ClientData: clientData(t, "31234567890123"), AgreementAccepted: true}
	key := uuid.NewString()
	call := application.Call{PartnerID: d.partner, Key: key, Endpoint: "/test", Fingerprints: [][]byte{[]byte("params")}}
	first, err := d.registerApplication().Handle(context.Background(), call, cmd)
	if err != nil || first.Replayed {
		t.Fatalf("first: %v, replayed %v", err, first.Replayed)
	}
	again, err := d.registerApplication().Handle(context.Background(), call, cmd)
	if err != nil || again.Result != first.Result || !again.Replayed {
		t.Fatalf("replay: %s %v, replayed %v; want %s, replayed", again.Result, err, again.Replayed, first.Result)
	}
}

// TestFindApplicationAsksForThePartnersOwn: the find call answers the summary of the caller's
// application with that externalId; the same externalId asked by another partner, or one
// never registered, is not found.
func TestFindApplicationAsksForThePartnersOwn(t *testing.T) {
	t.Parallel()
	d := setup(t)
	a := d.put(t, "choosing")
	h := &application.FindApplicationHandler{Applications: d.apps}
	got, err := h.Handle(context.Background(), application.FindApplication{PartnerID: d.partner, ExternalID: a.ExternalID()})
	if err != nil || got.ID != a.ID() || got.Status != domain.StatusPending || got.PreScore == nil {
		t.Fatalf("own application: %+v %v", got, err)
	}
	for name, q := range map[string]application.FindApplication{
		"another partner":       {PartnerID: uuid.New(), ExternalID: a.ExternalID()},
		"an unknown externalId": {PartnerID: d.partner, ExternalID: uuid.New()},
	} {
		if _, err := h.Handle(context.Background(), q); !errors.Is(err, domain.ErrApplicationNotFound) {
			t.Errorf("%s: %v, want not found", name, err)
		}
	}
}

// TestFindApplicationNeverAnswersAnotherPartners: should a store ever answer another
// partner's application, the find call still says not found.
func TestFindApplicationNeverAnswersAnotherPartners(t *testing.T) {
	t.Parallel()
	ctrl := gomock.NewController(t)
	apps := mocks.NewMockApplicationRepository(ctrl)
	me, ext := uuid.New(), uuid.New()
	apps.EXPECT().SummaryByExternalID(gomock.Any(), me, ext).Return(domain.ApplicationSummary{ID: uuid.New(), PartnerID: uuid.New(), ExternalID: ext}, nil)
	_, err := (&application.FindApplicationHandler{Applications: apps}).Handle(context.Background(), application.FindApplication{PartnerID: me, ExternalID: ext})
	if !errors.Is(err, domain.ErrApplicationNotFound) {
		t.Fatalf("got %v", err)
	}
}

func TestRegisterRefusesWithoutAgreement(t *testing.T) {
	t.Parallel()
	d := setup(t)
	phone, _ := domain.ParsePhone("998901234567")
	_, err := run(d, d.registerApplication().Handle, application.RegisterApplication{
		PartnerID: d.partner, ExternalID: uuid.New(), Phone: phone, ClientData: clientData(t, "31234567890123")})
	var ve *domain.ValidationError
	if !errors.As(err, &ve) || ve.Error() != "params.isAgreementAccepted: must be true" {
		t.Fatalf("got %v", err)
	}
}

func TestVerifyChecksTheOfferBeforeAskingPostScoring(t *testing.T) {
	t.Parallel()
	d := setup(t)
	a := d.put(t, "choosing")
	// No PostScore expectation: the mock fails the test if it is called.
	_, err := run(d, d.verifyApplication().Handle, application.VerifyApplication{
		PartnerID: d.partner, ApplicationID: a.ID(), Offer: offer(5_000_000_001, 12)})
	if !errors.Is(err, domain.ErrOfferOutOfRange) {
		t.Fatalf("got %v", err)
	}
}

func TestVerifyRecordsPhoneCallRequirement(t *testing.T) {
	t.Parallel()
	d := setup(t)
	a := d.put(t, "choosing")
	o := offer(2_000_000_000, 12)
	d.scoring.EXPECT().PostScore(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, req ports.PostScoreRequest) (domain.PostScoreResult, error) {
		want := fmt.Sprintf("%s:POST_SCORING:2000000000:2800:12:998911112233", a.ID())
		if req.IdempotencyKey != want || req.Offer != o {
			t.Errorf("request %+v", req)
		}
		return domain.PostScoreResult{Approved: true, PhoneCallRequired: true, CallCentrePhone: "998781400000"}, nil
	})
	r, err := run(d, d.verifyApplication().Handle, application.VerifyApplication{PartnerID: d.partner, ApplicationID: a.ID(), Offer: o})
	if err != nil {
		t.Fatal(err)
	}
	got := d.stored[a.ID()]
	if !r.PhoneCallRequired || r.CallCentrePhone != "998781400000" ||
		got.Stage() != (domain.Stage{Name: domain.StageClientVerification, Status: domain.StagePending}) {
		t.Fatalf("result %+v, stage %+v", r, got.Stage())
	}
}

func TestVerifyWithGatewayDownAnswersUnavailableAndChangesNothing(t *testing.T) {
	t.Parallel()
	d := setup(t)
	a := d.put(t, "choosing")
	d.scoring.EXPECT().PostScore(gomock.Any(), gomock.Any()).Return(domain.PostScoreResult{}, ports.ErrGatewayTransient)
	_, err := run(d, d.verifyApplication().Handle, application.VerifyApplication{PartnerID: d.partner, ApplicationID: a.ID(), Offer: offer(1000, 6)})
	if !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("got %v", err)
	}
	if d.stored[a.ID()].Offer() != nil || d.committed != 0 {
		t.Fatal("a failed verify changed the application")
	}
}

func TestAnotherPartnersApplicationIsNotFound(t *testing.T) {
	t.Parallel()
	d := setup(t)
	a := d.put(t, "verified")
	other := uuid.New()
	ctx := context.Background()
	calls := map[string]error{}
	_, calls["info"] = d.getApplication().Handle(ctx, application.GetApplication{PartnerID: other, ApplicationID: a.ID()})
	calls["cancel"] = runErr(d, d.cancelApplication().Handle, application.CancelApplication{PartnerID: other, ApplicationID: a.ID(), Initiator: domain.InitiatorPartner})
	_, calls["verify"] = run(d, d.verifyApplication().Handle, application.VerifyApplication{PartnerID: other, ApplicationID: a.ID(), Offer: offer(1000, 6)})
	calls["issue"] = runErr(d, d.issueApplication().Handle, application.IssueApplication{PartnerID: other, ApplicationID: a.ID(), ClientData: clientData(t, "31234567890123")})
	calls["complete verification"] = runErr(d, d.completeVerification().Handle, application.CompleteVerification{PartnerID: other, ApplicationID: a.ID()})
	for name, err := range calls {
		if !errors.Is(err, domain.ErrApplicationNotFound) {
			t.Errorf("%s: got %v", name, err)
		}
	}
	if d.stored[a.ID()].State() != a.State() {
		t.Fatal("a foreign partner changed the application")
	}
}

func TestIssueStartsBackgroundWork(t *testing.T) {
	t.Parallel()
	d := setup(t)
	a := d.put(t, "verified")
	d.queue.EXPECT().EnqueueApplications(gomock.Any(), a.ID()).Return(nil)
	if err := runErr(d, d.issueApplication().Handle, application.IssueApplication{PartnerID: d.partner, ApplicationID: a.ID(), ClientData: clientData(t, "31234567890123")}); err != nil {
		t.Fatal(err)
	}
	if got := d.stored[a.ID()]; got.Status() != domain.StatusInProgress || got.Stage().Name != domain.StageOpenAccount {
		t.Fatalf("got %s %+v", got.Status(), got.Stage())
	}
}

func TestProcessRunsPreScoringAndPollsAPendingAnswer(t *testing.T) {
	t.Parallel()
	d := setup(t)
	a := d.put(t, "new")
	key := a.ID().String() + ":PRE_SCORING"
	d.scoring.EXPECT().RequestPreScore(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, r ports.PreScoreRequest) error {
		if r.IdempotencyKey != key || r.ClientData.PINFL() != "31234567890123" {
			t.Errorf("request %+v", r)
		}
		return nil
	})
	d.scoring.EXPECT().PreScoreResult(gomock.Any(), gomock.Any()).Return(ports.PreScoreAnswer{Answer: ports.Answer{Status: ports.AnswerPending}}, nil)
	next, err := d.processApplication().Handle(context.Background(), a.ID())
	if err != nil {
		t.Fatal(err)
	}
	got := d.stored[a.ID()]
	if next != domain.PollInterval || got.Stage() != (domain.Stage{Name: domain.StagePreScoringInfo, Status: domain.StageInProgress}) {
		t.Fatalf("next %v, stage %+v", next, got.Stage())
	}
}

func TestProcessIssuesTheLoanThroughFiveStages(t *testing.T) {
	t.Parallel()
	d := setup(t)
	a := d.put(t, "issuing")
	id := a.ID().String()
	approved := ports.Answer{Status: ports.AnswerApproved}
	gomock.InOrder(
		d.core.EXPECT().OpenAccount(gomock.Any(), gomock.Cond(func(r ports.OpenAccountRequest) bool { return r.IdempotencyKey == id+":OPEN_ACCOUNT" })).Return("20208000000000000001", nil),
		d.core.EXPECT().OpenLoanApplication(gomock.Any(), gomock.Cond(func(r ports.LoanApplicationRequest) bool {
			return r.IdempotencyKey == id+":OPEN_LOAN_APPLICATION" && r.AccountNumber == "20208000000000000001"
		})).Return("LA-1", nil),
		d.core.EXPECT().LoanApplicationResult(gomock.Any(), "LA-1").Return(approved, nil),
		d.core.EXPECT().IssueLoan(gomock.Any(), gomock.Cond(func(r ports.IssueLoanRequest) bool {
			return r.IdempotencyKey == id+":LOAN_ISSUANCE" && r.LoanApplicationRef == "LA-1"
		})).Return("LI-1", nil),
		d.core.EXPECT().IssuanceResult(gomock.Any(), "LI-1").Return(approved, nil),
	)
	var loan *domain.Loan
	d.loans.EXPECT().Create(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, l *domain.Loan) error { loan = l; return nil })
	d.ledger.EXPECT().OpenLoanAccounts(gomock.Any(), gomock.Any()).Return(nil)
	d.ledger.EXPECT().Post(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, p domain.Posting) error {
		// The principal moves from the loan onto the client's demand account.
		if p.Kind != domain.PostingIssuance || len(p.Entries) != 2 || p.Entries[0].Account != domain.LoanAccount(domain.AccountLoan, loan.ID()) ||
			p.Entries[0].Debit != 1_000_000 || p.Entries[1].Account != domain.LoanAccount(domain.AccountDemand, loan.ID()) || p.Entries[1].Credit != 1_000_000 {
			t.Errorf("issuance posting %+v", p)
		}
		return nil
	})
	next, err := d.processApplication().Handle(context.Background(), a.ID())
	if err != nil || next != 0 {
		t.Fatalf("next %v err %v", next, err)
	}
	got := d.stored[a.ID()]
	if got.Status() != domain.StatusCompleted || loan == nil || loan.ApplicationID() != a.ID() || loan.Amount() != 1_000_000 || loan.ContractNumber() != "" {
		t.Fatalf("status %s loan %+v", got.Status(), loan)
	}
}

func TestProcessClassifiesGatewayFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		err    error
		status domain.ApplicationStatus
		code   domain.StageError
		next   time.Duration
		told   string // the on-call engineer's event, if any
	}{
		{"transient is retried after a backoff", ports.ErrGatewayTransient, domain.StatusInProgress, domain.StageErrorNone, time.Second, ""},
		{"unknown errors count as transient", errors.New("connection reset"), domain.StatusInProgress, domain.StageErrorNone, time.Second, ""},
		{"business refusal rejects", fmt.Errorf("%w: blacklisted", ports.ErrGatewayRefused), domain.StatusRejected, domain.StageErrorIssuanceRefused, 0, ""},
		{"definite technical refusal fails", ports.ErrGatewayFailed, domain.StatusFailed, domain.StageErrorTechnicalFailure, 0, "application.failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := setup(t)
			a := d.put(t, "issuing")
			d.core.EXPECT().OpenAccount(gomock.Any(), gomock.Any()).Return("", tt.err)
			next, err := d.processApplication().Handle(context.Background(), a.ID())
			if err != nil {
				t.Fatal(err)
			}
			got := d.stored[a.ID()]
			if got.Status() != tt.status || got.Stage().Error != tt.code || next != tt.next {
				t.Fatalf("status %s stage %+v next %v", got.Status(), got.Stage(), next)
			}
			if tt.told == "" && len(d.told) != 0 || tt.told != "" && (len(d.told) != 1 || d.told[0].Event != tt.told) {
				t.Fatalf("told %+v, want %q", d.told, tt.told)
			}
		})
	}
}

// An application that fails after five calls that never reached core banking, and a stage
// whose outcome stays unknown after its first retry, are told to the on-call engineer with the
// partner, the application, the stage, the gateway and the attempt.
func TestProcessTellsTheOnCallEngineerWhatFailed(t *testing.T) {
	t.Parallel()
	d := setup(t)
	a := d.put(t, "issuing")
	d.core.EXPECT().OpenAccount(gomock.Any(), gomock.Any()).Return("", ports.ErrGatewayNotReached).Times(domain.MaxStageAttempts)
	for range domain.MaxStageAttempts {
		_ = d.stored[a.ID()].RetryNow(t0)
		if _, err := d.processApplication().Handle(context.Background(), a.ID()); err != nil {
			t.Fatal(err)
		}
	}
	if got := d.stored[a.ID()]; got.Status() != domain.StatusFailed || len(d.told) != 1 {
		t.Fatalf("status %s, told %+v", got.Status(), d.told)
	}
	f := d.told[0]
	if f.Event != "application.failed" || !f.Final || f.PartnerID != d.partner || f.Object != "application:"+a.ID().String() ||
		f.Detail != "OPEN_ACCOUNT" || f.Target != "core_banking" || f.Attempt != domain.MaxStageAttempts || f.Reason == "" {
		t.Fatalf("told %+v", f)
	}

	d.told = nil
	u := d.put(t, "issuing")
	d.core.EXPECT().OpenAccount(gomock.Any(), gomock.Any()).Return("", ports.ErrGatewayTransient).Times(2)
	for range 2 {
		_ = d.stored[u.ID()].RetryNow(t0)
		if _, err := d.processApplication().Handle(context.Background(), u.ID()); err != nil {
			t.Fatal(err)
		}
	}
	if len(d.told) != 1 || d.told[0].Event != "stage.outcome_unknown" || d.told[0].Final || d.told[0].Object != "application:"+u.ID().String() {
		t.Fatalf("an outcome unknown twice: told %+v", d.told)
	}
}

// TestProcessWithNothingDueChangesNothing: an unknown application, one waiting for its
// partner, and one waiting for its retry make no gateway call and commit nothing.
func TestProcessWithNothingDueChangesNothing(t *testing.T) {
	t.Parallel()
	d := setup(t)
	retrying := d.put(t, "issuing")
	d.core.EXPECT().OpenAccount(gomock.Any(), gomock.Any()).Return("", ports.ErrGatewayTransient)
	if next, err := d.processApplication().Handle(context.Background(), retrying.ID()); err != nil || next != time.Second {
		t.Fatalf("first run: next %v err %v", next, err)
	}
	tests := []struct {
		name string
		id   uuid.UUID
		next time.Duration
	}{
		{"unknown", uuid.New(), 0},
		{"waiting for its partner", d.put(t, "choosing").ID(), 0},
		{"waiting for its retry", retrying.ID(), time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, stored := d.committed, d.stored[tt.id]
			next, err := d.processApplication().Handle(context.Background(), tt.id)
			if err != nil || next != tt.next {
				t.Fatalf("next %v err %v, want %v", next, err, tt.next)
			}
			if d.committed != before || d.stored[tt.id] != stored {
				t.Fatal("something was committed")
			}
		})
	}
}

func TestProcessDropsTheAnswerOfACanceledApplication(t *testing.T) {
	t.Parallel()
	d := setup(t)
	a := d.put(t, "issuing")
	d.core.EXPECT().OpenAccount(gomock.Any(), gomock.Any()).DoAndReturn(func(context.Context, ports.OpenAccountRequest) (string, error) {
		// The partner cancels while core banking is working.
		if err := runErr(d, d.cancelApplication().Handle, application.CancelApplication{PartnerID: d.partner, ApplicationID: a.ID(), Initiator: domain.InitiatorPartner}); err != nil {
			t.Errorf("cancel: %v", err)
		}
		return "20208000000000000001", nil
	})
	next, err := d.processApplication().Handle(context.Background(), a.ID())
	if err != nil || next != 0 {
		t.Fatalf("next %v err %v", next, err)
	}
	if got := d.stored[a.ID()]; got.Status() != domain.StatusCanceled || got.AccountNumber() != "" {
		t.Fatalf("got %s %q", got.Status(), got.AccountNumber())
	}
}

func TestReconcileEnqueuesDueWorkAndExpiresStaleApplications(t *testing.T) {
	t.Parallel()
	d := setup(t)
	due := d.put(t, "new")
	stale := d.put(t, "choosing")
	d.apps.EXPECT().ListDue(gomock.Any(), gomock.Any(), t0, gomock.Any()).Return([]uuid.UUID{due.ID()}, nil)
	d.apps.EXPECT().ListPendingBefore(gomock.Any(), gomock.Any(), t0.Add(-72*time.Hour), gomock.Any()).Return([]uuid.UUID{stale.ID()}, nil)
	d.queue.EXPECT().EnqueueApplications(gomock.Any(), due.ID()).Return(nil)
	d.transfers.EXPECT().ListNewBefore(gomock.Any(), gomock.Any(), uuid.Nil, t0.Add(-domain.TransferTTL), gomock.Any()).Return(nil, nil)
	d.transfers.EXPECT().ListProcessingBefore(gomock.Any(), gomock.Any(), t0.Add(-30*time.Second), gomock.Any()).Return(nil, nil)
	d.loans.EXPECT().ListAwaitingContract(gomock.Any(), gomock.Any(), t0.Add(-30*time.Minute), gomock.Any()).Return(nil, nil)
	// The pending application entered PENDING at t0, so at t0 it is not stale yet: the
	// reconciler re-checks against the clock and changes nothing.
	rep, err := d.reconcile().Handle(context.Background())
	if err != nil || rep.Enqueued != 1 || rep.Expired != 0 {
		t.Fatalf("report %+v err %v", rep, err)
	}
	if d.stored[stale.ID()].Status() != domain.StatusPending {
		t.Fatal("expired too early")
	}
}

// TestReconcileDecidesEachPartnersWorkAgainstItsOwnClock: a partner whose sandbox clock is
// ahead gets a pass of its own at its own time; the pass of every other partner is at the
// system time and leaves that partner out, so one partner's advance expires nothing of another.
func TestReconcileDecidesEachPartnersWorkAgainstItsOwnClock(t *testing.T) {
	t.Parallel()
	d := setup(t)
	ahead := uuid.New()
	later := t0.Add(100 * time.Hour)
	clock := mocks.NewMockClock(gomock.NewController(t))
	clock.EXPECT().Ahead().Return([]uuid.UUID{ahead}).AnyTimes()
	clock.EXPECT().Now(gomock.Any()).DoAndReturn(func(p uuid.UUID) time.Time {
		if p == ahead {
			return later
		}
		return t0
	}).AnyTimes()
	for _, s := range []struct {
		partners ports.Partners
		now      time.Time
	}{{ports.Partners{Except: []uuid.UUID{ahead}}, t0}, {ports.Partners{Only: ahead}, later}} {
		d.apps.EXPECT().ListDue(gomock.Any(), s.partners, s.now, gomock.Any()).Return(nil, nil)
		d.apps.EXPECT().ListPendingBefore(gomock.Any(), s.partners, s.now.Add(-72*time.Hour), gomock.Any()).Return(nil, nil)
		d.transfers.EXPECT().ListNewBefore(gomock.Any(), s.partners, uuid.Nil, s.now.Add(-domain.TransferTTL), gomock.Any()).Return(nil, nil)
		d.transfers.EXPECT().ListProcessingBefore(gomock.Any(), s.partners, s.now.Add(-30*time.Second), gomock.Any()).Return(nil, nil)
		d.loans.EXPECT().ListAwaitingContract(gomock.Any(), s.partners, s.now.Add(-30*time.Minute), gomock.Any()).Return(nil, nil)
	}
	h := &application.ReconcileHandler{Clock: clock, UoW: d.uow, Applications: d.apps, Loans: d.loans, Queue: d.queue, CoreBanking: d.core, Transfers: d.transfers, Processing: d.cards, CardOrders: d.orders, Settlement: application.TransferSettlement{UoW: d.uow, Transfers: d.transfers, Ledger: d.ledger, Clock: clock}, Orders: application.NewProcessCardOrderHandler(clock, d.uow, d.cards, d.cardRepo, d.orders, d.issuer, opsRecorder{d}), Cfg: d.cfg}
	if _, err := h.Handle(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestCallsAfterTheTTLAnswerAsForAnExpiredApplication: the 72 h life of a PENDING application
// is a fact of the clock, not of the reconciler: verify, issue and cancel after it record the
// expiry and refuse as for any EXPIRED application, and verify asks post-scoring nothing.
func TestCallsAfterTheTTLAnswerAsForAnExpiredApplication(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		point string
		call  func(d *deps, clock ports.Clock, a *domain.Application) error
	}{
		{"verify", "choosing", func(d *deps, clock ports.Clock, a *domain.Application) error {
			_, err := run(d, application.NewVerifyApplicationHandler(clock, d.uow, d.requests, d.apps, d.scoring, d.cfg).Handle,
				application.VerifyApplication{PartnerID: d.partner, ApplicationID: a.ID(), Offer: offer(1_000_000, 6)})
			return err
		}},
		{"issue", "verified", func(d *deps, clock ports.Clock, a *domain.Application) error {
			return runErr(d, application.NewIssueApplicationHandler(clock, d.uow, d.requests, d.apps, d.queue, d.cfg).Handle,
				application.IssueApplication{PartnerID: d.partner, ApplicationID: a.ID(), ClientData: clientData(t, "31234567890123")})
		}},
		{"cancel", "choosing", func(d *deps, clock ports.Clock, a *domain.Application) error {
			return runErr(d, application.NewCancelApplicationHandler(clock, d.uow, d.requests, d.apps, d.cfg).Handle,
				application.CancelApplication{PartnerID: d.partner, ApplicationID: a.ID(), Initiator: domain.InitiatorPartner})
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, c := range []struct {
				after   time.Duration
				expired bool
			}{{72 * time.Hour, false}, {72*time.Hour + time.Second, true}} {
				d := setup(t)
				a := d.put(t, tt.point) // PENDING since t0
				clock := mocks.NewMockClock(gomock.NewController(t))
				clock.EXPECT().Now(d.partner).Return(t0.Add(c.after)).AnyTimes()
				if !c.expired {
					d.scoring.EXPECT().PostScore(gomock.Any(), gomock.Any()).Return(domain.PostScoreResult{Approved: true}, nil).AnyTimes()
					d.queue.EXPECT().EnqueueApplications(gomock.Any(), gomock.Any()).Return(nil).AnyTimes()
				}
				err := tt.call(d, clock, a)
				got := d.stored[a.ID()]
				if !c.expired {
					if err != nil || got.Status() == domain.StatusExpired {
						t.Fatalf("%v after: %v, %s", c.after, err, got.Status())
					}
					continue
				}
				if !errors.Is(err, domain.ErrWrongState) || got.Status() != domain.StatusExpired || got.Stage().Status != domain.StageExpired {
					t.Fatalf("%v after: %v, stored %s %+v", c.after, err, got.Status(), got.Stage())
				}
				if d.rollbacks != 0 || !slices.Equal(d.requests.answered(), []int{1000}) {
					t.Fatalf("%d rollbacks, answers %v: the expiry is to commit with the refusal's answer", d.rollbacks, d.requests.answered())
				}
			}
		})
	}
}

// TestUnknownOutcomesAreCountedPastTenMinutes: the operators' gauge counts each kind of work
// whose gateway outcome has been unknown since before ten minutes ago.
func TestUnknownOutcomesAreCountedPastTenMinutes(t *testing.T) {
	t.Parallel()
	d := setup(t)
	before := t0.Add(-10 * time.Minute)
	d.apps.EXPECT().CountUnknownBefore(gomock.Any(), before).Return(2, nil)
	d.transfers.EXPECT().CountProcessingBefore(gomock.Any(), before).Return(3, nil)
	d.orders.EXPECT().CountUnknownBefore(gomock.Any(), before).Return(4, nil)
	got, err := (&application.CountUnknownOutcomesHandler{Clock: d.clock, Applications: d.apps, Transfers: d.transfers, CardOrders: d.orders}).Handle(context.Background())
	if err != nil || got != (application.UnknownOutcomes{Applications: 2, Transfers: 3, CardOrders: 4}) {
		t.Fatalf("%+v %v", got, err)
	}
}

func TestAuthenticate(t *testing.T) {
	t.Parallel()
	d := setup(t)
	key := "tiyin_test_key_0123456789"
	p := domain.Partner{ID: uuid.New(), Name: "acme", KeyHash: application.HashAPIKey(key)}
	d.partners.EXPECT().ByKeyHash(gomock.Any(), application.HashAPIKey(key)).Return(p, nil).Times(1)
	d.partners.EXPECT().ByKeyHash(gomock.Any(), application.HashAPIKey("wrong")).Return(domain.Partner{}, domain.ErrPartnerNotFound).Times(1)
	ctx := context.Background()
	auth := d.authenticate() // one handler: its cache is what is tested
	for range 3 {            // cached after the first lookup
		got, err := auth.Handle(ctx, key, "10.0.0.1")
		if err != nil || got.ID != p.ID {
			t.Fatalf("got %+v %v", got, err)
		}
	}
	for range 2 { // unknown keys are remembered too, briefly
		if _, err := auth.Handle(ctx, "wrong", "10.0.0.1"); !errors.Is(err, application.ErrUnauthenticated) {
			t.Fatalf("wrong key: %v", err)
		}
	}
	if _, err := auth.Handle(ctx, "", "10.0.0.1"); !errors.Is(err, application.ErrUnauthenticated) {
		t.Fatalf("empty key: %v", err)
	}
}

// TestARotatedKeyWorksUntilItsOverlapEnds: the key a rotation replaced authenticates until
// PreviousKeyUntil, not a moment after, whatever the cache holds.
func TestARotatedKeyWorksUntilItsOverlapEnds(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		left time.Duration
		want error
	}{
		{"during the overlap", time.Hour, nil},
		{"after it", -time.Second, application.ErrUnauthenticated},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := setup(t)
			old := "tiyin_old_key_0123456789"
			p := domain.Partner{ID: uuid.New(), KeyHash: application.HashAPIKey("tiyin_new_key_0123456789"),
				PreviousKeyHash: application.HashAPIKey(old), PreviousKeyUntil: time.Now().Add(tt.left)}
			d.partners.EXPECT().ByKeyHash(gomock.Any(), application.HashAPIKey(old)).Return(p, nil).Times(1)
			got, err := d.authenticate().Handle(context.Background(), old, "10.0.0.1")
			if !errors.Is(err, tt.want) || (tt.want == nil && got.ID != p.ID) {
				t.Fatalf("got %+v %v, want %v", got, err, tt.want)
			}
		})
	}
}

// TestARotatedKeyIsNotCachedPastItsOverlap: a key whose overlap ends sooner than the cache's
// five seconds is asked for again once it ends.
func TestARotatedKeyIsNotCachedPastItsOverlap(t *testing.T) {
	t.Parallel()
	d := setup(t)
	old := "tiyin_old_key_0123456789"
	p := domain.Partner{ID: uuid.New(), KeyHash: application.HashAPIKey("tiyin_new_key_0123456789"),
		PreviousKeyHash: application.HashAPIKey(old), PreviousKeyUntil: time.Now().Add(300 * time.Millisecond)}
	d.partners.EXPECT().ByKeyHash(gomock.Any(), application.HashAPIKey(old)).Return(p, nil).Times(2)
	auth := d.authenticate()
	if _, err := auth.Handle(context.Background(), old, "10.0.0.1"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(400 * time.Millisecond)
	if _, err := auth.Handle(context.Background(), old, "10.0.0.1"); !errors.Is(err, application.ErrUnauthenticated) {
		t.Fatalf("after the overlap: %v", err)
	}
}

func TestAuthenticateRefusesADisabledPartner(t *testing.T) {
	t.Parallel()
	d := setup(t)
	key := "tiyin_disabled_0123456789"
	d.partners.EXPECT().ByKeyHash(gomock.Any(), gomock.Any()).Return(domain.Partner{ID: uuid.New(), KeyHash: application.HashAPIKey(key), Disabled: true}, nil)
	if _, err := d.authenticate().Handle(context.Background(), key, "10.0.0.1"); !errors.Is(err, application.ErrPartnerDisabled) {
		t.Fatalf("got %v", err)
	}
}

func TestReconcileAssignsContractNumbersAfterTheDelay(t *testing.T) {
	t.Parallel()
	d := setup(t)
	loan := domain.RestoreLoan(domain.LoanState{ID: uuid.New(), ApplicationID: uuid.New(), Amount: 1000, MonthPeriod: 1,
		ScheduleType: domain.ScheduleAnnuity, IssuedAt: t0.Add(-31 * time.Minute)})
	d.apps.EXPECT().ListDue(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).Return(nil, nil)
	d.apps.EXPECT().ListPendingBefore(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).Return(nil, nil)
	d.transfers.EXPECT().ListNewBefore(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).Return(nil, nil)
	d.transfers.EXPECT().ListProcessingBefore(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).Return(nil, nil)
	d.loans.EXPECT().ListAwaitingContract(gomock.Any(), gomock.Any(), t0.Add(-30*time.Minute), gomock.Any()).Return([]uuid.UUID{loan.ID()}, nil)
	d.loans.EXPECT().Get(gomock.Any(), loan.ID()).Return(loan, nil)
	d.core.EXPECT().ContractNumber(gomock.Any(), gomock.Cond(func(r ports.ContractRequest) bool {
		return r.IdempotencyKey == loan.ID().String()+":CONTRACT" && r.ApplicationID == loan.ApplicationID()
	})).Return("4829105736", nil)
	var saved string
	d.loans.EXPECT().Update(gomock.Any(), loan.ID(), gomock.Any()).DoAndReturn(func(_ context.Context, _ uuid.UUID, fn func(*domain.Loan) error) error {
		l := domain.RestoreLoan(loan.State())
		if err := fn(l); err != nil {
			return err
		}
		saved = l.ContractNumber()
		return nil
	})
	rep, err := d.reconcile().Handle(context.Background())
	if err != nil || rep.Contracts != 1 || saved != "4829105736" {
		t.Fatalf("report %+v, saved %q, err %v", rep, saved, err)
	}
}

func TestReconcileCompletesSandboxCallsAfterTheDelay(t *testing.T) {
	t.Parallel()
	d := setup(t)
	a := d.put(t, "choosing")
	if err := d.stored[a.ID()].Verify(offer(2_000_000_000, 12), domain.PostScoreResult{Approved: true, PhoneCallRequired: true}, t0.Add(-3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	app := testkit.App(t, testkit.Swap[ports.Clock](d.clock), testkit.Swap[ports.UnitOfWork](d.uow), testkit.Swap[ports.WorkQueue](d.queue),
		testkit.Swap[ports.ApplicationRepository](d.apps), testkit.Swap[ports.LoanRepository](d.loans),
		testkit.Swap[ports.TransferRepository](d.transfers), testkit.Swap[ports.CardOrderRepository](d.orders),
		testkit.Swap(application.Config{SandboxCallDelay: 2 * time.Minute}))
	d.apps.EXPECT().ListDue(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).Return(nil, nil)
	d.transfers.EXPECT().ListNewBefore(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).Return(nil, nil)
	d.transfers.EXPECT().ListProcessingBefore(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).Return(nil, nil)
	d.loans.EXPECT().ListAwaitingContract(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).Return(nil, nil)
	d.apps.EXPECT().ListAwaitingCall(gomock.Any(), gomock.Any(), t0.Add(-2*time.Minute), gomock.Any()).Return([]uuid.UUID{a.ID()}, nil)
	rep, err := app.Operations.Reconcile.Handle(context.Background())
	if err != nil || rep.Verified != 1 {
		t.Fatalf("report %+v err %v", rep, err)
	}
	if got := d.stored[a.ID()].Stage(); got != (domain.Stage{Name: domain.StageClientVerification, Status: domain.StageCompleted}) {
		t.Fatalf("stage %+v", got)
	}
}

// TestTheCapIsCheckedForTheOffersLifetimeAndAgainAtIssue: 1e9 for 12 months at 83.06 % fits
// the cap issued on 28 February 2027, not from 1 March. Verify on the 28th refuses it (the
// offer could be issued within its 72 hours), and an offer verified earlier is refused at issue
// on 1 March before anything is lent (DESIGN §8.3).
func TestTheCapIsCheckedForTheOffersLifetimeAndAgainAtIssue(t *testing.T) {
	t.Parallel()
	feb28 := time.Date(2027, 2, 28, 10, 0, 0, 0, domain.Tashkent)
	pct, _ := domain.PercentFromHundredths(8306)
	capBinding := domain.Offer{Amount: 1_000_000_000, Percent: pct, MonthPeriod: 12, BackupPhone: offer(1, 1).BackupPhone}
	choosing := func(d *deps) *domain.Application {
		phone, _ := domain.ParsePhone("998901234567")
		a, _ := domain.NewApplication(domain.NewApplicationParams{ID: uuid.New(), PartnerID: d.partner, ExternalID: uuid.New(),
			Phone: phone, ClientData: clientData(t, "31234567890123"), AgreementAccepted: true, Now: feb28})
		done := domain.StageResult{Outcome: domain.OutcomeDone, Ref: "R", PreScore: domain.PreScoreResult{AmountLimit: 5_000_000_000, Percent: pct, MonthPeriod: 12}}
		for _, s := range []domain.StageName{domain.StagePreScoring, domain.StagePreScoringInfo} {
			_ = a.BeginStage(s, feb28)
			_, _ = a.CompleteStage(s, done, domain.LoanProduct{}, feb28)
		}
		d.stored[a.ID()] = a
		return a
	}
	at := func(now time.Time) ports.Clock {
		clock := mocks.NewMockClock(gomock.NewController(t))
		clock.EXPECT().Now(gomock.Any()).Return(now).AnyTimes()
		return clock
	}

	d := setup(t)
	a := choosing(d)
	// No PostScore expectation: the mock fails the test if verify asks post-scoring.
	_, err := run(d, application.NewVerifyApplicationHandler(at(feb28), d.uow, d.requests, d.apps, d.scoring, application.Config{Product: d.cfg.Product, ApplicationTTL: 72 * time.Hour}).Handle,
		application.VerifyApplication{PartnerID: d.partner, ApplicationID: a.ID(), Offer: capBinding})
	if !errors.Is(err, domain.ErrOfferOutOfRange) || !strings.Contains(err.Error(), "2027-03-01") {
		t.Fatalf("verify on 28 February with 72 hours to issue: %v, want 1004 naming 1 March", err)
	}
	// With a lifetime that ends on the 28th the offer fits.
	d.scoring.EXPECT().PostScore(gomock.Any(), gomock.Any()).Return(domain.PostScoreResult{Approved: true}, nil)
	if _, err := run(d, application.NewVerifyApplicationHandler(at(feb28), d.uow, d.requests, d.apps, d.scoring, application.Config{Product: d.cfg.Product, ApplicationTTL: time.Hour}).Handle,
		application.VerifyApplication{PartnerID: d.partner, ApplicationID: a.ID(), Offer: capBinding}); err != nil {
		t.Fatalf("verify on 28 February for an offer living an hour: %v", err)
	}
	// Issued the next day (the lifetime configuration changed, or the clock moved): refused
	// before anything is queued.
	err = runErr(d, application.NewIssueApplicationHandler(at(feb28.AddDate(0, 0, 1)), d.uow, d.requests, d.apps, d.queue, application.Config{Product: d.cfg.Product, ApplicationTTL: 72 * time.Hour}).Handle,
		application.IssueApplication{PartnerID: d.partner, ApplicationID: a.ID(), ClientData: clientData(t, "31234567890123")})
	if !errors.Is(err, domain.ErrOfferOutOfRange) {
		t.Fatalf("issue on 1 March: %v, want 1004", err)
	}
	if got := d.stored[a.ID()]; got.Status() != domain.StatusPending {
		t.Fatalf("a refused issue left the application %s", got.Status())
	}
}

// A card order the issuer never received, five times, is CANCELED and told to the on-call
// engineer, once, as final, with the request that placed it.
func TestACardOrderTheIssuerNeverTookIsTold(t *testing.T) {
	t.Parallel()
	d := setup(t)
	phone, _ := domain.ParsePhone("998901234567")
	o, err := domain.NewCardOrder(domain.NewCardOrderParams{ID: uuid.New(), PartnerID: d.partner, ExternalID: "o-1",
		Phone: phone, ClientData: clientData(t, "31234567890123"), Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	o.Correlate("req-order-1")
	d.orders.EXPECT().Get(gomock.Any(), o.ID()).DoAndReturn(func(context.Context, uuid.UUID) (*domain.CardOrder, error) { return o, nil }).AnyTimes()
	d.orders.EXPECT().Update(gomock.Any(), o.ID(), gomock.Any()).DoAndReturn(func(_ context.Context, _ uuid.UUID, fn func(*domain.CardOrder) error) error {
		return fn(o)
	}).AnyTimes()
	d.issuer.EXPECT().Order(gomock.Any(), gomock.Any()).Return("", ports.ErrGatewayNotReached).Times(domain.MaxStageAttempts)
	h := application.NewProcessCardOrderHandler(d.clock, d.uow, d.cards, d.cardRepo, d.orders, d.issuer, opsRecorder{d})
	for range domain.MaxStageAttempts {
		if err := h.Handle(context.Background(), o.ID()); err != nil {
			t.Fatal(err)
		}
	}
	if o.Status() != domain.CardOrderCanceled || len(d.told) != 1 || d.told[0].Event != "card_order.failed" || !d.told[0].Final ||
		d.told[0].Object != "card_order:"+o.ID().String() || d.told[0].Target != "card_issuer" || d.toldFor[0] != "req-order-1" {
		t.Fatalf("order %s, told %+v for %v", o.Status(), d.told, d.toldFor)
	}
}
