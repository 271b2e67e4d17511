-- Real-time notifications to members (winning tips, deposit and withdrawal
-- results, notices): written by whichever process decides them, delivered
-- by every process to the member's sockets it holds.
CREATE TABLE IF NOT EXISTS notifications
(
    id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id text    NOT NULL,
    kind    integer NOT NULL,
    body    text    NOT NULL,
    at_ms   bigint  NOT NULL
);
CREATE INDEX IF NOT EXISTS notifications_user ON notifications (user_id, id);
