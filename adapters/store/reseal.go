package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"
)

// ResealReport counts the values Reseal moved to the current key.
type ResealReport struct {
	ClientData, PINFLs, WebhookSecrets int
	// Fields are sealed phones and card holders' names; Answers are stored answers.
	Fields, Answers int
	// PhoneIndexes are applications' phone blind indexes written under the current key (or
	// written at all: rows stored before the index existed have none).
	PhoneIndexes int
	// PINFLIndexes are applications' PINFL blind indexes written under the current key.
	PINFLIndexes int
	// SecondFactors are operators' TOTP secrets.
	SecondFactors int
}

// resealBatch bounds one transaction of Reseal.
const resealBatch = 500

// sealedColumn is a column of rows keyed by id whose values are sealed for their row.
type sealedColumn struct{ table, column string }

var sealedColumns = []sealedColumn{
	{"applications", "client_data"}, {"card_orders", "client_data"},
	{"applications", "phone"}, {"applications", "offer_backup_phone"}, {"cards", "phone"},
	{"card_orders", "phone"}, {"transfers", "card_holder"}, {"operator_factors", "secret"},
}

// Reseal moves every sealed value to the current data key (and seals or blinds what was
// stored before sealing existed), so that a retired key can then be dropped. It runs in
// batches, each in its own transaction, and may be run again at any time.
func (db *DB) Reseal(ctx context.Context) (ResealReport, error) {
	var rep ResealReport
	if db.Sealer == nil {
		return rep, errNoSealer
	}
	current := "v1:" + db.Sealer.KeyID() + ":%"
	for _, c := range sealedColumns {
		n, err := db.resealColumn(ctx, c, current)
		switch {
		case c.column == "client_data":
			rep.ClientData += n
		case c.table == "operator_factors":
			rep.SecondFactors += n
		default:
			rep.Fields += n
		}
		if err != nil {
			return rep, err
		}
	}
	n, err := db.resealAnswers(ctx, current)
	rep.Answers = n
	if err != nil {
		return rep, err
	}
	if rep.PINFLIndexes, err = db.IndexPINFLs(ctx, false); err != nil {
		return rep, err
	}
	if rep.PhoneIndexes, err = db.reindexPhones(ctx); err != nil {
		return rep, err
	}
	var cards []cardModel // a plain PINFL has 14 characters, a blind index 64
	if err := db.Gorm.WithContext(ctx).Select("id, pinfl").Where("length(pinfl) = 14").Find(&cards).Error; err != nil {
		return rep, err
	}
	for _, c := range cards {
		if !isPINFL(c.PINFL) {
			continue
		}
		blind, err := db.blindPINFL(c.PINFL)
		if err != nil {
			return rep, err
		}
		if err := db.Gorm.WithContext(ctx).Model(&cardModel{}).Where("id = ?", c.ID).Update("pinfl", blind).Error; err != nil {
			return rep, err
		}
		rep.PINFLs++
	}
	// Webhook secrets, the current and the one it replaced (signing beside it for a while), and
	// the sandbox partner's key.
	for _, column := range []string{"webhook_secret", "previous_webhook_secret", "sandbox_key"} {
		var rows []struct {
			ID     uuid.UUID
			Name   string
			Sealed string
		}
		if err := db.Gorm.WithContext(ctx).Model(&partnerModel{}).Select("id, name, "+column+" AS sealed").
			Where(column+" <> '' AND "+column+" NOT LIKE ?", current).Scan(&rows).Error; err != nil {
			return rep, err
		}
		for _, p := range rows {
			plain, err := db.Sealer.Open(p.Sealed, "")
			if err != nil {
				return rep, fmt.Errorf("partner %s %s: %w", p.Name, column, err)
			}
			sealed, err := db.Sealer.Seal(plain, "")
			if err != nil {
				return rep, err
			}
			if err := db.Gorm.WithContext(ctx).Model(&partnerModel{}).Where("id = ?", p.ID).Update(column, sealed).Error; err != nil {
				return rep, err
			}
			rep.WebhookSecrets++
		}
	}
	return rep, nil
}

// resealColumn seals the column's values that are not sealed under the current key.
func (db *DB) resealColumn(ctx context.Context, c sealedColumn, current string) (int, error) {
	n := 0
	for {
		var rows []struct {
			ID    uuid.UUID
			Value string
		}
		err := db.Gorm.WithContext(ctx).Table(c.table).Select("id, "+c.column+" AS value").
			Where(c.column+" <> '' AND "+c.column+" NOT LIKE ?", current).Limit(resealBatch).Find(&rows).Error
		if err != nil || len(rows) == 0 {
			return n, err
		}
		err = NewUnitOfWork(db).Do(ctx, func(ctx context.Context) error {
			for _, r := range rows {
				plain, err := db.open(r.Value, binding(c.table, c.column, r.ID))
				var sealed string
				if err == nil {
					sealed, err = db.seal(plain, binding(c.table, c.column, r.ID))
				}
				if err != nil {
					return fmt.Errorf("%s.%s %s: %w", c.table, c.column, r.ID, err)
				}
				if err := db.conn(ctx).Table(c.table).Where("id = ?", r.ID).Update(c.column, sealed).Error; err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return n, err
		}
		n += len(rows)
	}
}

// resealAnswers seals the stored answers that are not sealed under the current key.
func (db *DB) resealAnswers(ctx context.Context, current string) (int, error) {
	n := 0
	for {
		var rows []idempotencyModel
		// Bodies are bytes, read as text in each database's own way.
		text := "CAST(body AS TEXT)"
		if db.Dialect == Postgres {
			text = "convert_from(body, 'UTF8')"
		}
		err := db.Gorm.WithContext(ctx).Where("body IS NOT NULL AND NOT ("+text+" LIKE ?)", current).
			Limit(resealBatch).Find(&rows).Error
		if err != nil || len(rows) == 0 {
			return n, err
		}
		err = NewUnitOfWork(db).Do(ctx, func(ctx context.Context) error {
			for _, m := range rows {
				plain, err := db.open(string(m.Body), answerBinding(m.PartnerID, m.Key))
				if err != nil {
					return fmt.Errorf("stored outcome %s: %w", m.Key, err)
				}
				body, err := db.seal(plain, answerBinding(m.PartnerID, m.Key))
				if err != nil {
					return err
				}
				if err := db.conn(ctx).Model(&idempotencyModel{}).Where("partner_id = ? AND key = ?", m.PartnerID, m.Key).
					Update("body", []byte(body)).Error; err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return n, err
		}
		n += len(rows)
	}
}

// reindexPhones writes every application's phone blind index under the current key, in
// batches by id; a row whose index is current already is left as it is.
func (db *DB) reindexPhones(ctx context.Context) (int, error) {
	n := 0
	after := uuid.Nil
	for {
		var rows []struct {
			ID         uuid.UUID
			Phone      string
			PhoneIndex string
		}
		err := db.Gorm.WithContext(ctx).Table("applications").Select("id, phone, phone_index").
			Where("id > ?", after).Order("id").Limit(resealBatch).Find(&rows).Error
		if err != nil || len(rows) == 0 {
			return n, err
		}
		err = NewUnitOfWork(db).Do(ctx, func(ctx context.Context) error {
			for _, r := range rows {
				plain, err := db.openField(r.Phone, "applications", "phone", r.ID)
				if err != nil {
					return fmt.Errorf("applications.phone %s: %w", r.ID, err)
				}
				index := db.PhoneIndexes(plain)[0]
				if index == r.PhoneIndex {
					continue
				}
				if err := db.conn(ctx).Table("applications").Where("id = ?", r.ID).Update("phone_index", index).Error; err != nil {
					return err
				}
				n++
			}
			return nil
		})
		if err != nil {
			return n, err
		}
		after = rows[len(rows)-1].ID
	}
}
