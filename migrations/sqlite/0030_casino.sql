-- The casino catalogue (commands/src/casino/catalogue.rs): providers,
-- categories and games (spec 001 section 3), imported from
-- config/casino/catalogue.json when empty and edited by admin staff.
CREATE TABLE IF NOT EXISTS casino_providers
(
    code          TEXT PRIMARY KEY,
    name          TEXT    NOT NULL,
    -- 1: launched through casino_game_url (the realtime data service).
    uses_realtime INTEGER NOT NULL DEFAULT 0,
    enabled       INTEGER NOT NULL DEFAULT 1,
    sort          INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS casino_categories
(
    code    TEXT PRIMARY KEY,
    name    TEXT    NOT NULL,
    section TEXT    NOT NULL,
    sort    INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS casino_games
(
    id               INTEGER PRIMARY KEY,
    provider         TEXT    NOT NULL,
    front_game_id    TEXT    NOT NULL,
    external_game_id TEXT    NOT NULL,
    game_options     TEXT    NOT NULL DEFAULT '',
    link             TEXT    NOT NULL DEFAULT '',
    real_mode        INTEGER NOT NULL DEFAULT 1,
    view_mode        INTEGER NOT NULL DEFAULT 0,
    fun_mode         INTEGER NOT NULL DEFAULT 1,
    name             TEXT    NOT NULL,
    icon_1           TEXT    NOT NULL DEFAULT '',
    icon_2           TEXT    NOT NULL DEFAULT '',
    category         TEXT    NOT NULL,
    -- casino | live-casino | thirdparty | ppslots | catmin | specialty
    section          TEXT    NOT NULL,
    -- third-party game type (spec 001 section 9: 4, 6, 8, 8pb, 9, 12) or ''
    game_type        TEXT    NOT NULL DEFAULT '',
    -- turnover product: pg (slots) | ag (live tables)
    product          TEXT    NOT NULL DEFAULT 'pg',
    enabled          INTEGER NOT NULL DEFAULT 1,
    sort             INTEGER NOT NULL DEFAULT 0,
    UNIQUE (provider, external_game_id)
);

CREATE TABLE IF NOT EXISTS casino_favorites
(
    member_id  TEXT   NOT NULL,
    game_id    INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    PRIMARY KEY (member_id, game_id)
);

-- Launch tokens (casino_auth): bound to member, game and currency, with an
-- expiry; only SHA-256 hashes are stored.
CREATE TABLE IF NOT EXISTS casino_tokens
(
    token_hash TEXT PRIMARY KEY,
    member_id  TEXT   NOT NULL,
    game_id    INTEGER NOT NULL,
    provider   TEXT   NOT NULL,
    currency   TEXT   NOT NULL,
    mode       TEXT   NOT NULL,
    created_ms INTEGER NOT NULL,
    expires_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS casino_tokens_expiry ON casino_tokens (expires_ms);

-- The built-in demo provider's own state (a stand-in for a provider's
-- systems, shared by every api process): fun-mode play money per fun
-- session, and the live roulette table's rounds and bets.
CREATE TABLE IF NOT EXISTS demo_provider_fun
(
    session    TEXT PRIMARY KEY,
    balance    TEXT   NOT NULL,
    updated_ms INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS demo_roulette_rounds
(
    id        INTEGER PRIMARY KEY,
    opens_ms  INTEGER  NOT NULL,
    closes_ms INTEGER  NOT NULL,
    number    INTEGER,
    settled   INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS demo_roulette_bets
(
    round_id         INTEGER  NOT NULL,
    transaction_uuid TEXT    NOT NULL,
    token            TEXT    NOT NULL,
    member           TEXT    NOT NULL,
    currency         TEXT    NOT NULL,
    game             TEXT    NOT NULL DEFAULT '',
    fun              INTEGER NOT NULL,
    picks            TEXT    NOT NULL,
    amount           TEXT    NOT NULL,
    -- placed | confirmed | rolled_back | won
    state            TEXT    NOT NULL,
    payout           TEXT,
    PRIMARY KEY (round_id, transaction_uuid)
);
