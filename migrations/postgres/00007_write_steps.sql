-- +goose Up
-- A stored answer keeps the envelope's code (0 for a success), not an HTTP status: the HTTP
-- edge derives the status from the code. Answers stored before take theirs from their body.
ALTER TABLE idempotency_records ADD COLUMN code integer NOT NULL DEFAULT 0;
UPDATE /* migration: once */ idempotency_records SET code = COALESCE((convert_from(body, 'UTF8')::jsonb -> 'error' ->> 'code')::integer, 0)
WHERE body IS NOT NULL;
ALTER TABLE idempotency_records DROP COLUMN http_status;

-- A card whose right SMS code was given, waiting for the network's token: attach confirm's
-- first step, from which a retry of the same request resumes.
ALTER TABLE cards ADD COLUMN code_accepted_at timestamptz;

-- +goose Down
ALTER TABLE cards DROP COLUMN code_accepted_at;
ALTER TABLE idempotency_records ADD COLUMN http_status integer NOT NULL DEFAULT 0;
ALTER TABLE idempotency_records DROP COLUMN code;
