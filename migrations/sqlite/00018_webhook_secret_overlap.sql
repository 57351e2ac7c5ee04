-- +goose Up
-- A webhook's new signing secret: the secret it replaces signs beside it for an overlap (24
-- hours unless told otherwise), so the partner moves to the new secret without refusing a
-- delivery. Kept sealed under the data key like the current one.
ALTER TABLE partners ADD COLUMN previous_webhook_secret TEXT NOT NULL DEFAULT '';
ALTER TABLE partners ADD COLUMN previous_webhook_secret_until DATETIME;

-- +goose Down
ALTER TABLE partners DROP COLUMN previous_webhook_secret_until;
ALTER TABLE partners DROP COLUMN previous_webhook_secret;
