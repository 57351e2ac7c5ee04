-- +goose Up
-- The portfolio report (adapters/store/reports.go) sums each partner's principal written off
-- in a statement of its own, over the written-off loans alone. Every write-off keeps the
-- accrual books now, so that principal is on the loan's MEMO_WRITTEN_OFF account (WRITTEN_OFF
-- for a loan written off on the cash basis before), and every loan on the books has a
-- MEMO_WRITTEN_OFF account, written off or not. The written-off loans are found through an
-- index of their own, and each one's two accounts through another, holding those two kinds
-- alone; it replaces the index of WRITTEN_OFF accounts of migration 00038, which the report no
-- longer reads. None of the indexed columns changes once written, so the balances' updates stay
-- HOT. On a large live database, build both first by hand with CREATE INDEX CONCURRENTLY under
-- the same names: IF NOT EXISTS then skips them here (docs/operations.md).
CREATE INDEX IF NOT EXISTS loans_written_off_idx ON loans (id) WHERE written_off_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS ledger_accounts_principal_written_off_idx ON ledger_accounts (loan_id)
    WHERE kind IN ('WRITTEN_OFF', 'MEMO_WRITTEN_OFF');
DROP INDEX IF EXISTS ledger_accounts_written_off_idx;

-- +goose Down
CREATE INDEX IF NOT EXISTS ledger_accounts_written_off_idx ON ledger_accounts (loan_id) WHERE kind = 'WRITTEN_OFF';
DROP INDEX IF EXISTS ledger_accounts_principal_written_off_idx;
DROP INDEX IF EXISTS loans_written_off_idx;
