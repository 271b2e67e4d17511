-- Each wallet's last movement as the wallet_movements projection left it:
-- the projection starts a batch from these balances, read by key, instead
-- of finding every wallet's newest movement (a correlated MAX that walked
-- all of a wallet's movements, every batch: 80 ms a batch once the
-- benchmark's wallets held a few hundred movements each).
CREATE TABLE IF NOT EXISTS wallet_heads
(
    wallet_id     text   PRIMARY KEY,
    sequence      bigint NOT NULL,
    balance_after text   NOT NULL,
    frozen_after  text   NOT NULL
);

INSERT INTO wallet_heads (wallet_id, sequence, balance_after, frozen_after)
SELECT DISTINCT ON (wallet_id) wallet_id, sequence, balance_after, frozen_after
FROM wallet_movements
ORDER BY wallet_id, sequence DESC
ON CONFLICT (wallet_id) DO NOTHING;
