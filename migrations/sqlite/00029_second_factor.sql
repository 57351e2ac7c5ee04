-- +goose Up
-- Operators' second factors (issue 46): a TOTP secret, sealed under the data key and bound to
-- its row, enrolled at the first login and asked at every login; kind leaves room for WebAuthn
-- (one TOTP factor an operator, any number of others). last_step is the last TOTP time step
-- whose code was accepted: a code is accepted once.
CREATE TABLE operator_factors (
    id          TEXT PRIMARY KEY,
    operator_id TEXT NOT NULL REFERENCES operators (id),
    kind        TEXT NOT NULL,
    secret      TEXT NOT NULL,
    last_step   INTEGER NOT NULL DEFAULT 0,
    created_at  DATETIME NOT NULL,
    enrolled_at DATETIME
);
CREATE UNIQUE INDEX operator_factors_totp_key ON operator_factors (operator_id) WHERE kind = 'TOTP';

-- Single-use recovery codes, kept as their SHA-256 only.
CREATE TABLE operator_recovery_codes (
    operator_id TEXT NOT NULL REFERENCES operators (id),
    hash        BLOB NOT NULL,
    created_at  DATETIME NOT NULL,
    used_at     DATETIME,
    PRIMARY KEY (operator_id, hash)
);

-- Who last handed an operator their password (creation, reset) and their second factor (a
-- reset, its approver), and when: an approval is refused to an operator whose credential the
-- maker handed out within a day. A pending grant may be a second factor's reset. A session
-- records whether its login proved the second factor.
ALTER TABLE operators ADD COLUMN password_set_by TEXT NOT NULL DEFAULT '';
ALTER TABLE operators ADD COLUMN password_set_at DATETIME;
ALTER TABLE operators ADD COLUMN second_factor_set_by TEXT NOT NULL DEFAULT '';
ALTER TABLE operators ADD COLUMN second_factor_approved_by TEXT NOT NULL DEFAULT '';
ALTER TABLE operators ADD COLUMN second_factor_set_at DATETIME;
ALTER TABLE operators ADD COLUMN grant_second_factor BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE operator_sessions ADD COLUMN second_factor BOOLEAN NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE operator_sessions DROP COLUMN second_factor;
ALTER TABLE operators DROP COLUMN grant_second_factor;
ALTER TABLE operators DROP COLUMN second_factor_set_at;
ALTER TABLE operators DROP COLUMN second_factor_approved_by;
ALTER TABLE operators DROP COLUMN second_factor_set_by;
ALTER TABLE operators DROP COLUMN password_set_at;
ALTER TABLE operators DROP COLUMN password_set_by;
DROP TABLE operator_recovery_codes;
DROP TABLE operator_factors;
