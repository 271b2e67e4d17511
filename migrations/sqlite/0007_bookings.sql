-- Booking ids (see the Postgres migration).
CREATE TABLE IF NOT EXISTS bookings
(
    id         text PRIMARY KEY,
    payload    text    NOT NULL,
    created_ms INTEGER NOT NULL
);
