-- +goose Up
CREATE TABLE partners (
    id         uuid PRIMARY KEY,
    name       text NOT NULL,
    key_hash   bytea NOT NULL,
    disabled   boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL,
    CONSTRAINT partners_name_key UNIQUE (name),
    CONSTRAINT partners_key_hash_key UNIQUE (key_hash)
);

CREATE TABLE applications (
    id                        uuid PRIMARY KEY,
    partner_id                uuid NOT NULL REFERENCES partners (id),
    external_id               uuid NOT NULL,
    phone                     text NOT NULL,
    client_data               text NOT NULL,
    status                    text NOT NULL,
    task_name                 text NOT NULL,
    task_status               text NOT NULL,
    task_error                text NOT NULL DEFAULT '',
    task_message              text NOT NULL DEFAULT '',
    pre_amount_limit          bigint,
    pre_percent               bigint,
    pre_month_period          integer,
    offer_amount              bigint,
    offer_percent             bigint,
    offer_month_period        integer,
    offer_backup_phone        text,
    call_centre_phone         text NOT NULL DEFAULT '',
    account_number            text NOT NULL DEFAULT '',
    core_ref                  text NOT NULL DEFAULT '',
    attempts                  integer NOT NULL DEFAULT 0,
    next_run_at               timestamptz,
    pending_since             timestamptz,
    verification_requested_at timestamptz,
    created_at                timestamptz NOT NULL,
    updated_at                timestamptz NOT NULL,
    CONSTRAINT applications_partner_external_key UNIQUE (partner_id, external_id)
);
CREATE INDEX applications_next_run_at_idx ON applications (next_run_at)
    WHERE next_run_at IS NOT NULL;
CREATE INDEX applications_pending_since_idx ON applications (pending_since)
    WHERE status = 'PENDING';
CREATE INDEX applications_awaiting_call_idx ON applications (verification_requested_at)
    WHERE status = 'PENDING' AND task_name = 'CLIENT_VERIFICATION' AND task_status = 'PENDING';

CREATE TABLE loans (
    id              uuid PRIMARY KEY,
    application_id  uuid NOT NULL REFERENCES applications (id),
    partner_id      uuid NOT NULL REFERENCES partners (id),
    amount          bigint NOT NULL CHECK (amount > 0),
    month_period    integer NOT NULL CHECK (month_period BETWEEN 1 AND 36),
    rate            bigint NOT NULL CHECK (rate BETWEEN 0 AND 9999),
    account_number  text NOT NULL,
    contract_number text,
    issued_at       timestamptz NOT NULL,
    CONSTRAINT loans_application_key UNIQUE (application_id)
);
CREATE UNIQUE INDEX loans_contract_number_key ON loans (contract_number)
    WHERE contract_number IS NOT NULL;

CREATE TABLE idempotency_records (
    partner_id  uuid NOT NULL,
    key         text NOT NULL,
    endpoint    text NOT NULL,
    fingerprint bytea NOT NULL,
    http_status integer NOT NULL DEFAULT 0,
    body        bytea,
    created_at  timestamptz NOT NULL,
    PRIMARY KEY (partner_id, key)
);
CREATE INDEX idempotency_records_created_at_idx ON idempotency_records (created_at);

CREATE TABLE sandbox_clock (
    id        integer PRIMARY KEY CHECK (id = 1),
    offset_ns bigint NOT NULL CHECK (offset_ns >= 0)
);

-- +goose Down
DROP TABLE sandbox_clock;
DROP TABLE idempotency_records;
DROP TABLE loans;
DROP TABLE applications;
DROP TABLE partners;
