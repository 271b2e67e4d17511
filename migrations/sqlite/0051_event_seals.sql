-- Tamper-evident event log (docs/audit.md). See the Postgres migration;
-- on SQLite the chain follows position order (the single writer's commit
-- order).
CREATE TABLE IF NOT EXISTS event_seals
(
    chain_index INTEGER PRIMARY KEY,
    position    INTEGER NOT NULL UNIQUE,
    hash        TEXT    NOT NULL,
    sealed_at   TEXT    NOT NULL
);

CREATE TABLE IF NOT EXISTS audit_checkpoints
(
    chain_index INTEGER PRIMARY KEY,
    position    INTEGER NOT NULL,
    hash        TEXT    NOT NULL,
    signed_at   TEXT    NOT NULL,
    signature   TEXT    NOT NULL
);

CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'UPDATE on events refused: the event log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'DELETE on events refused: the event log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS event_seals_no_update BEFORE UPDATE ON event_seals
BEGIN SELECT RAISE(ABORT, 'UPDATE on event_seals refused: the event log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS event_seals_no_delete BEFORE DELETE ON event_seals
BEGIN SELECT RAISE(ABORT, 'DELETE on event_seals refused: the event log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_checkpoints_no_update BEFORE UPDATE ON audit_checkpoints
BEGIN SELECT RAISE(ABORT, 'UPDATE on audit_checkpoints refused: the event log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_checkpoints_no_delete BEFORE DELETE ON audit_checkpoints
BEGIN SELECT RAISE(ABORT, 'DELETE on audit_checkpoints refused: the event log is append-only'); END;
