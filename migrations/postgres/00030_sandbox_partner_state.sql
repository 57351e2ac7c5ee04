-- +goose Up
-- The sandbox partner's API key, sealed under the data key (sandbox only, issue 48), so that
-- every start prints the same key; '' for every other partner, whose key is kept as a hash only.
ALTER TABLE partners ADD COLUMN sandbox_key text NOT NULL DEFAULT '';
-- How many times the partner reset its sandbox (POST /sandbox/reset): a reset sets the clock's
-- offset back to zero, and the nodes, which otherwise keep the largest offset they have read,
-- take a smaller one only from a later reset.
ALTER TABLE sandbox_clocks ADD COLUMN resets bigint NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE sandbox_clocks DROP COLUMN resets;
ALTER TABLE partners DROP COLUMN sandbox_key;
