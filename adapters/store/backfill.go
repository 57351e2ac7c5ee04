package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"
)

// BackfillFirstUnpaidDue fills loans.first_unpaid_due for the open loans stored before
// migration 00019 (each save keeps it since), in batches by id; it returns how many it set. A
// loan that owes nothing on its items keeps none. It may run while tiyin serves, and again.
func (db *DB) BackfillFirstUnpaidDue(ctx context.Context) (int, error) {
	n := 0
	after := uuid.Nil
	for {
		var batch []loanModel
		err := db.Gorm.WithContext(ctx).Where("closed_at IS NULL AND first_unpaid_due IS NULL AND id > ?", after).
			Order("id").Limit(500).Find(&batch).Error
		if err != nil {
			return n, interpretError(err, nil, nil)
		}
		for _, m := range batch {
			after = m.ID
			l, err := m.toDomain()
			if err != nil {
				return n, err
			}
			due, ok, err := l.FirstUnpaidDue()
			if err != nil {
				return n, fmt.Errorf("loan %s: %w", m.ID, err)
			}
			if !ok {
				continue
			}
			if err := db.Gorm.WithContext(ctx).Exec("UPDATE loans SET first_unpaid_due = ? WHERE id = ? AND first_unpaid_due IS NULL",
				due, m.ID).Error; err != nil {
				return n, interpretError(err, nil, nil)
			}
			n++
		}
		if len(batch) < 500 {
			return n, nil
		}
	}
}

// IndexPINFLs writes applications' PINFL blind index under the current key, in batches by id:
// with missing, only where there is none yet (applications stored before migration 00020;
// `migrate` runs it); otherwise wherever it is not current (`tiyin reseal`). It returns how
// many it wrote; without a data key it writes none.
func (db *DB) IndexPINFLs(ctx context.Context, missing bool) (int, error) {
	if db.Sealer == nil {
		return 0, nil
	}
	n := 0
	after := uuid.Nil
	for {
		var rows []struct {
			ID         uuid.UUID
			ClientData string
			PINFLIndex string
		}
		g := db.Gorm.WithContext(ctx).Table("applications").Select("id, client_data, pinfl_index").Where("id > ?", after)
		if missing {
			g = g.Where("pinfl_index = ''")
		}
		if err := g.Order("id").Limit(resealBatch).Find(&rows).Error; err != nil || len(rows) == 0 {
			return n, err
		}
		for _, r := range rows {
			after = r.ID
			cd, err := db.openClientData(r.ClientData, r.ID)
			if err != nil {
				return n, err
			}
			index := db.pinflIndex(cd.PINFL())
			if index == r.PINFLIndex {
				continue
			}
			if err := db.Gorm.WithContext(ctx).Exec("UPDATE applications SET pinfl_index = ? WHERE id = ?", index, r.ID).Error; err != nil {
				return n, interpretError(err, nil, nil)
			}
			n++
		}
	}
}
