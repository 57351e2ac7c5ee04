-- +goose Up
-- One open BALANCE_DIFFERS break per account (issue 47, 3): a balance that stays apart is one
-- break, found on its first day (day) and seen again up to last_day, with the latest day's two
-- balances, instead of a new break every day. last_day is day for every other break.
ALTER TABLE reconciliation_breaks ADD COLUMN last_day timestamptz;
UPDATE /* migration: once */ reconciliation_breaks SET last_day = day;

-- The open balance breaks an account already has are folded into its oldest: it takes the
-- newest one's balances and day; the others are closed EXPLAINED, each naming the break it was
-- folded into, worked by this migration (`tiyin migrate` then writes each fold to the audit
-- log, as break.fold).
UPDATE reconciliation_breaks SET
    last_day = (SELECT n.day FROM reconciliation_breaks n WHERE n.kind = 'BALANCE_DIFFERS' AND n.status = 'OPEN' AND n.network = reconciliation_breaks.network AND n.line_id = reconciliation_breaks.line_id ORDER BY n.day DESC, n.found_at DESC, n.id DESC LIMIT 1),
    our_amount = (SELECT n.our_amount FROM reconciliation_breaks n WHERE n.kind = 'BALANCE_DIFFERS' AND n.status = 'OPEN' AND n.network = reconciliation_breaks.network AND n.line_id = reconciliation_breaks.line_id ORDER BY n.day DESC, n.found_at DESC, n.id DESC LIMIT 1),
    our_status = (SELECT n.our_status FROM reconciliation_breaks n WHERE n.kind = 'BALANCE_DIFFERS' AND n.status = 'OPEN' AND n.network = reconciliation_breaks.network AND n.line_id = reconciliation_breaks.line_id ORDER BY n.day DESC, n.found_at DESC, n.id DESC LIMIT 1),
    our_at = (SELECT n.our_at FROM reconciliation_breaks n WHERE n.kind = 'BALANCE_DIFFERS' AND n.status = 'OPEN' AND n.network = reconciliation_breaks.network AND n.line_id = reconciliation_breaks.line_id ORDER BY n.day DESC, n.found_at DESC, n.id DESC LIMIT 1),
    their_amount = (SELECT n.their_amount FROM reconciliation_breaks n WHERE n.kind = 'BALANCE_DIFFERS' AND n.status = 'OPEN' AND n.network = reconciliation_breaks.network AND n.line_id = reconciliation_breaks.line_id ORDER BY n.day DESC, n.found_at DESC, n.id DESC LIMIT 1),
    their_status = (SELECT n.their_status FROM reconciliation_breaks n WHERE n.kind = 'BALANCE_DIFFERS' AND n.status = 'OPEN' AND n.network = reconciliation_breaks.network AND n.line_id = reconciliation_breaks.line_id ORDER BY n.day DESC, n.found_at DESC, n.id DESC LIMIT 1),
    their_at = (SELECT n.their_at FROM reconciliation_breaks n WHERE n.kind = 'BALANCE_DIFFERS' AND n.status = 'OPEN' AND n.network = reconciliation_breaks.network AND n.line_id = reconciliation_breaks.line_id ORDER BY n.day DESC, n.found_at DESC, n.id DESC LIMIT 1)
WHERE kind = 'BALANCE_DIFFERS' AND status = 'OPEN' AND NOT EXISTS (SELECT 1 FROM reconciliation_breaks k WHERE k.kind = 'BALANCE_DIFFERS' AND k.status = 'OPEN' AND k.network = reconciliation_breaks.network AND k.line_id = reconciliation_breaks.line_id AND (k.day, k.found_at, k.id) < (reconciliation_breaks.day, reconciliation_breaks.found_at, reconciliation_breaks.id)) AND EXISTS (SELECT 1 FROM reconciliation_breaks k WHERE k.kind = 'BALANCE_DIFFERS' AND k.status = 'OPEN' AND k.network = reconciliation_breaks.network AND k.line_id = reconciliation_breaks.line_id AND (k.day, k.found_at, k.id) > (reconciliation_breaks.day, reconciliation_breaks.found_at, reconciliation_breaks.id));
UPDATE reconciliation_breaks SET status = 'EXPLAINED', worked_by = 'migration 00031', worked_at = now(),
    note = 'folded into break ' || (SELECT k.id FROM reconciliation_breaks k WHERE k.kind = 'BALANCE_DIFFERS' AND k.status = 'OPEN' AND k.network = reconciliation_breaks.network AND k.line_id = reconciliation_breaks.line_id ORDER BY k.day, k.found_at, k.id LIMIT 1) || ', the account''s oldest open balance break: one stays open an account, updated as days pass'
WHERE kind = 'BALANCE_DIFFERS' AND status = 'OPEN' AND EXISTS (SELECT 1 FROM reconciliation_breaks k WHERE k.kind = 'BALANCE_DIFFERS' AND k.status = 'OPEN' AND k.network = reconciliation_breaks.network AND k.line_id = reconciliation_breaks.line_id AND (k.day, k.found_at, k.id) < (reconciliation_breaks.day, reconciliation_breaks.found_at, reconciliation_breaks.id));

CREATE UNIQUE INDEX reconciliation_breaks_open_balance_key ON reconciliation_breaks (network, line_id)
    WHERE status = 'OPEN' AND kind = 'BALANCE_DIFFERS';
-- The console's pages of breaks (newest first, by keyset: of a status, of a status, source
-- and kind, of any status) and its counts; the balance breaks that span a day.
DROP INDEX reconciliation_breaks_open_idx;
CREATE INDEX reconciliation_breaks_open_idx ON reconciliation_breaks (status, found_at, id);
CREATE INDEX reconciliation_breaks_filter_idx ON reconciliation_breaks (status, network, kind, found_at, id);
CREATE INDEX reconciliation_breaks_span_idx ON reconciliation_breaks (network, kind, last_day);
CREATE INDEX reconciliation_breaks_found_idx ON reconciliation_breaks (found_at, id);
-- The dashboard's oldest open break.
CREATE INDEX reconciliation_breaks_oldest_idx ON reconciliation_breaks (status, day, found_at, id);

-- +goose Down
DROP INDEX reconciliation_breaks_oldest_idx;
DROP INDEX reconciliation_breaks_found_idx;
DROP INDEX reconciliation_breaks_span_idx;
DROP INDEX reconciliation_breaks_filter_idx;
DROP INDEX reconciliation_breaks_open_idx;
CREATE INDEX reconciliation_breaks_open_idx ON reconciliation_breaks (status, found_at);
DROP INDEX reconciliation_breaks_open_balance_key;
ALTER TABLE reconciliation_breaks DROP COLUMN last_day;
