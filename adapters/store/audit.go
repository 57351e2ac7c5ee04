package store

import (
	"bytes"
	"context"
	"crypto/hmac"
	"fmt"
	"slices"
	"time"

	"github.com/tiyin/tiyin/ports"
)

// The console's append-only audit log, chained entry to entry under the data key, and the
// verifications of its chain.

type auditModel struct {
	ID       int64     `gorm:"column:id;primaryKey;autoIncrement"`
	At       time.Time `gorm:"column:at"`
	Operator string    `gorm:"column:operator"`
	Address  string    `gorm:"column:address"`
	Action   string    `gorm:"column:action"`
	Object   string    `gorm:"column:object"`
	Detail   string    `gorm:"column:detail"`
	Chain    []byte    `gorm:"column:chain"`
}

func (auditModel) TableName() string { return "audit_log" }

func (m auditModel) toEntry() ports.AuditEntry {
	return ports.AuditEntry{ID: m.ID, At: m.At.UTC(), Operator: m.Operator, Address: m.Address, Action: m.Action, Object: m.Object, Detail: m.Detail}
}

// AuditLog implements ports.AuditLog: it only ever inserts and selects.
type AuditLog struct{ db *DB }

// NewAuditLog returns the audit log on db.
func NewAuditLog(db *DB) *AuditLog { return &AuditLog{db: db} }

// auditChainLock is the PostgreSQL advisory lock that orders appends to the audit log, so
// each entry chains to the one before it.
const auditChainLock = 7_423_001

// Append implements ports.AuditLog: in the transaction of ctx (or its own), it takes the
// chain's lock, reads the last entry's chain and inserts the entry with its own.
func (l *AuditLog) Append(ctx context.Context, e ports.AuditEntry) error {
	if l.db.Sealer == nil {
		return errNoSealer
	}
	m := auditModel{At: e.At.UTC().Truncate(time.Microsecond), Operator: e.Operator, Address: e.Address, Action: e.Action,
		Object: e.Object, Detail: e.Detail}
	return l.db.inTx(ctx, func(ctx context.Context) error {
		g := l.db.conn(ctx)
		if l.db.Dialect == Postgres {
			if err := g.Exec("SELECT pg_advisory_xact_lock(?)", auditChainLock).Error; err != nil {
				return interpretError(err, nil, nil)
			}
		}
		var prev []auditModel
		if err := g.Select("chain").Order("id DESC").Limit(1).Find(&prev).Error; err != nil {
			return interpretError(err, nil, nil)
		}
		var last []byte
		if len(prev) > 0 {
			last = prev[0].Chain
		}
		m.Chain = l.chains(last, &m)[0]
		return interpretError(g.Create(&m).Error, nil, nil)
	})
}

// chains are an entry's chain under each data key, the current one's first: an HMAC of the
// previous entry's chain and the entry's fields.
func (l *AuditLog) chains(prev []byte, m *auditModel) [][]byte {
	return l.db.Sealer.Blind("audit-chain", string(prev), m.At.UTC().Format(time.RFC3339Nano), m.Operator, m.Address,
		m.Action, m.Object, m.Detail)
}

// Verify implements ports.AuditLog. Entries written before the chain began (no chain) may
// only come first.
func (l *AuditLog) Verify(ctx context.Context, since *ports.AuditVerification) (ports.AuditVerification, error) {
	var v ports.AuditVerification
	var prev []byte
	broken := func(id int64, problem string) (ports.AuditVerification, error) {
		v.BrokenID, v.Problem = id, problem
		return v, nil
	}
	for after := int64(0); ; {
		var batch []auditModel
		if err := l.db.conn(ctx).Where("id > ?", after).Order("id").Limit(1000).Find(&batch).Error; err != nil {
			return v, interpretError(err, nil, nil)
		}
		if len(batch) == 0 {
			break
		}
		for i := range batch {
			m := &batch[i]
			v.Entries++
			v.LastID, v.Head = m.ID, m.Chain
			if m.Chain == nil {
				if v.Chained > 0 {
					return broken(m.ID, fmt.Sprintf("entry #%d has no chain, after chained entries: it was edited or inserted", m.ID))
				}
				continue
			}
			if !slices.ContainsFunc(l.chains(prev, m), func(c []byte) bool { return hmac.Equal(c, m.Chain) }) {
				return broken(m.ID, fmt.Sprintf("entry #%d does not match its chain: it was edited, or an entry before it was removed or inserted", m.ID))
			}
			if since != nil && m.ID == since.LastID && !bytes.Equal(m.Chain, since.Head) {
				return broken(m.ID, fmt.Sprintf("entry #%d is not the one the verification of %s saw", m.ID, since.At.Format(time.RFC3339)))
			}
			prev = m.Chain
			v.Chained++
		}
		after = batch[len(batch)-1].ID
	}
	if since != nil && (v.LastID < since.LastID || v.Chained < since.Chained) {
		return broken(since.LastID, fmt.Sprintf("entries up to #%d, which the verification of %s saw, are gone", since.LastID,
			since.At.Format(time.RFC3339)))
	}
	return v, nil
}

type auditVerificationModel struct {
	ID       int64     `gorm:"column:id;primaryKey;autoIncrement"`
	At       time.Time `gorm:"column:at"`
	Entries  int64     `gorm:"column:entries"`
	Chained  int64     `gorm:"column:chained"`
	LastID   int64     `gorm:"column:last_id"`
	Head     []byte    `gorm:"column:head"`
	BrokenID int64     `gorm:"column:broken_id"`
	Problem  string    `gorm:"column:problem"`
}

func (auditVerificationModel) TableName() string { return "audit_verifications" }

// SaveVerification implements ports.AuditLog.
func (l *AuditLog) SaveVerification(ctx context.Context, v ports.AuditVerification) error {
	m := auditVerificationModel{At: v.At.UTC(), Entries: v.Entries, Chained: v.Chained, LastID: v.LastID, Head: v.Head,
		BrokenID: v.BrokenID, Problem: v.Problem}
	return interpretError(l.db.conn(ctx).Create(&m).Error, nil, nil)
}

// LastVerification implements ports.AuditLog.
func (l *AuditLog) LastVerification(ctx context.Context) (*ports.AuditVerification, error) {
	var ms []auditVerificationModel
	if err := l.db.conn(ctx).Order("id DESC").Limit(1).Find(&ms).Error; err != nil {
		return nil, interpretError(err, nil, nil)
	}
	if len(ms) == 0 {
		return nil, nil
	}
	m := ms[0]
	return &ports.AuditVerification{At: m.At.UTC(), Entries: m.Entries, Chained: m.Chained, LastID: m.LastID, Head: m.Head,
		BrokenID: m.BrokenID, Problem: m.Problem}, nil
}

// List implements ports.AuditLog.
func (l *AuditLog) List(ctx context.Context, f ports.AuditFilter) ([]ports.AuditEntry, error) {
	q := l.db.conn(ctx).Model(&auditModel{})
	if f.Operator != "" {
		q = q.Where("operator = ?", f.Operator)
	}
	if f.Action != "" {
		q = q.Where("action = ?", f.Action)
	}
	if f.Object != "" {
		q = q.Where("object = ?", f.Object)
	}
	if !f.From.IsZero() {
		q = q.Where("at >= ?", f.From.UTC())
	}
	if !f.To.IsZero() {
		q = q.Where("at < ?", f.To.UTC())
	}
	if f.BeforeID > 0 {
		q = q.Where("id < ?", f.BeforeID)
	}
	if f.Limit > 0 {
		q = q.Limit(f.Limit)
	}
	var ms []auditModel
	if err := q.Order("id DESC").Find(&ms).Error; err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]ports.AuditEntry, len(ms))
	for i, m := range ms {
		out[i] = m.toEntry()
	}
	return out, nil
}
