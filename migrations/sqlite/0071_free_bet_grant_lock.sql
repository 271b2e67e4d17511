-- One row per member granted a free bet: a grant writes it first in its
-- transaction, which serializes the grants to one member (a row lock on
-- Postgres, the write lock on SQLite), so the daily cap is read and kept
-- by one grant at a time.
CREATE TABLE free_bet_grant_locks (
    member_id TEXT PRIMARY KEY,
    granted_ms BIGINT NOT NULL
);
