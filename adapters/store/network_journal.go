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
	Account string    `gorm:"column:account"`
}

func (networkJournalModel) TableName() string { return "sandbox_network_journal" }

// Record implements ports.NetworkJournal: a line already kept (its kind, id and copy) is not
// kept again.
func (j *NetworkJournal) Record(ctx context.Context, network domain.Network, l domain.StatementLine, account string, copy int) error {
	m := networkJournalModel{Kind: string(l.Kind), LineID: l.ID, Copy: copy, Network: network.String(), Amount: l.Amount, At: l.At.UTC(),
		Status: string(l.Status), Account: account}
	err := j.db.Gorm.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&m).Error
	return interpretError(err, nil, nil)
}

// Lines implements ports.NetworkJournal.
func (j *NetworkJournal) Lines(ctx context.Context, q ports.StatementQuery) ([]domain.StatementLine, error) {
	from, to := domain.BusinessDay(q.Day)
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

type coreJournalModel struct {
	Ref     string    `gorm:"column:ref;primaryKey"`
	Account string    `gorm:"column:account"`
	Amount  int64     `gorm:"column:amount"`
	At      time.Time `gorm:"column:at"`
}

func (coreJournalModel) TableName() string { return "sandbox_core_journal" }

// Disburse implements ports.NetworkJournal: a disbursement already kept (its ref) is not kept
// again.
func (j *NetworkJournal) Disburse(ctx context.Context, ref, account string, amount int64, at time.Time) error {
	m := coreJournalModel{Ref: ref, Account: account, Amount: amount, At: at.UTC()}
	err := j.db.Gorm.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&m).Error
	return interpretError(err, nil, nil)
}

// Balances implements ports.NetworkJournal: one grouped statement over both journals.
func (j *NetworkJournal) Balances(ctx context.Context, day time.Time) ([]domain.AccountBalance, error) {
	_, end := domain.BusinessDay(day)
	var rows []struct {
		Account string
		Balance int64
	}
	err := j.db.Gorm.WithContext(ctx).Raw(`SELECT account, SUM(amount) AS balance FROM (
  SELECT account, amount FROM sandbox_core_journal WHERE at < ?
  UNION ALL
  SELECT account, -amount FROM sandbox_network_journal
  WHERE kind = ? AND status = ? AND copy = 0 AND account <> '' AND at < ?
) moves GROUP BY account ORDER BY account`, end, string(domain.LineCredit), string(domain.LineDone), end).Scan(&rows).Error
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]domain.AccountBalance, len(rows))
	for i, r := range rows {
		out[i] = domain.AccountBalance{Account: r.Account, Kind: domain.LineDemand, Balance: r.Balance}
	}
	return out, nil
}
