-- The bet table's totals by currency and status (bets, staked, paid out,
-- possible wins), kept by the bet-history projection in each batch's
-- transaction: the business gauges read these few rows instead of
-- aggregating the whole bet table every 15 s on every node. Amounts are
-- exact decimals as text. Bets placed before this table existed are added
-- once, at the first start of the new version
-- (`projections::bets::seed_totals`, under the projection's checkpoint
-- lock); a rebuild fills it with the bet table.
CREATE TABLE IF NOT EXISTS bet_totals
(
    currency     TEXT    NOT NULL,
    status       INTEGER NOT NULL,
    bets         INTEGER NOT NULL,
    staked       TEXT    NOT NULL,
    paid         TEXT    NOT NULL,
    possible_win TEXT    NOT NULL,
    PRIMARY KEY (currency, status)
);
