-- +goose Up
-- Reconciliation (docs/reconciliation.md): each run of a business day and network, and every
-- break found, kept once per day, network, kind and line however many runs or nodes find it.
CREATE TABLE reconciliation_runs (
    id       uuid PRIMARY KEY,
    day      timestamptz NOT NULL,
    network  text NOT NULL,
    at       timestamptz NOT NULL,
    matched  integer NOT NULL,
    breaks   integer NOT NULL
);
CREATE INDEX reconciliation_runs_day_idx ON reconciliation_runs (day, network);

CREATE TABLE reconciliation_breaks (
    id            uuid PRIMARY KEY,
    day           timestamptz NOT NULL,
    network       text NOT NULL,
    kind          text NOT NULL,
    line_id       text NOT NULL,
    line_kind     text NOT NULL,
    our_amount    bigint,
    our_status    text,
    our_at        timestamptz,
    their_amount  bigint,
    their_status  text,
    their_at      timestamptz,
    status        text NOT NULL DEFAULT 'OPEN',
    note          text NOT NULL DEFAULT '',
    worked_by     text NOT NULL DEFAULT '',
    worked_at     timestamptz,
    found_at      timestamptz NOT NULL,
    run_id        uuid NOT NULL
);
CREATE UNIQUE INDEX reconciliation_breaks_key ON reconciliation_breaks (day, network, kind, line_id);
CREATE INDEX reconciliation_breaks_open_idx ON reconciliation_breaks (status, found_at);

-- The sandbox processing network's own journal (store.NetworkJournal): what it credited and
-- debited, apart from tiyin's records, each line once.
CREATE TABLE sandbox_network_journal (
    seq      bigserial PRIMARY KEY,
    kind     text NOT NULL,
    line_id  text NOT NULL,
    copy     integer NOT NULL DEFAULT 0,
    network  text NOT NULL,
    amount   bigint NOT NULL,
    at       timestamptz NOT NULL,
    status   text NOT NULL
);
CREATE UNIQUE INDEX sandbox_network_journal_line_key ON sandbox_network_journal (kind, line_id, copy);
CREATE INDEX sandbox_network_journal_day_idx ON sandbox_network_journal (network, at);

-- +goose Down
DROP TABLE sandbox_network_journal;
DROP TABLE reconciliation_breaks;
DROP TABLE reconciliation_runs;
