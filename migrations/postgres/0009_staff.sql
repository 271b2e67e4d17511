-- Back-office staff, separate from members (commands/src/staff.rs).
CREATE TABLE IF NOT EXISTS staff
(
    id            text PRIMARY KEY,
    username      text   NOT NULL UNIQUE,
    password_hash text   NOT NULL,
    role          text   NOT NULL,
    created_ms    bigint NOT NULL
);

-- Staff tokens: only SHA-256 hashes are stored.
CREATE TABLE IF NOT EXISTS staff_sessions
(
    token_hash text PRIMARY KEY,
    staff_id   text   NOT NULL,
    expires_ms bigint NOT NULL
);

-- Auto cash-out rules waiting for a price move (read model of the Bet's
-- AutoCashoutSet / AutoCashoutCancelled / BetCashedOut / BetSettled).
CREATE TABLE IF NOT EXISTS auto_cashout_rules
(
    bet_id     text PRIMARY KEY,
    min_amount text NOT NULL,
    partial    text
);
