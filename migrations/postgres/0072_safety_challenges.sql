-- A safety verification (code type 8) is open only on the device whose
-- login with the right password asked for it, for that account, for a
-- while: a safety code cannot be asked for any other username, so
-- sendcode type 8 tells nobody which usernames exist.
CREATE TABLE safety_challenges (
    device_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    expires_ms BIGINT NOT NULL,
    PRIMARY KEY (device_id, user_id)
);
CREATE INDEX safety_challenges_expires ON safety_challenges (expires_ms);
