package application

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ReconciliationPage is the console's reconciliation page: the breaks asked for, and the day
// closed last (the one the run form offers, and the last it accepts).
type ReconciliationPage struct {
	Breaks    []ports.BreakRecord
	Query     ports.BreakQuery
	ClosedDay time.Time
	// Proposed are the open proposals to accept a break's other side, by break.
	Proposed map[uuid.UUID]*domain.Proposal
	// Objects are the transfer, repayment request or loan each break's line is of, by break.
	Objects map[uuid.UUID]ports.LineObject
}

// ConsoleReconciliationHandler reads the reconciliation page.
type ConsoleReconciliationHandler struct {
	clock          ports.Clock
	reconciliation ports.ReconciliationRepository
	proposals      ports.ProposalRepository
}

// NewConsoleReconciliationHandler returns the handler on the ports it uses.
func NewConsoleReconciliationHandler(clock ports.Clock, reconciliation ports.ReconciliationRepository,
	proposals ports.ProposalRepository) *ConsoleReconciliationHandler {
	return &ConsoleReconciliationHandler{clock: clock, reconciliation: reconciliation, proposals: proposals}
}

// Handle lists the breaks of q (OPEN when q names no status), 200 at most.
func (h *ConsoleReconciliationHandler) Handle(ctx context.Context, who Actor, q ports.BreakQuery) (ReconciliationPage, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return ReconciliationPage{}, err
	}
	if q.Status == "" {
		q.Status = "OPEN"
	}
	q.Limit = 200
	now := h.clock.Now(uuid.Nil)
	page := ReconciliationPage{Query: q, ClosedDay: domain.BusinessDate(latestNow(h.clock)).AddDate(0, 0, -1), Proposed: map[uuid.UUID]*domain.Proposal{}}
	var err error
	if page.Breaks, err = h.reconciliation.Breaks(ctx, q); err != nil {
		return page, err
	}
	if page.Objects, err = h.reconciliation.Trace(ctx, page.Breaks); err != nil {
		return page, err
	}
	// The open proposals of every object, one read (the dashboard's), kept for the breaks.
	open, err := h.proposals.List(ctx, uuid.Nil, pageRows)
	for _, p := range asOf(open, now) {
		if p.Kind == domain.AcceptBreak && p.Status == domain.ProposalOpen {
			page.Proposed[p.ObjectID] = p
		}
	}
	return page, err
}
