-- +goose Up
-- The partner's request that placed a card order: the log lines of its background work name it
-- (request_id, docs/operations.md "Logs").
ALTER TABLE card_orders ADD COLUMN request_id TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE card_orders DROP COLUMN request_id;
