package console_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/mock/gomock"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/ports/mocks"
	"github.com/tiyin/tiyin/test/testkit"
)

// collectionsDeps are the mocks the collections' use cases run on; inTx says whether a unit of
// work's function is running.
type collectionsDeps struct {
	clock      *mocks.MockClock
	loans      *mocks.MockLoanRepository
	apps       *mocks.MockApplicationRepository
	coll       *mocks.MockCollectionsRepository
	operators  *mocks.MockOperatorRepository
	audit      *mocks.MockAuditLog
	events     *mocks.MockEventOutbox
	sms        *mocks.MockSMSSender
	inTx       bool
	uc         console.Collections
	passes     application.CollectionPasses
	partner    uuid.UUID
	loan       *domain.Loan
	app        *domain.Application
	firstDue   time.Time
	auditLines []ports.AuditEntry
}

func setupCollections(t *testing.T) *collectionsDeps {
	t.Helper()
	ctrl := gomock.NewController(t)
	d := &collectionsDeps{clock: mocks.NewMockClock(ctrl), loans: mocks.NewMockLoanRepository(ctrl), apps: mocks.NewMockApplicationRepository(ctrl),
		coll: mocks.NewMockCollectionsRepository(ctrl), operators: mocks.NewMockOperatorRepository(ctrl), audit: mocks.NewMockAuditLog(ctrl),
		events: mocks.NewMockEventOutbox(ctrl), sms: mocks.NewMockSMSSender(ctrl), partner: uuid.New()}
	uow := mocks.NewMockUnitOfWork(ctrl)
	uow.EXPECT().Do(gomock.Any(), gomock.Any()).DoAndReturn(func(ctx context.Context, fn func(context.Context) error) error {
		d.inTx = true
		defer func() { d.inTx = false }()
		return fn(ctx)
	}).AnyTimes()
	d.audit.EXPECT().Append(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, e ports.AuditEntry) error {
		if !d.inTx {
			t.Error("an audit line was written outside the action's transaction")
		}
		d.auditLines = append(d.auditLines, e)
		return nil
	}).AnyTimes()
	phone, _ := domain.ParsePhone("998901234567")
	var err error
	d.app, err = domain.NewApplication(domain.NewApplicationParams{ID: uuid.New(), PartnerID: d.partner, ExternalID: uuid.New(),
		Phone: phone, AgreementAccepted: true, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	rate, _ := domain.PercentFromHundredths(2800)
	d.loan = domain.RestoreLoan(domain.LoanState{ID: uuid.New(), ApplicationID: d.app.ID(), PartnerID: d.partner, Amount: 1_200_000,
		MonthPeriod: 12, Rate: rate, ScheduleType: domain.ScheduleAnnuity, AccountNumber: "20208000000000000001", IssuedAt: t0,
		ContractNumber: "4711"})
	due, ok, err := d.loan.FirstUnpaidDue()
	if err != nil || !ok {
		t.Fatalf("first due: %v %v", ok, err)
	}
	d.firstDue = due
	d.loans.EXPECT().Get(gomock.Any(), d.loan.ID()).Return(d.loan, nil).AnyTimes()
	var (
		app  *application.App
		cons console.Console
	)
	testkit.Build(t, append(testkit.Gateways{SMS: d.sms}.Options(), testkit.Swap[ports.Clock](d.clock),
		testkit.Swap[ports.UnitOfWork](uow), testkit.Swap[ports.EventOutbox](d.events),
		testkit.Swap[ports.ApplicationRepository](d.apps), testkit.Swap[ports.LoanRepository](d.loans),
		testkit.Swap[ports.CollectionsRepository](d.coll), testkit.Swap[ports.OperatorRepository](d.operators),
		testkit.Swap[ports.AuditLog](d.audit)), &app, &cons)
	d.uc, d.passes = cons.Collections, app.Collections
	return d
}

// at is a moment of a business date, at hour in Tashkent.
func at(day time.Time, hour int) time.Time {
	return time.Date(day.Year(), day.Month(), day.Day(), hour, 0, 0, 0, domain.Tashkent)
}

// onOneClock makes every partner's time now, outside the sandbox.
func (d *collectionsDeps) onOneClock(now time.Time) {
	d.clock.EXPECT().Now(gomock.Any()).Return(now).AnyTimes()
	d.clock.EXPECT().Ahead().Return(nil).AnyTimes()
}

func officer(t *testing.T, name string, role domain.Role) *domain.Operator {
	t.Helper()
	o, err := domain.NewOperator(uuid.New(), name, role, "hash", t0)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestCollectionsReassignmentIsAuditedWithWhoHadTheLoan(t *testing.T) {
	t.Parallel()
	d := setupCollections(t)
	d.onOneClock(t0)
	ann, bob, vic := officer(t, "ann", domain.RoleOfficer), officer(t, "bob", domain.RoleOfficer), officer(t, "vic", domain.RoleViewer)
	for _, o := range []*domain.Operator{ann, bob, vic} {
		d.operators.EXPECT().Get(gomock.Any(), o.ID()).Return(o, nil).AnyTimes()
	}
	ctx := context.Background()
	lead := console.Actor{ID: uuid.New(), Name: "lead", Role: domain.RoleOfficer}
	if err := d.uc.Assign.Handle(ctx, console.Actor{Name: "v", Role: domain.RoleViewer}, d.loan.ID(), bob.ID()); !errors.Is(err, domain.ErrForbidden) {
		t.Fatalf("a viewer assigned a loan: %v", err)
	}
	if err := d.uc.Assign.Handle(ctx, lead, d.loan.ID(), vic.ID()); !errors.Is(err, domain.ErrCollector) {
		t.Fatalf("a loan went to a viewer: %v", err)
	}
	d.coll.EXPECT().Assignment(gomock.Any(), d.loan.ID()).Return(ports.Assignment{LoanID: d.loan.ID(), Collector: ann.ID()}, true, nil)
	d.coll.EXPECT().Assign(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, a ports.Assignment) error {
		if !d.inTx || a.Collector != bob.ID() || a.By != lead.ID || a.LoanID != d.loan.ID() {
			t.Errorf("assigned %+v (in a transaction: %v)", a, d.inTx)
		}
		return nil
	})
	if err := d.uc.Assign.Handle(ctx, lead, d.loan.ID(), bob.ID()); err != nil {
		t.Fatal(err)
	}
	if len(d.auditLines) != 1 || d.auditLines[0].Action != "collections.assign" || d.auditLines[0].Detail != "to bob, from ann" {
		t.Fatalf("audit %+v", d.auditLines)
	}
}

func TestCollectionsContactIsLoggedOnThePartnersClock(t *testing.T) {
	t.Parallel()
	d := setupCollections(t)
	ahead := t0.AddDate(0, 2, 0)
	d.clock.EXPECT().Now(d.partner).Return(ahead).AnyTimes()
	d.clock.EXPECT().Now(uuid.Nil).Return(t0).AnyTimes()
	ctx := context.Background()
	who := console.Actor{ID: uuid.New(), Name: "ann", Role: domain.RoleOfficer}
	if err := d.uc.LogContact.Handle(ctx, who, console.LogContact{Loan: d.loan.ID(), Channel: "FAX", Outcome: "REACHED"}); !errors.Is(err, domain.ErrContactNote) {
		t.Fatalf("an unknown channel: %v", err)
	}
	d.coll.EXPECT().AddNote(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, n domain.ContactNote) error {
		if !d.inTx || !n.At.Equal(ahead) || n.By != who.ID || n.Outcome != domain.ContactPromised || n.Text != "pays Friday" {
			t.Errorf("note %+v (in a transaction: %v)", n, d.inTx)
		}
		return nil
	})
	err := d.uc.LogContact.Handle(ctx, who, console.LogContact{Loan: d.loan.ID(), Channel: "CALL", Outcome: "PROMISED", Note: "pays Friday"})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.auditLines) != 1 || d.auditLines[0].Action != "collections.contact" {
		t.Fatalf("audit %+v", d.auditLines)
	}
}

func TestPromiseToPayBrokenByTheClockFlagsTheLoan(t *testing.T) {
	t.Parallel()
	d := setupCollections(t)
	made := at(d.firstDue.AddDate(0, 0, 5), 11)
	now := made
	d.clock.EXPECT().Now(gomock.Any()).DoAndReturn(func(uuid.UUID) time.Time { return now }).AnyTimes()
	d.clock.EXPECT().Ahead().Return(nil).AnyTimes()
	ctx := context.Background()
	who := console.Actor{ID: uuid.New(), Name: "ann", Role: domain.RoleOfficer}
	var stored *domain.PromiseToPay
	d.coll.EXPECT().AddPromise(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, p *domain.PromiseToPay) error {
		stored = p
		return nil
	})
	if _, err := d.uc.PromiseToPay.Handle(ctx, who, console.MakePromiseToPay{Loan: d.loan.ID(), Amount: 100_000,
		Due: made.AddDate(0, 0, -1)}); !errors.Is(err, domain.ErrPromiseToPay) {
		t.Fatalf("a promise dated yesterday: %v", err)
	}
	p, err := d.uc.PromiseToPay.Handle(ctx, who, console.MakePromiseToPay{Loan: d.loan.ID(), Amount: 100_000, Due: made.AddDate(0, 0, 2)})
	if err != nil || p != stored || p.PartnerID() != d.partner || !p.MadeAt().Equal(made) {
		t.Fatalf("promise %+v, %v", p, err)
	}
	d.coll.EXPECT().OpenPromises(gomock.Any(), ports.Partners{}, gomock.Any()).DoAndReturn(
		func(context.Context, ports.Partners, int) ([]*domain.PromiseToPay, error) {
			if stored.Status() != domain.PromiseOpen {
				return nil, nil
			}
			return []*domain.PromiseToPay{stored}, nil
		}).AnyTimes()
	d.coll.EXPECT().PaidSince(gomock.Any(), d.loan.ID(), made).Return(int64(60_000), nil).AnyTimes()
	d.coll.EXPECT().UpdatePromise(gomock.Any(), stored.ID(), gomock.Any()).DoAndReturn(
		func(_ context.Context, _ uuid.UUID, fn func(*domain.PromiseToPay) error) error { return fn(stored) }).AnyTimes()

	// On its date, short of the amount, the promise stays open.
	now = at(made.AddDate(0, 0, 2), 19)
	if rep, err := d.passes.SettlePromises.Handle(ctx); err != nil || rep != (application.SettlePromisesReport{}) {
		t.Fatalf("on its date: %+v %v", rep, err)
	}
	// The next morning it is broken, and the loan comes back to the queue flagged, in one transaction.
	now = at(made.AddDate(0, 0, 3), 9)
	d.coll.EXPECT().Flag(gomock.Any(), d.loan.ID(), now).DoAndReturn(func(context.Context, uuid.UUID, time.Time) error {
		if !d.inTx {
			t.Error("flagged outside the promise's transaction")
		}
		return nil
	}).Times(1)
	if rep, err := d.passes.SettlePromises.Handle(ctx); err != nil || rep.Broken != 1 {
		t.Fatalf("the day after: %+v %v", rep, err)
	}
	if stored.Status() != domain.PromiseBroken || stored.Paid() != 60_000 {
		t.Fatalf("promise %+v", stored.State())
	}
	if rep, err := d.passes.SettlePromises.Handle(ctx); err != nil || rep.Broken != 0 {
		t.Fatalf("a broken promise was decided again: %+v %v", rep, err)
	}
}

func TestReminderGoesByDayOutsideTheTransactionOnceWithItsEvent(t *testing.T) {
	t.Parallel()
	d := setupCollections(t)
	day := d.firstDue.AddDate(0, 0, -3)
	now := at(day, 22)
	d.clock.EXPECT().Now(gomock.Any()).DoAndReturn(func(uuid.UUID) time.Time { return now }).AnyTimes()
	d.clock.EXPECT().Ahead().Return(nil).AnyTimes()
	ctx := context.Background()

	// At 22:00 in Tashkent nothing is even looked at.
	if rep, err := d.passes.SendReminders.Handle(ctx); err != nil || rep.Sent != 0 {
		t.Fatalf("at night: %+v %v", rep, err)
	}
	now = at(day, 10)
	d.coll.EXPECT().DueForReminder(gomock.Any(), ports.Partners{}, gomock.Any(), uuid.Nil, gomock.Any()).Return([]uuid.UUID{d.loan.ID()}, nil).Times(2)
	d.apps.EXPECT().Get(gomock.Any(), d.app.ID()).Return(d.app, nil).AnyTimes()
	claimed := map[string]bool{}
	d.coll.EXPECT().ClaimReminder(gomock.Any(), gomock.Any(), now.Add(-7*24*time.Hour), 3).DoAndReturn(
		func(_ context.Context, r ports.ReminderRecord, _ time.Time, _ int) (bool, error) {
			if !d.inTx {
				t.Error("claimed outside a transaction")
			}
			if claimed[r.Reminder.Key()] {
				return false, nil
			}
			claimed[r.Reminder.Key()] = true
			return true, nil
		}).Times(2)
	d.sms.EXPECT().Send(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, m ports.SMS) error {
		if d.inTx {
			t.Error("the SMS gateway was called inside a transaction")
		}
		if m.Phone != d.app.Phone() || m.Partner != d.partner || !strings.Contains(m.Text, "4711") {
			t.Errorf("sms %+v", m)
		}
		return nil
	}).Times(1)
	d.coll.EXPECT().SettleReminder(gomock.Any(), gomock.Any(), ports.ReminderSent, now).Return(nil).Times(1)
	d.events.EXPECT().Record(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, e domain.Event) error {
		r, ok := e.Data.(domain.ReminderEvent)
		if !d.inTx || !ok || e.PartnerID != d.partner || r.Kind != domain.ReminderBeforeDue || !r.Due.Equal(d.firstDue) || r.ContractNumber != "4711" {
			t.Errorf("event %+v (in a transaction: %v)", e, d.inTx)
		}
		return nil
	}).Times(1)
	if rep, err := d.passes.SendReminders.Handle(ctx); err != nil || rep.Sent != 1 {
		t.Fatalf("by day: %+v %v", rep, err)
	}
	// The next pass finds the same rule and instalment claimed: nothing goes twice.
	if rep, err := d.passes.SendReminders.Handle(ctx); err != nil || rep.Sent != 0 {
		t.Fatalf("again: %+v %v", rep, err)
	}
}

func TestReminderTheGatewayRefusedIsRecordedFailedWithoutAnEvent(t *testing.T) {
	t.Parallel()
	d := setupCollections(t)
	now := at(d.firstDue.AddDate(0, 0, 10), 12)
	d.onOneClock(now)
	d.coll.EXPECT().DueForReminder(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).Return([]uuid.UUID{d.loan.ID()}, nil)
	d.apps.EXPECT().Get(gomock.Any(), d.app.ID()).Return(d.app, nil)
	d.coll.EXPECT().ClaimReminder(gomock.Any(), gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(
		func(_ context.Context, r ports.ReminderRecord, _ time.Time, _ int) (bool, error) {
			if r.Reminder.Key() != "overdue:8-30:"+d.firstDue.Format(time.DateOnly) {
				t.Errorf("reminder %s, want the 8-30 bucket's", r.Reminder.Key())
			}
			return true, nil
		})
	d.sms.EXPECT().Send(gomock.Any(), gomock.Any()).Return(domain.ErrSMSNotSent)
	d.coll.EXPECT().SettleReminder(gomock.Any(), gomock.Any(), ports.ReminderFailed, now).Return(nil)
	if rep, err := d.passes.SendReminders.Handle(context.Background()); err != nil || rep.Failed != 1 || rep.Sent != 0 {
		t.Fatalf("%+v %v", rep, err)
	}
}

func TestCollectionsQueueCountsEachPartnerOnItsOwnClock(t *testing.T) {
	t.Parallel()
	d := setupCollections(t)
	ahead := uuid.New()
	d.clock.EXPECT().Ahead().Return([]uuid.UUID{ahead}).AnyTimes()
	d.clock.EXPECT().Now(ahead).Return(t0.AddDate(0, 3, 0)).AnyTimes()
	d.clock.EXPECT().Now(gomock.Any()).Return(t0).AnyTimes()
	me := console.Actor{ID: uuid.New(), Name: "ann", Role: domain.RoleOfficer}
	d.operators.EXPECT().List(gomock.Any()).Return([]*domain.Operator{officer(t, "ann", domain.RoleOfficer), officer(t, "vic", domain.RoleViewer)}, nil)
	d.coll.EXPECT().Queue(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, q ports.QueueQuery) ([]ports.QueueRow, error) {
		want := []ports.QueueScope{{Partners: ports.Partners{Except: []uuid.UUID{ahead}}, Today: domain.BusinessDate(t0)},
			{Partners: ports.Partners{Only: ahead}, Today: domain.BusinessDate(t0.AddDate(0, 3, 0))}}
		if len(q.Scopes) != 2 || q.Scopes[0].Today != want[0].Today || q.Scopes[1].Partners.Only != ahead || q.Scopes[1].Today != want[1].Today || q.MinDays != 8 || q.MaxDays != 30 || q.Collector != me.ID {
			t.Errorf("query %+v", q)
		}
		return nil, nil
	})
	p, err := d.uc.Queue.Handle(context.Background(), me, console.QueueFilter{Bucket: 1, Mine: true})
	if err != nil || len(p.Collectors) != 1 {
		t.Fatalf("%+v %v", p, err)
	}
	if _, err := d.uc.Queue.Handle(context.Background(), me, console.QueueFilter{Bucket: 9}); !errors.Is(err, ports.ErrBadList) {
		t.Fatalf("bucket 9: %v", err)
	}
}

func TestCollectionsBulkPreviewTriesEachLineOnItsLoan(t *testing.T) {
	t.Parallel()
	d := setupCollections(t)
	d.onOneClock(at(d.firstDue.AddDate(0, 0, 5), 11))
	repayments := mocks.NewMockRepaymentRepository(gomock.NewController(t))
	d.loans.EXPECT().GetByContract(gomock.Any(), "4711").Return(d.loan, nil).Times(1) // once for both of its lines
	d.loans.EXPECT().GetByContract(gomock.Any(), "9999").Return(nil, domain.ErrLoanNotFound)
	repayments.EXPECT().ReceiptUsed(gomock.Any(), domain.ChannelCashDesk, "KO-1").Return(false, nil)
	repayments.EXPECT().ReceiptUsed(gomock.Any(), domain.ChannelCashDesk, "KO-2").Return(true, nil)
	repayments.EXPECT().ReceiptUsed(gomock.Any(), domain.ChannelBankTransfer, "PP-1").Return(false, nil)
	h := &console.PreviewBulkRepaymentsHandler{Clock: d.clock, Loans: d.loans, Repayments: repayments}
	file := "contract,amount,channel,reference,type\n4711,100,CASH_DESK,KO-1,\n9999,100,CASH_DESK,KO-3,\n4711,100,CASH_DESK,KO-2,\n4711,999999999,BANK_TRANSFER,PP-1,EARLY\n"
	if _, err := h.Handle(context.Background(), console.Actor{Role: domain.RoleViewer}, []byte(file)); !errors.Is(err, domain.ErrForbidden) {
		t.Fatalf("a viewer's preview: %v", err)
	}
	lines, err := h.Handle(context.Background(), console.Actor{ID: uuid.New(), Role: domain.RoleOfficer}, []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"", "no loan has this contract number", "the reference paid another repayment already", "*"}
	for i, w := range want {
		got := lines[i].Refusal
		if w == "*" && got == "" || w != "*" && got != w {
			t.Errorf("line %d refused %q, want %q", lines[i].Line, got, w)
		}
	}
	if lines[0].LoanID != d.loan.ID() {
		t.Errorf("line 2's loan %s", lines[0].LoanID)
	}
}
