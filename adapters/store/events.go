package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// eventSource is an aggregate that records events as it changes.
type eventSource interface {
	TakeEvents() []domain.Event
}

// insertEvent records an event for a partner that has a webhook; nothing for one without.
const insertEvent = `INSERT INTO events (id, partner_id, type, body, created_at, attempts, next_attempt_at, last_error)
SELECT ?, ?, ?, ?, ?, 0, ?, '' WHERE EXISTS (SELECT 1 FROM partners WHERE id = ? AND webhook_url <> '')`

// insertEvents stores events in ctx's transaction, for partners that have a webhook: one
// statement per event, which is also the check that the partner wants it.
func insertEvents(ctx context.Context, db *DB, evs []domain.Event) error {
	for _, e := range evs {
		if db.EventBody == nil {
			return fmt.Errorf("event %s recorded on a database opened without an event renderer", e.Type())
		}
		body, err := db.EventBody(e)
		if err != nil {
			return err
		}
		at := e.At.UTC()
		err = db.write(ctx, true, func(g *gorm.DB) *gorm.DB {
			return g.Exec(insertEvent, e.ID, e.PartnerID, e.Type().String(), string(body), at, at, e.PartnerID)
		}, check(nil))
		if err != nil {
			return err
		}
	}
	return nil
}

// takeEvents returns what agg recorded, if it records events.
func takeEvents(agg any) []domain.Event {
	if src, ok := agg.(eventSource); ok {
		return src.TakeEvents()
	}
	return nil
}

// EventOutbox implements ports.EventOutbox.
type EventOutbox struct{ db *DB }

// NewEventOutbox returns the outbox on db.
func NewEventOutbox(db *DB) *EventOutbox { return &EventOutbox{db: db} }

type outboundRow struct {
	ID            uuid.UUID
	PartnerID     uuid.UUID
	Type          string
	Body          string
	CreatedAt     time.Time
	Attempts      int
	WebhookURL    string
	WebhookSecret string
}

// ClaimDue implements ports.EventOutbox. On PostgreSQL concurrent claimers skip each other's
// rows; on SQLite the immediate transaction serialises them.
func (o *EventOutbox) ClaimDue(ctx context.Context, partners ports.Partners, now time.Time, lease time.Duration, limit int) ([]ports.OutboundEvent, error) {
	var out []ports.OutboundEvent
	err := o.db.inTx(ctx, func(ctx context.Context) error {
		q := `SELECT e.id, e.partner_id, e.type, e.body, e.created_at, e.attempts, p.webhook_url, p.webhook_secret
			FROM events e JOIN partners p ON p.id = e.partner_id
			WHERE e.next_attempt_at IS NOT NULL AND e.next_attempt_at <= ?`
		args := []any{now.UTC()}
		if cond, more := partnersWhere(partners, "e.partner_id"); cond != "" {
			q += " AND " + cond
			args = append(args, more...)
		}
		q += ` ORDER BY e.next_attempt_at LIMIT ?`
		if o.db.Dialect == Postgres {
			q += ` FOR UPDATE OF e SKIP LOCKED`
		}
		var rows []outboundRow
		if err := o.db.conn(ctx).Raw(q, append(args, limit)...).Scan(&rows).Error; err != nil {
			return interpretError(err, nil, nil)
		}
		if len(rows) == 0 {
			return nil
		}
		ids := make([]uuid.UUID, len(rows))
		out = make([]ports.OutboundEvent, len(rows))
		for i, r := range rows {
			ids[i] = r.ID
			out[i] = ports.OutboundEvent{ID: r.ID, PartnerID: r.PartnerID, Type: r.Type, Body: []byte(r.Body),
				CreatedAt: r.CreatedAt.UTC(), Attempts: r.Attempts, URL: r.WebhookURL, SealedSecret: r.WebhookSecret}
		}
		err := o.db.conn(ctx).Exec(`UPDATE events SET next_attempt_at = ? WHERE id IN ?`, now.Add(lease).UTC(), ids).Error
		return interpretError(err, nil, nil)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Settle implements ports.EventOutbox.
func (o *EventOutbox) Settle(ctx context.Context, id uuid.UUID, oc ports.EventOutcome) error {
	var delivered, next any
	if !oc.DeliveredAt.IsZero() {
		delivered = oc.DeliveredAt.UTC()
	}
	if !oc.NextAttemptAt.IsZero() {
		next = oc.NextAttemptAt.UTC()
	}
	msg := []rune(oc.Error) // cut on a character, never inside one: PostgreSQL refuses broken UTF-8
	if len(msg) > 500 {
		msg = msg[:500]
	}
	err := o.db.conn(ctx).Exec(`UPDATE events SET attempts = ?, delivered_at = ?, next_attempt_at = ?, last_error = ? WHERE id = ?`,
		oc.Attempts, delivered, next, string(msg), id).Error
	return interpretError(err, nil, nil)
}

// Purge implements ports.EventOutbox.
func (o *EventOutbox) Purge(ctx context.Context, before time.Time) (int64, error) {
	res := o.db.conn(ctx).Exec(`DELETE FROM events WHERE next_attempt_at IS NULL AND created_at < ?`, before.UTC())
	return res.RowsAffected, interpretError(res.Error, nil, nil)
}

var _ ports.EventOutbox = (*EventOutbox)(nil)
