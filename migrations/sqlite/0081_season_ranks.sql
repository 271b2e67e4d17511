-- Season rank rewards (commands/src/seasons.rs, docs/seasons.md).
-- A member's final rank (honour level) in a season, written when the
-- season ends by the VIP honour wiring (or by admin staff).
CREATE TABLE IF NOT EXISTS season_ranks
(
    season_id INTEGER NOT NULL,
    member_id TEXT    NOT NULL,
    rank      INTEGER NOT NULL,
    honour    TEXT    NOT NULL DEFAULT '0',
    act_rand  TEXT    NOT NULL,
    PRIMARY KEY (season_id, member_id)
);

-- Rank reward claims, one per member and season: the cash envelope's
-- wallet reference is `seasonrank:{season}:{member}`; physical prizes are
-- the back office's fulfilment queue (state to_ship, then shipped).
CREATE TABLE IF NOT EXISTS season_rank_claims
(
    season_id  INTEGER NOT NULL,
    member_id  TEXT    NOT NULL,
    rank       INTEGER NOT NULL,
    prize      TEXT    NOT NULL,
    cash       TEXT    NOT NULL,
    currency   TEXT    NOT NULL,
    size       TEXT    NOT NULL DEFAULT '',
    address    TEXT    NOT NULL DEFAULT '',
    state      TEXT    NOT NULL,
    created_ms INTEGER NOT NULL,
    shipped_ms INTEGER NOT NULL DEFAULT 0,
    shipped_by TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (season_id, member_id)
);
CREATE INDEX IF NOT EXISTS season_rank_claims_state ON season_rank_claims (state, created_ms);
