-- +goose Up
CREATE TABLE card_orders (
    id          uuid PRIMARY KEY,
    partner_id  uuid NOT NULL REFERENCES partners (id),
    external_id text NOT NULL,
    phone       text NOT NULL,
    client_data text NOT NULL,
    status      text NOT NULL,
    description text NOT NULL,
    issuer_ref  text NOT NULL DEFAULT '',
    card_id     uuid,
    attempts    integer NOT NULL DEFAULT 0,
    next_run_at timestamptz,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    CONSTRAINT card_orders_partner_external_key UNIQUE (partner_id, external_id)
);
CREATE INDEX card_orders_due_idx ON card_orders (next_run_at) WHERE next_run_at IS NOT NULL;

-- No full card number is stored: the network's token, the masked number and, for attached
-- cards, a keyed hash of the number (to find a card attached before).
CREATE TABLE cards (
    id             uuid PRIMARY KEY,
    partner_id     uuid NOT NULL REFERENCES partners (id),
    origin         text NOT NULL,
    network        text NOT NULL,
    masked_pan     text NOT NULL,
    pan_hash       bytea,
    expiry         text NOT NULL,
    phone          text NOT NULL,
    pinfl          text NOT NULL DEFAULT '',
    network_ref    text NOT NULL DEFAULT '',
    token          text NOT NULL DEFAULT '',
    status         text NOT NULL,
    reason         text NOT NULL,
    otp_hash       bytea,
    otp_sent_at    timestamptz,
    otp_expires_at timestamptz,
    otp_attempts   integer NOT NULL DEFAULT 0,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL
);
-- A partner attaches a card once while it is live, whatever runs concurrently.
CREATE UNIQUE INDEX cards_partner_pan_live_key ON cards (partner_id, pan_hash)
    WHERE pan_hash IS NOT NULL AND status IN ('ACTIVE', 'BLOCKED', 'UNVERIFIED');
CREATE INDEX cards_partner_pinfl_idx ON cards (partner_id, pinfl) WHERE origin = 'ISSUED';

-- What the sandbox SMS gateway sent (sandbox only).
CREATE TABLE sandbox_sms (
    id      bigserial PRIMARY KEY,
    phone   text NOT NULL,
    text    text NOT NULL,
    code    text NOT NULL,
    card    text NOT NULL,
    sent_at timestamptz NOT NULL
);
CREATE INDEX sandbox_sms_phone_idx ON sandbox_sms (phone, id);

-- +goose Down
DROP TABLE sandbox_sms;
DROP TABLE cards;
DROP TABLE card_orders;
