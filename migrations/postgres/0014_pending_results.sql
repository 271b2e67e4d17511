-- Finished games whose result the feed leader could not record yet
-- (commands/src/live.rs). The game stays in the live catalogue, blocked,
-- until its GameResulted event commits; every feed step (of this leader or
-- the next) tries the rows here again and deletes each once recorded.
CREATE TABLE IF NOT EXISTS pending_results
(
    game_id     bigint PRIMARY KEY,
    body        text    NOT NULL,
    finished_ms bigint  NOT NULL,
    attempts    integer NOT NULL,
    last_error  text    NOT NULL
);
