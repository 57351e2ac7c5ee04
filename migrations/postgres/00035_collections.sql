-- +goose Up
-- Collections (docs/console.md, "Collections"): who works an overdue loan, its contact log,
-- promises to pay, the reminders sent to borrowers (each rule once per instalment), and the
-- daily snapshots of portfolio at risk and of each overdue loan's bucket (the roll rates).
CREATE TABLE collection_assignments (
    loan_id      uuid PRIMARY KEY REFERENCES loans (id),
    collector_id uuid REFERENCES operators (id),
    assigned_by  uuid,
    assigned_at  timestamptz,
    flagged      boolean NOT NULL DEFAULT false,
    flagged_at   timestamptz
);
-- The queues page through the open loans oldest unpaid date first.
CREATE INDEX loans_collections_queue_idx ON loans (first_unpaid_due, id) WHERE closed_at IS NULL AND written_off_at IS NULL;
CREATE INDEX collection_assignments_collector_idx ON collection_assignments (collector_id, loan_id);

CREATE TABLE collection_notes (
    id        uuid PRIMARY KEY,
    loan_id   uuid NOT NULL REFERENCES loans (id),
    channel   text NOT NULL,
    outcome   text NOT NULL,
    note      text NOT NULL DEFAULT '',
    author_id uuid NOT NULL,
    at        timestamptz NOT NULL
);
CREATE INDEX collection_notes_loan_idx ON collection_notes (loan_id, at);

CREATE TABLE promises_to_pay (
    id         uuid PRIMARY KEY,
    loan_id    uuid NOT NULL REFERENCES loans (id),
    partner_id uuid NOT NULL,
    amount     bigint NOT NULL CHECK (amount > 0),
    due_date   timestamptz NOT NULL,
    made_by    uuid NOT NULL,
    made_at    timestamptz NOT NULL,
    status     text NOT NULL,
    paid       bigint NOT NULL DEFAULT 0,
    settled_at timestamptz
);
CREATE INDEX promises_to_pay_loan_idx ON promises_to_pay (loan_id, made_at);
CREATE INDEX promises_to_pay_open_idx ON promises_to_pay (partner_id) WHERE status = 'OPEN';
CREATE INDEX promises_to_pay_settled_idx ON promises_to_pay (settled_at);

CREATE TABLE reminders (
    id         uuid PRIMARY KEY,
    loan_id    uuid NOT NULL REFERENCES loans (id),
    partner_id uuid NOT NULL,
    borrower   text NOT NULL,
    rule_key   text NOT NULL,
    kind       text NOT NULL,
    bucket     text NOT NULL DEFAULT '',
    due_date   timestamptz NOT NULL,
    amount     bigint NOT NULL,
    status     text NOT NULL,
    at         timestamptz NOT NULL
);
CREATE UNIQUE INDEX reminders_rule_key ON reminders (loan_id, rule_key);
CREATE INDEX reminders_borrower_idx ON reminders (borrower, at);

CREATE TABLE par_snapshots (
    day       timestamptz PRIMARY KEY,
    loans     integer NOT NULL,
    principal bigint NOT NULL,
    par1      bigint NOT NULL,
    par30     bigint NOT NULL,
    par90     bigint NOT NULL,
    loans1    integer NOT NULL,
    loans30   integer NOT NULL,
    loans90   integer NOT NULL
);

CREATE TABLE collection_bucket_days (
    day     timestamptz NOT NULL,
    loan_id uuid NOT NULL,
    bucket  integer NOT NULL,
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
