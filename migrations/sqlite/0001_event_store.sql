-- The event store. SQLite has one writer at a time, so the position a row
-- gets is its commit order; AUTOINCREMENT never reuses a position and VACUUM
-- keeps an INTEGER PRIMARY KEY.
CREATE TABLE IF NOT EXISTS events
(
    position       INTEGER PRIMARY KEY AUTOINCREMENT,
    aggregate_type TEXT    NOT NULL,
    aggregate_id   TEXT    NOT NULL,
    sequence       INTEGER NOT NULL CHECK (sequence >= 0),
    event_type     TEXT    NOT NULL,
    event_version  TEXT    NOT NULL,
    payload        TEXT    NOT NULL,
    metadata       TEXT    NOT NULL,
    tx_id          INTEGER NOT NULL DEFAULT 0,
    recorded_at    TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (aggregate_type, aggregate_id, sequence)
);

CREATE TABLE IF NOT EXISTS snapshots
(
    aggregate_type   TEXT    NOT NULL,
    aggregate_id     TEXT    NOT NULL,
    last_sequence    INTEGER NOT NULL CHECK (last_sequence >= 0),
    current_snapshot INTEGER NOT NULL CHECK (current_snapshot >= 0),
    payload          TEXT    NOT NULL,
    PRIMARY KEY (aggregate_type, aggregate_id)
);

CREATE TABLE IF NOT EXISTS projection_checkpoints
(
    name       TEXT PRIMARY KEY,
    tx_id      INTEGER NOT NULL DEFAULT 0,
    position   INTEGER NOT NULL DEFAULT 0,
    updated_at TEXT    NOT NULL DEFAULT ''
);
