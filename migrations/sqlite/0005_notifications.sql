-- Real-time notifications to members (see the Postgres migration).
CREATE TABLE IF NOT EXISTS notifications
(
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT    NOT NULL,
    kind    INTEGER NOT NULL,
    body    TEXT    NOT NULL,
    at_ms   INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS notifications_user ON notifications (user_id, id);
