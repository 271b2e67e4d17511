-- The casino catalogue (commands/src/casino/catalogue.rs): providers,
-- categories and games (spec 001 section 3), imported from
-- config/casino/catalogue.json when empty and edited by admin staff.
CREATE TABLE IF NOT EXISTS casino_providers
(
    code          text PRIMARY KEY,
    name          text    NOT NULL,
    -- 1: launched through casino_game_url (the realtime data service).
    uses_realtime integer NOT NULL DEFAULT 0,
    enabled       integer NOT NULL DEFAULT 1,
    sort          integer NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS casino_categories
(
    code    text PRIMARY KEY,
    name    text    NOT NULL,
    section text    NOT NULL,
    sort    integer NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS casino_games
(
    id               bigint PRIMARY KEY,
    provider         text    NOT NULL,
    front_game_id    text    NOT NULL,
    external_game_id text    NOT NULL,
    game_options     text    NOT NULL DEFAULT '',
    link             text    NOT NULL DEFAULT '',
    real_mode        integer NOT NULL DEFAULT 1,
    view_mode        integer NOT NULL DEFAULT 0,
    fun_mode         integer NOT NULL DEFAULT 1,
    name             text    NOT NULL,
    icon_1           text    NOT NULL DEFAULT '',
    icon_2           text    NOT NULL DEFAULT '',
    category         text    NOT NULL,
    -- casino | live-casino | thirdparty | ppslots | catmin | specialty
    section          text    NOT NULL,
    -- third-party game type (spec 001 section 9: 4, 6, 8, 8pb, 9, 12) or ''
    game_type        text    NOT NULL DEFAULT '',
    -- turnover product: pg (slots) | ag (live tables)
    product          text    NOT NULL DEFAULT 'pg',
    enabled          integer NOT NULL DEFAULT 1,
    sort             integer NOT NULL DEFAULT 0,
    UNIQUE (provider, external_game_id)
);

CREATE TABLE IF NOT EXISTS casino_favorites
(
    member_id  text   NOT NULL,
    game_id    bigint NOT NULL,
    created_ms bigint NOT NULL,
    PRIMARY KEY (member_id, game_id)
);

-- Launch tokens (casino_auth): bound to member, game and currency, with an
-- expiry; only SHA-256 hashes are stored.
CREATE TABLE IF NOT EXISTS casino_tokens
(
    token_hash text PRIMARY KEY,
    member_id  text   NOT NULL,
    game_id    bigint NOT NULL,
    provider   text   NOT NULL,
    currency   text   NOT NULL,
    mode       text   NOT NULL,
    created_ms bigint NOT NULL,
    expires_ms bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS casino_tokens_expiry ON casino_tokens (expires_ms);

-- The built-in demo provider's own state (a stand-in for a provider's
-- systems, shared by every api process): fun-mode play money per fun
-- session, and the live roulette table's rounds and bets.
CREATE TABLE IF NOT EXISTS demo_provider_fun
(
    session    text PRIMARY KEY,
    balance    text   NOT NULL,
    updated_ms bigint NOT NULL
);

CREATE TABLE IF NOT EXISTS demo_roulette_rounds
(
    id        bigint PRIMARY KEY,
    opens_ms  bigint  NOT NULL,
    closes_ms bigint  NOT NULL,
    number    integer,
    settled   integer NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS demo_roulette_bets
(
    round_id         bigint  NOT NULL,
    transaction_uuid text    NOT NULL,
    token            text    NOT NULL,
    member           text    NOT NULL,
    currency         text    NOT NULL,
    game             text    NOT NULL DEFAULT '',
    fun              integer NOT NULL,
    picks            text    NOT NULL,
    amount           text    NOT NULL,
    -- placed | confirmed | rolled_back | won
    state            text    NOT NULL,
    payout           text,
    PRIMARY KEY (round_id, transaction_uuid)
);
