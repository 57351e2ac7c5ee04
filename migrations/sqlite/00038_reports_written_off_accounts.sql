-- +goose Up
-- The portfolio report (adapters/store/reports.go) adds each partner's principal written off:
-- the loans' WRITTEN_OFF accounts, a few among every loan's accounts, read through this index.
CREATE INDEX ledger_accounts_written_off_idx ON ledger_accounts (loan_id) WHERE kind = 'WRITTEN_OFF';

-- +goose Down
DROP INDEX ledger_accounts_written_off_idx;
