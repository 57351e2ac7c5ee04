package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"strconv"
	"time"

	"github.com/tiyin/tiyin/ports"
)

// auditStartModel is where the audit chain began: the one row migration 00027 creates, which
// sealStart fills and seals once with the data key: the entries written before the chain (the
// prefix) by their last number, count and hash, the verifications kept before verifications
// were sealed, and an HMAC of it all. Until then At and Seal are nil.
type auditStartModel struct {
	ID                  int        `gorm:"column:id;primaryKey"`
	At                  *time.Time `gorm:"column:at"`
	PrefixLastID        int64      `gorm:"column:prefix_last_id"`
	PrefixEntries       int64      `gorm:"column:prefix_entries"`
	PrefixHash          []byte     `gorm:"column:prefix_hash"`
	VerificationsLastID int64      `gorm:"column:verifications_last_id"`
	Seal                []byte     `gorm:"column:seal"`
}

func (auditStartModel) TableName() string { return "audit_chain_start" }

// startSeals are the record's HMAC under each data key, the current one's first.
func (l *AuditLog) startSeals(m *auditStartModel) [][]byte {
	var at string
	if m.At != nil {
		at = m.At.UTC().Format(time.RFC3339Nano)
	}
	return l.db.Sealer.Blind("audit-chain-start", at, strconv.FormatInt(m.PrefixLastID, 10),
		strconv.FormatInt(m.PrefixEntries, 10), hex.EncodeToString(m.PrefixHash), strconv.FormatInt(m.VerificationsLastID, 10))
}

// start reads the record of where the chain began, nil when its row is gone.
func (l *AuditLog) start(ctx context.Context) (*auditStartModel, error) {
	var ms []auditStartModel
	if err := l.db.conn(ctx).Limit(1).Find(&ms).Error; err != nil {
		return nil, interpretError(err, nil, nil)
	}
	if len(ms) == 0 {
		return nil, nil
	}
	return &ms[0], nil
}

// prefix hashes the entries written before the chain began, in order: each one's number,
// fields and chain (they have none).
type prefix struct {
	h               hash.Hash
	entries, lastID int64
}

func newPrefix() *prefix { return &prefix{h: sha256.New()} }

func (p *prefix) add(m *auditModel) {
	p.entries++
	p.lastID = m.ID
	for _, f := range []string{strconv.FormatInt(m.ID, 10), m.At.UTC().Format(time.RFC3339Nano), m.Operator, m.Address,
		m.Action, m.Object, m.Detail, string(m.Chain)} {
		writeField(p.h, []byte(f))
	}
}

func (p *prefix) sum() []byte { return p.h.Sum(nil) }

// sealStart records where the chain began, once, under the data key: the entries before the
// first chained one, and the verifications kept until then. Migrate calls it, since SQL
// migrations have no key. It seals nothing when the row is gone or sealed already, nor when a
// verification's line shows that the log was verified since the chain began (the seal was
// then emptied, which Verify names: sealing the log as it is now would hide what the owner
// changed).
func (l *AuditLog) sealStart(ctx context.Context) error {
	return (&UnitOfWork{db: l.db}).Do(ctx, func(ctx context.Context) error {
		g := l.db.conn(ctx)
		if err := l.lock(g); err != nil {
			return err
		}
		if start, err := l.start(ctx); err != nil || start == nil || start.Seal != nil {
			return err
		}
		var lines, first, lastVerification int64
		if err := g.Raw("SELECT count(*) FROM audit_log WHERE action = ?", ports.AuditVerified).Scan(&lines).Error; err != nil || lines > 0 {
			return interpretError(err, nil, nil)
		}
		if err := g.Raw("SELECT COALESCE(MIN(id), 0) FROM audit_log WHERE chain IS NOT NULL").Scan(&first).Error; err != nil {
			return interpretError(err, nil, nil)
		}
		if err := g.Raw("SELECT COALESCE(MAX(id), 0) FROM audit_verifications").Scan(&lastVerification).Error; err != nil {
			return interpretError(err, nil, nil)
		}
		p := newPrefix()
		err := l.walk(ctx, func(m *auditModel) bool {
			if first > 0 && m.ID >= first {
				return false
			}
			p.add(m)
			return true
		})
		if err != nil {
			return err
		}
		now := time.Now().UTC().Truncate(time.Microsecond)
		m := auditStartModel{ID: 1, At: &now, PrefixLastID: p.lastID, PrefixEntries: p.entries, PrefixHash: p.sum(),
			VerificationsLastID: lastVerification}
		m.Seal = l.startSeals(&m)[0]
		return interpretError(g.Exec("UPDATE audit_chain_start SET at = ?, prefix_last_id = ?, prefix_entries = ?, prefix_hash = ?, "+
			"verifications_last_id = ?, seal = ? WHERE id = 1 AND seal IS NULL",
			now, m.PrefixLastID, m.PrefixEntries, m.PrefixHash, m.VerificationsLastID, m.Seal).Error, nil, nil)
	})
}
