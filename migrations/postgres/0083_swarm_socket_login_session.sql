-- A Swarm socket login belongs to the main API login session it was made
-- with (restore_login's token, or the one login {username, password}
-- opened): the cap on sessions per member counts only logins whose session
-- is still alive, so a logout, an expiry or a password change elsewhere
-- frees the place at once. Rows from before this column ('') no longer
-- count; their sockets log in again after a restart of their process.
ALTER TABLE swarm_socket_logins ADD COLUMN token_hash TEXT NOT NULL DEFAULT '';
