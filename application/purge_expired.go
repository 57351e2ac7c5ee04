package application

import (
	"context"
	"time"

	"github.com/tiyin/tiyin/ports"
)

// PurgeExpired drops what has outlived its keeping: idempotency records older than
// IdempotencyTTL (0: kept) and settled events older than the events list's window.
type PurgeExpired struct {
	IdempotencyTTL time.Duration
}

// PurgeReport counts what a purge deleted.
type PurgeReport struct {
	Requests, Events int64
}

// PurgeExpiredHandler deletes, in one unit of work, the records the retention rules let go.
type PurgeExpiredHandler struct {
	uow         ports.UnitOfWork
	idempotency ports.IdempotencyStore
	events      ports.EventOutbox
}

// NewPurgeExpiredHandler returns the handler on the ports it uses.
func NewPurgeExpiredHandler(uow ports.UnitOfWork, idempotency ports.IdempotencyStore, events ports.EventOutbox) *PurgeExpiredHandler {
	return &PurgeExpiredHandler{uow: uow, idempotency: idempotency, events: events}
}

// Handle purges, at the system's time (retention is not a partner's sandbox clock's).
func (h *PurgeExpiredHandler) Handle(ctx context.Context, cmd PurgeExpired) (PurgeReport, error) {
	var rep PurgeReport
	now := time.Now()
	err := h.uow.Do(ctx, func(ctx context.Context) (err error) {
		if cmd.IdempotencyTTL > 0 {
			if rep.Requests, err = h.idempotency.Purge(ctx, now.Add(-cmd.IdempotencyTTL)); err != nil {
				return err
			}
		}
		rep.Events, err = h.events.Purge(ctx, now.Add(-EventListWindow))
		return err
	})
	if err != nil {
		return PurgeReport{}, err
	}
	return rep, nil
}
