-- +goose Up
-- A loan's earliest schedule item not fully paid, kept with every save (domain.Loan.FirstUnpaidDue):
-- the console's lists and reports read a loan's days overdue from it without its book. Loans
-- stored before are filled in by `migrate` (store.BackfillFirstUnpaidDue).
ALTER TABLE loans ADD COLUMN first_unpaid_due DATETIME;
CREATE INDEX loans_first_unpaid_due_idx ON loans (first_unpaid_due) WHERE closed_at IS NULL;

-- +goose Down
DROP INDEX loans_first_unpaid_due_idx;
ALTER TABLE loans DROP COLUMN first_unpaid_due;
