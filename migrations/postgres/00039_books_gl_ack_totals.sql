-- +goose Up
-- Core banking's acknowledgement of a post to its general ledger carries the debits and the
-- credits it posted (ports.GLAck); the books' daily proof compares them with the lines sent
-- (docs/accounting.md, "The daily proof"). NULL for a post acknowledged before they were kept.
ALTER TABLE books_gl_posts ADD COLUMN acknowledged_debits bigint;
ALTER TABLE books_gl_posts ADD COLUMN acknowledged_credits bigint;

-- +goose Down
ALTER TABLE books_gl_posts DROP COLUMN acknowledged_credits;
ALTER TABLE books_gl_posts DROP COLUMN acknowledged_debits;
