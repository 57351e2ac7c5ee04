package store

import (
	"context"
	"fmt"
	"strings"
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

// insertEvent records an event for its partner, due for delivery at once when the partner has a
// webhook (never, without one: it is only listed).
// PostgreSQL is told the type of the due time, which it cannot infer inside CASE.
const insertEvent = `INSERT INTO events (id, partner_id, object_id, type, body, created_at, attempts, next_attempt_at, last_error)
SELECT ?, id, ?, ?, ?, ?, 0, CASE WHEN webhook_url <> '' THEN %s END, '' FROM partners WHERE id = ?`

var insertEventSQL = map[Dialect]string{Postgres: fmt.Sprintf(insertEvent, "CAST(? AS timestamptz)"), SQLite: fmt.Sprintf(insertEvent, "?")}

// insertEvents stores events in ctx's transaction, one statement each.
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
			return g.Exec(insertEventSQL[db.Dialect], e.ID, e.Data.Object(), e.Type().String(), string(body), at, at, e.PartnerID)
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
	// The secret the current one replaced, signing beside it until its end.
	PreviousWebhookSecret      string
	PreviousWebhookSecretUntil *time.Time
}

// ClaimDue implements ports.EventOutbox. On PostgreSQL concurrent claimers skip each other's
// rows; on SQLite the immediate transaction serialises them.
func (o *EventOutbox) ClaimDue(ctx context.Context, partners ports.Partners, now time.Time, lease time.Duration, limit int) ([]ports.OutboundEvent, error) {
	var out []ports.OutboundEvent
	err := o.db.inTx(ctx, func(ctx context.Context) error {
		// A numbered event is due unless an earlier one of its object still waits to be
		// delivered or given up: one object's events go out in order.
		q := `SELECT e.id, e.partner_id, e.type, e.body, e.created_at, e.attempts, p.webhook_url, p.webhook_secret,
			p.previous_webhook_secret, p.previous_webhook_secret_until
			FROM events e JOIN partners p ON p.id = e.partner_id
			WHERE e.next_attempt_at IS NOT NULL AND e.next_attempt_at <= ? AND e.sequence IS NOT NULL
			AND NOT EXISTS (SELECT 1 FROM events b WHERE b.object_id = e.object_id AND b.next_attempt_at IS NOT NULL
				AND b.sequence < e.sequence)`
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
				CreatedAt: r.CreatedAt.UTC(), Attempts: r.Attempts, URL: r.WebhookURL, SealedSecret: r.WebhookSecret,
				PreviousSealedSecret: r.PreviousWebhookSecret, PreviousUntil: fromOptTime(r.PreviousWebhookSecretUntil)}
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

// Record implements ports.EventOutbox.
func (o *EventOutbox) Record(ctx context.Context, e domain.Event) error {
	return o.db.inTx(ctx, func(ctx context.Context) error { return insertEvents(ctx, o.db, []domain.Event{e}) })
}

// Sequence implements ports.EventOutbox: in one transaction it takes the oldest events without
// a number, moves each partner's counter past them and writes each event's number into it and
// into its body (whose "sequence" the renderer left 0). On PostgreSQL one node numbers at a time
// (an advisory lock), in one statement (sequenceSQL); SQLite, one writer anyway, goes statement
// by statement.
func (o *EventOutbox) Sequence(ctx context.Context, limit int) (int, error) {
	n := 0
	err := o.db.inTx(ctx, func(ctx context.Context) error {
		if o.db.Dialect == Postgres {
			var mine bool
			if err := o.db.conn(ctx).Raw(`SELECT pg_try_advisory_xact_lock(?)`, sequencerLock).Scan(&mine).Error; err != nil || !mine {
				return interpretError(err, nil, nil) // another node is numbering
			}
			res := o.db.conn(ctx).Exec(sequenceSQL, limit, sequencePlaceholder)
			n = int(res.RowsAffected)
			return interpretError(res.Error, nil, nil)
		}
		var rows []struct {
			ID        uuid.UUID
			PartnerID uuid.UUID
			Body      string
		}
		err := o.db.conn(ctx).Raw(`SELECT id, partner_id, body FROM events WHERE sequence IS NULL ORDER BY created_at, id LIMIT ?`,
			limit).Scan(&rows).Error
		if err != nil || len(rows) == 0 {
			return interpretError(err, nil, nil)
		}
		counts := map[uuid.UUID]int64{}
		for _, r := range rows {
			counts[r.PartnerID]++
		}
		next := map[uuid.UUID]int64{} // each partner's first new number
		for p, c := range counts {
			var last int64
			err := o.db.conn(ctx).Raw(`UPDATE partners SET event_sequence = event_sequence + ? WHERE id = ? RETURNING event_sequence`,
				c, p).Scan(&last).Error
			if err != nil {
				return interpretError(err, nil, nil)
			}
			next[p] = last - c + 1
		}
		for _, r := range rows {
			seq := next[r.PartnerID]
			next[r.PartnerID]++
			body := strings.Replace(r.Body, sequencePlaceholder, fmt.Sprintf(`,"sequence":%d,"type":"`, seq), 1)
			if err := o.db.conn(ctx).Exec(`UPDATE events SET sequence = ?, body = ? WHERE id = ?`, seq, body, r.ID).Error; err != nil {
				return interpretError(err, nil, nil)
			}
		}
		n = len(rows)
		return nil
	})
	return n, err
}

// sequenceSQL numbers up to $1 events on PostgreSQL: each partner's in the order they were
// recorded, after the partner's last number.
const sequenceSQL = `WITH batch AS (
	SELECT id, partner_id, row_number() OVER (PARTITION BY partner_id ORDER BY created_at, id) AS n
	FROM (SELECT id, partner_id, created_at FROM events WHERE sequence IS NULL ORDER BY created_at, id LIMIT ?) oldest
), counts AS (
	SELECT partner_id, count(*) AS c FROM batch GROUP BY partner_id
), bumped AS (
	UPDATE partners p SET event_sequence = p.event_sequence + counts.c FROM counts WHERE p.id = counts.partner_id
	RETURNING p.id, p.event_sequence - counts.c AS base
)
UPDATE events e SET sequence = bumped.base + batch.n,
	body = replace(e.body, ?, ',"sequence":' || (bumped.base + batch.n) || ',"type":"')
FROM batch JOIN bumped ON bumped.id = batch.partner_id
WHERE e.id = batch.id`

// sequencePlaceholder is where a rendered body leaves its number: "sequence" is 0 and comes just
// before "type" (the order the wire type's fields marshal in; a test of the renderer pins it).
const sequencePlaceholder = `,"sequence":0,"type":"`

// sequencerLock names the PostgreSQL advisory lock of the event sequencer.
const sequencerLock = 7_102_026

// List implements ports.EventOutbox.
func (o *EventOutbox) List(ctx context.Context, q ports.EventQuery) ([]ports.ListedEvent, error) {
	g := o.db.conn(ctx).Table("events").Select("sequence, body").
		Where("partner_id = ? AND sequence > ? AND created_at >= ?", q.PartnerID, q.AfterSequence, q.Since.UTC())
	if len(q.Types) > 0 {
		g = g.Where("type IN ?", q.Types)
	}
	var rows []struct {
		Sequence int64
		Body     string
	}
	if err := g.Order("sequence").Limit(q.Limit).Scan(&rows).Error; err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]ports.ListedEvent, len(rows))
	for i, r := range rows {
		out[i] = ports.ListedEvent{Sequence: r.Sequence, Body: []byte(r.Body)}
	}
	return out, nil
}

// Purge implements ports.EventOutbox.
func (o *EventOutbox) Purge(ctx context.Context, before time.Time) (int64, error) {
	res := o.db.conn(ctx).Exec(`DELETE FROM events WHERE next_attempt_at IS NULL AND created_at < ?`, before.UTC())
	return res.RowsAffected, interpretError(res.Error, nil, nil)
}

var _ ports.EventOutbox = (*EventOutbox)(nil)
