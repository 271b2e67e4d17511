-- Back-office staff, separate from members (commands/src/staff.rs).
CREATE TABLE IF NOT EXISTS staff
(
    id            TEXT PRIMARY KEY,
    username      TEXT   NOT NULL UNIQUE,
    password_hash TEXT   NOT NULL,
    role          TEXT   NOT NULL,
    created_ms    INTEGER NOT NULL
);

-- Staff tokens: only SHA-256 hashes are stored.
CREATE TABLE IF NOT EXISTS staff_sessions
(
    token_hash TEXT PRIMARY KEY,
    staff_id   TEXT   NOT NULL,
    expires_ms INTEGER NOT NULL
);

-- Auto cash-out rules waiting for a price move (read model of the Bet's
-- AutoCashoutSet / AutoCashoutCancelled / BetCashedOut / BetSettled).
CREATE TABLE IF NOT EXISTS auto_cashout_rules
(
    bet_id     TEXT PRIMARY KEY,
    min_amount TEXT NOT NULL,
    partial    text
);
