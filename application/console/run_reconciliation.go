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
	Reconcile *application.ReconcileDayHandler
	UoW       ports.UnitOfWork
	Audit     Audit
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
		r, err := h.Reconcile.Handle(ctx, application.ReconcileDay{Day: day, Source: n})
		if err != nil {
			return out, err
		}
		out[n] = r
		detail += fmt.Sprintf("%s: %d matched, %d breaks (%d new); ", n, r.Matched, len(r.Found), r.New)
	}
	err := h.UoW.Do(ctx, func(ctx context.Context) error {
		return h.Audit.record(ctx, who, "reconcile.run", "day:"+domain.BusinessDate(day).Format(time.DateOnly), detail)
	})
	return out, err
}
