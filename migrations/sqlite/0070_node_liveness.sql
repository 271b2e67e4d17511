-- Which api processes are alive: each writes its row every few seconds.
-- Rows a process keeps for the sockets it holds (realtime bindings, Swarm
-- socket logins) carry its node id, so any live process can remove them
-- once their process has stopped beating (killed, lost its network).
CREATE TABLE nodes (
    node_id TEXT PRIMARY KEY,
    seen_ms BIGINT NOT NULL
);

ALTER TABLE ws_bindings ADD COLUMN node_id TEXT NOT NULL DEFAULT '';

-- Members logged in on Swarm WebSocket sessions, whichever process holds
-- the socket (long-poll sessions are in swarm_poll_sessions): the cap on
-- sessions per member counts both across processes.
CREATE TABLE swarm_socket_logins (
    sid TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    node_id TEXT NOT NULL
);
CREATE INDEX swarm_socket_logins_user ON swarm_socket_logins (user_id);
CREATE INDEX swarm_socket_logins_node ON swarm_socket_logins (node_id);
CREATE INDEX ws_bindings_node ON ws_bindings (node_id);
