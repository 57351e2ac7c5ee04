-- +goose Up
-- A file of manual repayments proposed at once (BULK_REPAYMENTS): the batch is the proposal's
-- object; each line keeps what it asks and the preview's outcome, and the OK ones are posted
-- when a second officer approves.
CREATE TABLE bulk_lines (
    batch_id     TEXT NOT NULL,
    line         INTEGER NOT NULL,
    id           TEXT NOT NULL,
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
