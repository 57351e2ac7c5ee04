-- +goose Up
-- The partner's request that started an application's background work (registration,
-- issuance): the log lines of that work name it (request_id, docs/operations.md "Logs").
ALTER TABLE applications ADD COLUMN request_id TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE applications DROP COLUMN request_id;
