-- +goose Up
-- Core banking's closing balances (docs/reconciliation.md, "Balances"): a transfer keeps the
-- demand account it draws on, so its credit order names it; the sandbox core banking keeps its
-- own journal of disbursements, and reads the sandbox network's credits by that account.
ALTER TABLE transfers ADD COLUMN account_number TEXT NOT NULL DEFAULT '';
UPDATE /* migration: once */ transfers SET account_number = (SELECT loans.account_number FROM loans WHERE loans.id = transfers.loan_id)
    WHERE EXISTS (SELECT 1 FROM loans WHERE loans.id = transfers.loan_id AND loans.account_number IS NOT NULL);
ALTER TABLE sandbox_network_journal ADD COLUMN account TEXT NOT NULL DEFAULT '';
CREATE TABLE sandbox_core_journal (
    ref      TEXT PRIMARY KEY,
    account  TEXT NOT NULL,
    amount   INTEGER NOT NULL,
    at       DATETIME NOT NULL
);
-- Reconciliation's adjustments (domain.AccountReconciliation): what the networks moved beyond
-- tiyin's orders, accepted by two officers.
INSERT INTO ledger_accounts (key, kind) VALUES ('RECONCILIATION_ADJUSTMENTS', 'RECONCILIATION_ADJUSTMENTS');

-- +goose Down
DELETE FROM ledger_accounts WHERE key = 'RECONCILIATION_ADJUSTMENTS';
DROP TABLE sandbox_core_journal;
ALTER TABLE sandbox_network_journal DROP COLUMN account;
ALTER TABLE transfers DROP COLUMN account_number;
