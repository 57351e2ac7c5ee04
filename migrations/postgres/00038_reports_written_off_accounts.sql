-- +goose Up
-- The portfolio report (adapters/store/reports.go) adds each partner's principal written off:
-- the loans' WRITTEN_OFF accounts, a few among every loan's accounts. Read through this index,
-- they no longer cost a pass over all the ledger's accounts (at 100 000 loans, 300 000 rows
-- read for none). Neither column changes once written, so the index keeps the balances'
-- updates HOT. On a large live database, build it first by hand with CREATE INDEX
-- CONCURRENTLY under the same name: IF NOT EXISTS then skips it here (docs/operations.md).
CREATE INDEX IF NOT EXISTS ledger_accounts_written_off_idx ON ledger_accounts (loan_id) WHERE kind = 'WRITTEN_OFF';

-- +goose Down
DROP INDEX IF EXISTS ledger_accounts_written_off_idx;
