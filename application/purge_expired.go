package application

import (
	"context"
	"time"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// PurgeExpired drops what has outlived its keeping: idempotency records older than
// IdempotencyTTL (0: kept), settled events older than the events list's window, and attach's
// code counts of days before yesterday.
type PurgeExpired struct {
	IdempotencyTTL time.Duration
}

// PurgeReport counts what a purge deleted.
type PurgeReport struct {
	Requests, Events, CodeCounts int64
}

// PurgeExpiredHandler deletes, in one unit of work, the records the retention rules let go.
type PurgeExpiredHandler struct {
	UoW         ports.UnitOfWork
	Idempotency ports.IdempotencyStore
	Events      ports.EventOutbox
	CodeCounts  ports.CodeCounter
}

// Handle purges, at the system's time (retention is not a partner's sandbox clock's). A code
// count is kept through yesterday: a partner's sandbox clock is never behind the system's, so
// no partner's day is older.
func (h *PurgeExpiredHandler) Handle(ctx context.Context, cmd PurgeExpired) (PurgeReport, error) {
	var rep PurgeReport
	now := time.Now()
	err := h.UoW.Do(ctx, func(ctx context.Context) (err error) {
		if cmd.IdempotencyTTL > 0 {
			if rep.Requests, err = h.Idempotency.Purge(ctx, now.Add(-cmd.IdempotencyTTL)); err != nil {
				return err
			}
		}
		if rep.Events, err = h.Events.Purge(ctx, now.Add(-EventListWindow)); err != nil {
			return err
		}
		yesterday, _ := domain.CodeCapDay(now.AddDate(0, 0, -1))
		rep.CodeCounts, err = h.CodeCounts.Purge(ctx, yesterday)
		return err
	})
	if err != nil {
		return PurgeReport{}, err
	}
	return rep, nil
}
