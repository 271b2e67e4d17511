-- Ids handed out in blocks (commands/src/ids.rs): next_id is the first id
-- no process has reserved yet.
CREATE TABLE IF NOT EXISTS id_blocks
(
    name    TEXT PRIMARY KEY,
    next_id INTEGER NOT NULL
);

INSERT OR IGNORE INTO id_blocks (name, next_id)
SELECT 'bet', MAX(COALESCE(MAX(id), 0) + 1, 1000001) FROM bet_ids;
