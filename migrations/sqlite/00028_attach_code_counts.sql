-- +goose Up
-- The SMS codes attach sent, per card (the PAN's keyed hash), per phone (its keyed hash) and per
-- partner, and Tashkent day (yyyy-MM-dd): the daily caps (domain.AttachCodeCaps) count here, in
-- the transaction that stores each code. Days gone by are purged with the expired requests.
CREATE TABLE attach_code_counts (
    scope   TEXT NOT NULL,
    subject TEXT NOT NULL,
    day     TEXT NOT NULL,
    sent    INTEGER NOT NULL,
    PRIMARY KEY (scope, subject, day)
);
CREATE INDEX attach_code_counts_day ON attach_code_counts (day);

-- +goose Down
DROP TABLE attach_code_counts;
