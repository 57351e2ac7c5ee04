package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/tiyin/tiyin/ports"
)

// UnitOfWork implements ports.UnitOfWork and ports.IdempotencyStore on one database.
type UnitOfWork struct {
	db *DB
}

// NewUnitOfWork returns the unit of work of db.
func NewUnitOfWork(db *DB) *UnitOfWork { return &UnitOfWork{db: db} }

// Do implements ports.UnitOfWork: BEGIN, fn, then COMMIT when fn returns nil, else ROLLBACK.
// Called with a context that already carries a transaction, fn runs in it: the outermost Do
// owns the transaction and commits it.
func (u *UnitOfWork) Do(ctx context.Context, fn func(ctx context.Context) error) error {
	return u.db.inTx(ctx, fn)
}

type idempotencyModel struct {
	PartnerID   uuid.UUID `gorm:"column:partner_id;primaryKey"`
	Key         string    `gorm:"column:key;primaryKey"`
	Endpoint    string    `gorm:"column:endpoint"`
	Fingerprint []byte    `gorm:"column:fingerprint"`
	Code        int       `gorm:"column:code"`
	Body        []byte    `gorm:"column:body"`
	CreatedAt   time.Time `gorm:"column:created_at;autoCreateTime:false"`
}

func (idempotencyModel) TableName() string { return "idempotency_records" }

// record maps a row to its record, the answer's body opened: a stored answer may carry
// personal data (the repayment check's client name), so bodies are kept sealed.
func (u *UnitOfWork) record(m *idempotencyModel) (*ports.IdempotencyRecord, error) {
	body := m.Body
	if body != nil {
		plain, err := u.db.open(string(body), answerBinding(m.PartnerID, m.Key))
		if err != nil {
			return nil, fmt.Errorf("stored answer %s: %w", m.Key, err)
		}
		body = []byte(plain)
	}
	return &ports.IdempotencyRecord{PartnerID: m.PartnerID, Key: m.Key, Endpoint: m.Endpoint, Fingerprint: m.Fingerprint,
		Answered: m.Body != nil, Code: m.Code, Body: body, CreatedAt: m.CreatedAt.UTC()}, nil
}

// answerBinding binds a sealed answer to its request.
func answerBinding(partnerID uuid.UUID, key string) string {
	return "idempotency_records:" + partnerID.String() + ":" + key
}

// sealAnswer seals an answer's body for its request.
func (u *UnitOfWork) sealAnswer(partnerID uuid.UUID, key string, body []byte) ([]byte, error) {
	sealed, err := u.db.seal(string(body), answerBinding(partnerID, key))
	return []byte(sealed), err
}

var idempotencyUnique = constraintErrors{
	"idempotency_records_pkey":                                ports.ErrDuplicateRequest,
	"idempotency_records.partner_id, idempotency_records.key": ports.ErrDuplicateRequest,
}

// Lookup implements ports.IdempotencyStore.
func (u *UnitOfWork) Lookup(ctx context.Context, partnerID uuid.UUID, key string) (*ports.IdempotencyRecord, error) {
	var m idempotencyModel
	err := u.db.conn(ctx).Where("partner_id = ? AND key = ?", partnerID, key).Take(&m).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	return u.record(&m)
}

// Claim implements ports.IdempotencyStore. The insert of the key is what a concurrent
// duplicate waits on: PostgreSQL holds it on the unique index until this transaction ends;
// SQLite runs one transaction at a time.
func (u *UnitOfWork) Claim(ctx context.Context, rec ports.IdempotencyRecord) error {
	m := idempotencyModel{PartnerID: rec.PartnerID, Key: rec.Key, Endpoint: rec.Endpoint, Fingerprint: rec.Fingerprint,
		CreatedAt: rec.CreatedAt.UTC()}
	if rec.Answered {
		body, err := u.sealAnswer(rec.PartnerID, rec.Key, rec.Body)
		if err != nil {
			return err
		}
		m.Code, m.Body = rec.Code, body
	}
	// An unanswered claim takes the key for the rest of the transaction (a duplicate waits on
	// it), so it is sent at once; an answered one is the request's last write.
	return u.db.write(ctx, rec.Answered, func(g *gorm.DB) *gorm.DB { return g.Create(&m) }, func(_ int64, err error) error {
		err = interpretError(err, nil, idempotencyUnique)
		if errors.Is(err, errLockTimeout) {
			return ports.ErrRequestInProgress // the wait was for a duplicate of this very request
		}
		return err
	})
}

// Resume implements ports.IdempotencyStore.
func (u *UnitOfWork) Resume(ctx context.Context, partnerID uuid.UUID, key string) (*ports.IdempotencyRecord, error) {
	var m idempotencyModel
	err := u.db.conn(ctx).Clauses(clause.Locking{Strength: "UPDATE"}).
		Where("partner_id = ? AND key = ?", partnerID, key).Take(&m).Error
	if err != nil {
		return nil, interpretError(err, errors.New("resumed request was never claimed"), nil)
	}
	return u.record(&m)
}

// Answer implements ports.IdempotencyStore.
func (u *UnitOfWork) Answer(ctx context.Context, partnerID uuid.UUID, key string, code int, body []byte) error {
	body, err := u.sealAnswer(partnerID, key, body)
	if err != nil {
		return err
	}
	return u.db.write(ctx, true, func(g *gorm.DB) *gorm.DB {
		return g.Model(&idempotencyModel{}).Where("partner_id = ? AND key = ?", partnerID, key).
			Updates(map[string]any{"code": code, "body": body})
	}, func(rows int64, err error) error {
		if err != nil {
			return interpretError(err, nil, nil)
		}
		if rows != 1 {
			return errors.New("answer stored for a request that was never claimed")
		}
		return nil
	})
}

// Purge implements ports.IdempotencyStore.
func (u *UnitOfWork) Purge(ctx context.Context, before time.Time) (int64, error) {
	res := u.db.conn(ctx).Where("created_at < ?", before.UTC()).Delete(&idempotencyModel{})
	return res.RowsAffected, interpretError(res.Error, nil, nil)
}

// plainFingerprintSize is the size of a plain SHA-256 fingerprint, as versions before keyed
// fingerprints stored them; keyed ones carry a form byte first.
const plainFingerprintSize = 32

// RekeyPlainFingerprints replaces every plain fingerprint stored by an earlier version with
// rekey's keyed form of it, in one transaction, and returns how many it re-keyed. A retry of
// such a request still matches its record; the stored value no longer reveals the params.
func (u *UnitOfWork) RekeyPlainFingerprints(ctx context.Context, rekey func(plain []byte) []byte) (int, error) {
	n := 0
	err := u.db.inTx(ctx, func(ctx context.Context) error {
		var rows []idempotencyModel
		if err := u.db.conn(ctx).Select("partner_id", "key", "fingerprint").
			Where("length(fingerprint) = ?", plainFingerprintSize).Find(&rows).Error; err != nil {
			return interpretError(err, nil, nil)
		}
		for _, m := range rows {
			if err := u.db.conn(ctx).Model(&idempotencyModel{}).Where("partner_id = ? AND key = ?", m.PartnerID, m.Key).
				Update("fingerprint", rekey(m.Fingerprint)).Error; err != nil {
				return interpretError(err, nil, nil)
			}
		}
		n = len(rows)
		return nil
	})
	return n, err
}
