-- +goose Up
CREATE TABLE partners (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    key_hash   BLOB NOT NULL UNIQUE,
    disabled   BOOLEAN NOT NULL DEFAULT false,
    created_at DATETIME NOT NULL
);

CREATE TABLE applications (
    id                        TEXT PRIMARY KEY,
    partner_id                TEXT NOT NULL REFERENCES partners (id),
    external_id               TEXT NOT NULL,
    phone                     TEXT NOT NULL,
    client_data               TEXT NOT NULL,
    status                    TEXT NOT NULL,
    task_name                 TEXT NOT NULL,
    task_status               TEXT NOT NULL,
    task_error                TEXT NOT NULL DEFAULT '',
    task_message              TEXT NOT NULL DEFAULT '',
    pre_amount_limit          INTEGER,
    pre_percent               INTEGER,
    pre_month_period          INTEGER,
    offer_amount              INTEGER,
    offer_percent             INTEGER,
    offer_month_period        INTEGER,
    offer_backup_phone        TEXT,
    call_centre_phone         TEXT NOT NULL DEFAULT '',
    account_number            TEXT NOT NULL DEFAULT '',
    core_ref                  TEXT NOT NULL DEFAULT '',
    attempts                  INTEGER NOT NULL DEFAULT 0,
    next_run_at               DATETIME,
    pending_since             DATETIME,
    verification_requested_at DATETIME,
    created_at                DATETIME NOT NULL,
    updated_at                DATETIME NOT NULL,
    UNIQUE (partner_id, external_id)
);
CREATE INDEX applications_next_run_at_idx ON applications (next_run_at)
    WHERE next_run_at IS NOT NULL;
CREATE INDEX applications_pending_since_idx ON applications (pending_since)
    WHERE status = 'PENDING';
CREATE INDEX applications_awaiting_call_idx ON applications (verification_requested_at)
    WHERE status = 'PENDING' AND task_name = 'CLIENT_VERIFICATION' AND task_status = 'PENDING';

CREATE TABLE loans (
    id              TEXT PRIMARY KEY,
    application_id  TEXT NOT NULL UNIQUE REFERENCES applications (id),
    partner_id      TEXT NOT NULL REFERENCES partners (id),
    amount          INTEGER NOT NULL CHECK (amount > 0),
    month_period    INTEGER NOT NULL CHECK (month_period BETWEEN 1 AND 36),
    rate            INTEGER NOT NULL CHECK (rate BETWEEN 0 AND 9999),
    account_number  TEXT NOT NULL,
    contract_number TEXT,
    issued_at       DATETIME NOT NULL
);
CREATE UNIQUE INDEX loans_contract_number_key ON loans (contract_number)
    WHERE contract_number IS NOT NULL;

CREATE TABLE idempotency_records (
    partner_id  TEXT NOT NULL,
    key         TEXT NOT NULL,
    endpoint    TEXT NOT NULL,
    fingerprint BLOB NOT NULL,
    http_status INTEGER NOT NULL DEFAULT 0,
    body        BLOB,
    created_at  DATETIME NOT NULL,
    PRIMARY KEY (partner_id, key)
);
CREATE INDEX idempotency_records_created_at_idx ON idempotency_records (created_at);

CREATE TABLE sandbox_clock (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    offset_ns INTEGER NOT NULL CHECK (offset_ns >= 0)
);

-- +goose Down
DROP TABLE sandbox_clock;
DROP TABLE idempotency_records;
DROP TABLE loans;
DROP TABLE applications;
DROP TABLE partners;
