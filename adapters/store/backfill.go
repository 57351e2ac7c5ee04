package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/ports"
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

// AuditFoldedBreaks writes to the audit log each balance break migration 00031 folded into its
// account's oldest open one (action break.fold, by "migration 00031", with the break's note):
// SQL migrations cannot chain an audit entry, which needs the data key. It writes each once,
// however often it runs, and returns how many it wrote; without a data key it writes none.
func (db *DB) AuditFoldedBreaks(ctx context.Context) (int, error) {
	if db.Sealer == nil {
		return 0, nil
	}
	var rows []struct {
		ID       uuid.UUID
		Note     string
		WorkedAt time.Time
	}
	err := db.Gorm.WithContext(ctx).Raw(`SELECT b.id, b.note, b.worked_at FROM reconciliation_breaks b
WHERE b.worked_by = ? AND NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.object = 'break:' || b.id AND a.action = 'break.fold')
ORDER BY b.id`, foldedBy).Scan(&rows).Error
	if err != nil {
		return 0, interpretError(err, nil, nil)
	}
	log := NewAuditLog(db)
	for i, r := range rows {
		if err := log.Append(ctx, ports.AuditEntry{At: r.WorkedAt, Operator: foldedBy, Action: "break.fold",
			Object: "break:" + r.ID.String(), Detail: r.Note}); err != nil {
			return i, err
		}
	}
	return len(rows), nil
}

// foldedBy is who migration 00031 names as having worked the breaks it folded.
const foldedBy = "migration 00031"
