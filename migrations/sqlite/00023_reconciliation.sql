-- +goose Up
-- Reconciliation (docs/reconciliation.md): each run of a business day and network, and every
-- break found, kept once per day, network, kind and line however many runs or nodes find it.
CREATE TABLE reconciliation_runs (
    id       TEXT PRIMARY KEY,
    day      DATETIME NOT NULL,
    network  TEXT NOT NULL,
    at       DATETIME NOT NULL,
    matched  INTEGER NOT NULL,
    breaks   INTEGER NOT NULL
);
CREATE INDEX reconciliation_runs_day_idx ON reconciliation_runs (day, network);

CREATE TABLE reconciliation_breaks (
    id            TEXT PRIMARY KEY,
    day           DATETIME NOT NULL,
    network       TEXT NOT NULL,
    kind          TEXT NOT NULL,
    line_id       TEXT NOT NULL,
    line_kind     TEXT NOT NULL,
    our_amount    INTEGER,
    our_status    TEXT,
    our_at        DATETIME,
    their_amount  INTEGER,
    their_status  TEXT,
    their_at      DATETIME,
    status        TEXT NOT NULL DEFAULT 'OPEN',
    note          TEXT NOT NULL DEFAULT '',
    worked_by     TEXT NOT NULL DEFAULT '',
    worked_at     DATETIME,
    found_at      DATETIME NOT NULL,
    run_id        TEXT NOT NULL
);
CREATE UNIQUE INDEX reconciliation_breaks_key ON reconciliation_breaks (day, network, kind, line_id);
CREATE INDEX reconciliation_breaks_open_idx ON reconciliation_breaks (status, found_at);

-- The sandbox processing network's own journal (store.NetworkJournal): what it credited and
-- debited, apart from tiyin's records, each line once.
CREATE TABLE sandbox_network_journal (
    seq      INTEGER PRIMARY KEY AUTOINCREMENT,
    kind     TEXT NOT NULL,
    line_id  TEXT NOT NULL,
    copy     INTEGER NOT NULL DEFAULT 0,
    network  TEXT NOT NULL,
    amount   INTEGER NOT NULL,
    at       DATETIME NOT NULL,
    status   TEXT NOT NULL
);
CREATE UNIQUE INDEX sandbox_network_journal_line_key ON sandbox_network_journal (kind, line_id, copy);
CREATE INDEX sandbox_network_journal_day_idx ON sandbox_network_journal (network, at);

-- +goose Down
DROP TABLE sandbox_network_journal;
DROP TABLE reconciliation_breaks;
DROP TABLE reconciliation_runs;
