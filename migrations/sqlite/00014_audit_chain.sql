-- +goose Up
-- The audit log is tamper-evident: each entry carries an HMAC, under a key derived from
-- TIYIN_DATA_KEY, of the previous entry's and its own fields (entries written before have
-- none); `tiyin audit verify` checks the chain and keeps each verification's result.
ALTER TABLE audit_log ADD COLUMN chain BLOB;
CREATE TABLE audit_verifications (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    at        DATETIME NOT NULL,
    entries   INTEGER NOT NULL,
    chained   INTEGER NOT NULL,
    last_id   INTEGER NOT NULL,
    head      BLOB,
    broken_id INTEGER NOT NULL,
    problem   TEXT NOT NULL
);

-- +goose Down
DROP TABLE audit_verifications;
ALTER TABLE audit_log DROP COLUMN chain;
