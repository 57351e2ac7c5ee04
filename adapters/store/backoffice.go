package store

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// BackOffice implements ports.BackOffice: the operator console's cross-partner reads. Each
// method runs a fixed number of statements, whatever the number of rows it returns.
type BackOffice struct{ db *DB }

// NewBackOffice returns the read model on db.
func NewBackOffice(db *DB) *BackOffice { return &BackOffice{db: db} }

// CountByStatus implements ports.BackOffice.
func (b *BackOffice) CountByStatus(ctx context.Context) ([]ports.StatusCount, error) {
	var out []ports.StatusCount
	// Loans are counted in one pass (open = all - closed): a GROUP BY over an expression
	// would hash every row.
	err := b.db.conn(ctx).Raw(`
WITH l AS (SELECT COUNT(*) AS total, COUNT(closed_at) AS closed FROM loans)
SELECT 'application' AS kind, status, COUNT(*) AS n FROM applications GROUP BY status
UNION ALL SELECT 'transfer', status, COUNT(*) FROM transfers GROUP BY status
UNION ALL SELECT 'card_order', status, COUNT(*) FROM card_orders GROUP BY status
UNION ALL SELECT 'card', status, COUNT(*) FROM cards GROUP BY status
UNION ALL SELECT 'loan', 'OPEN', total - closed FROM l WHERE total > 0
UNION ALL SELECT 'loan', 'CLOSED', closed FROM l WHERE closed > 0
ORDER BY kind, status`).Scan(&out).Error
	return out, interpretError(err, nil, nil)
}

type attentionRow struct {
	ID     uuid.UUID
	Status string
	Detail string
	Since  time.Time
}

// NeedsAttention implements ports.BackOffice: one statement per kind of trouble, each using its
// partial index, merged oldest first.
func (b *BackOffice) NeedsAttention(ctx context.Context, q ports.AttentionQuery) ([]ports.AttentionItem, error) {
	queries := []struct {
		kind string
		run  func(g *gorm.DB) *gorm.DB
	}{
		{"unknown_application", func(g *gorm.DB) *gorm.DB {
			return g.Table("applications").Select("id, status, task_name AS detail, unknown_since AS since").
				Where("unknown_since IS NOT NULL AND unknown_since < ?", q.UnknownBefore.UTC()).Order("unknown_since")
		}},
		{"application", func(g *gorm.DB) *gorm.DB {
			return g.Table("applications").Select("id, status, task_name || '/' || task_status AS detail, updated_at AS since").
				Where("next_run_at IS NOT NULL AND unknown_since IS NULL AND updated_at < ?", q.StageBefore.UTC()).Order("next_run_at")
		}},
		{"transfer", func(g *gorm.DB) *gorm.DB {
			return g.Table("transfers").Select("id, status, masked_pan AS detail, updated_at AS since").
				Where("status = 'PROCESSING' AND updated_at < ?", q.UnknownBefore.UTC()).Order("updated_at")
		}},
		{"card_order", func(g *gorm.DB) *gorm.DB {
			return g.Table("card_orders").Select("id, status, description AS detail, unknown_since AS since").
				Where("unknown_since IS NOT NULL AND unknown_since < ?", q.UnknownBefore.UTC()).Order("unknown_since")
		}},
		{"request", func(g *gorm.DB) *gorm.DB {
			return g.Table("idempotency_records").Select("partner_id AS id, 'UNANSWERED' AS status, endpoint || ' · request ' || key AS detail, created_at AS since").
				Where("body IS NULL AND created_at < ?", q.UnknownBefore.UTC()).Order("created_at")
		}},
		{"delivery", func(g *gorm.DB) *gorm.DB {
			return g.Table("events").Select("id, type AS status, last_error AS detail, created_at AS since").
				Where("next_attempt_at IS NOT NULL AND attempts >= ?", q.FailedAttempts).Order("next_attempt_at")
		}},
	}
	var out []ports.AttentionItem
	for _, x := range queries {
		var rows []attentionRow
		if err := x.run(b.db.conn(ctx)).Limit(q.Limit).Scan(&rows).Error; err != nil {
			return nil, interpretError(err, nil, nil)
		}
		for _, r := range rows {
			out = append(out, ports.AttentionItem{Kind: x.kind, ID: r.ID, Status: r.Status, Detail: r.Detail, Since: r.Since.UTC()})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Since.Before(out[j].Since) })
	return out, nil
}

// Search implements ports.BackOffice: one statement for an id (every kind of object and its
// external id), one for a phone, one for a card number's last four digits; a phone's and a
// card's hits page newest first by keyset.
func (b *BackOffice) Search(ctx context.Context, q ports.SearchQuery) ([]ports.SearchHit, error) {
	var out []ports.SearchHit
	g := b.db.conn(ctx)
	var err error
	// after pages a phone's or a card's hits: the rows made before the last hit shown.
	after, args := "", []any{}
	if a := q.After; a != nil {
		after, args = " AND (x.created_at, x.id) < (?, ?)", []any{a.At.UTC(), a.ID}
	}
	switch {
	case q.ID != uuid.Nil:
		id, text := q.ID, q.ID.String()
		err = g.Raw(`
SELECT 'application' AS kind, x.id, x.status || ' · ' || x.task_name AS label, x.created_at AS at, p.name AS partner,
  COALESCE(x.offer_amount, 0) AS amount FROM applications x JOIN partners p ON p.id = x.partner_id WHERE x.id = ?
UNION ALL SELECT 'application', x.id, x.status || ' · ' || x.task_name, x.created_at, p.name, COALESCE(x.offer_amount, 0)
  FROM applications x JOIN partners p ON p.id = x.partner_id WHERE x.partner_id IN (SELECT id FROM partners) AND x.external_id = ? AND x.id <> ?
UNION ALL SELECT 'loan', x.id, COALESCE(x.contract_number, 'no contract yet'), x.issued_at, p.name, x.amount
  FROM loans x JOIN partners p ON p.id = x.partner_id WHERE x.id = ?
UNION ALL SELECT 'transfer', x.id, x.status || ' · ' || x.masked_pan, x.created_at, p.name, x.amount
  FROM transfers x JOIN partners p ON p.id = x.partner_id WHERE x.id = ? OR x.external_id = ?
UNION ALL SELECT 'repayment', x.id, x.contract_number, x.checked_at, p.name, COALESCE(x.amount, 0)
  FROM repayments x JOIN partners p ON p.id = x.partner_id WHERE x.id = ? OR x.transaction_id = ? OR x.external_id = ?
UNION ALL SELECT 'card', x.id, x.status || ' · ' || x.masked_pan, x.created_at, p.name, 0
  FROM cards x JOIN partners p ON p.id = x.partner_id WHERE x.id = ?
UNION ALL SELECT 'card_order', x.id, x.status, x.created_at, p.name, 0
  FROM card_orders x JOIN partners p ON p.id = x.partner_id WHERE x.id = ? OR x.card_id = ? OR x.external_id = ?
LIMIT ?`, id, id, id, id, id, id, id, id, id, id, id, id, text, q.Limit).Scan(&out).Error
	case len(q.PhoneIndexes) > 0:
		err = g.Raw(`
SELECT 'application' AS kind, x.id, x.status || ' · ' || x.task_name AS label, x.created_at AS at, p.name AS partner,
  COALESCE(x.offer_amount, 0) AS amount
FROM applications x JOIN partners p ON p.id = x.partner_id WHERE x.phone_index IN ?`+after+`
ORDER BY x.created_at DESC, x.id DESC LIMIT ?`, append(append([]any{q.PhoneIndexes}, args...), q.Limit)...).Scan(&out).Error
	case q.PANLast4 != "":
		like := "%" + q.PANLast4
		err = g.Raw(`
SELECT * FROM (
  SELECT 'card' AS kind, x.id, x.status || ' · ' || x.masked_pan AS label, x.created_at AS at, p.name AS partner, 0 AS amount
  FROM cards x JOIN partners p ON p.id = x.partner_id WHERE x.masked_pan LIKE ?`+after+`
  UNION ALL SELECT 'transfer', x.id, x.status || ' · ' || x.masked_pan, x.created_at, p.name, x.amount
  FROM transfers x JOIN partners p ON p.id = x.partner_id WHERE x.masked_pan LIKE ?`+after+`
) hits ORDER BY at DESC, id DESC LIMIT ?`, append(append(append(append([]any{like}, args...), like), args...), q.Limit)...).Scan(&out).Error
	}
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	if q.Text != "" && q.After == nil && len(out) < q.Limit {
		// A loan by its contract number (the number clients and partners quote) or its demand
		// account's number: the unique index on the one, loans_account_number on the other.
		var loans []ports.SearchHit
		err := g.Raw(`SELECT 'loan' AS kind, x.id, COALESCE(x.contract_number, 'no contract yet') || ' · ' || x.account_number AS label,
  x.issued_at AS at, p.name AS partner, x.amount
FROM loans x JOIN partners p ON p.id = x.partner_id WHERE x.contract_number IN (?, ?) OR x.account_number IN (?, ?) LIMIT ?`,
			q.Text, q.Number, q.Text, q.Number, q.Limit-len(out)).Scan(&loans).Error
		if err != nil {
			return nil, interpretError(err, nil, nil)
		}
		out = append(out, loans...)
	}
	if q.Text != "" && q.After == nil && len(out) < q.Limit {
		// A request id is the partner's envelope id, any text: its stored claim names the endpoint.
		var reqs []struct {
			PartnerID uuid.UUID
			Key       string
			Endpoint  string
		}
		if err := g.Table("idempotency_records").Select("partner_id, key, endpoint").Where("key = ?", q.Text).
			Limit(q.Limit).Scan(&reqs).Error; err != nil {
			return nil, interpretError(err, nil, nil)
		}
		for _, r := range reqs {
			out = append(out, ports.SearchHit{Kind: "request", ID: r.PartnerID, Label: r.Endpoint + " · request " + r.Key})
		}
	}
	return out, nil
}

type eventRow struct {
	ID            uuid.UUID
	PartnerID     uuid.UUID
	ObjectID      *uuid.UUID
	Type          string
	Sequence      *int64
	CreatedAt     time.Time
	Attempts      int
	NextAttemptAt *time.Time
	DeliveredAt   *time.Time
	LastError     string
}

// Events implements ports.BackOffice.
func (b *BackOffice) Events(ctx context.Context, partnerID, objectID uuid.UUID, limit int) ([]ports.EventRecord, error) {
	q := b.db.conn(ctx).Table("events").
		Select("id, partner_id, object_id, type, sequence, created_at, attempts, next_attempt_at, delivered_at, last_error")
	if objectID != uuid.Nil {
		q = q.Where("object_id = ?", objectID)
	} else {
		q = q.Where("partner_id = ?", partnerID)
	}
	var rows []eventRow
	if err := q.Order("created_at DESC").Limit(limit).Scan(&rows).Error; err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]ports.EventRecord, len(rows))
	for i, r := range rows {
		e := ports.EventRecord{ID: r.ID, PartnerID: r.PartnerID, Type: r.Type, CreatedAt: r.CreatedAt.UTC(), Attempts: r.Attempts,
			NextAttempt: fromOptTime(r.NextAttemptAt), DeliveredAt: fromOptTime(r.DeliveredAt), LastError: r.LastError}
		if r.ObjectID != nil {
			e.ObjectID = *r.ObjectID
		}
		if r.Sequence != nil {
			e.Sequence = *r.Sequence
		}
		out[i] = e
	}
	return out, nil
}

// StageRecords implements ports.BackOffice.
func (b *BackOffice) StageRecords(ctx context.Context, applicationID uuid.UUID, limit int) ([]domain.StageRecord, error) {
	var rows []struct {
		At                           time.Time
		Stage, Outcome, Message, Ref string
	}
	err := b.db.conn(ctx).Table("application_steps").Select("at, stage, outcome, message, ref").
		Where("application_id = ?", applicationID).Order("at DESC").Limit(limit).Scan(&rows).Error
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]domain.StageRecord, 0, len(rows))
	for _, r := range rows {
		stage, err := domain.ParseStageName(r.Stage)
		if err != nil {
			return nil, fmt.Errorf("application %s stage record: %w", applicationID, err)
		}
		outcome, err := domain.ParseStageOutcome(r.Outcome)
		if err != nil {
			return nil, fmt.Errorf("application %s stage record: %w", applicationID, err)
		}
		out = append(out, domain.StageRecord{ApplicationID: applicationID, Stage: stage, Outcome: outcome, Message: r.Message, Ref: r.Ref, At: r.At.UTC()})
	}
	return out, nil
}

// ResendEvent implements ports.BackOffice.
func (b *BackOffice) ResendEvent(ctx context.Context, id uuid.UUID, t time.Time) error {
	res := b.db.conn(ctx).Table("events").Where("id = ? AND partner_id IN (SELECT id FROM partners WHERE webhook_url <> '')", id).
		Updates(map[string]any{"next_attempt_at": t.UTC(), "attempts": 0, "delivered_at": nil})
	if res.Error != nil {
		return interpretError(res.Error, nil, nil)
	}
	if res.RowsAffected == 0 {
		return ports.ErrEventNotFound
	}
	return nil
}

// Accounts implements ports.BackOffice.
func (b *BackOffice) Accounts(ctx context.Context, loanID uuid.UUID) ([]ports.AccountBalance, error) {
	q := b.db.conn(ctx).Table("ledger_accounts").Select("key, kind, balance")
	if loanID == uuid.Nil {
		q = q.Where("loan_id IS NULL")
	} else {
		q = q.Where("loan_id = ?", loanID)
	}
	var out []ports.AccountBalance
	err := q.Order("key").Scan(&out).Error
	return out, interpretError(err, nil, nil)
}

// Entries implements ports.BackOffice: the latest postings that touch the accounts, with all
// their entries, so each posting shows both sides. Posting ids are time-ordered (UUIDv7), so
// the newest are found by walking the (account_key, posting_id) index backwards, however many
// entries an account has.
func (b *BackOffice) Entries(ctx context.Context, accounts []string, limit int) ([]ports.EntryRecord, error) {
	if len(accounts) == 0 {
		return nil, nil
	}
	var out []ports.EntryRecord
	err := b.db.conn(ctx).Raw(`
SELECT p.id AS posting_id, p.kind, p.ref, p.created_at AS at, e.account_key AS account, e.debit, e.credit
FROM ledger_entries e JOIN ledger_postings p ON p.id = e.posting_id
WHERE e.posting_id IN (SELECT posting_id FROM ledger_entries WHERE account_key IN ? ORDER BY posting_id DESC LIMIT ?)
ORDER BY p.id DESC, e.debit DESC`, accounts, limit).Scan(&out).Error
	for i := range out {
		out[i].At = out[i].At.UTC()
	}
	return out, interpretError(err, nil, nil)
}
