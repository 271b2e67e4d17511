-- Free bets granted to members (commands/src/freebets.rs). The grant's
-- money is the wallet's bonus pot (`freebet:{id}`); whether a free bet was
-- used is the wallet's: its stake is held under `freebet:{id}:used`, a
-- reference a wallet accepts once.
CREATE TABLE IF NOT EXISTS free_bets
(
    id         TEXT PRIMARY KEY,
    member_id  TEXT    NOT NULL,
    currency   TEXT    NOT NULL,
    amount     TEXT    NOT NULL,
    granted_ms INTEGER NOT NULL,
    expires_ms INTEGER NOT NULL,
    granted_by TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS free_bets_member ON free_bets (member_id, expires_ms);

INSERT OR IGNORE INTO id_blocks (name, next_id) VALUES ('freebet', 1);
