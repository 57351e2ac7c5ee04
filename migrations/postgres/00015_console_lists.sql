-- +goose NO TRANSACTION
-- +goose Up
-- The console's lists page by keyset on (when made, id), alone, within a status or within a
-- partner, and loans also by amount (adapters/store/lists.go). The status index gains the
-- creation time, so it serves both the dashboard's counts and the list of one status.
-- CONCURRENTLY: a bank's live tables keep taking writes while the indexes are built.
CREATE INDEX CONCURRENTLY IF NOT EXISTS applications_status_created_idx ON applications (status, created_at, id);
CREATE INDEX CONCURRENTLY IF NOT EXISTS applications_created_idx ON applications (created_at, id);
DROP INDEX CONCURRENTLY IF EXISTS applications_status_idx;
CREATE INDEX CONCURRENTLY IF NOT EXISTS loans_issued_idx ON loans (issued_at, id);
CREATE INDEX CONCURRENTLY IF NOT EXISTS loans_partner_issued_idx ON loans (partner_id, issued_at, id);
CREATE INDEX CONCURRENTLY IF NOT EXISTS loans_amount_idx ON loans (amount, id);

-- +goose Down
CREATE INDEX IF NOT EXISTS applications_status_idx ON applications (status);
DROP INDEX IF EXISTS loans_amount_idx;
DROP INDEX IF EXISTS loans_partner_issued_idx;
DROP INDEX IF EXISTS loans_issued_idx;
DROP INDEX IF EXISTS applications_created_idx;
DROP INDEX IF EXISTS applications_status_created_idx;
