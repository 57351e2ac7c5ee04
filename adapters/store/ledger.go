package store

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ledgerAccountModel is an account's row; as JSON, what opens it (books.go's
// openBooksAccounts).
type ledgerAccountModel struct {
	Key     string     `gorm:"column:key;primaryKey" json:"key"`
	Kind    string     `gorm:"column:kind" json:"kind"`
	LoanID  *uuid.UUID `gorm:"column:loan_id" json:"loan_id"`
	Balance int64      `gorm:"column:balance" json:"-"`
}

func (ledgerAccountModel) TableName() string { return "ledger_accounts" }

// LedgerRepository implements ports.LedgerRepository.
type LedgerRepository struct{ db *DB }

// NewLedgerRepository returns the ledger on db.
func NewLedgerRepository(db *DB) *LedgerRepository { return &LedgerRepository{db: db} }

var ledgerFloor = constraintErrors{"ledger_accounts_floor": domain.ErrInsufficientFunds}

// OpenLoanAccounts implements ports.LedgerRepository.
func (r *LedgerRepository) OpenLoanAccounts(ctx context.Context, loanID uuid.UUID) error {
	id := loanID
	rows := make([]ledgerAccountModel, 0, len(domain.IssueAccountKinds))
	for _, k := range domain.IssueAccountKinds {
		rows = append(rows, ledgerAccountModel{Key: domain.LoanAccount(k, loanID).Key(), Kind: k.String(), LoanID: &id})
	}
	return interpretError(r.db.conn(ctx).Create(&rows).Error, nil, nil)
}

// OpenAccount implements ports.LedgerRepository.
func (r *LedgerRepository) OpenAccount(ctx context.Context, a domain.Account) error {
	m := ledgerAccountModel{Key: a.Key(), Kind: a.Kind.String()}
	if a.LoanID != uuid.Nil {
		id := a.LoanID
		m.LoanID = &id
	}
	return interpretError(r.db.conn(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&m).Error, nil, nil)
}

// Post implements ports.LedgerRepository. Accounts are updated in key order, so two postings
// touching the same accounts never deadlock; the floor is a CHECK constraint, so no demand
// account goes below zero whatever runs concurrently.
func (r *LedgerRepository) Post(ctx context.Context, p domain.Posting) error {
	entries := slices.Clone(p.Entries)
	slices.SortFunc(entries, func(a, b domain.Entry) int { return strings.Compare(a.Account.Key(), b.Account.Key()) })
	for _, e := range entries {
		err := r.db.write(ctx, false, func(g *gorm.DB) *gorm.DB {
			return g.Model(&ledgerAccountModel{}).Where("key = ?", e.Account.Key()).
				Update("balance", gormExpr("balance + ?", e.Debit-e.Credit))
		}, func(rows int64, err error) error {
			if err != nil {
				return interpretError(err, nil, ledgerFloor)
			}
			if rows != 1 {
				return errNoAccount(e.Account.Key())
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	posting := postingModel{ID: p.ID, Kind: p.Kind.String(), Ref: p.Ref, CreatedAt: p.At.UTC()}
	if err := r.db.write(ctx, true, func(g *gorm.DB) *gorm.DB { return g.Create(&posting) }, check(nil)); err != nil {
		return err
	}
	rows := make([]entryModel, 0, len(p.Entries))
	for _, e := range p.Entries {
		rows = append(rows, entryModel{PostingID: p.ID, AccountKey: e.Account.Key(), Debit: e.Debit, Credit: e.Credit})
	}
	return r.db.write(ctx, true, func(g *gorm.DB) *gorm.DB { return g.Create(&rows) }, check(nil))
}

type postingModel struct {
	ID        uuid.UUID `gorm:"column:id;primaryKey"`
	Kind      string    `gorm:"column:kind"`
	Ref       uuid.UUID `gorm:"column:ref"`
	CreatedAt time.Time `gorm:"column:created_at;autoCreateTime:false"`
}

func (postingModel) TableName() string { return "ledger_postings" }

type entryModel struct {
	PostingID  uuid.UUID `gorm:"column:posting_id"`
	AccountKey string    `gorm:"column:account_key"`
	Debit      int64     `gorm:"column:debit"`
	Credit     int64     `gorm:"column:credit"`
}

func (entryModel) TableName() string { return "ledger_entries" }

// Balance implements ports.LedgerRepository.
func (r *LedgerRepository) Balance(ctx context.Context, a domain.Account) (int64, error) {
	var m ledgerAccountModel
	if err := r.db.conn(ctx).Where("key = ?", a.Key()).Take(&m).Error; err != nil {
		return 0, interpretError(err, errNoAccount(a.Key()), nil)
	}
	return m.Balance, nil
}

// Check implements ports.LedgerRepository.
func (r *LedgerRepository) Check(ctx context.Context) (ports.LedgerCheck, error) {
	db := r.db.conn(ctx)
	var c ports.LedgerCheck
	var sums struct{ Debits, Credits int64 }
	if err := db.Raw("SELECT COALESCE(SUM(debit), 0) AS debits, COALESCE(SUM(credit), 0) AS credits FROM ledger_entries").Scan(&sums).Error; err != nil {
		return c, interpretError(err, nil, nil)
	}
	c.Debits, c.Credits = sums.Debits, sums.Credits
	if err := db.Raw(`SELECT CAST(posting_id AS TEXT) FROM ledger_entries GROUP BY posting_id
		HAVING SUM(debit) <> SUM(credit)`).Scan(&c.Unbalanced).Error; err != nil {
		return c, interpretError(err, nil, nil)
	}
	if err := db.Raw(`SELECT a.key FROM ledger_accounts a LEFT JOIN
		(SELECT account_key, SUM(debit - credit) AS net FROM ledger_entries GROUP BY account_key) e
		ON e.account_key = a.key WHERE a.balance <> COALESCE(e.net, 0)`).Scan(&c.Drifted).Error; err != nil {
		return c, interpretError(err, nil, nil)
	}
	if err := db.Raw(`SELECT key FROM ledger_accounts WHERE kind IN ('DEMAND', 'HOLD') AND balance > 0`).Scan(&c.BelowFloor).Error; err != nil {
		return c, interpretError(err, nil, nil)
	}
	return c, nil
}
