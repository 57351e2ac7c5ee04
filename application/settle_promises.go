package application

import (
	"context"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// SettlePromisesReport counts what a pass decided.
type SettlePromisesReport struct{ Kept, Broken int }

// SettlePromisesHandler decides the open promises to pay on their partners' clocks: a promise
// whose loan was paid its amount since it was made is kept; one whose date ended short of it
// is broken, and its loan comes back to the queue flagged. Each promise is decided in its own
// transaction.
type SettlePromisesHandler struct {
	Clock       ports.Clock
	UoW         ports.UnitOfWork
	Collections ports.CollectionsRepository
}

// promisesPerPass bounds the open promises one pass looks at per partner's time.
const promisesPerPass = 1000

// Handle runs one pass.
func (h *SettlePromisesHandler) Handle(ctx context.Context) (SettlePromisesReport, error) {
	var rep SettlePromisesReport
	for _, s := range timeScopes(h.Clock) {
		open, err := h.Collections.OpenPromises(ctx, s.partners, promisesPerPass)
		if err != nil {
			return rep, err
		}
		for _, p := range open {
			var status domain.PromiseStatus
			err := h.UoW.Do(ctx, func(ctx context.Context) error {
				paid, err := h.Collections.PaidSince(ctx, p.LoanID(), p.MadeAt())
				if err != nil {
					return err
				}
				err = h.Collections.UpdatePromise(ctx, p.ID(), func(p *domain.PromiseToPay) error {
					if p.Settle(paid, s.now) {
						status = p.Status()
					}
					return nil
				})
				if err != nil || status != domain.PromiseBroken {
					return err
				}
				return h.Collections.Flag(ctx, p.LoanID(), s.now)
			})
			if err != nil {
				return rep, err
			}
			switch status {
			case domain.PromiseKept:
				rep.Kept++
			case domain.PromiseBroken:
				rep.Broken++
			}
		}
	}
	return rep, nil
}
