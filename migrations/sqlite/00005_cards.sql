-- +goose Up
CREATE TABLE card_orders (
    id          TEXT PRIMARY KEY,
    partner_id  TEXT NOT NULL REFERENCES partners (id),
    external_id TEXT NOT NULL,
    phone       TEXT NOT NULL,
    client_data TEXT NOT NULL,
    status      TEXT NOT NULL,
    description TEXT NOT NULL,
    issuer_ref  TEXT NOT NULL DEFAULT '',
    card_id     TEXT,
    attempts    INTEGER NOT NULL DEFAULT 0,
    next_run_at DATETIME,
    created_at  DATETIME NOT NULL,
    updated_at  DATETIME NOT NULL,
    CONSTRAINT card_orders_partner_external_key UNIQUE (partner_id, external_id)
);
CREATE INDEX card_orders_due_idx ON card_orders (next_run_at) WHERE next_run_at IS NOT NULL;

-- No full card number is stored: the network's token, the masked number and, for attached
-- cards, a keyed hash of the number (to find a card attached before).
CREATE TABLE cards (
    id             TEXT PRIMARY KEY,
    partner_id     TEXT NOT NULL REFERENCES partners (id),
    origin         TEXT NOT NULL,
    network        TEXT NOT NULL,
    masked_pan     TEXT NOT NULL,
    pan_hash       BLOB,
    expiry         TEXT NOT NULL,
    phone          TEXT NOT NULL,
    pinfl          TEXT NOT NULL DEFAULT '',
    network_ref    TEXT NOT NULL DEFAULT '',
    token          TEXT NOT NULL DEFAULT '',
    status         TEXT NOT NULL,
    reason         TEXT NOT NULL,
    otp_hash       BLOB,
    otp_sent_at    DATETIME,
    otp_expires_at DATETIME,
    otp_attempts   INTEGER NOT NULL DEFAULT 0,
    created_at     DATETIME NOT NULL,
    updated_at     DATETIME NOT NULL
);
-- A partner attaches a card once while it is live, whatever runs concurrently.
CREATE UNIQUE INDEX cards_partner_pan_live_key ON cards (partner_id, pan_hash)
    WHERE pan_hash IS NOT NULL AND status IN ('ACTIVE', 'BLOCKED', 'UNVERIFIED');
CREATE INDEX cards_partner_pinfl_idx ON cards (partner_id, pinfl) WHERE origin = 'ISSUED';

-- What the sandbox SMS gateway sent (sandbox only).
CREATE TABLE sandbox_sms (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    phone   TEXT NOT NULL,
    TEXT    TEXT NOT NULL,
    code    TEXT NOT NULL,
    card    TEXT NOT NULL,
    sent_at DATETIME NOT NULL
);
CREATE INDEX sandbox_sms_phone_idx ON sandbox_sms (phone, id);

-- +goose Down
DROP TABLE sandbox_sms;
DROP TABLE cards;
DROP TABLE card_orders;
