-- Seasons (commands/src/seasons.rs, docs/seasons.md).
-- Tracking records of the season progress process manager: one row per
-- source event it counted ("{aggregate_type}/{aggregate_id}#{sequence}"),
-- written in the same transaction as the SeasonTask event it caused, so an
-- event is counted once across restarts, rebuilds and processes.
CREATE TABLE IF NOT EXISTS season_counted
(
    source     TEXT PRIMARY KEY,
    counted_ms BIGINT NOT NULL
);

-- Season task definitions per season (configuration seeds them; admin
-- staff edit them in the back office). `def` is the TaskDef as JSON.
CREATE TABLE IF NOT EXISTS season_task_defs
(
    season_id  BIGINT NOT NULL,
    task_id    BIGINT NOT NULL,
    def        TEXT    NOT NULL,
    updated_by TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (season_id, task_id)
);

-- Claims of task rewards (written with the SeasonTask claim event, in its
-- transaction): the support queue of needcheck claims and the record of
-- paid ones. `reference` is the wallet reference of the payment.
CREATE TABLE IF NOT EXISTS season_claims
(
    reference  TEXT PRIMARY KEY,
    season_id  BIGINT NOT NULL,
    member_id  TEXT    NOT NULL,
    task_id    BIGINT NOT NULL,
    cash       TEXT    NOT NULL,
    currency   TEXT    NOT NULL,
    state      TEXT    NOT NULL,
    reason     TEXT    NOT NULL DEFAULT '',
    staff_id   TEXT    NOT NULL DEFAULT '',
    created_ms BIGINT NOT NULL,
    decided_ms BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS season_claims_state ON season_claims (state, created_ms);

-- Home teams: one per member and sport (1 football, 3 basketball);
-- `season_id` is the season it was chosen in (0: an off-season).
CREATE TABLE IF NOT EXISTS home_teams
(
    member_id  TEXT    NOT NULL,
    sport_id   BIGINT NOT NULL,
    team_id    TEXT    NOT NULL,
    team_name  TEXT    NOT NULL,
    season_id  BIGINT NOT NULL,
    chosen_ms  BIGINT NOT NULL,
    PRIMARY KEY (member_id, sport_id)
);
