-- Payments (commands/src/payments/, projections/src/payments.rs;
-- docs/payments.md). Command-side tables the payment services own, then
-- the read models the projections fill.

-- Bank cards and USDT addresses a member bound for withdrawals.
CREATE TABLE IF NOT EXISTS payment_accounts
(
    id         text PRIMARY KEY,
    member_id  text   NOT NULL,
    kind       text   NOT NULL, -- 'card' | 'usdt'
    bank_name  text   NOT NULL, -- the bank, or the USDT chain
    number     text   NOT NULL, -- card number or address
    masked     text   NOT NULL,
    holder     text   NOT NULL,
    created_ms bigint NOT NULL,
    UNIQUE (member_id, kind, number)
);
CREATE INDEX IF NOT EXISTS payment_accounts_member ON payment_accounts (member_id, kind);

-- Card numbers and addresses nobody may bind (finance keeps it).
CREATE TABLE IF NOT EXISTS payment_blacklist
(
    value      text PRIMARY KEY,
    reason     text   NOT NULL,
    created_ms bigint NOT NULL
);

-- Each member's USDT deposit address per chain (the watcher maps an
-- address back to its member).
CREATE TABLE IF NOT EXISTS usdt_addresses
(
    address    text PRIMARY KEY,
    member_id  text   NOT NULL,
    chain      text   NOT NULL,
    created_ms bigint NOT NULL,
    UNIQUE (member_id, chain)
);

-- The USDT rate per currency (currency units per USDT): the rate source's
-- last value, shared by every node.
CREATE TABLE IF NOT EXISTS usdt_rates
(
    currency   text PRIMARY KEY,
    rate       text   NOT NULL,
    updated_ms bigint NOT NULL
);

-- Every verified provider report (callback or chain watcher), once per
-- provider event id: the dedupe of repeats and the reconciliation view.
CREATE TABLE IF NOT EXISTS provider_transactions
(
    provider       text   NOT NULL,
    event_id       text   NOT NULL,
    provider_tx_id text   NOT NULL,
    order_id       text   NOT NULL,
    status         text   NOT NULL,
    amount         text   NOT NULL,
    currency       text   NOT NULL,
    created        bigint NOT NULL,
    received_ms    bigint NOT NULL,
    PRIMARY KEY (provider, event_id)
);
CREATE INDEX IF NOT EXISTS provider_transactions_order ON provider_transactions (order_id);

-- One open withdrawal per member (20007), claimed before the freeze and
-- released when the withdrawal ends; and every request, for the daily count.
CREATE TABLE IF NOT EXISTS withdrawal_open
(
    member_id     text PRIMARY KEY,
    withdrawal_id text   NOT NULL,
    created_ms    bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS withdrawal_log
(
    withdrawal_id text PRIMARY KEY,
    member_id     text   NOT NULL,
    requested_ms  bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS withdrawal_log_member ON withdrawal_log (member_id, requested_ms);

-- The sandbox provider (a stand-in): its payments and the signed callbacks
-- it still has to deliver (several per payment, out of order).
CREATE TABLE IF NOT EXISTS sandbox_payments
(
    order_id       text PRIMARY KEY,
    provider_tx_id text   NOT NULL,
    amount         text   NOT NULL,
    currency       text   NOT NULL,
    status         text   NOT NULL,
    created_ms     bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS sandbox_callbacks
(
    id           text PRIMARY KEY,
    order_id     text    NOT NULL,
    body         text    NOT NULL,
    due_ms       bigint  NOT NULL,
    attempts     integer NOT NULL DEFAULT 0,
    delivered_ms bigint
);
CREATE INDEX IF NOT EXISTS sandbox_callbacks_due ON sandbox_callbacks (delivered_ms, due_ms);

-- Transfers the chain watcher stand-in reported.
CREATE TABLE IF NOT EXISTS chain_transfers
(
    tx_hash       text PRIMARY KEY,
    chain         text    NOT NULL,
    address       text    NOT NULL,
    usdt_amount   text    NOT NULL,
    confirmations integer NOT NULL,
    order_id      text,
    seen_ms       bigint  NOT NULL
);

-- Transfers between the main wallet and a game provider's wallet.
CREATE TABLE IF NOT EXISTS game_transfers
(
    transfer_id text PRIMARY KEY,
    member_id   text   NOT NULL,
    provider    text   NOT NULL,
    direction   text   NOT NULL, -- 'in' (to the game) | 'out'
    amount      text   NOT NULL,
    currency    text   NOT NULL,
    status      text   NOT NULL, -- 'pending' | 'done' | 'refused'
    created_ms  bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS game_transfers_status ON game_transfers (status, created_ms);

-- Tips 1000/1001 sent, once each (a repeated settle sends none).
CREATE TABLE IF NOT EXISTS payment_tips
(
    tip_key text PRIMARY KEY,
    sent_ms bigint NOT NULL
);

-- Read model: deposit and withdrawal orders (money orders, progress,
-- finance queues).
CREATE TABLE IF NOT EXISTS money_orders
(
    order_id        text PRIMARY KEY,
    member_id       text    NOT NULL,
    kind            text    NOT NULL, -- 'deposit' | 'withdrawal'
    channel         text    NOT NULL,
    currency        text    NOT NULL,
    amount          text    NOT NULL,
    credited_amount text    NOT NULL DEFAULT '0',
    status          text    NOT NULL,
    flagged         integer NOT NULL DEFAULT 0,
    note            text    NOT NULL DEFAULT '',
    provider_tx_id  text    NOT NULL DEFAULT '',
    detail          text    NOT NULL DEFAULT '{}',
    hidden          integer NOT NULL DEFAULT 0,
    created_ms      bigint  NOT NULL,
    updated_ms      bigint  NOT NULL
);
CREATE INDEX IF NOT EXISTS money_orders_member ON money_orders (member_id, created_ms);
CREATE INDEX IF NOT EXISTS money_orders_status ON money_orders (kind, status, created_ms);

-- Read model: every wallet movement with its kind and the balance after.
CREATE TABLE IF NOT EXISTS wallet_movements
(
    wallet_id     text   NOT NULL,
    sequence      bigint NOT NULL,
    member_id     text   NOT NULL,
    currency      text   NOT NULL,
    reference     text   NOT NULL,
    event_type    text   NOT NULL,
    kind          text   NOT NULL,
    amount        text   NOT NULL,
    balance_after text   NOT NULL,
    frozen_after  text   NOT NULL,
    at_ms         bigint NOT NULL,
    PRIMARY KEY (wallet_id, sequence)
);
CREATE INDEX IF NOT EXISTS wallet_movements_member ON wallet_movements (member_id, at_ms);

INSERT INTO id_blocks (name, next_id) VALUES ('deposit', 1) ON CONFLICT (name) DO NOTHING;
INSERT INTO id_blocks (name, next_id) VALUES ('withdrawal', 1) ON CONFLICT (name) DO NOTHING;
INSERT INTO id_blocks (name, next_id) VALUES ('payacct', 1) ON CONFLICT (name) DO NOTHING;
INSERT INTO id_blocks (name, next_id) VALUES ('transfer', 1) ON CONFLICT (name) DO NOTHING;
