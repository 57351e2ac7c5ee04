-- +goose Up
-- The operator console (docs/console.md): the bank's operators, their server-side sessions,
-- maker-checker proposals and the append-only audit log.
CREATE TABLE operators (
    id            uuid PRIMARY KEY,
    name          text NOT NULL,
    role          text NOT NULL,
    password_hash text NOT NULL,
    must_change   boolean NOT NULL,
    disabled      boolean NOT NULL DEFAULT false,
    failed_logins integer NOT NULL DEFAULT 0,
    locked_until  timestamptz,
    created_at    timestamptz NOT NULL,
    CONSTRAINT operators_name_key UNIQUE (name)
);

-- A session is known by its token's hash only: the token itself lives in the operator's cookie.
CREATE TABLE operator_sessions (
    token_hash   bytea PRIMARY KEY,
    operator_id  uuid NOT NULL REFERENCES operators (id),
    csrf         text NOT NULL,
    created_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL
);
CREATE INDEX operator_sessions_operator_idx ON operator_sessions (operator_id);

CREATE TABLE proposals (
    id           uuid PRIMARY KEY,
    kind         text NOT NULL,
    object_id    uuid NOT NULL,
    done         boolean NOT NULL,
    ref          text NOT NULL DEFAULT '',
    note         text NOT NULL,
    status       text NOT NULL,
    proposed_by  uuid NOT NULL REFERENCES operators (id),
    proposed_at  timestamptz NOT NULL,
    decided_by   uuid REFERENCES operators (id),
    decided_at   timestamptz
);
-- One open proposal per object: a second officer approves the first one's, not a rival.
CREATE UNIQUE INDEX proposals_open_object_key ON proposals (object_id) WHERE status = 'OPEN';

-- The audit log is append-only: no update or delete path in tiyin, and the database refuses them.
CREATE TABLE audit_log (
    id       bigserial PRIMARY KEY,
    at       timestamptz NOT NULL,
    operator text NOT NULL,
    address  text NOT NULL,
    action   text NOT NULL,
    object   text NOT NULL,
    detail   text NOT NULL
);
CREATE INDEX audit_log_at_idx ON audit_log (at);

-- +goose StatementBegin
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_log is append-only';
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();

-- Every gateway answer to an application's stage (or its lack), for the operators' timeline;
-- pending polls are not kept. Written with the stage's change, on the hot path: no foreign key
-- (its check would lock the application's row again), one index.
CREATE TABLE application_steps (
    application_id uuid NOT NULL,
    at             timestamptz NOT NULL,
    stage          text NOT NULL,
    outcome        text NOT NULL,
    message        text NOT NULL,
    ref            text NOT NULL
);
CREATE INDEX application_steps_application_idx ON application_steps (application_id, at);

-- A client's phone as a blind index (its keyed hash, hex), by which operators find the client's
-- applications; empty for rows written before it existed until `tiyin reseal` fills it.
ALTER TABLE applications ADD COLUMN phone_index text NOT NULL DEFAULT '';
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
DROP TABLE application_steps;
DROP TABLE audit_log;
DROP FUNCTION audit_log_append_only;
DROP TABLE proposals;
DROP TABLE operator_sessions;
DROP TABLE operators;
