-- +goose Up
-- Wrong passwords are throttled per name and address in memory (domain.LoginThrottle), never
-- per account: the account lock's columns go.
ALTER TABLE operators DROP COLUMN failed_logins;
ALTER TABLE operators DROP COLUMN locked_until;

-- +goose Down
ALTER TABLE operators ADD COLUMN failed_logins INTEGER NOT NULL DEFAULT 0;
ALTER TABLE operators ADD COLUMN locked_until DATETIME;
