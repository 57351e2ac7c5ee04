package store

import (
	"context"
	"time"

	"gorm.io/gorm/clause"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// NetworkJournal implements ports.NetworkJournal in the sandbox's own table: the sandbox
// network writes it in statements of its own, outside tiyin's transactions, as a network
// would in its own system.
type NetworkJournal struct{ db *DB }

// NewNetworkJournal returns the journal on db.
func NewNetworkJournal(db *DB) *NetworkJournal { return &NetworkJournal{db: db} }

type networkJournalModel struct {
	Seq     int64     `gorm:"column:seq;primaryKey;autoIncrement"`
	Kind    string    `gorm:"column:kind"`
	LineID  string    `gorm:"column:line_id"`
	Copy    int       `gorm:"column:copy"`
	Network string    `gorm:"column:network"`
	Amount  int64     `gorm:"column:amount"`
	At      time.Time `gorm:"column:at"`
	Status  string    `gorm:"column:status"`
}

func (networkJournalModel) TableName() string { return "sandbox_network_journal" }

// Record implements ports.NetworkJournal: a line already kept (its kind, id and copy) is not
// kept again.
func (j *NetworkJournal) Record(ctx context.Context, network domain.Network, l domain.StatementLine, copy int) error {
	m := networkJournalModel{Kind: string(l.Kind), LineID: l.ID, Copy: copy, Network: network.String(), Amount: l.Amount, At: l.At.UTC(),
		Status: string(l.Status)}
	err := j.db.Gorm.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&m).Error
	return interpretError(err, nil, nil)
}

// Lines implements ports.NetworkJournal.
func (j *NetworkJournal) Lines(ctx context.Context, q ports.StatementQuery) ([]domain.StatementLine, error) {
	from, to := dayBounds(q.Day)
	var ms []networkJournalModel
	err := j.db.Gorm.WithContext(ctx).Where("network = ? AND at >= ? AND at < ?", q.Network.String(), from, to).
		Order("seq").Find(&ms).Error
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]domain.StatementLine, len(ms))
	for i, m := range ms {
		out[i] = domain.StatementLine{ID: m.LineID, Kind: domain.LineKind(m.Kind), Amount: m.Amount, At: m.At.UTC(),
			Status: domain.LineStatus(m.Status)}
	}
	return out, nil
}
