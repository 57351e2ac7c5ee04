package application

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ReconcileDay compares one business day of one source with tiyin's records
// (docs/reconciliation.md): a network's statement with tiyin's movements on it, core banking's
// closing balances (domain.SourceCoreBanking) with the ledger's, or the books with themselves
// and with the general ledger's acknowledgements (domain.SourceBooks, the books' daily proof).
type ReconcileDay struct {
	Day    time.Time // a business date
	Source string    // a network's name, or domain.SourceCoreBanking
}

// ReconcileResult is a run's outcome: tiyin's and the other side's line counts (a balance is a
// line), the lines that matched, the breaks found (by kind), and how many of them no earlier
// run had recorded.
type ReconcileResult struct {
	Ours, Theirs, Matched int
	Breaks                map[domain.BreakKind]int
	New                   int
	// Found is every break of this run, as "KIND line-id".
	Found []string
	// NewBreaks are the breaks no earlier run had recorded, with both sides.
	NewBreaks []ports.BreakRecord
	// Standing counts the day's breaks of the source by status after the run (OPEN, RESOLVED,
	// EXPLAINED): a day found again by a run is worked when none is OPEN.
	Standing map[string]int
}

// ReconcileDayHandler runs a day's reconciliation: it reads tiyin's side, asks the other side
// (outside any transaction), matches them (domain.Reconcile, domain.ReconcileBalances) and
// records the run and its breaks in one transaction. Running a day again, or on two nodes at
// once, records each break once.
type ReconcileDayHandler struct {
	Clock          ports.Clock
	UoW            ports.UnitOfWork
	Processing     ports.Processing
	CoreBanking    ports.CoreBanking
	Reconciliation ports.ReconciliationRepository
	Books          ports.BooksRepository
	Settlement     TransferSettlement
}

// ReconciliationSources are what a day is reconciled against: each network, core banking, then
// the books' daily proof.
func ReconciliationSources() []string {
	var out []string
	for _, n := range domain.Networks() {
		out = append(out, n.String())
	}
	return append(out, domain.SourceCoreBanking, domain.SourceBooks)
}

// Handle reconciles the day with the source. Only a closed day is reconciled
// (domain.ErrDayNotClosed otherwise), and reconciling one again is safe: each break is kept
// once and an unknown outcome is settled once, so the daily job runs its day whatever ran it
// before.
func (h *ReconcileDayHandler) Handle(ctx context.Context, cmd ReconcileDay) (ReconcileResult, error) {
	day := domain.BusinessDate(cmd.Day)
	if now := LatestNow(h.Clock); !domain.DayClosed(day, now) {
		return ReconcileResult{}, fmt.Errorf("%w: %s is not over yet (it is %s in Tashkent)", domain.ErrDayNotClosed,
			day.Format(time.DateOnly), now.In(domain.Tashkent).Format("2006-01-02 15:04"))
	}
	res, breaks, err := h.compare(ctx, day, cmd.Source)
	if err != nil {
		return ReconcileResult{}, err
	}
	res.Breaks = map[domain.BreakKind]int{}
	for _, b := range breaks {
		res.Breaks[b.Kind]++
		res.Found = append(res.Found, string(b.Kind)+" "+b.LineID)
	}
	run := ports.ReconciliationRun{ID: NewID(), Day: day, Source: cmd.Source, At: h.Clock.Now(uuid.Nil),
		Matched: res.Matched, Breaks: len(breaks)}
	err = h.UoW.Do(ctx, func(ctx context.Context) error {
		for i := range breaks {
			if err := h.settleUnknown(ctx, &breaks[i]); err != nil {
				return err
			}
		}
		res.New, err = h.Reconciliation.Record(ctx, run, breaks)
		return err
	})
	if err != nil {
		return res, err
	}
	if res.New > 0 {
		if res.NewBreaks, err = h.Reconciliation.Breaks(ctx, ports.BreakQuery{RunID: run.ID, Limit: res.New}); err != nil {
			return res, err
		}
	}
	res.Standing, err = h.Reconciliation.Standing(ctx, day, cmd.Source)
	return res, err
}

// compare reads both sides of the day and matches them.
func (h *ReconcileDayHandler) compare(ctx context.Context, day time.Time, source string) (ReconcileResult, []domain.Break, error) {
	var res ReconcileResult
	if source == domain.SourceBooks {
		return h.proveBooks(ctx, day)
	}
	if source == domain.SourceCoreBanking {
		ours, err := h.Reconciliation.Balances(ctx, day)
		if err != nil {
			return res, nil, err
		}
		theirs, err := h.CoreBanking.Balances(ctx, day)
		if err != nil {
			return res, nil, gatewayError(err)
		}
		_, end := domain.BusinessDay(day)
		res.Ours, res.Theirs = len(ours), len(theirs)
		var breaks []domain.Break
		res.Matched, breaks = domain.ReconcileBalances(ours, theirs, end)
		return res, breaks, nil
	}
	network, err := domain.ParseNetwork(source)
	if err != nil {
		return res, nil, fmt.Errorf("%w: reconcile UZCARD, HUMO, %s or %s, not %q", ErrBadSource, domain.SourceCoreBanking,
			domain.SourceBooks, source)
	}
	q := ports.StatementQuery{Network: network, Day: day}
	ours, err := h.Reconciliation.Lines(ctx, q)
	if err != nil {
		return res, nil, err
	}
	theirs, err := h.Processing.Statement(ctx, q)
	if err != nil {
		return res, nil, gatewayError(err)
	}
	res.Ours, res.Theirs = len(ours), len(theirs)
	var breaks []domain.Break
	res.Matched, breaks = domain.Reconcile(ours, theirs)
	return res, breaks, nil
}

// ErrBadSource means a reconciliation was asked of a source tiyin does not know.
var ErrBadSource = errors.New("unknown reconciliation source")

// OpenBreaks counts the breaks not yet worked, by age at now (the gauge's figures).
func (h *ReconcileDayHandler) OpenBreaks(ctx context.Context) (ports.BreakAges, error) {
	return h.Reconciliation.OpenBreaks(ctx, h.Clock.Now(uuid.Nil))
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
	return h.Settlement.SettleIn(ctx, id, func(t *domain.Transfer) (bool, error) {
		if t.Status() != domain.TransferProcessing {
			return false, nil
		}
		b.Resolved = true
		reason := ""
		if !credited {
			reason = "not credited, as the network's statement shows"
		}
		return true, t.Settle(credited, reason, h.Clock.Now(t.PartnerID()))
	})
}

// proveBooks is the books' daily proof of day (docs/accounting.md, "The daily proof"), a
// reconciliation source of its own (domain.SourceBooks): the day's reconciliation runs it like
// the others, and so does each close for the days it posted. It proves
//
//   - that the sum over loans of each per-loan account kind at the day's end equals the kind's
//     control account, the trial balance's closing balance of the kind (ports.BooksRepository's
//     Subledger reads both at one moment);
//   - that core banking acknowledged each post of the day to its general ledger with the debits
//     and the credits tiyin posted. A post not acknowledged yet is not compared: the next close
//     sends it again and proves its day then.
//
// Its lines are the per-loan kinds and the acknowledged posts; each difference is a break
// (SUBLEDGER_DIFFERS, GL_ACK_DIFFERS) with both figures. It reads only: nothing is adjusted.
func (h *ReconcileDayHandler) proveBooks(ctx context.Context, day time.Time) (ReconcileResult, []domain.Break, error) {
	var res ReconcileResult
	balances, err := h.Books.Subledger(ctx, day)
	if err != nil {
		return res, nil, err
	}
	posts, err := h.Books.GLPosts(ctx, day)
	if err != nil {
		return res, nil, err
	}
	_, end := domain.BusinessDay(day)
	matched, breaks := domain.ProveSubledger(balances, end)
	lines := matched + len(breaks)
	var proofs []domain.GLPostProof
	for _, p := range posts {
		if p.Acknowledged == nil {
			continue
		}
		proofs = append(proofs, domain.GLPostProof{Key: ports.GLKey(p.Journal.Day, p.Journal.Sequence), Posted: p.Journal.Totals(),
			Acknowledged: *p.Acknowledged})
	}
	posted, acks := domain.ProveGLAcknowledgements(proofs, end)
	res.Ours, res.Theirs, res.Matched = lines+len(proofs), lines+len(proofs), matched+posted
	return res, append(breaks, acks...), nil
}
