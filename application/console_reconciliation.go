package application

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ReconciliationPage is the console's reconciliation page: the breaks asked for, and the day
// closed last (the one the run form offers).
type ReconciliationPage struct {
	Breaks    []ports.BreakRecord
	Query     ports.BreakQuery
	ClosedDay time.Time
}

// ConsoleReconciliationHandler reads the reconciliation page.
type ConsoleReconciliationHandler struct {
	clock          ports.Clock
	reconciliation ports.ReconciliationRepository
}

// NewConsoleReconciliationHandler returns the handler on the ports it uses.
func NewConsoleReconciliationHandler(clock ports.Clock, reconciliation ports.ReconciliationRepository) *ConsoleReconciliationHandler {
	return &ConsoleReconciliationHandler{clock: clock, reconciliation: reconciliation}
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
	breaks, err := h.reconciliation.Breaks(ctx, q)
	return ReconciliationPage{Breaks: breaks, Query: q, ClosedDay: domain.BusinessDate(h.clock.Now(uuid.Nil)).AddDate(0, 0, -1)}, err
}
