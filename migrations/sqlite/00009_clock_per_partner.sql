-- +goose Up
-- The sandbox clock is one per partner, like a test clock: a partner's advance moves only its
-- own objects and their background work. Every partner keeps the time the shared clock showed.
CREATE TABLE sandbox_clocks (
    partner_id TEXT PRIMARY KEY REFERENCES partners (id),
    offset_ns  INTEGER NOT NULL CHECK (offset_ns >= 0)
);
INSERT INTO sandbox_clocks (partner_id, offset_ns) /* migration: once */
    SELECT p.id, c.offset_ns FROM partners p CROSS JOIN sandbox_clock c WHERE c.offset_ns > 0;
DROP TABLE sandbox_clock;

-- +goose Down
CREATE TABLE sandbox_clock (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    offset_ns INTEGER NOT NULL CHECK (offset_ns >= 0)
);
INSERT INTO sandbox_clock (id, offset_ns) SELECT 1, max(offset_ns) FROM sandbox_clocks HAVING count(*) > 0;
DROP TABLE sandbox_clocks;
