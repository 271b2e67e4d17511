-- Read model: balance per member and currency (projection "balances").
-- Money is kept as exact decimal text, the same on both stores.
CREATE TABLE IF NOT EXISTS balances
(
    member_id         text   NOT NULL,
    currency          text   NOT NULL,
    balance           text   NOT NULL,
    bonus_balance     text   NOT NULL,
    bonus_win_balance text   NOT NULL,
    frozen_balance    text   NOT NULL,
    reserved          text   NOT NULL,
    last_sequence     bigint NOT NULL,
    PRIMARY KEY (member_id, currency)
);
