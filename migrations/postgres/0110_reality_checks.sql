-- Members who asked for a reality check (written with their
-- RealityCheckSet event) and the last notice each session had.
CREATE TABLE IF NOT EXISTS reality_checks
(
    user_id      text PRIMARY KEY,
    minutes      bigint  NOT NULL,
    session_hash text    NOT NULL DEFAULT '',
    notices      bigint  NOT NULL DEFAULT 0
);
