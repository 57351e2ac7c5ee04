-- +goose Up
-- The console's lists page by keyset on (when made, id) (adapters/store/lists.go).
-- Applications: alone or within a status (the status index gains the creation time, so it
-- serves both the dashboard's counts and the list of one status); loans: alone, within a
-- partner, and by amount; transfers, repayment requests, card orders and cards: by time
-- alone (a filter on status or partner reads that index and skips what it does not select).
CREATE INDEX applications_status_created_idx ON applications (status, created_at, id);
CREATE INDEX applications_created_idx ON applications (created_at, id);
DROP INDEX applications_status_idx;
CREATE INDEX loans_issued_idx ON loans (issued_at, id);
CREATE INDEX loans_partner_issued_idx ON loans (partner_id, issued_at, id);
CREATE INDEX loans_amount_idx ON loans (amount, id);
CREATE INDEX transfers_created_idx ON transfers (created_at, id);
CREATE INDEX repayments_checked_idx ON repayments (checked_at, id);
CREATE INDEX card_orders_created_idx ON card_orders (created_at, id);
CREATE INDEX cards_created_idx ON cards (created_at, id);

-- +goose Down
DROP INDEX cards_created_idx;
DROP INDEX card_orders_created_idx;
DROP INDEX repayments_checked_idx;
DROP INDEX transfers_created_idx;
CREATE INDEX applications_status_idx ON applications (status);
DROP INDEX loans_amount_idx;
DROP INDEX loans_partner_issued_idx;
DROP INDEX loans_issued_idx;
DROP INDEX applications_created_idx;
DROP INDEX applications_status_created_idx;
