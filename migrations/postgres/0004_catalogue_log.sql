-- The live catalogue, shared by every api process: snapshots and the change
-- sets the feed's process writes after each tick. One writer at a time
-- (the process holding the feed's advisory lock), so ids follow commit order.
CREATE TABLE IF NOT EXISTS catalogue_log
(
    id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind  text   NOT NULL,
    body  text   NOT NULL,
    at_ms bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS catalogue_log_snapshots ON catalogue_log (kind, id);
