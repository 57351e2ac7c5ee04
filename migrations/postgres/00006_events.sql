-- +goose Up
-- A partner's webhook: where its events go, and the secret that signs them, sealed with
-- TIYIN_DATA_KEY (AES-GCM; the key id is part of the sealed text).
ALTER TABLE partners ADD COLUMN webhook_url text NOT NULL DEFAULT '';
ALTER TABLE partners ADD COLUMN webhook_secret text NOT NULL DEFAULT '';

-- The outbox: events recorded with the change that caused them, until the partner's webhook
-- took them. next_attempt_at is NULL once an event is delivered or given up.
CREATE TABLE events (
    id              uuid PRIMARY KEY,
    partner_id      uuid NOT NULL REFERENCES partners (id),
    type            text NOT NULL,
    body            text NOT NULL,
    created_at      timestamptz NOT NULL,
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz,
    delivered_at    timestamptz,
    last_error      text NOT NULL DEFAULT ''
);
CREATE INDEX events_due_idx ON events (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX events_created_idx ON events (created_at);

-- +goose Down
DROP TABLE events;
ALTER TABLE partners DROP COLUMN webhook_secret;
ALTER TABLE partners DROP COLUMN webhook_url;
