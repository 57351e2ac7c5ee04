-- +goose Up
-- A batch of loan actions proposed at once: a file of manual repayments (BULK_REPAYMENTS), or
-- a waiver or write-off of the loans a queue's filter picked (BULK_LOAN_ACTIONS). The batch is
-- the proposal's object; each line keeps its action and the preview's outcome, and the OK ones
-- are applied when a second officer approves.
CREATE TABLE bulk_lines (
    batch_id     TEXT NOT NULL,
    line         INTEGER NOT NULL,
    id           TEXT NOT NULL,
    kind         TEXT NOT NULL DEFAULT 'MANUAL_REPAYMENT',
    contract     TEXT NOT NULL,
    loan_id      TEXT,
    amount       INTEGER NOT NULL,
    channel      TEXT NOT NULL,
    ref          TEXT NOT NULL,
    payment_type TEXT NOT NULL,
    refusal      TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (batch_id, line)
);

-- +goose Down
DROP TABLE bulk_lines;
