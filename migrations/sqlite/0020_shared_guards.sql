-- State every api process must share (DESIGN.md "Scale-out"): replay and
-- duplicate-submission guards, rate-limit windows, realtime bindings.

-- Request-layer UniqueIds seen within their validity window.
CREATE TABLE request_ids (
    id TEXT PRIMARY KEY,
    expires_ms BIGINT NOT NULL
);
CREATE INDEX request_ids_expires ON request_ids (expires_ms);

-- Duplicate-submission guard: one row per (device, path, body digest).
CREATE TABLE submissions (
    key TEXT PRIMARY KEY,
    started_ms BIGINT NOT NULL,
    finished_ms BIGINT
);
CREATE INDEX submissions_started ON submissions (started_ms);

-- Rate limits: a window that starts at the first hit of a key.
CREATE TABLE rate_windows (
    key TEXT PRIMARY KEY,
    started_ms BIGINT NOT NULL,
    hits BIGINT NOT NULL
);
CREATE INDEX rate_windows_started ON rate_windows (started_ms);

-- Realtime (/ws) client ids bound to members by user/bindws, whichever
-- process holds the socket.
CREATE TABLE ws_bindings (
    client_id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    bound_ms BIGINT NOT NULL
);
CREATE INDEX ws_bindings_user ON ws_bindings (user_id);

-- Swarm long-poll sessions: a poll may reach any process, so the session,
-- its login and each subscription's last delivered data live here; the
-- process a poll reaches answers the diff from that data to its catalogue.
CREATE TABLE swarm_poll_sessions (
    sid TEXT PRIMARY KEY,
    language TEXT NOT NULL,
    user_id TEXT,
    token_hash TEXT,
    last_seen_ms BIGINT NOT NULL
);
CREATE INDEX swarm_poll_sessions_seen ON swarm_poll_sessions (last_seen_ms);
CREATE INDEX swarm_poll_sessions_user ON swarm_poll_sessions (user_id);
CREATE TABLE swarm_poll_subs (
    sid TEXT NOT NULL,
    subid TEXT NOT NULL,
    params TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (sid, subid)
);

-- Games ended outside the feed (a result entered by hand): the feed's
-- leader takes them out of the catalogue, so every process's copy follows
-- its log (a process must never change its copy on its own).
CREATE TABLE ended_games (
    game_id BIGINT PRIMARY KEY,
    at_ms BIGINT NOT NULL
);
