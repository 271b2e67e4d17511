-- Payments (commands/src/payments/, projections/src/payments.rs;
-- docs/payments.md). Command-side tables the payment services own, then
-- the read models the projections fill.

-- Bank cards and USDT addresses a member bound for withdrawals.
CREATE TABLE IF NOT EXISTS payment_accounts
(
    id         TEXT PRIMARY KEY,
    member_id  TEXT   NOT NULL,
    kind       TEXT   NOT NULL, -- 'card' | 'usdt'
    bank_name  TEXT   NOT NULL, -- the bank, or the USDT chain
    number     TEXT   NOT NULL, -- card number or address
    masked     TEXT   NOT NULL,
    holder     TEXT   NOT NULL,
    created_ms INTEGER NOT NULL,
    UNIQUE (member_id, kind, number)
);
CREATE INDEX IF NOT EXISTS payment_accounts_member ON payment_accounts (member_id, kind);

-- Card numbers and addresses nobody may bind (finance keeps it).
CREATE TABLE IF NOT EXISTS payment_blacklist
(
    value      TEXT PRIMARY KEY,
    reason     TEXT   NOT NULL,
    created_ms INTEGER NOT NULL
);

-- Each member's USDT deposit address per chain (the watcher maps an
-- address back to its member).
CREATE TABLE IF NOT EXISTS usdt_addresses
(
    address    TEXT PRIMARY KEY,
    member_id  TEXT   NOT NULL,
    chain      TEXT   NOT NULL,
    created_ms INTEGER NOT NULL,
    UNIQUE (member_id, chain)
);

-- The USDT rate per currency (currency units per USDT): the rate source's
-- last value, shared by every node.
CREATE TABLE IF NOT EXISTS usdt_rates
(
    currency   TEXT PRIMARY KEY,
    rate       TEXT   NOT NULL,
    updated_ms INTEGER NOT NULL
);

-- Every verified provider report (callback or chain watcher), once per
-- provider event id: the dedupe of repeats and the reconciliation view.
CREATE TABLE IF NOT EXISTS provider_transactions
(
    provider       TEXT   NOT NULL,
    event_id       TEXT   NOT NULL,
    provider_tx_id TEXT   NOT NULL,
    order_id       TEXT   NOT NULL,
    status         TEXT   NOT NULL,
    amount         TEXT   NOT NULL,
    currency       TEXT   NOT NULL,
    created        INTEGER NOT NULL,
    received_ms    INTEGER NOT NULL,
    PRIMARY KEY (provider, event_id)
);
CREATE INDEX IF NOT EXISTS provider_transactions_order ON provider_transactions (order_id);

-- One open withdrawal per member (20007), claimed before the freeze and
-- released when the withdrawal ends; and every request, for the daily count.
CREATE TABLE IF NOT EXISTS withdrawal_open
(
    member_id     TEXT PRIMARY KEY,
    withdrawal_id TEXT   NOT NULL,
    created_ms    INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS withdrawal_log
(
    withdrawal_id TEXT PRIMARY KEY,
    member_id     TEXT   NOT NULL,
    requested_ms  INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS withdrawal_log_member ON withdrawal_log (member_id, requested_ms);

-- The sandbox provider (a stand-in): its payments and the signed callbacks
-- it still has to deliver (several per payment, out of order).
CREATE TABLE IF NOT EXISTS sandbox_payments
(
    order_id       TEXT PRIMARY KEY,
    provider_tx_id TEXT   NOT NULL,
    amount         TEXT   NOT NULL,
    currency       TEXT   NOT NULL,
    status         TEXT   NOT NULL,
    created_ms     INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS sandbox_callbacks
(
    id           TEXT PRIMARY KEY,
    order_id     TEXT    NOT NULL,
    body         TEXT    NOT NULL,
    due_ms       INTEGER NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    delivered_ms INTEGER
);
CREATE INDEX IF NOT EXISTS sandbox_callbacks_due ON sandbox_callbacks (delivered_ms, due_ms);

-- Transfers the chain watcher stand-in reported.
CREATE TABLE IF NOT EXISTS chain_transfers
(
    tx_hash       TEXT PRIMARY KEY,
    chain         TEXT    NOT NULL,
    address       TEXT    NOT NULL,
    usdt_amount   TEXT    NOT NULL,
    confirmations INTEGER NOT NULL,
    order_id      TEXT,
    seen_ms       INTEGER NOT NULL
);

-- Transfers between the main wallet and a game provider's wallet.
CREATE TABLE IF NOT EXISTS game_transfers
(
    transfer_id TEXT PRIMARY KEY,
    member_id   TEXT   NOT NULL,
    provider    TEXT   NOT NULL,
    direction   TEXT   NOT NULL, -- 'in' (to the game) | 'out'
    amount      TEXT   NOT NULL,
    currency    TEXT   NOT NULL,
    status      TEXT   NOT NULL, -- 'pending' | 'done' | 'refused'
    created_ms  INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS game_transfers_status ON game_transfers (status, created_ms);

-- Tips 1000/1001 sent, once each (a repeated settle sends none).
CREATE TABLE IF NOT EXISTS payment_tips
(
    tip_key TEXT PRIMARY KEY,
    sent_ms INTEGER NOT NULL
);

-- Read model: deposit and withdrawal orders (money orders, progress,
-- finance queues).
CREATE TABLE IF NOT EXISTS money_orders
(
    order_id        TEXT PRIMARY KEY,
    member_id       TEXT    NOT NULL,
    kind            TEXT    NOT NULL, -- 'deposit' | 'withdrawal'
    channel         TEXT    NOT NULL,
    currency        TEXT    NOT NULL,
    amount          TEXT    NOT NULL,
    credited_amount TEXT    NOT NULL DEFAULT '0',
    status          TEXT    NOT NULL,
    flagged         INTEGER NOT NULL DEFAULT 0,
    note            TEXT    NOT NULL DEFAULT '',
    provider_tx_id  TEXT    NOT NULL DEFAULT '',
    detail          TEXT    NOT NULL DEFAULT '{}',
    hidden          INTEGER NOT NULL DEFAULT 0,
    created_ms      INTEGER NOT NULL,
    updated_ms      INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS money_orders_member ON money_orders (member_id, created_ms);
CREATE INDEX IF NOT EXISTS money_orders_status ON money_orders (kind, status, created_ms);

-- Read model: every wallet movement with its kind and the balance after.
CREATE TABLE IF NOT EXISTS wallet_movements
(
    wallet_id     TEXT   NOT NULL,
    sequence      INTEGER NOT NULL,
    member_id     TEXT   NOT NULL,
    currency      TEXT   NOT NULL,
    reference     TEXT   NOT NULL,
    event_type    TEXT   NOT NULL,
    kind          TEXT   NOT NULL,
    amount        TEXT   NOT NULL,
    balance_after TEXT   NOT NULL,
    frozen_after  TEXT   NOT NULL,
    at_ms         INTEGER NOT NULL,
    PRIMARY KEY (wallet_id, sequence)
);
CREATE INDEX IF NOT EXISTS wallet_movements_member ON wallet_movements (member_id, at_ms);

INSERT OR IGNORE INTO id_blocks (name, next_id) VALUES ('deposit', 1);
INSERT OR IGNORE INTO id_blocks (name, next_id) VALUES ('withdrawal', 1);
INSERT OR IGNORE INTO id_blocks (name, next_id) VALUES ('payacct', 1);
INSERT OR IGNORE INTO id_blocks (name, next_id) VALUES ('transfer', 1);
