-- +goose Up
-- The portfolio report (adapters/store/reports.go) sums each partner's principal written off
-- over the written-off loans alone, found through an index of their own, and their
-- MEMO_WRITTEN_OFF accounts (WRITTEN_OFF for a loan written off on the cash basis before)
-- through another, which replaces migration 00038's.
CREATE INDEX loans_written_off_idx ON loans (id) WHERE written_off_at IS NOT NULL;
CREATE INDEX ledger_accounts_principal_written_off_idx ON ledger_accounts (loan_id)
    WHERE kind IN ('WRITTEN_OFF', 'MEMO_WRITTEN_OFF');
DROP INDEX ledger_accounts_written_off_idx;

-- +goose Down
CREATE INDEX ledger_accounts_written_off_idx ON ledger_accounts (loan_id) WHERE kind = 'WRITTEN_OFF';
DROP INDEX ledger_accounts_principal_written_off_idx;
DROP INDEX loans_written_off_idx;
