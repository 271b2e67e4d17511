-- Tamper-evident event log (docs/audit.md).
--
-- event_seals: the hash chain. One row per event, in the global commit
-- order ((tx_id, position) up to the snapshot horizon, as the projections
-- read it). hash = SHA-256(prev hash, aggregate_type, aggregate_id,
-- sequence, event_type, event_version, payload, metadata), each field
-- length-prefixed. Written by the sealer (projections/src/seal.rs), which
-- follows the stream like a projection under its checkpoint row "seal".
CREATE TABLE IF NOT EXISTS event_seals
(
    chain_index bigint PRIMARY KEY,
    position    bigint NOT NULL UNIQUE,
    hash        text   NOT NULL,
    sealed_at   text   NOT NULL
);

-- Point reads of an event by its position (verify's diagnosis, a parked
-- event retried, the events behind an audit difference).
CREATE INDEX IF NOT EXISTS events_position ON events (position);

-- Periodic checkpoints of the chain head, signed (HMAC-SHA256 with
-- [audit] checkpoint_key), for an auditor to keep outside the database.
CREATE TABLE IF NOT EXISTS audit_checkpoints
(
    chain_index bigint PRIMARY KEY,
    position    bigint NOT NULL,
    hash        text   NOT NULL,
    signed_at   text   NOT NULL,
    signature   text   NOT NULL
);

-- Events, seals and checkpoints are append-only: the database refuses
-- UPDATE, DELETE and TRUNCATE on them, whoever asks.
CREATE OR REPLACE FUNCTION refuse_history_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% on % refused: the event log is append-only', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END
$$;

DROP TRIGGER IF EXISTS events_append_only ON events;
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION refuse_history_change();
DROP TRIGGER IF EXISTS events_no_truncate ON events;
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_history_change();

DROP TRIGGER IF EXISTS event_seals_append_only ON event_seals;
CREATE TRIGGER event_seals_append_only BEFORE UPDATE OR DELETE ON event_seals
    FOR EACH ROW EXECUTE FUNCTION refuse_history_change();
DROP TRIGGER IF EXISTS event_seals_no_truncate ON event_seals;
CREATE TRIGGER event_seals_no_truncate BEFORE TRUNCATE ON event_seals
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_history_change();

DROP TRIGGER IF EXISTS audit_checkpoints_append_only ON audit_checkpoints;
CREATE TRIGGER audit_checkpoints_append_only BEFORE UPDATE OR DELETE ON audit_checkpoints
    FOR EACH ROW EXECUTE FUNCTION refuse_history_change();
