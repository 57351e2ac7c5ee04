package console

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// BreaksPerPage is how many breaks the reconciliation page shows at once; CountedBreaks is how
// far its count goes (beyond, it says "more than"), so the count costs the same however many
// breaks a filter selects.
const (
	BreaksPerPage = 100
	CountedBreaks = 10_000
)

// ReconciliationPage is the console's reconciliation page: a page of the breaks asked for, how
// many there are in all, the cursors of the pages around it, and the day closed last (the one
// the run form offers, and the last it accepts).
type ReconciliationPage struct {
	Breaks []ports.BreakRecord
	Query  ports.BreakQuery
	// Total counts the breaks the filter selects, on every page, up to CountedBreaks; More says
	// there are more than that.
	Total int
	More  bool
	// PerPage is BreaksPerPage.
	PerPage int
	// Next and Prev are where the next (older) and the previous (newer) pages start; nil where
	// there is none.
	Next, Prev *ports.BreakCursor
	ClosedDay  time.Time
	// Proposed are the open proposals covering a break (accept, explain or reopen), by break.
	Proposed map[uuid.UUID]*domain.Proposal
	// Makers are the names of the proposals' makers, by operator.
	Makers map[uuid.UUID]string
	// Objects are the transfer, repayment request or loan each break's line is of, by break.
	Objects map[uuid.UUID]ports.LineObject
}

// ReconciliationHandler reads the reconciliation page and exports its list.
type ReconciliationHandler struct {
	Clock          ports.Clock
	UoW            ports.UnitOfWork
	Reconciliation ports.ReconciliationRepository
	Proposals      ports.ProposalRepository
	Operators      ports.OperatorRepository
	Audit          Audit
}

// Handle lists a page of the breaks of q (OPEN when q names no status; any with status "ALL"),
// BreaksPerPage at most, newest found first from q's cursor, with how many q selects in all.
func (h *ReconciliationHandler) Handle(ctx context.Context, who Actor, q ports.BreakQuery) (ReconciliationPage, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return ReconciliationPage{}, err
	}
	q = breakFilter(q)
	now := h.Clock.Now(uuid.Nil)
	page := ReconciliationPage{Query: q, ClosedDay: domain.BusinessDate(application.LatestNow(h.Clock)).AddDate(0, 0, -1),
		Proposed: map[uuid.UUID]*domain.Proposal{}, Makers: map[uuid.UUID]string{}, PerPage: BreaksPerPage}
	q.Limit, q.Oldest = BreaksPerPage+1, false
	rows, err := h.Reconciliation.Breaks(ctx, q)
	if err != nil {
		return page, err
	}
	more := len(rows) > BreaksPerPage
	switch {
	case q.Cursor != nil && q.Backward:
		if more {
			rows = rows[1:]
		}
		if len(rows) > 0 {
			page.Next = &ports.BreakCursor{FoundAt: rows[len(rows)-1].FoundAt, ID: rows[len(rows)-1].ID}
			if more {
				page.Prev = &ports.BreakCursor{FoundAt: rows[0].FoundAt, ID: rows[0].ID}
			}
		}
	default:
		if more {
			rows = rows[:BreaksPerPage]
			page.Next = &ports.BreakCursor{FoundAt: rows[len(rows)-1].FoundAt, ID: rows[len(rows)-1].ID}
		}
		if q.Cursor != nil && len(rows) > 0 {
			page.Prev = &ports.BreakCursor{FoundAt: rows[0].FoundAt, ID: rows[0].ID}
		}
	}
	page.Breaks = rows
	count := q
	count.Cursor, count.Backward, count.Limit = nil, false, CountedBreaks+1
	if page.Total, err = h.Reconciliation.CountBreaks(ctx, count); err != nil {
		return page, err
	}
	if page.Total > CountedBreaks {
		page.Total, page.More = CountedBreaks, true
	}
	if page.Objects, err = h.Reconciliation.Trace(ctx, page.Breaks); err != nil {
		return page, err
	}
	// The open proposals of every object, one read (the dashboard's), kept for the breaks.
	open, err := h.Proposals.List(ctx, uuid.Nil, pageRows)
	if err != nil {
		return page, err
	}
	for _, p := range asOf(open, now) {
		if p.Kind.IsBreakWork() && p.Status == domain.ProposalOpen {
			for _, id := range p.Covers() {
				page.Proposed[id] = p
			}
		}
	}
	if len(page.Proposed) > 0 {
		page.Makers, err = everyOperatorName(ctx, h.Operators)
	}
	return page, err
}

// Export hands every break q selects (no page: from the newest, at most MaxExportRows) to
// emit, newest found first. The export is audited first: the list leaves the bank's systems.
func (h *ReconciliationHandler) Export(ctx context.Context, who Actor, q ports.BreakQuery, emit func(ports.BreakRecord) error) error {
	if err := who.may(domain.RoleViewer); err != nil {
		return err
	}
	q = breakFilter(q)
	q.Cursor, q.Backward, q.Oldest = nil, false, false
	err := h.UoW.Do(ctx, func(ctx context.Context) error {
		return h.Audit.record(ctx, who, "list.export", "list:breaks", describeBreakQuery(q))
	})
	if err != nil {
		return err
	}
	for sent := 0; sent < MaxExportRows; {
		q.Limit = min(exportBatch, MaxExportRows-sent)
		rows, err := h.Reconciliation.Breaks(ctx, q)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if err := emit(r); err != nil {
				return err
			}
		}
		sent += len(rows)
		if len(rows) < q.Limit {
			return nil
		}
		last := rows[len(rows)-1]
		q.Cursor = &ports.BreakCursor{FoundAt: last.FoundAt, ID: last.ID}
	}
	return nil
}

// breakFilter is q as the page reads it: OPEN when it names no status, any status for "ALL".
func breakFilter(q ports.BreakQuery) ports.BreakQuery {
	switch q.Status {
	case "":
		q.Status = ports.BreakOpen
	case "ALL":
		q.Status = ""
	}
	return q
}

// describeBreakQuery is the audit's account of the filter an export of breaks used.
func describeBreakQuery(q ports.BreakQuery) string {
	s := fmt.Sprintf("status=%q source=%q kind=%q", q.Status, q.Source, q.Kind)
	if !q.Day.IsZero() {
		s += " day=" + q.Day.Format(time.DateOnly)
	}
	return s
}
