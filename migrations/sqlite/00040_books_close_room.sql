-- +goose Up
-- ledger_entries_account_posting_idx (account_key, posting_id) finds an account's entries as
-- well: the narrower index was one more insert for every entry. (PostgreSQL also keeps room in
-- the pages of loans and ledger_accounts for the daily close; SQLite has no such setting.)
DROP INDEX IF EXISTS ledger_entries_account_idx;

-- +goose Down
CREATE INDEX IF NOT EXISTS ledger_entries_account_idx ON ledger_entries (account_key);
