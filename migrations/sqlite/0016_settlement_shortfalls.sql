-- Support queue "shortfalls" (commands/src/shortfalls.rs): a corrected
-- result whose take-back the member's balance could not cover. What the
-- balance held was taken at once (`part`, reference
-- bet:{id}:adjust:{version}:part; `taken` counts it and later
-- collections); the rest (`shortfall`) is the member's
-- debt, never a negative balance (invariant 3). Support collects it later
-- (`collections` numbers the attempts: reference shortfall:{id}:collect:{n};
-- `pending` is the amount of the attempt under way) or writes it off.
CREATE TABLE IF NOT EXISTS settlement_shortfalls
(
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    bet_id      TEXT    NOT NULL,
    version     INTEGER NOT NULL,
    member_id   TEXT    NOT NULL,
    currency    TEXT    NOT NULL,
    due         TEXT    NOT NULL,
    part        TEXT    NOT NULL,
    taken       TEXT    NOT NULL,
    shortfall   TEXT    NOT NULL,
    status      TEXT    NOT NULL,
    collections INTEGER NOT NULL DEFAULT 0,
    pending     TEXT,
    created_ms  INTEGER NOT NULL,
    resolved_ms INTEGER,
    resolved_by TEXT,
    note        TEXT,
    UNIQUE (bet_id, version)
);
CREATE INDEX IF NOT EXISTS settlement_shortfalls_status ON settlement_shortfalls (status, id);
