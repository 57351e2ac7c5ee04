-- +goose Up
-- Events are recorded for every partner, numbered per partner in the order they committed
-- (sequence, set by the sequencer once the event is visible), and one object's events are
-- delivered in that order. Events recorded before keep no number and are not listed.
ALTER TABLE partners ADD COLUMN event_sequence INTEGER NOT NULL DEFAULT 0;
ALTER TABLE events ADD COLUMN sequence INTEGER;
ALTER TABLE events ADD COLUMN object_id TEXT;
CREATE UNIQUE INDEX events_partner_sequence_key ON events (partner_id, sequence) WHERE sequence IS NOT NULL;
CREATE INDEX events_unsequenced_idx ON events (created_at, id) WHERE sequence IS NULL;
CREATE INDEX events_object_pending_idx ON events (object_id, sequence) WHERE next_attempt_at IS NOT NULL;

-- +goose Down
DROP INDEX events_object_pending_idx;
DROP INDEX events_unsequenced_idx;
DROP INDEX events_partner_sequence_key;
ALTER TABLE events DROP COLUMN object_id;
ALTER TABLE events DROP COLUMN sequence;
ALTER TABLE partners DROP COLUMN event_sequence;
