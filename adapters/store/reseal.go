package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"
)

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
			err := db.inTx(ctx, func(ctx context.Context) error {
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
