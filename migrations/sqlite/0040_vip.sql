-- VIP read model (projections/src/vip.rs, docs/vip.md). Money and points are
-- exact decimal TEXT. `money` and `bets` are the honour values the level is
-- computed from (a season's decay resets them to the level's start);
-- `deposits_total` and `turnover_total` never reset.
CREATE TABLE IF NOT EXISTS vip_members
(
    member_id      TEXT   PRIMARY KEY,
    market         TEXT   NOT NULL,
    currency       TEXT   NOT NULL,
    registered_ms  INTEGER NOT NULL DEFAULT 0,
    level          INTEGER NOT NULL DEFAULT 1,
    reached_level  INTEGER NOT NULL DEFAULT 1,
    money          TEXT   NOT NULL DEFAULT '0',
    bets           TEXT   NOT NULL DEFAULT '0',
    deposits_total TEXT   NOT NULL DEFAULT '0',
    turnover_total TEXT   NOT NULL DEFAULT '0',
    points_earned  TEXT   NOT NULL DEFAULT '0',
    points_spent   TEXT   NOT NULL DEFAULT '0',
    -- bets in hundredths, for ranking in SQL (userrank)
    exp_rank       INTEGER NOT NULL DEFAULT 0,
    updated_ms     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS vip_members_rank ON vip_members (market, level, exp_rank);
CREATE INDEX IF NOT EXISTS vip_members_promote ON vip_members (level, reached_level);

-- What each bet has counted so far (valid turnover is counted once per
-- bet; a re-settlement adjusts it by the difference).
CREATE TABLE IF NOT EXISTS vip_bets
(
    bet_id        TEXT   PRIMARY KEY,
    member_id     TEXT   NOT NULL,
    stake         TEXT   NOT NULL,
    odds          TEXT,
    free          INTEGER NOT NULL DEFAULT 0,
    counted       TEXT   NOT NULL DEFAULT '0'
);

-- Valid turnover per member, UTC day and product (sport, ag, pg): the
-- basis of daily rebates and monthly salaries.
CREATE TABLE IF NOT EXISTS vip_daily
(
    member_id TEXT NOT NULL,
    day       TEXT NOT NULL,
    product   TEXT NOT NULL,
    turnover  TEXT NOT NULL,
    PRIMARY KEY (member_id, day, product)
);
CREATE INDEX IF NOT EXISTS vip_daily_day ON vip_daily (day);

-- Every movement of experience (money, bets) and M currency (points), one
-- row per source event (`source` = aggregate/id#sequence), with the values
-- after it: vipxporders, scoreorders, mcoindetail and the growth chart.
CREATE TABLE IF NOT EXISTS vip_ledger
(
    member_id   TEXT   NOT NULL,
    source      TEXT   NOT NULL,
    at_ms       INTEGER NOT NULL,
    -- the source event's global position: orders rows of one millisecond
    position    INTEGER NOT NULL,
    kind        TEXT   NOT NULL,
    money_delta TEXT   NOT NULL,
    bets_delta  TEXT   NOT NULL,
    points      TEXT   NOT NULL,
    money       TEXT   NOT NULL,
    bets        TEXT   NOT NULL,
    level       INTEGER NOT NULL,
    PRIMARY KEY (member_id, source)
);
CREATE INDEX IF NOT EXISTS vip_ledger_member ON vip_ledger (member_id, at_ms, position);

-- Rewards granted (gift, salary, rebate) with the turnover each requires
-- before withdrawal (the flow report reads it).
CREATE TABLE IF NOT EXISTS vip_rewards
(
    reference         TEXT   PRIMARY KEY,
    member_id         TEXT   NOT NULL,
    kind              TEXT   NOT NULL,
    reward_key        TEXT   NOT NULL,
    level             INTEGER NOT NULL,
    currency          TEXT   NOT NULL,
    amount            TEXT   NOT NULL,
    basis             TEXT   NOT NULL,
    rate              TEXT   NOT NULL,
    turnover_required TEXT   NOT NULL,
    at_ms             INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS vip_rewards_member ON vip_rewards (member_id, at_ms);

-- Passes of the VIP reward job that finished (rebates of a day, salaries
-- of a month, a season's decay): a marker only; every step is idempotent.
CREATE TABLE IF NOT EXISTS vip_jobs
(
    name    TEXT   PRIMARY KEY,
    done_ms INTEGER NOT NULL
);
