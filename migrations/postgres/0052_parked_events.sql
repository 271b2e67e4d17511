-- Poison events (docs/projections.md): an event a projection cannot apply
-- is parked here with its error; the projection goes on past it. An
-- operator retries it (after a fix) or skips it: status open -> applied |
-- skipped. Shown in the back office to admin and auditor staff.
CREATE TABLE IF NOT EXISTS parked_events
(
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    projection     text    NOT NULL,
    tx_id          bigint    NOT NULL,
    position       bigint    NOT NULL,
    aggregate_type text    NOT NULL,
    aggregate_id   text    NOT NULL,
    sequence       bigint    NOT NULL,
    event_type     text    NOT NULL,
    error          text    NOT NULL,
    status         text    NOT NULL DEFAULT 'open',
    parked_at      text    NOT NULL,
    resolved_at    text,
    resolved_by    text,
    UNIQUE (projection, position)
);
CREATE INDEX IF NOT EXISTS parked_events_status ON parked_events (status, id);
