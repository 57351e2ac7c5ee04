-- +goose Up
-- Each closed day's journal as posted to the bank's general ledger (ports.GeneralLedger): the
-- lines sent (JSON: [{"gl", "debits", "credits"}], by general ledger account), kept so that a
-- post whose outcome is unknown is sent again with the same lines, and core banking's
-- acknowledgement. A day's first post is sequence 1; entries dated it that come later are
-- posted as the next sequence.
CREATE TABLE books_gl_posts (
    day             TEXT NOT NULL,
    sequence        INTEGER NOT NULL,
    lines           TEXT NOT NULL,
    created_at      DATETIME NOT NULL,
    reference       TEXT NOT NULL DEFAULT '',
    acknowledged_at DATETIME,
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (day, sequence)
);
CREATE INDEX books_gl_posts_unacknowledged_idx ON books_gl_posts (day, sequence) WHERE reference = '';

-- +goose Down
DROP TABLE books_gl_posts;
