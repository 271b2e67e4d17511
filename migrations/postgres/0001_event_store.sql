-- The event store. postgres-es names its columns in every statement, so the
-- extra columns below (global position, writing transaction, time recorded)
-- are filled by their defaults.
CREATE TABLE IF NOT EXISTS events
(
    aggregate_type text                         NOT NULL,
    aggregate_id   text                         NOT NULL,
    sequence       bigint CHECK (sequence >= 0) NOT NULL,
    event_type     text                         NOT NULL,
    event_version  text                         NOT NULL,
    payload        json                         NOT NULL,
    metadata       json                         NOT NULL,
    position       bigint GENERATED ALWAYS AS IDENTITY,
    tx_id          xid8        NOT NULL DEFAULT pg_current_xact_id(),
    recorded_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (aggregate_type, aggregate_id, sequence)
);

-- The global stream is read in (tx_id, position) order up to the oldest
-- transaction still running (pg_snapshot_xmin), so no reader ever passes an
-- event that a slower transaction has yet to commit.
CREATE INDEX IF NOT EXISTS events_global_order ON events (tx_id, position);

-- One snapshot per aggregate, written after its events commit.
CREATE TABLE IF NOT EXISTS snapshots
(
    aggregate_type   text                                 NOT NULL,
    aggregate_id     text                                 NOT NULL,
    last_sequence    bigint CHECK (last_sequence >= 0)    NOT NULL,
    current_snapshot bigint CHECK (current_snapshot >= 0) NOT NULL,
    payload          json                                 NOT NULL,
    PRIMARY KEY (aggregate_type, aggregate_id)
);

CREATE TABLE IF NOT EXISTS projection_checkpoints
(
    name       text PRIMARY KEY,
    tx_id      bigint NOT NULL DEFAULT 0,
    position   bigint NOT NULL DEFAULT 0,
    updated_at text   NOT NULL DEFAULT ''
);
