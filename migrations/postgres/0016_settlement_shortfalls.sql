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
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    bet_id      text    NOT NULL,
    version     bigint  NOT NULL,
    member_id   text    NOT NULL,
    currency    text    NOT NULL,
    due         text    NOT NULL,
    part        text    NOT NULL,
    taken       text    NOT NULL,
    shortfall   text    NOT NULL,
    status      text    NOT NULL,
    collections integer NOT NULL DEFAULT 0,
    pending     text,
    created_ms  bigint  NOT NULL,
    resolved_ms bigint,
    resolved_by text,
    note        text,
    UNIQUE (bet_id, version)
);
CREATE INDEX IF NOT EXISTS settlement_shortfalls_status ON settlement_shortfalls (status, id);
