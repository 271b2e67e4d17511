-- Season ranking by honour value (commands/src/seasons.rs, docs/seasons.md).
-- A computed row carries the member's position in their market and the
-- market; `source` tells a computed row ('computed', rewritten by the
-- ranking job until the season's ranking is final) from one admin staff set
-- ('admin', never overwritten by the job).
ALTER TABLE season_ranks ADD COLUMN position BIGINT NOT NULL DEFAULT 0;
ALTER TABLE season_ranks ADD COLUMN market TEXT NOT NULL DEFAULT '';
ALTER TABLE season_ranks ADD COLUMN source TEXT NOT NULL DEFAULT 'admin';
ALTER TABLE season_ranks ADD COLUMN computed_ms BIGINT NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS season_ranks_position ON season_ranks (season_id, market, position);

-- One row per season the ranking job has computed: state 'live' while it is
-- recomputed, 'final' once frozen after SeasonEnded (rank rewards read the
-- final ranks; the job never writes a final season again).
CREATE TABLE IF NOT EXISTS season_rankings
(
    season_id   BIGINT PRIMARY KEY,
    state       TEXT   NOT NULL,
    members     BIGINT NOT NULL DEFAULT 0,
    computed_ms BIGINT NOT NULL DEFAULT 0,
    frozen_ms   BIGINT NOT NULL DEFAULT 0
);
