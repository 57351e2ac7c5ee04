-- +goose Up
-- The audit log is tamper-evident: each entry carries an HMAC, under a key derived from
-- TIYIN_DATA_KEY, of the previous entry's and its own fields (entries written before have
-- none); `tiyin audit verify` checks the chain and keeps each verification's result.
ALTER TABLE audit_log ADD COLUMN chain bytea;
CREATE TABLE audit_verifications (
    id        bigserial PRIMARY KEY,
    at        timestamptz NOT NULL,
    entries   bigint NOT NULL,
    chained   bigint NOT NULL,
    last_id   bigint NOT NULL,
    head      bytea,
    broken_id bigint NOT NULL,
    problem   text NOT NULL
);

-- Two roles (docs/operations.md): when a role tiyin_app exists, it is the application's, and
-- may read and append audit entries but never change or remove one; the role that runs the
-- migrations owns the tables. With one role (make run), nothing changes.
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'tiyin_app') THEN
        GRANT USAGE ON SCHEMA public TO tiyin_app;
        GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO tiyin_app;
        GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO tiyin_app;
        REVOKE UPDATE, DELETE, TRUNCATE ON audit_log, audit_verifications FROM tiyin_app;
        ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO tiyin_app;
        ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO tiyin_app;
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP TABLE audit_verifications;
ALTER TABLE audit_log DROP COLUMN chain;
