package store

import (
	"context"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/tiyin/tiyin/domain"
)

// eraseBatch bounds the posting ids of one statement of a reset.
const eraseBatch = 500

// Reset implements ports.SandboxClock: in the request's transaction it erases every object of
// the partner (applications and their stage records, loans with their accounts and every posting that
// touched them, transfers, repayment requests, cards, card orders, events, SMS codes sent and
// counted, stored answers, the maker-checker proposals on them and the sandbox networks' and
// core banking's journal lines of its loans) and sets its clock back to the real time. The
// bank-wide accounts lose the entries of the erased postings, which were balanced, so the
// ledger stays balanced. The partner itself (its key, webhook, state) and the bank's own
// records (the audit log, reconciliation runs and breaks) stay.
func (c *SandboxClock) Reset(ctx context.Context, partner uuid.UUID) (time.Time, error) {
	err := c.db.inTx(ctx, func(ctx context.Context) error {
		if err := erasePartner(c.db.conn(ctx), partner); err != nil {
			return interpretError(err, nil, nil)
		}
		m, err := c.lock(ctx, partner)
		if err != nil {
			return err
		}
		m.OffsetNS, m.Resets = 0, m.Resets+1
		AfterCommit(ctx, func(context.Context) { c.merge(map[uuid.UUID]clockState{partner: m.state()}) })
		err = c.db.conn(ctx).Model(&clockModel{}).Where("partner_id = ?", partner).
			Updates(map[string]any{"offset_ns": 0, "resets": m.Resets}).Error
		return interpretError(err, nil, nil)
	})
	if err != nil {
		return time.Time{}, err
	}
	return time.Now(), nil
}

// erasePartner deletes the partner's objects, children before parents.
func erasePartner(db *gorm.DB, partner uuid.UUID) error {
	loans := db.Table("loans").Select("id").Where("partner_id = ?", partner)
	accounts := db.Table("loans").Select("account_number").Where("partner_id = ? AND account_number <> ''", partner)
	applications := db.Table("applications").Select("id").Where("partner_id = ?", partner)
	transfers := db.Table("transfers").Select("id").Where("partner_id = ?", partner)
	debits := db.Table("repayments").Select("debit_id").Where("partner_id = ? AND debit_id IS NOT NULL", partner)

	// Every posting that touched one of the partner's loan accounts, whole: its entries on the
	// bank-wide accounts go with it, and their balances with them.
	var postings []string
	if err := db.Table("ledger_entries").Distinct("ledger_entries.posting_id").
		Joins("JOIN ledger_accounts ON ledger_accounts.key = ledger_entries.account_key").
		Where("ledger_accounts.loan_id IN (?)", loans).Pluck("ledger_entries.posting_id", &postings).Error; err != nil {
		return err
	}
	for len(postings) > 0 {
		batch := postings[:min(eraseBatch, len(postings))]
		postings = postings[len(batch):]
		net := db.Table("ledger_entries").Select("COALESCE(SUM(debit - credit), 0)").
			Where("ledger_entries.account_key = ledger_accounts.key AND ledger_entries.posting_id IN ?", batch)
		if err := db.Table("ledger_accounts").Where("loan_id IS NULL").
			Update("balance", gorm.Expr("balance - (?)", net)).Error; err != nil {
			return err
		}
		if err := db.Exec("DELETE FROM ledger_entries WHERE posting_id IN ?", batch).Error; err != nil {
			return err
		}
		if err := db.Exec("DELETE FROM ledger_postings WHERE id IN ?", batch).Error; err != nil {
			return err
		}
	}
	steps := []struct {
		sql  string
		args []any
	}{
		{"DELETE FROM ledger_accounts WHERE loan_id IN (?)", []any{loans}},
		{"DELETE FROM sandbox_network_journal WHERE account IN (?) OR (kind = ? AND line_id IN (?))",
			[]any{accounts, string(domain.LineDebit), debits}},
		{"DELETE FROM sandbox_core_journal WHERE account IN (?)", []any{accounts}},
		{"DELETE FROM proposals WHERE object_id IN (?) OR object_id IN (?) OR object_id IN (?)", []any{loans, applications, transfers}},
		{"DELETE FROM repayments WHERE partner_id = ?", []any{partner}},
		{"DELETE FROM transfers WHERE partner_id = ?", []any{partner}},
		{"DELETE FROM application_steps WHERE application_id IN (?)", []any{applications}},
		{"DELETE FROM loans WHERE partner_id = ?", []any{partner}},
		{"DELETE FROM applications WHERE partner_id = ?", []any{partner}},
		{"DELETE FROM cards WHERE partner_id = ?", []any{partner}},
		{"DELETE FROM card_orders WHERE partner_id = ?", []any{partner}},
		{"DELETE FROM events WHERE partner_id = ?", []any{partner}},
		{"DELETE FROM sandbox_sms WHERE partner_id = ?", []any{partner}},
		{"DELETE FROM attach_code_counts WHERE scope = ? AND subject = ?", []any{domain.CodeCapPartner.String(), partner.String()}},
		{"DELETE FROM idempotency_records WHERE partner_id = ?", []any{partner}},
	}
	for _, s := range steps {
		if err := db.Exec(s.sql, s.args...).Error; err != nil {
			return err
		}
	}
	return nil
}
