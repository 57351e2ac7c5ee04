package store

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// Personal data at rest: clientData is kept sealed (ports.Sealer, AES-256-GCM under the data
// key, bound to its table and row), and a card's PINFL only as a blind index (its keyed hash,
// hex), by which the client's cards are still found.

var errNoSealer = errors.New("store: no sealer configured (Config.Sealer)")

// sealText seals a plain JSON column value for its row.
func (db *DB) sealText(plain, table string, id uuid.UUID) (string, error) {
	if db.Sealer == nil {
		return "", errNoSealer
	}
	return db.Sealer.Seal([]byte(plain), table+":"+id.String())
}

// openText opens what sealText sealed. A row written before sealing existed holds plain JSON,
// which is read as it is until `tiyin reseal` seals it.
func (db *DB) openText(stored, table string, id uuid.UUID) (string, error) {
	if strings.HasPrefix(stored, "{") {
		return stored, nil
	}
	if db.Sealer == nil {
		return "", errNoSealer
	}
	plain, err := db.Sealer.Open(stored, table+":"+id.String())
	if err != nil {
		return "", err
	}
	return string(plain), nil
}

// blindPINFLs are the values a card's pinfl column may hold for the client: its blind index
// under each data key, and the PINFL itself for a row written before blinding existed.
func (db *DB) blindPINFLs(pinfl string) []string {
	out := []string{pinfl}
	if db.Sealer != nil {
		for _, b := range db.Sealer.Blind("pinfl", pinfl) {
			out = append(out, hex.EncodeToString(b))
		}
	}
	return out
}

// blindPINFL is the pinfl column of a card: a PINFL is stored as its blind index under the
// current key; a value read back from the column is already one and is kept.
func (db *DB) blindPINFL(v string) (string, error) {
	if !isPINFL(v) {
		return v, nil
	}
	if db.Sealer == nil {
		return "", errNoSealer
	}
	return hex.EncodeToString(db.Sealer.Blind("pinfl", v)[0]), nil
}

func isPINFL(v string) bool {
	if len(v) != 14 {
		return false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// ResealReport counts the values Reseal moved to the current key.
type ResealReport struct {
	ClientData, PINFLs, WebhookSecrets int
}

// resealBatch bounds one transaction of Reseal.
const resealBatch = 500

// Reseal moves every sealed value to the current data key (and seals or blinds what was
// stored before sealing existed), so that a retired key can then be dropped. It runs in
// batches, each in its own transaction, and may be run again at any time.
func (db *DB) Reseal(ctx context.Context) (ResealReport, error) {
	var rep ResealReport
	if db.Sealer == nil {
		return rep, errNoSealer
	}
	current := "v1:" + db.Sealer.KeyID() + ":%"
	for _, table := range []string{"applications", "card_orders"} {
		for {
			var rows []struct {
				ID         uuid.UUID
				ClientData string
			}
			if err := db.Gorm.WithContext(ctx).Table(table).Select("id, client_data").
				Where("client_data NOT LIKE ?", current).Limit(resealBatch).Find(&rows).Error; err != nil {
				return rep, err
			}
			if len(rows) == 0 {
				break
			}
			err := NewUnitOfWork(db).Do(ctx, func(ctx context.Context) error {
				for _, r := range rows {
					plain, err := db.openText(r.ClientData, table, r.ID)
					if err != nil {
						return fmt.Errorf("%s %s: %w", table, r.ID, err)
					}
					sealed, err := db.sealText(plain, table, r.ID)
					if err != nil {
						return err
					}
					if err := db.conn(ctx).Table(table).Where("id = ?", r.ID).Update("client_data", sealed).Error; err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return rep, err
			}
			rep.ClientData += len(rows)
		}
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
	var partners []partnerModel
	if err := db.Gorm.WithContext(ctx).Where("webhook_secret <> '' AND webhook_secret NOT LIKE ?", current).Find(&partners).Error; err != nil {
		return rep, err
	}
	for _, p := range partners {
		plain, err := db.Sealer.Open(p.WebhookSecret, "")
		if err != nil {
			return rep, fmt.Errorf("partner %s webhook secret: %w", p.Name, err)
		}
		sealed, err := db.Sealer.Seal(plain, "")
		if err != nil {
			return rep, err
		}
		if err := db.Gorm.WithContext(ctx).Model(&partnerModel{}).Where("id = ?", p.ID).Update("webhook_secret", sealed).Error; err != nil {
			return rep, err
		}
		rep.WebhookSecrets++
	}
	return rep, nil
}
