-- +goose Up
CREATE INDEX loans_awaiting_contract_idx ON loans (issued_at) WHERE contract_number IS NULL;

-- +goose Down
DROP INDEX loans_awaiting_contract_idx;
