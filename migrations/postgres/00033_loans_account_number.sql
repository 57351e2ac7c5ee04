-- +goose Up
-- Issue 47: the console finds a loan by its demand account's number (an operator's search, and
-- a closing balance's reconciliation break traced to its loan).
CREATE INDEX loans_account_number ON loans (account_number);

-- +goose Down
DROP INDEX loans_account_number;
