-- +goose Up
-- An operator's console language (en, ru, uz); empty until chosen, when the browser's is used.
ALTER TABLE operators ADD COLUMN language text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE operators DROP COLUMN language;
