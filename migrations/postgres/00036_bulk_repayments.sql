-- +goose Up
-- A batch of loan actions proposed at once: a file of manual repayments (BULK_REPAYMENTS), or
-- a waiver or write-off of the loans a queue's filter picked (BULK_LOAN_ACTIONS). The batch is
-- the proposal's object; each line keeps its action and the preview's outcome, and the OK ones
-- are applied when a second officer approves.
CREATE TABLE bulk_lines (
    batch_id     uuid NOT NULL,
    line         integer NOT NULL,
    id           uuid NOT NULL,
    kind         text NOT NULL DEFAULT 'MANUAL_REPAYMENT',
    contract     text NOT NULL,
    loan_id      uuid,
    amount       bigint NOT NULL,
    channel      text NOT NULL,
    ref          text NOT NULL,
    payment_type text NOT NULL,
    refusal      text NOT NULL DEFAULT '',
    PRIMARY KEY (batch_id, line)
);

-- +goose Down
DROP TABLE bulk_lines;
