-- Free bets granted to members (commands/src/freebets.rs). The grant's
-- money is the wallet's bonus pot (`freebet:{id}`); whether a free bet was
-- used is the wallet's: its stake is held under `freebet:{id}:used`, a
-- reference a wallet accepts once.
CREATE TABLE IF NOT EXISTS free_bets
(
    id         text PRIMARY KEY,
    member_id  text   NOT NULL,
    currency   text   NOT NULL,
    amount     text   NOT NULL,
    granted_ms bigint NOT NULL,
    expires_ms bigint NOT NULL,
    granted_by text   NOT NULL
);
CREATE INDEX IF NOT EXISTS free_bets_member ON free_bets (member_id, expires_ms);

INSERT INTO id_blocks (name, next_id) VALUES ('freebet', 1) ON CONFLICT (name) DO NOTHING;
