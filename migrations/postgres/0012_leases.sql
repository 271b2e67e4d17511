-- Leases (commands/src/lease.rs): a background job whose pass must run in
-- one process at a time holds the row named after it until expires_at
-- (unix ms). Taking or renewing is one conditional upsert; a process that
-- dies stops renewing and loses the lease when it expires.
CREATE TABLE IF NOT EXISTS leases
(
    name       text PRIMARY KEY,
    holder     text   NOT NULL,
    expires_at bigint NOT NULL
);
