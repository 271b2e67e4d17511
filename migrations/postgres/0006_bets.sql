-- Bet ids are handed out from here.
CREATE TABLE IF NOT EXISTS bet_ids
(
    id         bigint GENERATED ALWAYS AS IDENTITY (START WITH 1000001) PRIMARY KEY,
    created_ms bigint NOT NULL
);

-- Where each placement stands between the wallet and the Bet aggregate:
-- reserving -> placed -> taken, or released. A recovery pass finishes or
-- undoes placements a crash interrupted (every step is idempotent).
CREATE TABLE IF NOT EXISTS bet_placements
(
    bet_id     text PRIMARY KEY,
    member_id  text   NOT NULL,
    currency   text   NOT NULL,
    stake      text   NOT NULL,
    state      text   NOT NULL,
    updated_ms bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS bet_placements_open ON bet_placements (state, updated_ms);

-- Read model "bets": the bet history (report/betrecods), one row per bet.
CREATE TABLE IF NOT EXISTS bets
(
    bet_id        text PRIMARY KEY,
    member_id     text    NOT NULL,
    bet_type      integer NOT NULL,
    status        integer NOT NULL,
    amount        text    NOT NULL,
    payout        text    NOT NULL,
    currency      text    NOT NULL,
    date_time     bigint  NOT NULL,
    settled_at    bigint  NOT NULL DEFAULT 0,
    record        text    NOT NULL,
    last_sequence bigint  NOT NULL
);
CREATE INDEX IF NOT EXISTS bets_member_time ON bets (member_id, date_time);

-- Projection "settlement": which bets wait on which selections, the latest
-- outcome of every selection, and the settlements to carry out.
CREATE TABLE IF NOT EXISTS settlement_legs
(
    event_id bigint NOT NULL,
    bet_id   text   NOT NULL,
    PRIMARY KEY (event_id, bet_id)
);
CREATE INDEX IF NOT EXISTS settlement_legs_bet ON settlement_legs (bet_id);
CREATE TABLE IF NOT EXISTS settlement_outcomes
(
    event_id bigint PRIMARY KEY,
    outcome  text   NOT NULL,
    version  bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS settlement_tasks
(
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    bet_id     text   NOT NULL,
    version    bigint NOT NULL,
    done       integer NOT NULL DEFAULT 0,
    created_ms bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS settlement_tasks_open ON settlement_tasks (done, id);
