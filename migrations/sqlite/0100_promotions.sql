-- Promotions, the rewards half (commands/src/promo/, docs/promotions.md).
-- Every reward, draw and purchase also appends a `Promotion` event (id =
-- its reference) in the same transaction as its row here; staff changes
-- append `PromotionConfig` events carrying the staff id.

-- Documents marketing edits (sign-in table, daily and novice tasks, prize
-- board, draw period), JSON text; absent: the built-in defaults.
CREATE TABLE IF NOT EXISTS promo_settings
(
    name       TEXT   PRIMARY KEY,
    value      TEXT   NOT NULL,
    updated_by TEXT   NOT NULL,
    updated_ms INTEGER NOT NULL
);

-- Daily sign-ins: one row per member and day (the key refuses a second).
CREATE TABLE IF NOT EXISTS promo_signins
(
    member_id TEXT   NOT NULL,
    day       INTEGER NOT NULL,
    streak    INTEGER NOT NULL,
    reward    TEXT   NOT NULL,
    currency  TEXT   NOT NULL,
    reference TEXT   NOT NULL,
    at_ms     INTEGER NOT NULL,
    PRIMARY KEY (member_id, day)
);

-- Daily and novice task claims, keyed by reference
-- (task:{member}:{task}:{day} or novice:{member}:{task}).
CREATE TABLE IF NOT EXISTS promo_task_claims
(
    reference  TEXT   PRIMARY KEY,
    member_id  TEXT   NOT NULL,
    task_id    INTEGER NOT NULL,
    period     TEXT   NOT NULL,
    cash       TEXT   NOT NULL,
    currency   TEXT   NOT NULL,
    state      TEXT   NOT NULL,
    reason     TEXT   NOT NULL DEFAULT '',
    staff_id   TEXT   NOT NULL DEFAULT '',
    created_ms INTEGER NOT NULL,
    decided_ms INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS promo_task_claims_member ON promo_task_claims (member_id, period);
CREATE INDEX IF NOT EXISTS promo_task_claims_state ON promo_task_claims (state, created_ms);

-- Prize draw: the stock of each board slot per week, taken by a
-- conditional update (taken < stock) so it is never oversold.
CREATE TABLE IF NOT EXISTS promo_prize_stock
(
    week  INTEGER NOT NULL,
    slot  INTEGER NOT NULL,
    stock INTEGER NOT NULL,
    taken INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (week, slot)
);

-- One draw per member and draw period.
CREATE TABLE IF NOT EXISTS promo_draws
(
    member_id  TEXT   NOT NULL,
    period     TEXT   NOT NULL,
    week       INTEGER NOT NULL,
    slot       INTEGER NOT NULL,
    prize      TEXT   NOT NULL,
    kind       TEXT   NOT NULL,
    cash       TEXT   NOT NULL,
    currency   TEXT   NOT NULL,
    reference  TEXT   NOT NULL UNIQUE,
    state      TEXT   NOT NULL,
    address    TEXT   NOT NULL DEFAULT '',
    at_ms      INTEGER NOT NULL,
    shipped_ms INTEGER NOT NULL DEFAULT 0,
    shipped_by TEXT   NOT NULL DEFAULT '',
    PRIMARY KEY (member_id, period)
);
CREATE INDEX IF NOT EXISTS promo_draws_kind ON promo_draws (kind, state, at_ms);

-- Shop goods (def = JSON), stock sold by a conditional update.
CREATE TABLE IF NOT EXISTS promo_goods
(
    goods_id   INTEGER PRIMARY KEY,
    def        TEXT   NOT NULL,
    stock      INTEGER NOT NULL,
    sold       INTEGER NOT NULL DEFAULT 0,
    updated_by TEXT   NOT NULL,
    updated_ms INTEGER NOT NULL
);

-- What each member bought of each goods (the per-member limit).
CREATE TABLE IF NOT EXISTS promo_goods_bought
(
    goods_id  INTEGER NOT NULL,
    member_id TEXT   NOT NULL,
    bought    INTEGER NOT NULL,
    PRIMARY KEY (goods_id, member_id)
);

CREATE TABLE IF NOT EXISTS promo_orders
(
    order_id   TEXT   PRIMARY KEY,
    member_id  TEXT   NOT NULL,
    goods_id   INTEGER NOT NULL,
    name       TEXT   NOT NULL,
    qty        INTEGER NOT NULL,
    points     TEXT   NOT NULL,
    kind       TEXT   NOT NULL,
    cash       TEXT   NOT NULL,
    currency   TEXT   NOT NULL,
    state      TEXT   NOT NULL,
    address    TEXT   NOT NULL DEFAULT '',
    created_ms INTEGER NOT NULL,
    shipped_ms INTEGER NOT NULL DEFAULT 0,
    shipped_by TEXT   NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS promo_orders_member ON promo_orders (member_id, created_ms);
CREATE INDEX IF NOT EXISTS promo_orders_state ON promo_orders (kind, state, created_ms);

-- Campaigns (def = JSON) and the applications: one per member, campaign
-- and period (the key is the exactly-once rule).
CREATE TABLE IF NOT EXISTS promo_campaigns
(
    campaign_id INTEGER PRIMARY KEY,
    def         TEXT   NOT NULL,
    updated_by  TEXT   NOT NULL,
    updated_ms  INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS promo_applications
(
    campaign_id       INTEGER NOT NULL,
    member_id         TEXT   NOT NULL,
    period            TEXT   NOT NULL,
    reference         TEXT   NOT NULL UNIQUE,
    rule              TEXT   NOT NULL,
    basis             TEXT   NOT NULL,
    amount            TEXT   NOT NULL,
    currency          TEXT   NOT NULL,
    turnover_required TEXT   NOT NULL,
    created_ms        INTEGER NOT NULL,
    PRIMARY KEY (campaign_id, member_id, period)
);
CREATE INDEX IF NOT EXISTS promo_applications_member ON promo_applications (member_id, created_ms);

-- Referrals: each member's invite code, and each referee's link to the
-- member who invited them.
CREATE TABLE IF NOT EXISTS promo_invite_codes
(
    member_id  TEXT   PRIMARY KEY,
    code       TEXT   NOT NULL UNIQUE,
    created_ms INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS promo_referrals
(
    referee_id    TEXT   PRIMARY KEY,
    referrer_id   TEXT   NOT NULL,
    username      TEXT   NOT NULL DEFAULT '',
    code          TEXT   NOT NULL,
    device_id     TEXT   NOT NULL DEFAULT '',
    registered_ms INTEGER NOT NULL,
    state         TEXT   NOT NULL,
    reason        TEXT   NOT NULL DEFAULT '',
    action        INTEGER NOT NULL DEFAULT 1,
    bonus         TEXT   NOT NULL DEFAULT '0',
    currency      TEXT   NOT NULL DEFAULT '',
    reference     TEXT   NOT NULL DEFAULT '',
    decided_ms    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS promo_referrals_referrer ON promo_referrals (referrer_id, registered_ms);
CREATE INDEX IF NOT EXISTS promo_referrals_state ON promo_referrals (state, registered_ms);
CREATE INDEX IF NOT EXISTS promo_referrals_device ON promo_referrals (device_id);
