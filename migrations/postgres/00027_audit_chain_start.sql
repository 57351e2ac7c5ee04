-- +goose Up
-- Issue 46: an owner emptied the chain columns (every entry then passed as written before the
-- chain began), cut the log's end and removed or forged the verification that would have
-- noticed. Where the chain began is now recorded once: this migration creates its one row,
-- which tiyin fills and seals with the data key the first time it migrates with the key (SQL
-- has none): the entries written before the chain (the prefix) by their last number, count and
-- hash, the verifications kept before verifications were sealed, and an HMAC of it all. Every
-- entry after the prefix must be chained. Nothing creates the row again.
CREATE TABLE audit_chain_start (
    id                    smallint PRIMARY KEY CHECK (id = 1),
    at                    timestamptz,
    prefix_last_id        bigint NOT NULL DEFAULT 0,
    prefix_entries        bigint NOT NULL DEFAULT 0,
    prefix_hash           bytea,
    verifications_last_id bigint NOT NULL DEFAULT 0,
    seal                  bytea
);
INSERT INTO audit_chain_start (id) VALUES (1);

-- Each verification is sealed (an HMAC of its fields and of the previous verification's seal,
-- the first's being the chain start's) and names its own line in the audit log.
ALTER TABLE audit_verifications ADD COLUMN entry_id bigint;
ALTER TABLE audit_verifications ADD COLUMN seal bytea;

-- Both tables are append-only, as the audit log is; the start's row changes once, when sealed.
-- +goose StatementBegin
CREATE FUNCTION audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER audit_verifications_no_change BEFORE UPDATE OR DELETE ON audit_verifications
    FOR EACH ROW EXECUTE FUNCTION audit_append_only();
CREATE TRIGGER audit_verifications_no_truncate BEFORE TRUNCATE ON audit_verifications
    FOR EACH STATEMENT EXECUTE FUNCTION audit_append_only();
CREATE TRIGGER audit_chain_start_no_change BEFORE UPDATE ON audit_chain_start
    FOR EACH ROW WHEN (OLD.seal IS NOT NULL) EXECUTE FUNCTION audit_append_only();
CREATE TRIGGER audit_chain_start_no_delete BEFORE DELETE ON audit_chain_start
    FOR EACH ROW EXECUTE FUNCTION audit_append_only();
CREATE TRIGGER audit_chain_start_no_truncate BEFORE TRUNCATE ON audit_chain_start
    FOR EACH STATEMENT EXECUTE FUNCTION audit_append_only();

-- A node of an earlier build, still running during a release, would keep an unsealed
-- verification, which the next verification takes for a forged one: it is refused instead.
-- +goose StatementBegin
CREATE FUNCTION audit_verification_sealed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.seal IS NULL OR NEW.entry_id IS NULL THEN
        RAISE EXCEPTION 'audit_verifications keeps sealed verifications only: this tiyin is older than its schema';
    END IF;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER audit_verifications_sealed BEFORE INSERT ON audit_verifications
    FOR EACH ROW EXECUTE FUNCTION audit_verification_sealed();

-- The application role tiyin_app (docs/operations.md, two roles) may read and append
-- verifications, never change or remove one, and read and seal the start's row.
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'tiyin_app') THEN
        GRANT SELECT, UPDATE ON audit_chain_start TO tiyin_app;
        REVOKE INSERT, DELETE, TRUNCATE ON audit_chain_start FROM tiyin_app;
        REVOKE UPDATE, DELETE, TRUNCATE ON audit_verifications FROM tiyin_app;
    END IF;
END
$$;
-- +goose StatementEnd

-- Sealing the start asks whether the log holds a verification's line already; an index on the
-- action answers it without reading the whole log.
CREATE INDEX audit_log_action ON audit_log (action);

-- +goose Down
DROP INDEX audit_log_action;
DROP TRIGGER audit_verifications_sealed ON audit_verifications;
DROP FUNCTION audit_verification_sealed;
DROP TRIGGER audit_verifications_no_truncate ON audit_verifications;
DROP TRIGGER audit_verifications_no_change ON audit_verifications;
DROP TABLE audit_chain_start;
DROP FUNCTION audit_append_only;
ALTER TABLE audit_verifications DROP COLUMN seal;
ALTER TABLE audit_verifications DROP COLUMN entry_id;
