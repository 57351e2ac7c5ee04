package store

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"math"
	"slices"
	"strconv"
	"time"

	"gorm.io/gorm"

	"github.com/tiyin/tiyin/ports"
)

// The console's append-only audit log, chained entry to entry under the data key: its entries
// here, where its chain began in audit_start.go, its verifications in audit_verify.go.

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
// each entry chains to the one before it, and verifications, so each is sealed on the last.
const auditChainLock = 7_423_001

// Append implements ports.AuditLog: in the transaction of ctx (or its own), it takes the
// chain's lock, reads the last entry's chain and inserts the entry with its own.
func (l *AuditLog) Append(ctx context.Context, e ports.AuditEntry) error {
	_, err := l.append(ctx, e)
	return err
}

// append is Append, returning the entry's number.
func (l *AuditLog) append(ctx context.Context, e ports.AuditEntry) (int64, error) {
	if l.db.Sealer == nil {
		return 0, errNoSealer
	}
	m := auditModel{At: e.At.UTC().Truncate(time.Microsecond), Operator: e.Operator, Address: e.Address, Action: e.Action,
		Object: e.Object, Detail: e.Detail}
	err := l.db.inTx(ctx, func(ctx context.Context) error {
		g := l.db.conn(ctx)
		if err := l.lock(g); err != nil {
			return err
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
	return m.ID, err
}

// lock takes the chain's lock until g's transaction ends: on PostgreSQL its advisory lock,
// which orders appends, verifications and the chain's start; SQLite's one writer needs none.
func (l *AuditLog) lock(g *gorm.DB) error {
	if l.db.Dialect != Postgres {
		return nil
	}
	return interpretError(g.Exec("SELECT pg_advisory_xact_lock(?)", auditChainLock).Error, nil, nil)
}

// walk calls fn with every entry in order, a batch at a time, until fn returns false. It
// starts below any number, so that an entry inserted with a number of zero or below is met.
func (l *AuditLog) walk(ctx context.Context, fn func(m *auditModel) bool) error {
	for after := int64(math.MinInt64); ; {
		var batch []auditModel
		if err := l.db.conn(ctx).Where("id > ?", after).Order("id").Limit(1000).Find(&batch).Error; err != nil {
			return interpretError(err, nil, nil)
		}
		for i := range batch {
			if !fn(&batch[i]) {
				return nil
			}
		}
		if len(batch) < 1000 {
			return nil
		}
		after = batch[len(batch)-1].ID
	}
}

// Head implements ports.AuditLog: the last entry's number, and the digest of where the chain
// began and that entry's chain (headHash).
func (l *AuditLog) Head(ctx context.Context) (ports.AuditHead, error) {
	start, err := l.start(ctx)
	if err != nil {
		return ports.AuditHead{}, err
	}
	if start == nil || start.Seal == nil {
		return ports.AuditHead{}, ports.ErrNoAuditStart
	}
	var last []auditModel
	if err := l.db.conn(ctx).Select("id, chain").Order("id DESC").Limit(1).Find(&last).Error; err != nil {
		return ports.AuditHead{}, interpretError(err, nil, nil)
	}
	var h ports.AuditHead
	if len(last) > 0 {
		h.Seq = last[0].ID
		h.Hash = headHash(start.Seal, last[0].ID, last[0].Chain)
	} else {
		h.Hash = headHash(start.Seal, 0, nil)
	}
	return h, nil
}

// headHash is the digest a head carries: SHA-256 of where the chain began (its record's seal),
// an entry's number and its chain. The chain covers every entry before it; the seal, those
// before the chain began.
func headHash(startSeal []byte, id int64, chain []byte) []byte {
	h := sha256.New()
	for _, f := range [][]byte{[]byte("audit-head"), startSeal, []byte(strconv.FormatInt(id, 10)), chain} {
		writeField(h, f)
	}
	return h.Sum(nil)
}

// writeField writes f to h after its length, so that no two lists of fields hash alike.
func writeField(h hash.Hash, f []byte) {
	h.Write(binary.AppendUvarint(nil, uint64(len(f))))
	h.Write(f)
}

// sealed reports whether got is one of seals (an HMAC under each data key, current or
// retired).
func sealed(seals [][]byte, got []byte) bool {
	return slices.ContainsFunc(seals, func(s []byte) bool { return hmac.Equal(s, got) })
}

// chains are an entry's chain under each data key, the current one's first: an HMAC of the
// previous entry's chain and the entry's fields.
func (l *AuditLog) chains(prev []byte, m *auditModel) [][]byte {
	return l.db.Sealer.Blind("audit-chain", string(prev), m.At.UTC().Format(time.RFC3339Nano), m.Operator, m.Address,
		m.Action, m.Object, m.Detail)
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
