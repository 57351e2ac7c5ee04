package application

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ReconcileDay compares one business day's movements on one network with the network's own
// statement (docs/reconciliation.md).
type ReconcileDay struct {
	Day     time.Time // a business date
	Network domain.Network
	// Once skips a day and network already reconciled (the daily job); a command or an
	// operator runs it again.
	Once bool
}

// ReconcileResult is a run's outcome: tiyin's and the network's line counts, the lines that
// matched, the breaks found (by kind), and how many of them no earlier run had recorded.
type ReconcileResult struct {
	Ours, Theirs, Matched int
	Breaks                map[domain.BreakKind]int
	New                   int
	// Found is every break of this run, as "KIND line-id".
	Found []string
	// Skipped: Once, and the day was reconciled already.
	Skipped bool
}

// ReconcileDayHandler runs a day's reconciliation: it reads tiyin's lines, asks the network
// for its statement (outside any transaction), matches them (domain.Reconcile) and records the
// run and its breaks in one transaction. Running a day again, or on two nodes at once, records
// each break once.
type ReconcileDayHandler struct {
	clock          ports.Clock
	uow            ports.UnitOfWork
	processing     ports.Processing
	reconciliation ports.ReconciliationRepository
	settlement     transferSettlement
}

// NewReconcileDayHandler returns the handler on the ports it uses.
func NewReconcileDayHandler(clock ports.Clock, uow ports.UnitOfWork, processing ports.Processing,
	reconciliation ports.ReconciliationRepository, transfers ports.TransferRepository, ledger ports.LedgerRepository) *ReconcileDayHandler {
	return &ReconcileDayHandler{clock: clock, uow: uow, processing: processing, reconciliation: reconciliation,
		settlement: transferSettlement{uow: uow, transfers: transfers, ledger: ledger, clock: clock}}
}

// Handle reconciles the day and network.
func (h *ReconcileDayHandler) Handle(ctx context.Context, cmd ReconcileDay) (ReconcileResult, error) {
	q := ports.StatementQuery{Network: cmd.Network, Day: domain.BusinessDate(cmd.Day)}
	if cmd.Once {
		if ran, err := h.reconciliation.Ran(ctx, q); err != nil || ran {
			return ReconcileResult{Skipped: ran}, err
		}
	}
	ours, err := h.reconciliation.Lines(ctx, q)
	if err != nil {
		return ReconcileResult{}, err
	}
	theirs, err := h.processing.Statement(ctx, q)
	if err != nil {
		return ReconcileResult{}, gatewayError(err)
	}
	matched, breaks := domain.Reconcile(ours, theirs)
	res := ReconcileResult{Ours: len(ours), Theirs: len(theirs), Matched: matched, Breaks: map[domain.BreakKind]int{}}
	for _, b := range breaks {
		res.Breaks[b.Kind]++
		res.Found = append(res.Found, string(b.Kind)+" "+b.LineID)
	}
	run := ports.ReconciliationRun{ID: newID(), Day: q.Day, Network: cmd.Network, At: h.clock.Now(uuid.Nil),
		Matched: matched, Breaks: len(breaks)}
	err = h.uow.Do(ctx, func(ctx context.Context) error {
		for i := range breaks {
			if err := h.settleUnknown(ctx, &breaks[i]); err != nil {
				return err
			}
		}
		res.New, err = h.reconciliation.Record(ctx, run, breaks)
		return err
	})
	return res, err
}

// OpenBreaks counts the breaks not yet worked, by age at now (the gauge's figures).
func (h *ReconcileDayHandler) OpenBreaks(ctx context.Context) (ports.BreakAges, error) {
	return h.reconciliation.OpenBreaks(ctx, h.clock.Now(uuid.Nil))
}

// settleUnknown settles, in the run's transaction, a transfer whose outcome tiyin did not know
// and the statement tells, as the reconciler would had the network answered: through the
// transfer's own settlement, exactly once (a transfer no longer PROCESSING is left as it is).
func (h *ReconcileDayHandler) settleUnknown(ctx context.Context, b *domain.Break) error {
	credited, ok := b.SettlesUnknown()
	if !ok {
		return nil
	}
	id, ok := domain.TransferOfLine(b.LineID)
	if !ok {
		return nil // not a line of tiyin's making: left for the operators
	}
	return h.settlement.settleIn(ctx, id, func(t *domain.Transfer) (bool, error) {
		if t.Status() != domain.TransferProcessing {
			return false, nil
		}
		b.Resolved = true
		reason := ""
		if !credited {
			reason = "not credited, as the network's statement shows"
		}
		return true, t.Settle(credited, reason, h.clock.Now(t.PartnerID()))
	})
}
