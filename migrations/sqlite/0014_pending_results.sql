-- Finished games whose result the feed leader could not record yet
-- (commands/src/live.rs). The game stays in the live catalogue, blocked,
-- until its GameResulted event commits; every feed step (of this leader or
-- the next) tries the rows here again and deletes each once recorded.
CREATE TABLE IF NOT EXISTS pending_results
(
    game_id     INTEGER PRIMARY KEY,
    body        TEXT    NOT NULL,
    finished_ms INTEGER NOT NULL,
    attempts    INTEGER NOT NULL,
    last_error  TEXT    NOT NULL
);
