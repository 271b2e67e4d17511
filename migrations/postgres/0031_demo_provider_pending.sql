-- The demo provider's outbox (api/src/casino/demo/): wallet calls it could
-- not get answered (a win, a rollback) are sent again until they are, as a
-- real provider's retry queue does.
CREATE TABLE IF NOT EXISTS demo_provider_pending
(
    transaction_uuid text PRIMARY KEY,
    -- member:round of the call: a player's later wins wait for it
    round_key        text NOT NULL DEFAULT '',
    path             text   NOT NULL,
    body             text   NOT NULL,
    attempts         bigint NOT NULL,
    next_ms          bigint NOT NULL
);
