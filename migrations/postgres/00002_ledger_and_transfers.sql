-- +goose Up
ALTER TABLE loans ADD COLUMN service_rate bigint NOT NULL DEFAULT 0 CHECK (service_rate BETWEEN 0 AND 9999);
ALTER TABLE loans ADD COLUMN penalty_daily bigint NOT NULL DEFAULT 0 CHECK (penalty_daily BETWEEN 0 AND 9999);
ALTER TABLE loans ADD COLUMN schedule_type text NOT NULL DEFAULT 'ANNUITY';

-- balance is debits minus credits. Demand and hold accounts are credit-normal and may never be
-- debited beyond their credits: the floor holds whatever runs concurrently.
CREATE TABLE ledger_accounts (
    key     text PRIMARY KEY,
    kind    text NOT NULL,
    loan_id uuid REFERENCES loans (id),
    balance bigint NOT NULL DEFAULT 0,
    CONSTRAINT ledger_accounts_floor CHECK (kind NOT IN ('DEMAND', 'HOLD') OR balance <= 0)
);
INSERT INTO ledger_accounts (key, kind) VALUES
    ('CARD_SETTLEMENT', 'CARD_SETTLEMENT'), ('REPAYMENT_CLEARING', 'REPAYMENT_CLEARING'),
    ('INTEREST_INCOME', 'INTEREST_INCOME'), ('SERVICE_INCOME', 'SERVICE_INCOME'),
    ('PENALTY_INCOME', 'PENALTY_INCOME');

CREATE TABLE ledger_postings (
    id         uuid PRIMARY KEY,
    kind       text NOT NULL,
    ref        uuid NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX ledger_postings_ref_idx ON ledger_postings (ref);

CREATE TABLE ledger_entries (
    posting_id  uuid NOT NULL REFERENCES ledger_postings (id),
    account_key text NOT NULL REFERENCES ledger_accounts (key),
    debit       bigint NOT NULL,
    credit      bigint NOT NULL,
    CONSTRAINT ledger_entries_one_side CHECK ((debit > 0 AND credit = 0) OR (credit > 0 AND debit = 0))
);
CREATE INDEX ledger_entries_posting_idx ON ledger_entries (posting_id);
CREATE INDEX ledger_entries_account_idx ON ledger_entries (account_key);

CREATE TABLE transfers (
    id             uuid PRIMARY KEY,
    partner_id     uuid NOT NULL REFERENCES partners (id),
    application_id uuid NOT NULL REFERENCES applications (id),
    loan_id        uuid NOT NULL REFERENCES loans (id),
    external_id    uuid NOT NULL,
    masked_pan     text NOT NULL,
    network        text NOT NULL,
    card_holder    text NOT NULL,
    amount         bigint NOT NULL CHECK (amount > 0),
    credit_token   text NOT NULL,
    status         text NOT NULL,
    message        text NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL,
    finished_at    timestamptz,
    updated_at     timestamptz NOT NULL,
    CONSTRAINT transfers_partner_external_key UNIQUE (partner_id, external_id)
);
CREATE INDEX transfers_loan_new_idx ON transfers (loan_id, created_at) WHERE status = 'NEW';
CREATE INDEX transfers_new_idx ON transfers (created_at) WHERE status = 'NEW';
CREATE INDEX transfers_processing_idx ON transfers (updated_at) WHERE status = 'PROCESSING';

-- +goose Down
DROP TABLE transfers;
DROP TABLE ledger_entries;
DROP TABLE ledger_postings;
DROP TABLE ledger_accounts;
ALTER TABLE loans DROP COLUMN schedule_type;
ALTER TABLE loans DROP COLUMN penalty_daily;
ALTER TABLE loans DROP COLUMN service_rate;
