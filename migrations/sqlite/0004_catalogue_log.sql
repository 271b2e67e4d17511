-- The live catalogue: snapshots and the feed's change sets (see the
-- Postgres migration).
CREATE TABLE IF NOT EXISTS catalogue_log
(
    id    INTEGER PRIMARY KEY AUTOINCREMENT,
    kind  TEXT    NOT NULL,
    body  TEXT    NOT NULL,
    at_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS catalogue_log_snapshots ON catalogue_log (kind, id);
