-- +goose Up
-- An application's PINFL as its blind index under the data key, for the console's client view
-- (one person across partners). `migrate` fills it in for applications stored before, when it
-- runs with the data key; `tiyin reseal` rewrites it under a new key.
ALTER TABLE applications ADD COLUMN pinfl_index text NOT NULL DEFAULT '';
CREATE INDEX applications_pinfl_index_idx ON applications (pinfl_index, created_at);

-- +goose Down
DROP INDEX applications_pinfl_index_idx;
ALTER TABLE applications DROP COLUMN pinfl_index;
