-- Each wallet's last movement as the wallet_movements projection left it:
-- the projection starts a batch from these balances, read by key, instead
-- of finding every wallet's newest movement (a correlated MAX that walked
-- all of a wallet's movements, every batch).
CREATE TABLE IF NOT EXISTS wallet_heads
(
    wallet_id     TEXT    PRIMARY KEY,
    sequence      INTEGER NOT NULL,
    balance_after TEXT    NOT NULL,
    frozen_after  TEXT    NOT NULL
);

INSERT OR IGNORE INTO wallet_heads (wallet_id, sequence, balance_after, frozen_after)
SELECT w.wallet_id, w.sequence, w.balance_after, w.frozen_after
FROM wallet_movements w
JOIN (SELECT wallet_id, MAX(sequence) AS last FROM wallet_movements GROUP BY wallet_id) m
  ON m.wallet_id = w.wallet_id AND m.last = w.sequence;
