package store

import (
	"bytes"
	"context"
	"encoding/json"
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

type idempotencyModel struct {
	PartnerID   uuid.UUID `gorm:"column:partner_id;primaryKey"`
	Key         string    `gorm:"column:key;primaryKey"`
	Endpoint    string    `gorm:"column:endpoint"`
	Fingerprint []byte    `gorm:"column:fingerprint"`
	// Code is the envelope code of an answer stored as it was sent, before outcomes were; 0
	// for an outcome.
	Code      int       `gorm:"column:code"`
	Body      []byte    `gorm:"column:body"`
	CreatedAt time.Time `gorm:"column:created_at;autoCreateTime:false"`
}

func (idempotencyModel) TableName() string { return "idempotency_records" }

// record maps a row to its record, the outcome opened: a stored outcome may carry personal
// data (the repayment check's client name), so bodies are kept sealed.
func (u *UnitOfWork) record(m *idempotencyModel) (*ports.IdempotencyRecord, error) {
	rec := &ports.IdempotencyRecord{PartnerID: m.PartnerID, Key: m.Key, Endpoint: m.Endpoint, Fingerprint: m.Fingerprint,
		Answered: m.Body != nil, CreatedAt: m.CreatedAt.UTC()}
	if m.Body == nil {
		return rec, nil
	}
	plain, err := u.db.open(string(m.Body), answerBinding(m.PartnerID, m.Key))
	if err != nil {
		return nil, fmt.Errorf("stored outcome %s: %w", m.Key, err)
	}
	if rec.Outcome, err = readOutcome(m.Code, []byte(plain)); err != nil {
		return nil, fmt.Errorf("stored outcome %s: %w", m.Key, err)
	}
	return rec, nil
}

// An outcome is stored as outcomeForm followed by its JSON: {"i": the id as first sent, "r":
// result} or {"i": …, "e": refusal's name, "m": its text}. A body without the form is an answer as it was sent (an envelope),
// stored before outcomes were, with its code in the code column; it is replayed as it is.
const outcomeForm = "o1"

// storedOutcome is an outcome's JSON. Result is the use case's result when written, and a
// *json.RawMessage when read, so that it stays encoded until DecodeResult.
type storedOutcome struct {
	ID      string `json:"i,omitempty"`
	Result  any    `json:"r,omitempty"`
	Refusal string `json:"e,omitempty"`
	Message string `json:"m,omitempty"`
}

// writeOutcome is o's stored body.
func writeOutcome(o ports.Outcome) ([]byte, error) {
	if o.Sent != nil {
		return nil, errors.New("an answer as sent is never stored again")
	}
	s := storedOutcome{ID: o.ID, Refusal: o.Refusal, Message: o.Message}
	if o.Refusal == "" {
		s.Result = o.Result
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("outcome: %w", err)
	}
	return append([]byte(outcomeForm), b...), nil
}

// readOutcome reads a stored body, the result left encoded for DecodeResult.
func readOutcome(code int, body []byte) (ports.Outcome, error) {
	b, ok := bytes.CutPrefix(body, []byte(outcomeForm))
	if !ok {
		return ports.Outcome{Sent: &ports.SentAnswer{Code: code, Body: body}}, nil
	}
	var result json.RawMessage
	s := storedOutcome{Result: &result}
	if err := json.Unmarshal(b, &s); err != nil {
		return ports.Outcome{}, err
	}
	if s.Refusal != "" {
		return ports.Outcome{ID: s.ID, Refusal: s.Refusal, Message: s.Message}, nil
	}
	return ports.Outcome{ID: s.ID, Result: ports.EncodedResult(result)}, nil
}

// DecodeResult implements ports.IdempotencyStore.
func (u *UnitOfWork) DecodeResult(enc ports.EncodedResult, into any) error {
	return json.Unmarshal(enc, into)
}

// answerBinding binds a sealed answer to its request.
func answerBinding(partnerID uuid.UUID, key string) string {
	return "idempotency_records:" + partnerID.String() + ":" + key
}

// sealOutcome is o's body, sealed for its request.
func (u *UnitOfWork) sealOutcome(partnerID uuid.UUID, key string, o ports.Outcome) ([]byte, error) {
	body, err := writeOutcome(o)
	if err != nil {
		return nil, err
	}
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
		body, err := u.sealOutcome(rec.PartnerID, rec.Key, rec.Outcome)
		if err != nil {
			return err
		}
		m.Body = body
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
func (u *UnitOfWork) Answer(ctx context.Context, partnerID uuid.UUID, key string, o ports.Outcome) error {
	body, err := u.sealOutcome(partnerID, key, o)
	if err != nil {
		return err
	}
	return u.db.write(ctx, true, func(g *gorm.DB) *gorm.DB {
		return g.Model(&idempotencyModel{}).Where("partner_id = ? AND key = ?", partnerID, key).
			Updates(map[string]any{"code": 0, "body": body})
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
	err := u.Do(ctx, func(ctx context.Context) error {
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
