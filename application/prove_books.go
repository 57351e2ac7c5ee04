package application

import (
	"context"
	"time"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

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
