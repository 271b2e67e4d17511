-- Read model: balance per member and currency (projection "balances").
-- Money is kept as exact decimal text, the same on both stores.
CREATE TABLE IF NOT EXISTS balances
(
    member_id         TEXT   NOT NULL,
    currency          TEXT   NOT NULL,
    balance           TEXT   NOT NULL,
    bonus_balance     TEXT   NOT NULL,
    bonus_win_balance TEXT   NOT NULL,
    frozen_balance    TEXT   NOT NULL,
    reserved          TEXT   NOT NULL,
    last_sequence     INTEGER NOT NULL,
    PRIMARY KEY (member_id, currency)
);
