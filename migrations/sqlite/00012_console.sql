-- +goose Up
-- The operator console (docs/console.md): the bank's operators, their server-side sessions,
-- maker-checker proposals and the append-only audit log.
CREATE TABLE operators (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,
    role          TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    must_change   BOOLEAN NOT NULL,
    disabled      BOOLEAN NOT NULL DEFAULT false,
    failed_logins INTEGER NOT NULL DEFAULT 0,
    locked_until  DATETIME,
    created_at    DATETIME NOT NULL
);

-- A session is known by its token's hash only: the token itself lives in the operator's cookie.
CREATE TABLE operator_sessions (
    token_hash   BLOB PRIMARY KEY,
    operator_id  TEXT NOT NULL REFERENCES operators (id),
    csrf         TEXT NOT NULL,
    created_at   DATETIME NOT NULL,
    last_seen_at DATETIME NOT NULL
);
CREATE INDEX operator_sessions_operator_idx ON operator_sessions (operator_id);

CREATE TABLE proposals (
    id           TEXT PRIMARY KEY,
    kind         TEXT NOT NULL,
    object_id    TEXT NOT NULL,
    done         BOOLEAN NOT NULL,
    ref          TEXT NOT NULL DEFAULT '',
    note         TEXT NOT NULL,
    status       TEXT NOT NULL,
    proposed_by  TEXT NOT NULL REFERENCES operators (id),
    proposed_at  DATETIME NOT NULL,
    decided_by   TEXT REFERENCES operators (id),
    decided_at   DATETIME
);
-- One open proposal per object: a second officer approves the first one's, not a rival.
CREATE UNIQUE INDEX proposals_open_object_key ON proposals (object_id) WHERE status = 'OPEN';

-- The audit log is append-only: no update or delete path in tiyin, and the database refuses them.
CREATE TABLE audit_log (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    at       DATETIME NOT NULL,
    operator TEXT NOT NULL,
    address  TEXT NOT NULL,
    action   TEXT NOT NULL,
    object   TEXT NOT NULL,
    detail   TEXT NOT NULL
);
CREATE INDEX audit_log_at_idx ON audit_log (at);

-- +goose StatementBegin
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'audit_log is append-only');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'audit_log is append-only');
END;
-- +goose StatementEnd

-- Every gateway answer to an application's stage (or its lack), for the operators' timeline;
-- pending polls are not kept. Written with the stage's change, on the hot path: no foreign key
-- (its check would lock the application's row again), one index.
CREATE TABLE application_steps (
    application_id TEXT NOT NULL,
    at             DATETIME NOT NULL,
    stage          TEXT NOT NULL,
    outcome        TEXT NOT NULL,
    message        TEXT NOT NULL,
    ref            TEXT NOT NULL
);
CREATE INDEX application_steps_application_idx ON application_steps (application_id, at);

-- A client's phone as a blind index (its keyed hash, hex), by which operators find the client's
-- applications; empty for rows written before it existed until `tiyin reseal` fills it.
ALTER TABLE applications ADD COLUMN phone_index TEXT NOT NULL DEFAULT '';
CREATE INDEX applications_phone_index_idx ON applications (phone_index, created_at) WHERE phone_index <> '';
CREATE INDEX applications_status_idx ON applications (status);
CREATE INDEX events_object_idx ON events (object_id, created_at);
-- The console's search and pages read across partners, by what an operator knows.
CREATE INDEX ledger_accounts_loan_idx ON ledger_accounts (loan_id);
CREATE INDEX ledger_entries_account_posting_idx ON ledger_entries (account_key, posting_id);
CREATE INDEX proposals_object_idx ON proposals (object_id, proposed_at);
CREATE INDEX audit_log_object_idx ON audit_log (object, id);
-- A write request claimed and never answered (its gateway step was cut off and the partner never
-- retried it) is shown to operators.
CREATE INDEX idempotency_records_unanswered_idx ON idempotency_records (created_at) WHERE body IS NULL;

-- +goose Down
DROP INDEX idempotency_records_unanswered_idx;
DROP INDEX audit_log_object_idx;
DROP INDEX proposals_object_idx;
DROP INDEX ledger_entries_account_posting_idx;
DROP INDEX ledger_accounts_loan_idx;
DROP INDEX events_object_idx;
DROP INDEX applications_status_idx;
DROP INDEX applications_phone_index_idx;
ALTER TABLE applications DROP COLUMN phone_index;
DROP TRIGGER audit_log_no_delete;
DROP TRIGGER audit_log_no_update;
DROP TABLE application_steps;
DROP TABLE audit_log;
DROP TABLE proposals;
DROP TABLE operator_sessions;
DROP TABLE operators;
