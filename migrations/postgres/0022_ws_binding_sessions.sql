-- A realtime binding belongs to the login session that made it
-- (user/bindws): when that session ends (logout, expiry, a password change
-- that ends the member's other sessions) the socket gets no more of the
-- member's notifications. Bindings made before this column existed have ''
-- and get none until the client binds again (it does after every login).
ALTER TABLE ws_bindings ADD COLUMN token_hash TEXT NOT NULL DEFAULT '';
