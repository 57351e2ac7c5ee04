package application_test

import (
	"context"
	"errors"
	"testing"

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
	h := application.NewReconcileDayHandler(d.clock, d.uow, d.cards, rec)
	day := domain.BusinessDate(t0)
	q := ports.StatementQuery{Network: domain.NetworkUzcard, Day: day}
	ok := domain.StatementLine{ID: "t1:CREDIT", Kind: domain.LineCredit, Amount: 100, At: t0, Status: domain.LineDone}
	lost := domain.StatementLine{ID: "t2:CREDIT", Kind: domain.LineCredit, Amount: 200, At: t0, Status: domain.LineDone}
	extra := domain.StatementLine{ID: "D-9", Kind: domain.LineDebit, Amount: 300, At: t0, Status: domain.LineDone}
	rec.EXPECT().Lines(gomock.Any(), q).Return([]domain.StatementLine{ok, lost}, nil)
	d.cards.EXPECT().Statement(gomock.Any(), q).Return([]domain.StatementLine{ok, extra}, nil)
	rec.EXPECT().Record(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(
		func(_ context.Context, run ports.ReconciliationRun, breaks []domain.Break) (int, error) {
			if !d.inTx {
				t.Error("breaks recorded outside a transaction")
			}
			if run.Day != day || run.Network != domain.NetworkUzcard || run.Matched != 1 || run.Breaks != 2 || len(breaks) != 2 {
				t.Errorf("run %+v with %d breaks", run, len(breaks))
			}
			return 2, nil
		})
	res, err := h.Handle(context.Background(), application.ReconcileDay{Day: t0, Network: domain.NetworkUzcard})
	if err != nil || res.Ours != 2 || res.Theirs != 2 || res.Matched != 1 || res.New != 2 ||
		res.Breaks[domain.BreakMissingAtNetwork] != 1 || res.Breaks[domain.BreakMissingInTiyin] != 1 {
		t.Fatalf("result %+v, %v", res, err)
	}
}

func TestAStatementTheNetworkCannotGiveRecordsNothing(t *testing.T) {
	t.Parallel()
	d := setup(t)
	rec := mocks.NewMockReconciliationRepository(gomock.NewController(t))
	h := application.NewReconcileDayHandler(d.clock, d.uow, d.cards, rec)
	rec.EXPECT().Lines(gomock.Any(), gomock.Any()).Return(nil, nil)
	d.cards.EXPECT().Statement(gomock.Any(), gomock.Any()).Return(nil, ports.ErrGatewayTransient)
	if _, err := h.Handle(context.Background(), application.ReconcileDay{Day: t0, Network: domain.NetworkHumo}); !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("a statement the network cannot give: %v, want ports.ErrUnavailable", err)
	}
}
