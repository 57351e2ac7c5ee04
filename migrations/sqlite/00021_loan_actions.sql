-- +goose Up
-- The operators' loan actions (issue 35 §2): a written-off loan's moment; how a repayment's
-- money came (a card debit, the cash desk, a bank transfer) and whether it recovered a
-- written-off loan; a loan action proposal's terms.
ALTER TABLE loans ADD COLUMN written_off_at DATETIME;
ALTER TABLE repayments ADD COLUMN channel TEXT NOT NULL DEFAULT 'CARD';
ALTER TABLE repayments ADD COLUMN recovery BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE proposals ADD COLUMN amount INTEGER NOT NULL DEFAULT 0;
ALTER TABLE proposals ADD COLUMN payment_type TEXT NOT NULL DEFAULT '';
ALTER TABLE proposals ADD COLUMN channel TEXT NOT NULL DEFAULT '';
ALTER TABLE proposals ADD COLUMN months INTEGER NOT NULL DEFAULT 0;
-- The bank's accounts the operators' manual repayments arrive on.
INSERT INTO ledger_accounts (key, kind) VALUES ('CASH_DESK', 'CASH_DESK'), ('BANK_TRANSFERS', 'BANK_TRANSFERS');

-- +goose Down
DELETE FROM ledger_accounts WHERE key IN ('CASH_DESK', 'BANK_TRANSFERS');
ALTER TABLE proposals DROP COLUMN months;
ALTER TABLE proposals DROP COLUMN channel;
ALTER TABLE proposals DROP COLUMN payment_type;
ALTER TABLE proposals DROP COLUMN amount;
ALTER TABLE repayments DROP COLUMN recovery;
ALTER TABLE repayments DROP COLUMN channel;
ALTER TABLE loans DROP COLUMN written_off_at;
