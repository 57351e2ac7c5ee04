-- +goose Up
-- The console's lists page by keyset on (when made, id), alone, within a status or within a
-- partner, and loans also by amount (adapters/store/lists.go). The status index gains the
-- creation time, so it serves both the dashboard's counts and the list of one status.
CREATE INDEX applications_status_created_idx ON applications (status, created_at, id);
CREATE INDEX applications_created_idx ON applications (created_at, id);
DROP INDEX applications_status_idx;
CREATE INDEX loans_issued_idx ON loans (issued_at, id);
CREATE INDEX loans_partner_issued_idx ON loans (partner_id, issued_at, id);
CREATE INDEX loans_amount_idx ON loans (amount, id);

-- +goose Down
CREATE INDEX applications_status_idx ON applications (status);
DROP INDEX loans_amount_idx;
DROP INDEX loans_partner_issued_idx;
DROP INDEX loans_issued_idx;
DROP INDEX applications_created_idx;
DROP INDEX applications_status_created_idx;
