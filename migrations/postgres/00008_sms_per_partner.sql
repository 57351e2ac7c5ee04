-- +goose Up
-- The sandbox SMS outbox answers the calling partner's messages only: each message keeps the
-- partner whose request sent it. Messages sent before are nobody's and are no longer listed.
ALTER TABLE sandbox_sms ADD COLUMN partner_id UUID;
DROP INDEX sandbox_sms_phone_idx;
CREATE INDEX sandbox_sms_partner_phone_idx ON sandbox_sms (partner_id, phone, id);

-- +goose Down
DROP INDEX sandbox_sms_partner_phone_idx;
CREATE INDEX sandbox_sms_phone_idx ON sandbox_sms (phone, id);
ALTER TABLE sandbox_sms DROP COLUMN partner_id;
