-- +goose Up
-- The daily close rewrites every open loan's row and a few of its accounts' balances. A page
-- kept part empty lets the new version of a row go on its own page (a heap-only update): no
-- index takes a new entry, and the versions of the day before are reclaimed as the page is
-- read, without a vacuum. Pages written from now on keep the room; those written before fill
-- it as their rows move.
ALTER TABLE loans SET (fillfactor = 60);
ALTER TABLE ledger_accounts SET (fillfactor = 85);
-- ledger_entries_account_posting_idx (account_key, posting_id) finds an account's entries as
-- well: the narrower index was one more insert for every entry.
DROP INDEX IF EXISTS ledger_entries_account_idx;

-- +goose Down
CREATE INDEX IF NOT EXISTS ledger_entries_account_idx ON ledger_entries (account_key);
ALTER TABLE ledger_accounts RESET (fillfactor);
ALTER TABLE loans RESET (fillfactor);
