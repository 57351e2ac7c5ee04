-- +goose Up
-- repayments counts posted repayments (a check quotes it to detect a change); book is the
-- repayment book (schedule with payments applied) as JSON, null before the first repayment.
ALTER TABLE loans ADD COLUMN repayments integer NOT NULL DEFAULT 0;
ALTER TABLE loans ADD COLUMN closed_at timestamptz;
ALTER TABLE loans ADD COLUMN book text;

CREATE TABLE repayments (
    id                      uuid PRIMARY KEY,
    partner_id              uuid NOT NULL REFERENCES partners (id),
    loan_id                 uuid NOT NULL REFERENCES loans (id),
    contract_number         text NOT NULL,
    loan_version            integer NOT NULL,
    quote_not_due_principal bigint NOT NULL,
    quote_overdue_principal bigint NOT NULL,
    quote_overdue_interest  bigint NOT NULL,
    quote_term_interest     bigint NOT NULL,
    quote_penalty           bigint NOT NULL,
    account_balance         bigint NOT NULL,
    checked_at              timestamptz NOT NULL,
    expire_at               timestamptz NOT NULL,
    -- the payment, once posted
    payment_type            text,
    amount                  bigint CHECK (amount > 0),
    debit_id                text,
    network                 text,
    external_id             uuid,
    transaction_id          uuid,
    paid_at                 timestamptz,
    principal               bigint,
    interest                bigint,
    penalty                 bigint
);
-- A card debit pays one repayment at most, whatever runs concurrently.
CREATE UNIQUE INDEX repayments_debit_key ON repayments (network, debit_id) WHERE debit_id IS NOT NULL;
CREATE INDEX repayments_loan_paid_idx ON repayments (loan_id, paid_at) WHERE paid_at IS NOT NULL;

-- +goose Down
DROP TABLE repayments;
ALTER TABLE loans DROP COLUMN book;
ALTER TABLE loans DROP COLUMN closed_at;
ALTER TABLE loans DROP COLUMN repayments;
