-- +goose Up
-- repayments counts posted repayments (a check quotes it to detect a change); book is the
-- repayment book (schedule with payments applied) as JSON, null before the first repayment.
ALTER TABLE loans ADD COLUMN repayments INTEGER NOT NULL DEFAULT 0;
ALTER TABLE loans ADD COLUMN closed_at DATETIME;
ALTER TABLE loans ADD COLUMN book TEXT;

CREATE TABLE repayments (
    id                      TEXT PRIMARY KEY,
    partner_id              TEXT NOT NULL REFERENCES partners (id),
    loan_id                 TEXT NOT NULL REFERENCES loans (id),
    contract_number         TEXT NOT NULL,
    loan_version            INTEGER NOT NULL,
    quote_not_due_principal INTEGER NOT NULL,
    quote_overdue_principal INTEGER NOT NULL,
    quote_overdue_interest  INTEGER NOT NULL,
    quote_term_interest     INTEGER NOT NULL,
    quote_penalty           INTEGER NOT NULL,
    account_balance         INTEGER NOT NULL,
    checked_at              DATETIME NOT NULL,
    expire_at               DATETIME NOT NULL,
    -- the payment, once posted
    payment_type            TEXT,
    amount                  INTEGER CHECK (amount > 0),
    debit_id                TEXT,
    network                 TEXT,
    external_id             TEXT,
    transaction_id          TEXT,
    paid_at                 DATETIME,
    principal               INTEGER,
    interest                INTEGER,
    penalty                 INTEGER
);
-- A card debit pays one repayment at most, whatever runs concurrently.
CREATE UNIQUE INDEX repayments_debit_key ON repayments (network, debit_id) WHERE debit_id IS NOT NULL;
CREATE INDEX repayments_loan_paid_idx ON repayments (loan_id, paid_at) WHERE paid_at IS NOT NULL;

-- +goose Down
DROP TABLE repayments;
ALTER TABLE loans DROP COLUMN book;
ALTER TABLE loans DROP COLUMN closed_at;
ALTER TABLE loans DROP COLUMN repayments;
