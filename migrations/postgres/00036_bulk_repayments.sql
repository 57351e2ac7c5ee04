-- +goose Up
-- A file of manual repayments proposed at once (BULK_REPAYMENTS): the batch is the proposal's
-- object; each line keeps what it asks and the preview's outcome, and the OK ones are posted
-- when a second officer approves.
CREATE TABLE bulk_lines (
    batch_id     uuid NOT NULL,
    line         integer NOT NULL,
    id           uuid NOT NULL,
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
