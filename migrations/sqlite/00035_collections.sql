-- +goose Up
-- Collections (docs/console.md, "Collections"): who works an overdue loan, its contact log,
-- promises to pay, the reminders sent to borrowers (each rule once per instalment), and the
-- daily snapshots of portfolio at risk and of each overdue loan's bucket (the roll rates).
CREATE TABLE collection_assignments (
    loan_id      TEXT PRIMARY KEY REFERENCES loans (id),
    collector_id TEXT REFERENCES operators (id),
    assigned_by  TEXT,
    assigned_at  DATETIME,
    flagged      BOOLEAN NOT NULL DEFAULT false,
    flagged_at   DATETIME
);
-- The queues page through the open loans oldest unpaid date first.
CREATE INDEX loans_collections_queue_idx ON loans (first_unpaid_due, id) WHERE closed_at IS NULL AND written_off_at IS NULL;
CREATE INDEX collection_assignments_collector_idx ON collection_assignments (collector_id, loan_id);

CREATE TABLE collection_notes (
    id        TEXT PRIMARY KEY,
    loan_id   TEXT NOT NULL REFERENCES loans (id),
    channel   TEXT NOT NULL,
    outcome   TEXT NOT NULL,
    note      TEXT NOT NULL DEFAULT '',
    author_id TEXT NOT NULL,
    at        DATETIME NOT NULL
);
CREATE INDEX collection_notes_loan_idx ON collection_notes (loan_id, at);

CREATE TABLE promises_to_pay (
    id         TEXT PRIMARY KEY,
    loan_id    TEXT NOT NULL REFERENCES loans (id),
    partner_id TEXT NOT NULL,
    amount     INTEGER NOT NULL CHECK (amount > 0),
    due_date   DATETIME NOT NULL,
    made_by    TEXT NOT NULL,
    made_at    DATETIME NOT NULL,
    status     TEXT NOT NULL,
    paid       INTEGER NOT NULL DEFAULT 0,
    settled_at DATETIME
);
CREATE INDEX promises_to_pay_loan_idx ON promises_to_pay (loan_id, made_at);
CREATE INDEX promises_to_pay_open_idx ON promises_to_pay (partner_id) WHERE status = 'OPEN';
CREATE INDEX promises_to_pay_settled_idx ON promises_to_pay (settled_at);

CREATE TABLE reminders (
    id         TEXT PRIMARY KEY,
    loan_id    TEXT NOT NULL REFERENCES loans (id),
    partner_id TEXT NOT NULL,
    borrower   TEXT NOT NULL,
    rule_key   TEXT NOT NULL,
    kind       TEXT NOT NULL,
    bucket     TEXT NOT NULL DEFAULT '',
    due_date   DATETIME NOT NULL,
    amount     INTEGER NOT NULL,
    status     TEXT NOT NULL,
    at         DATETIME NOT NULL
);
CREATE UNIQUE INDEX reminders_rule_key ON reminders (loan_id, rule_key);
CREATE INDEX reminders_borrower_idx ON reminders (borrower, at);

CREATE TABLE par_snapshots (
    day       DATETIME PRIMARY KEY,
    loans     INTEGER NOT NULL,
    principal INTEGER NOT NULL,
    par1      INTEGER NOT NULL,
    par30     INTEGER NOT NULL,
    par90     INTEGER NOT NULL,
    loans1    INTEGER NOT NULL,
    loans30   INTEGER NOT NULL,
    loans90   INTEGER NOT NULL
);

CREATE TABLE collection_bucket_days (
    day     DATETIME NOT NULL,
    loan_id TEXT NOT NULL,
    bucket  INTEGER NOT NULL,
    PRIMARY KEY (day, loan_id)
);

-- +goose Down
DROP TABLE collection_bucket_days;
DROP TABLE par_snapshots;
DROP TABLE reminders;
DROP TABLE promises_to_pay;
DROP TABLE collection_notes;
DROP TABLE collection_assignments;
DROP INDEX loans_collections_queue_idx;
