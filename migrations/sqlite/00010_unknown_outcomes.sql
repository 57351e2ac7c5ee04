-- +goose Up
-- A gateway call whose outcome is unknown is asked again until it is known, never failed on its
-- account; unknown_since is when the current stage's call first went unanswered, for the
-- operators' gauge of unknown outcomes.
ALTER TABLE applications ADD COLUMN unknown_since DATETIME;
ALTER TABLE card_orders ADD COLUMN unknown_since DATETIME;
CREATE INDEX applications_unknown_since_idx ON applications (unknown_since) WHERE unknown_since IS NOT NULL;
CREATE INDEX card_orders_unknown_since_idx ON card_orders (unknown_since) WHERE unknown_since IS NOT NULL;

-- +goose Down
DROP INDEX card_orders_unknown_since_idx;
DROP INDEX applications_unknown_since_idx;
ALTER TABLE card_orders DROP COLUMN unknown_since;
ALTER TABLE applications DROP COLUMN unknown_since;
