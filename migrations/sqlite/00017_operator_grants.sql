-- +goose Up
-- Access an admin asks for in the console waits for a second admin (maker-checker): a new
-- operator, who may not log in before it is approved, or a higher role.
ALTER TABLE operators ADD COLUMN grant_role TEXT NOT NULL DEFAULT '';
ALTER TABLE operators ADD COLUMN grant_new_operator BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE operators ADD COLUMN grant_requested_by TEXT NOT NULL DEFAULT '';
ALTER TABLE operators ADD COLUMN grant_at DATETIME;

-- +goose Down
ALTER TABLE operators DROP COLUMN grant_at;
ALTER TABLE operators DROP COLUMN grant_requested_by;
ALTER TABLE operators DROP COLUMN grant_new_operator;
ALTER TABLE operators DROP COLUMN grant_role;
