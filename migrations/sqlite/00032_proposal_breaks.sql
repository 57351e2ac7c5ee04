-- +goose Up
-- The breaks a proposal covering several at once works (issue 47, 3: bulk accept, explain and
-- reopen, four-eyed as one is): the proposal's object is the batch's own id, and its breaks are
-- here. A proposal of one break keeps the break as its object, and no row here.
CREATE TABLE proposal_breaks (
    proposal_id TEXT NOT NULL REFERENCES proposals (id),
    break_id    TEXT NOT NULL,
    PRIMARY KEY (proposal_id, break_id)
);
CREATE INDEX proposal_breaks_break_idx ON proposal_breaks (break_id);

-- +goose Down
DROP TABLE proposal_breaks;
