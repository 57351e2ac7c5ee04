-- +goose Up
-- The console's lists page by keyset on (when made, id) (adapters/store/lists.go).
-- Applications: alone or within a status (the status index gains the creation time, so it
-- serves both the dashboard's counts and the list of one status); loans: alone, within a
-- partner, and by amount; transfers, repayment requests, card orders and cards: by time
-- alone (a filter on status or partner reads that index and skips what it does not select).
-- The indexes are built in the migration's transaction, which holds off writes to each table
-- while its index is built. On a large live database, build them first by hand with CREATE
-- INDEX CONCURRENTLY under the same names: IF NOT EXISTS then skips them here
-- (docs/operations.md). CONCURRENTLY is not used here: it waits for every older transaction in
-- the database, so one long report would stop every node's start.
CREATE INDEX IF NOT EXISTS applications_status_created_idx ON applications (status, created_at, id);
CREATE INDEX IF NOT EXISTS applications_created_idx ON applications (created_at, id);
DROP INDEX IF EXISTS applications_status_idx;
CREATE INDEX IF NOT EXISTS loans_issued_idx ON loans (issued_at, id);
CREATE INDEX IF NOT EXISTS loans_partner_issued_idx ON loans (partner_id, issued_at, id);
CREATE INDEX IF NOT EXISTS loans_amount_idx ON loans (amount, id);
CREATE INDEX IF NOT EXISTS transfers_created_idx ON transfers (created_at, id);
CREATE INDEX IF NOT EXISTS repayments_checked_idx ON repayments (checked_at, id);
CREATE INDEX IF NOT EXISTS card_orders_created_idx ON card_orders (created_at, id);
CREATE INDEX IF NOT EXISTS cards_created_idx ON cards (created_at, id);

-- +goose Down
DROP INDEX IF EXISTS cards_created_idx;
DROP INDEX IF EXISTS card_orders_created_idx;
DROP INDEX IF EXISTS repayments_checked_idx;
DROP INDEX IF EXISTS transfers_created_idx;
CREATE INDEX IF NOT EXISTS applications_status_idx ON applications (status);
DROP INDEX IF EXISTS loans_amount_idx;
DROP INDEX IF EXISTS loans_partner_issued_idx;
DROP INDEX IF EXISTS loans_issued_idx;
DROP INDEX IF EXISTS applications_created_idx;
DROP INDEX IF EXISTS applications_status_created_idx;
