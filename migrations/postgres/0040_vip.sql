-- VIP read model (projections/src/vip.rs, docs/vip.md). Money and points are
-- exact decimal text. `money` and `bets` are the honour values the level is
-- computed from (a season's decay resets them to the level's start);
-- `deposits_total` and `turnover_total` never reset.
CREATE TABLE IF NOT EXISTS vip_members
(
    member_id      text   PRIMARY KEY,
    market         text   NOT NULL,
    currency       text   NOT NULL,
    registered_ms  bigint NOT NULL DEFAULT 0,
    level          bigint NOT NULL DEFAULT 1,
    reached_level  bigint NOT NULL DEFAULT 1,
    money          text   NOT NULL DEFAULT '0',
    bets           text   NOT NULL DEFAULT '0',
    deposits_total text   NOT NULL DEFAULT '0',
    turnover_total text   NOT NULL DEFAULT '0',
    points_earned  text   NOT NULL DEFAULT '0',
    points_spent   text   NOT NULL DEFAULT '0',
    -- bets in hundredths, for ranking in SQL (userrank)
    exp_rank       bigint NOT NULL DEFAULT 0,
    updated_ms     bigint NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS vip_members_rank ON vip_members (market, level, exp_rank);
CREATE INDEX IF NOT EXISTS vip_members_promote ON vip_members (level, reached_level);

-- What each bet has counted so far (valid turnover is counted once per
-- bet; a re-settlement adjusts it by the difference).
CREATE TABLE IF NOT EXISTS vip_bets
(
    bet_id        text   PRIMARY KEY,
    member_id     text   NOT NULL,
    stake         text   NOT NULL,
    odds          text,
    free          bigint NOT NULL DEFAULT 0,
    counted       text   NOT NULL DEFAULT '0'
);

-- Valid turnover per member, UTC day and product (sport, ag, pg): the
-- basis of daily rebates and monthly salaries.
CREATE TABLE IF NOT EXISTS vip_daily
(
    member_id text NOT NULL,
    day       text NOT NULL,
    product   text NOT NULL,
    turnover  text NOT NULL,
    PRIMARY KEY (member_id, day, product)
);
CREATE INDEX IF NOT EXISTS vip_daily_day ON vip_daily (day);

-- Every movement of experience (money, bets) and M currency (points), one
-- row per source event (`source` = aggregate/id#sequence), with the values
-- after it: vipxporders, scoreorders, mcoindetail and the growth chart.
CREATE TABLE IF NOT EXISTS vip_ledger
(
    member_id   text   NOT NULL,
    source      text   NOT NULL,
    at_ms       bigint NOT NULL,
    -- the source event's global position: orders rows of one millisecond
    position    bigint NOT NULL,
    kind        text   NOT NULL,
    money_delta text   NOT NULL,
    bets_delta  text   NOT NULL,
    points      text   NOT NULL,
    money       text   NOT NULL,
    bets        text   NOT NULL,
    level       bigint NOT NULL,
    PRIMARY KEY (member_id, source)
);
CREATE INDEX IF NOT EXISTS vip_ledger_member ON vip_ledger (member_id, at_ms, position);

-- Rewards granted (gift, salary, rebate) with the turnover each requires
-- before withdrawal (the flow report reads it).
CREATE TABLE IF NOT EXISTS vip_rewards
(
    reference         text   PRIMARY KEY,
    member_id         text   NOT NULL,
    kind              text   NOT NULL,
    reward_key        text   NOT NULL,
    level             bigint NOT NULL,
    currency          text   NOT NULL,
    amount            text   NOT NULL,
    basis             text   NOT NULL,
    rate              text   NOT NULL,
    turnover_required text   NOT NULL,
    at_ms             bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS vip_rewards_member ON vip_rewards (member_id, at_ms);

-- Passes of the VIP reward job that finished (rebates of a day, salaries
-- of a month, a season's decay): a marker only; every step is idempotent.
CREATE TABLE IF NOT EXISTS vip_jobs
(
    name    text   PRIMARY KEY,
    done_ms bigint NOT NULL
);
