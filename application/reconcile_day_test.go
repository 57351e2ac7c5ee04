package application_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"go.uber.org/mock/gomock"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
	"github.com/tiyin/tiyin/ports/mocks"
)

func TestReconcilingADayRecordsItsBreaksInOneTransaction(t *testing.T) {
	t.Parallel()
	d := setup(t)
	rec := mocks.NewMockReconciliationRepository(gomock.NewController(t))
	h := &application.ReconcileDayHandler{Clock: d.clock, UoW: d.uow, Processing: d.cards, CoreBanking: d.core, Reconciliation: rec, Books: nil, Settlement: application.TransferSettlement{UoW: d.uow, Transfers: d.transfers, Ledger: d.ledger, Clock: d.clock}}
	day := domain.BusinessDate(t0).AddDate(0, 0, -1)
	q := ports.StatementQuery{Network: domain.NetworkUzcard, Day: day}
	ok := domain.StatementLine{ID: "t1:CREDIT", Kind: domain.LineCredit, Amount: 100, At: t0, Status: domain.LineDone}
	lost := domain.StatementLine{ID: "t2:CREDIT", Kind: domain.LineCredit, Amount: 200, At: t0, Status: domain.LineDone}
	extra := domain.StatementLine{ID: "D-9", Kind: domain.LineDebit, Amount: 300, At: t0, Status: domain.LineDone}
	rec.EXPECT().Lines(gomock.Any(), q).Return([]domain.StatementLine{ok, lost}, nil)
	d.cards.EXPECT().Statement(gomock.Any(), q).Return([]domain.StatementLine{ok, extra}, nil)
	var recorded uuid.UUID
	rec.EXPECT().Record(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(
		func(_ context.Context, run ports.ReconciliationRun, breaks []domain.Break) (int, error) {
			if !d.inTx {
				t.Error("breaks recorded outside a transaction")
			}
			if run.Day != day || run.Source != "UZCARD" || run.Matched != 1 || run.Breaks != 2 || len(breaks) != 2 {
				t.Errorf("run %+v with %d breaks", run, len(breaks))
			}
			recorded = run.ID
			return 2, nil
		})
	newly := []ports.BreakRecord{{ID: uuid.New(), Day: day, Source: "UZCARD", Status: ports.BreakOpen}, {ID: uuid.New(), Day: day, Source: "UZCARD", Status: ports.BreakOpen}}
	rec.EXPECT().Breaks(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, q ports.BreakQuery) ([]ports.BreakRecord, error) {
		if q.RunID != recorded || q.Limit != 2 {
			t.Errorf("the new breaks asked as %+v", q)
		}
		return newly, nil
	})
	rec.EXPECT().Standing(gomock.Any(), day, "UZCARD").Return(map[string]int{ports.BreakOpen: 2, ports.BreakResolved: 1}, nil)
	res, err := h.Handle(context.Background(), application.ReconcileDay{Day: day, Source: "UZCARD"})
	if err != nil || res.Ours != 2 || res.Theirs != 2 || res.Matched != 1 || res.New != 2 ||
		res.Breaks[domain.BreakMissingAtNetwork] != 1 || res.Breaks[domain.BreakMissingInTiyin] != 1 ||
		len(res.NewBreaks) != 2 || res.Standing[ports.BreakOpen] != 2 || res.Standing[ports.BreakResolved] != 1 {
		t.Fatalf("result %+v, %v", res, err)
	}
}

func TestAStatementTheNetworkCannotGiveRecordsNothing(t *testing.T) {
	t.Parallel()
	d := setup(t)
	rec := mocks.NewMockReconciliationRepository(gomock.NewController(t))
	h := &application.ReconcileDayHandler{Clock: d.clock, UoW: d.uow, Processing: d.cards, CoreBanking: d.core, Reconciliation: rec, Books: nil, Settlement: application.TransferSettlement{UoW: d.uow, Transfers: d.transfers, Ledger: d.ledger, Clock: d.clock}}
	rec.EXPECT().Lines(gomock.Any(), gomock.Any()).Return(nil, nil)
	d.cards.EXPECT().Statement(gomock.Any(), gomock.Any()).Return(nil, ports.ErrGatewayTransient)
	if _, err := h.Handle(context.Background(), application.ReconcileDay{Day: t0.AddDate(0, 0, -1), Source: "HUMO"}); !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("a statement the network cannot give: %v, want ports.ErrUnavailable", err)
	}
}

// A credit tiyin does not know the outcome of, which the network's statement shows done, is
// settled by the run through the transfer's own settlement (the hold captured), once: a second
// run finds the transfer settled and settles nothing.
func TestAStatementSettlesAnUnknownCreditOnce(t *testing.T) {
	t.Parallel()
	c := setup(t)
	xfers := fakeTransfers(c)
	tr := processingTransfer(t, c.partner)
	xfers[tr.ID()] = tr
	rec := mocks.NewMockReconciliationRepository(gomock.NewController(t))
	h := &application.ReconcileDayHandler{Clock: c.clock, UoW: c.uow, Processing: c.cards, CoreBanking: c.core, Reconciliation: rec, Books: nil, Settlement: application.TransferSettlement{UoW: c.uow, Transfers: c.transfers, Ledger: c.ledger, Clock: c.clock}}
	id := tr.ID().String() + ":CREDIT"
	ours := domain.StatementLine{ID: id, Kind: domain.LineCredit, Amount: 250_000, At: t0, Status: domain.LineUnknown}
	theirs := ours
	theirs.Status = domain.LineDone
	rec.EXPECT().Lines(gomock.Any(), gomock.Any()).Return([]domain.StatementLine{ours}, nil).Times(2)
	c.cards.EXPECT().Statement(gomock.Any(), gomock.Any()).Return([]domain.StatementLine{theirs}, nil).Times(2)
	var resolved []bool
	rec.EXPECT().Record(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(
		func(_ context.Context, _ ports.ReconciliationRun, breaks []domain.Break) (int, error) {
			for _, b := range breaks {
				resolved = append(resolved, b.Resolved)
			}
			return len(breaks), nil
		}).Times(2)
	rec.EXPECT().Breaks(gomock.Any(), gomock.Any()).Return(nil, nil).Times(2)
	rec.EXPECT().Standing(gomock.Any(), gomock.Any(), "UZCARD").Return(map[string]int{ports.BreakResolved: 1}, nil).Times(2)
	var posted []domain.PostingKind
	c.ledger.EXPECT().Post(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, p domain.Posting) error {
		if !c.inTx {
			t.Error("the capture was posted outside the run's transaction")
		}
		posted = append(posted, p.Kind)
		return nil
	}).Times(1)
	for range 2 {
		if _, err := h.Handle(context.Background(), application.ReconcileDay{Day: t0.AddDate(0, 0, -1), Source: "UZCARD"}); err != nil {
			t.Fatal(err)
		}
	}
	if got := xfers[tr.ID()].Status(); got != domain.TransferSuccess || len(posted) != 1 || posted[0] != domain.PostingTransferCapture {
		t.Fatalf("the transfer is %s, posted %v", got, posted)
	}
	if len(resolved) != 2 || !resolved[0] || resolved[1] {
		t.Fatalf("the runs' breaks resolved %v, want the first only", resolved)
	}
}

// Only a closed business day is reconciled (issue 47, 7): today and any day after it are
// refused before anything is read or asked of a network, since a run of a day still going on
// would leave its later movements unreconciled. In the sandbox a partner whose clock is ahead
// has closed its own today.
func TestOnlyAClosedDayIsReconciled(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		day    time.Time
		ahead  time.Duration
		closed bool
	}{
		{"today is refused", t0, 0, false},
		{"today's last instant is refused", domain.BusinessDate(t0).Add(23*time.Hour + 59*time.Minute), 0, false},
		{"tomorrow is refused", t0.AddDate(0, 0, 1), 0, false},
		{"yesterday is reconciled", t0.AddDate(0, 0, -1), 0, true},
		{"a sandbox partner a day ahead closed today", t0, 24 * time.Hour, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := setup(t)
			ctrl := gomock.NewController(t)
			clock := mocks.NewMockClock(ctrl)
			partner := uuid.New()
			clock.EXPECT().Now(gomock.Any()).DoAndReturn(func(p uuid.UUID) time.Time {
				if p == partner {
					return t0.Add(tc.ahead)
				}
				return t0
			}).AnyTimes()
			clock.EXPECT().Ahead().DoAndReturn(func() []uuid.UUID {
				if tc.ahead > 0 {
					return []uuid.UUID{partner}
				}
				return nil
			}).AnyTimes()
			rec := mocks.NewMockReconciliationRepository(ctrl)
			h := &application.ReconcileDayHandler{Clock: clock, UoW: d.uow, Processing: d.cards, CoreBanking: d.core, Reconciliation: rec, Books: nil, Settlement: application.TransferSettlement{UoW: d.uow, Transfers: d.transfers, Ledger: d.ledger, Clock: clock}}
			if tc.closed {
				rec.EXPECT().Lines(gomock.Any(), gomock.Any()).Return(nil, nil)
				d.cards.EXPECT().Statement(gomock.Any(), gomock.Any()).Return(nil, nil)
				rec.EXPECT().Record(gomock.Any(), gomock.Any(), gomock.Any()).Return(0, nil)
				rec.EXPECT().Standing(gomock.Any(), gomock.Any(), "UZCARD").Return(map[string]int{}, nil)
			}
			_, err := h.Handle(context.Background(), application.ReconcileDay{Day: tc.day, Source: "UZCARD"})
			if tc.closed && err != nil || !tc.closed && !errors.Is(err, domain.ErrDayNotClosed) {
				t.Fatalf("reconciling %s at %s: %v", tc.day.Format(time.DateOnly), t0, err)
			}
		})
	}
}

// fakeTransfers keeps the transfers the mock reads and changes in the map it returns.
func fakeTransfers(d *deps) map[uuid.UUID]*domain.Transfer {
	xfers := map[uuid.UUID]*domain.Transfer{}
	d.transfers.EXPECT().Get(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, id uuid.UUID) (*domain.Transfer, error) {
		if tr, ok := xfers[id]; ok {
			return domain.RestoreTransfer(tr.State()), nil
		}
		return nil, domain.ErrTransferNotFound
	}).AnyTimes()
	d.transfers.EXPECT().Update(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, id uuid.UUID, fn func(*domain.Transfer) error) error {
		cp := domain.RestoreTransfer(xfers[id].State())
		if err := fn(cp); err != nil {
			return err
		}
		xfers[id] = cp
		return nil
	}).AnyTimes()
	return xfers
}

// processingTransfer is a transfer of partner whose card credit's outcome is unknown.
func processingTransfer(t *testing.T, partner uuid.UUID) *domain.Transfer {
	t.Helper()
	tr := domain.NewTransfer(domain.NewTransferParams{ID: uuid.New(), PartnerID: partner, ApplicationID: uuid.New(), LoanID: uuid.New(),
		ExternalID: uuid.New(), MaskedPAN: "860012******9012", Network: domain.NetworkUzcard, CardHolder: "AZIZ KARIMOV",
		Amount: 250_000, CreditToken: "CT", Now: t0})
	if err := tr.StartProcessing(t0); err != nil {
		t.Fatal(err)
	}
	return tr
}
