-- The demo provider's outbox (api/src/casino/demo/): wallet calls it could
-- not get answered (a win, a rollback) are sent again until they are, as a
-- real provider's retry queue does.
CREATE TABLE IF NOT EXISTS demo_provider_pending
(
    transaction_uuid TEXT PRIMARY KEY,
    -- member:round of the call: a player's later wins wait for it
    round_key        TEXT NOT NULL DEFAULT '',
    path             TEXT   NOT NULL,
    body             TEXT   NOT NULL,
    attempts         INTEGER NOT NULL,
    next_ms          INTEGER NOT NULL
);
