package console

import (
	"context"
	"fmt"
	"time"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// RunReconciliationHandler is an officer's "reconcile now" in the console: a day with each
// source, as `tiyin reconcile` runs it, audited.
type RunReconciliationHandler struct {
	reconcile *application.ReconcileDayHandler
	uow       ports.UnitOfWork
	audit     audit
}

// NewRunReconciliationHandler returns the handler on the day's reconciliation and the audit log.
func NewRunReconciliationHandler(clock ports.Clock, uow ports.UnitOfWork, reconcile *application.ReconcileDayHandler,
	log ports.AuditLog) *RunReconciliationHandler {
	return &RunReconciliationHandler{reconcile: reconcile, uow: uow, audit: audit{clock: clock, log: log}}
}

// Handle reconciles day with each source (UZCARD, HUMO, core banking's balances) and returns
// each one's result.
func (h *RunReconciliationHandler) Handle(ctx context.Context, who Actor, day time.Time) (map[string]application.ReconcileResult, error) {
	if err := who.may(domain.RoleOfficer); err != nil {
		return nil, err
	}
	out := map[string]application.ReconcileResult{}
	detail := ""
	for _, n := range application.ReconciliationSources() {
		r, err := h.reconcile.Handle(ctx, application.ReconcileDay{Day: day, Source: n})
		if err != nil {
			return out, err
		}
		out[n] = r
		detail += fmt.Sprintf("%s: %d matched, %d breaks (%d new); ", n, r.Matched, len(r.Found), r.New)
	}
	err := h.uow.Do(ctx, func(ctx context.Context) error {
		return h.audit.record(ctx, who, "reconcile.run", "day:"+domain.BusinessDate(day).Format(time.DateOnly), detail)
	})
	return out, err
}
