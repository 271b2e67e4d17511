-- Content and inbox (issue 13 items 6 and 7; commands/src/content.rs,
-- commands/src/inbox.rs, docs/content.md).

-- A member may delete an inbox message (hidden, kept for the record).
ALTER TABLE member_messages ADD COLUMN IF NOT EXISTS deleted integer NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS member_messages_unread ON member_messages (user_id, read, deleted);

-- Tracking records of the inbox process manager: one row per source event
-- ("{aggregate_type}/{aggregate_id}#{sequence}") it has handled, written in
-- the same transaction as the message, so each event writes one message
-- across restarts and processes.
CREATE TABLE IF NOT EXISTS inbox_tracked
(
    source     text   PRIMARY KEY,
    member_id  text   NOT NULL,
    tracked_ms bigint NOT NULL
);

-- What the marketing desk publishes: notices, banners, covers, popups,
-- news and help pages. `body` is the kind's own fields as JSON text
-- (domain::content::validate).
CREATE TABLE IF NOT EXISTS content_items
(
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind       text    NOT NULL,
    lang       text    NOT NULL DEFAULT '',
    slug       text    NOT NULL DEFAULT '',
    title      text    NOT NULL DEFAULT '',
    body       text    NOT NULL,
    sort       bigint  NOT NULL DEFAULT 0,
    active     integer NOT NULL DEFAULT 1,
    deleted    integer NOT NULL DEFAULT 0,
    starts_ms  bigint  NOT NULL DEFAULT 0,
    ends_ms    bigint  NOT NULL DEFAULT 0,
    created_ms bigint  NOT NULL,
    updated_ms bigint  NOT NULL,
    updated_by text    NOT NULL
);
CREATE INDEX IF NOT EXISTS content_items_kind ON content_items (kind, deleted, lang, sort);

-- Campaign messages to segments (the members' copies are rows of
-- member_messages, written in the same transaction).
CREATE TABLE IF NOT EXISTS content_campaigns
(
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    title      text   NOT NULL,
    content    text   NOT NULL,
    segment    text   NOT NULL,
    recipients bigint NOT NULL DEFAULT 0,
    staff_id   text   NOT NULL,
    created_ms bigint NOT NULL
);

-- Every change the desk makes, with the staff id, written in the same
-- transaction as the change.
CREATE TABLE IF NOT EXISTS content_audit
(
    id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    staff_id text   NOT NULL,
    action   text   NOT NULL,
    kind     text   NOT NULL,
    item_id  bigint NOT NULL,
    body     text   NOT NULL,
    at_ms    bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS content_audit_item ON content_audit (kind, item_id);
