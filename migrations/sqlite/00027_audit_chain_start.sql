-- +goose Up
-- Issue 46: an owner emptied the chain columns (every entry then passed as written before the
-- chain began), cut the log's end and removed or forged the verification that would have
-- noticed. Where the chain began is now recorded once: this migration creates its one row,
-- which tiyin fills and seals with the data key the first time it migrates with the key (SQL
-- has none): the entries written before the chain (the prefix) by their last number, count and
-- hash, the verifications kept before verifications were sealed, and an HMAC of it all. Every
-- entry after the prefix must be chained. Nothing creates the row again.
CREATE TABLE audit_chain_start (
    id                    INTEGER PRIMARY KEY CHECK (id = 1),
    at                    DATETIME,
    prefix_last_id        INTEGER NOT NULL DEFAULT 0,
    prefix_entries        INTEGER NOT NULL DEFAULT 0,
    prefix_hash           BLOB,
    verifications_last_id INTEGER NOT NULL DEFAULT 0,
    seal                  BLOB
);
INSERT INTO audit_chain_start (id) VALUES (1);

-- Each verification is sealed (an HMAC of its fields and of the previous verification's seal,
-- the first's being the chain start's) and names its own line in the audit log.
ALTER TABLE audit_verifications ADD COLUMN entry_id INTEGER;
ALTER TABLE audit_verifications ADD COLUMN seal BLOB;

-- Both tables are append-only, as the audit log is; the start's row changes once, when sealed.
-- +goose StatementBegin
CREATE TRIGGER audit_verifications_no_update BEFORE UPDATE ON audit_verifications
BEGIN
    SELECT RAISE(ABORT, 'audit_verifications is append-only');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER audit_verifications_no_delete BEFORE DELETE ON audit_verifications
BEGIN
    SELECT RAISE(ABORT, 'audit_verifications is append-only');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER audit_chain_start_no_update BEFORE UPDATE ON audit_chain_start
WHEN OLD.seal IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'audit_chain_start is append-only');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER audit_chain_start_no_delete BEFORE DELETE ON audit_chain_start
BEGIN
    SELECT RAISE(ABORT, 'audit_chain_start is append-only');
END;
-- +goose StatementEnd

-- A node of an earlier build, still running during a release, would keep an unsealed
-- verification, which the next verification takes for a forged one: it is refused instead.
-- +goose StatementBegin
CREATE TRIGGER audit_verifications_sealed BEFORE INSERT ON audit_verifications
WHEN NEW.seal IS NULL OR NEW.entry_id IS NULL
BEGIN
    SELECT RAISE(ABORT, 'audit_verifications keeps sealed verifications only: this tiyin is older than its schema');
END;
-- +goose StatementEnd

-- Sealing the start asks whether the log holds a verification's line already; an index on the
-- action answers it without reading the whole log.
CREATE INDEX audit_log_action ON audit_log (action);

-- +goose Down
DROP INDEX audit_log_action;
DROP TRIGGER audit_verifications_sealed;
DROP TRIGGER audit_chain_start_no_delete;
DROP TRIGGER audit_chain_start_no_update;
DROP TRIGGER audit_verifications_no_delete;
DROP TRIGGER audit_verifications_no_update;
DROP TABLE audit_chain_start;
ALTER TABLE audit_verifications DROP COLUMN seal;
ALTER TABLE audit_verifications DROP COLUMN entry_id;
