-- Secrets shared by every api process (app-token key, RSA login key).
CREATE TABLE IF NOT EXISTS server_secrets
(
    name  text PRIMARY KEY,
    value text NOT NULL
);

-- Unique usernames, phones and e-mails, claimed before an account's
-- Registered event is written.
CREATE TABLE IF NOT EXISTS account_identities
(
    kind    text NOT NULL,
    value   text NOT NULL,
    user_id text NOT NULL,
    PRIMARY KEY (kind, value)
);
CREATE INDEX IF NOT EXISTS account_identities_user ON account_identities (user_id);

-- Member ids are handed out from here.
CREATE TABLE IF NOT EXISTS member_ids
(
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    created_ms INTEGER NOT NULL
);

-- Sessions: only hashes of the tokens are stored.
CREATE TABLE IF NOT EXISTS sessions
(
    token_hash   text PRIMARY KEY,
    session_hash text   NOT NULL,
    user_id      text   NOT NULL,
    device_id    text   NOT NULL,
    created_ms   INTEGER NOT NULL,
    expires_ms   INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_user ON sessions (user_id);

-- Verification codes sent by SMS / e-mail (hash of the code only).
CREATE TABLE IF NOT EXISTS verification_codes
(
    uid         text PRIMARY KEY,
    kind        integer NOT NULL,
    valtype     integer NOT NULL,
    target      text    NOT NULL,
    username    text    NOT NULL DEFAULT '',
    code_hash   text    NOT NULL,
    sent_ms     INTEGER  NOT NULL,
    expires_ms  INTEGER  NOT NULL,
    attempts    integer NOT NULL DEFAULT 0,
    verified_ms INTEGER
);
CREATE INDEX IF NOT EXISTS verification_codes_target ON verification_codes (target, kind, sent_ms);

-- Image captchas, bound to the client's uid.
CREATE TABLE IF NOT EXISTS captchas
(
    uid        text PRIMARY KEY,
    code       text   NOT NULL,
    created_ms INTEGER NOT NULL
);

-- The stand-in sender's outbox (codes "sent" by SMS and e-mail).
CREATE TABLE IF NOT EXISTS outbox
(
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    channel text   NOT NULL,
    target  text   NOT NULL,
    code    text   NOT NULL,
    uid     text   NOT NULL,
    kind    integer NOT NULL,
    at_ms   INTEGER NOT NULL
);

-- Slow-response and network-error reports from clients.
CREATE TABLE IF NOT EXISTS client_logs
(
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    kind     text   NOT NULL,
    language text   NOT NULL,
    ip       text   NOT NULL,
    body     text   NOT NULL,
    at_ms    INTEGER NOT NULL
);

-- Member inbox.
CREATE TABLE IF NOT EXISTS member_messages
(
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id    text    NOT NULL,
    kind       integer NOT NULL,
    title      text    NOT NULL,
    content    text    NOT NULL,
    created_ms INTEGER  NOT NULL,
    read       integer NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS member_messages_user ON member_messages (user_id, id);

-- Member ids start at 100001 on both stores.
INSERT INTO sqlite_sequence (name, seq)
SELECT 'member_ids', 100000 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'member_ids');
