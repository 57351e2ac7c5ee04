package console_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/mock/gomock"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports/mocks"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, domain.Tashkent)

// deps is the bundle of mocks behind the aggregates the console reads and changes.
// Applications live in a map that the repository mock reads and writes, so tests can look at
// what a use case stored.
type deps struct {
	cfg       application.Config
	clock     *mocks.MockClock
	uow       *mocks.MockUnitOfWork
	apps      *mocks.MockApplicationRepository
	loans     *mocks.MockLoanRepository
	partners  *mocks.MockPartnerRepository
	ledger    *mocks.MockLedgerRepository
	transfers *mocks.MockTransferRepository
	payments  *mocks.MockRepaymentRepository
	stored    map[uuid.UUID]*domain.Application
	// inTx is true while a unit of work's function runs.
	inTx bool
	// committed counts the transactions committed, rollbacks those rolled back.
	committed int
	rollbacks int
	partner   uuid.UUID
}

func setup(t *testing.T) *deps {
	t.Helper()
	ctrl := gomock.NewController(t)
	d := &deps{
		clock: mocks.NewMockClock(ctrl), uow: mocks.NewMockUnitOfWork(ctrl),
		apps: mocks.NewMockApplicationRepository(ctrl), loans: mocks.NewMockLoanRepository(ctrl),
		partners: mocks.NewMockPartnerRepository(ctrl), ledger: mocks.NewMockLedgerRepository(ctrl),
		transfers: mocks.NewMockTransferRepository(ctrl), payments: mocks.NewMockRepaymentRepository(ctrl),
		stored: map[uuid.UUID]*domain.Application{}, partner: uuid.New(),
	}
	d.clock.EXPECT().Now(gomock.Any()).Return(t0).AnyTimes()
	d.clock.EXPECT().Ahead().Return(nil).AnyTimes()
	d.uow.EXPECT().Do(gomock.Any(), gomock.Any()).DoAndReturn(func(ctx context.Context, fn func(context.Context) error) error {
		d.inTx = true
		err := fn(ctx)
		d.inTx = false
		if err != nil {
			d.rollbacks++
			return err
		}
		d.committed++
		return nil
	}).AnyTimes()
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
