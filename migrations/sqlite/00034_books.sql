-- +goose Up
-- The books on an accrual basis (docs/accounting.md). A loan's standing in them (its per-loan
-- balances and what its next close needs) is kept with the loan as JSON, written in the same
-- row update as every change to its debt; books_day is its last day closed (YYYY-MM-DD, NULL
-- before its first close) and books_open whether the close still visits it.
ALTER TABLE loans ADD COLUMN books TEXT;
ALTER TABLE loans ADD COLUMN books_day TEXT;
ALTER TABLE loans ADD COLUMN books_open BOOLEAN NOT NULL DEFAULT true;
UPDATE /* migration: once */ loans SET books_open = false WHERE closed_at IS NOT NULL OR written_off_at IS NOT NULL;
CREATE INDEX loans_books_open_idx ON loans (id) WHERE books_open;

-- A day closed for a scope: '' for every partner on the system time, a partner's id for a
-- sandbox partner on its own clock. A day is recorded only when every loan of the scope is
-- closed through it.
CREATE TABLE books_closed_days (
    scope       TEXT NOT NULL,
    day         TEXT NOT NULL,
    closed_at   DATETIME NOT NULL,
    loans       INTEGER NOT NULL,
    postings    INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    PRIMARY KEY (scope, day)
);

INSERT INTO ledger_accounts (key, kind) VALUES
    ('PROVISION_EXPENSE', 'PROVISION_EXPENSE'), ('WRITE_OFF_EXPENSE', 'WRITE_OFF_EXPENSE'),
    ('RECOVERY_INCOME', 'RECOVERY_INCOME');

-- The trial balance and the journal read a day's postings.
CREATE INDEX ledger_postings_created_at_idx ON ledger_postings (created_at);

-- +goose Down
DROP INDEX ledger_postings_created_at_idx;
DELETE FROM ledger_accounts WHERE key IN ('PROVISION_EXPENSE', 'WRITE_OFF_EXPENSE', 'RECOVERY_INCOME');
DROP TABLE books_closed_days;
DROP INDEX loans_books_open_idx;
ALTER TABLE loans DROP COLUMN books_open;
ALTER TABLE loans DROP COLUMN books_day;
ALTER TABLE loans DROP COLUMN books;
