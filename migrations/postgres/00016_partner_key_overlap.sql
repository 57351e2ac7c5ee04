-- +goose Up
-- A rotated API key keeps working for an overlap (24 hours unless the rotation says
-- otherwise), so a partner moves its systems to the new key without a gap.
ALTER TABLE partners ADD COLUMN previous_key_hash bytea;
ALTER TABLE partners ADD COLUMN previous_key_until timestamptz;
CREATE UNIQUE INDEX partners_previous_key_hash_key ON partners (previous_key_hash) WHERE previous_key_hash IS NOT NULL;

-- +goose Down
DROP INDEX partners_previous_key_hash_key;
ALTER TABLE partners DROP COLUMN previous_key_until;
ALTER TABLE partners DROP COLUMN previous_key_hash;
