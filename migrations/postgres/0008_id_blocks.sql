-- Ids handed out in blocks (commands/src/ids.rs): next_id is the first id
-- no process has reserved yet.
CREATE TABLE IF NOT EXISTS id_blocks
(
    name    text PRIMARY KEY,
    next_id bigint NOT NULL
);

INSERT INTO id_blocks (name, next_id)
SELECT 'bet', GREATEST(COALESCE(MAX(id), 0) + 1, 1000001) FROM bet_ids
ON CONFLICT (name) DO NOTHING;
