-- Booking ids (spec 000 sections 3 and 5): a betslip's selections saved
-- under a short id (8 characters, no 0/O/1/I) that anyone can load later.
-- `payload` is the stored slip as JSON: {type, sys_bet, bets: [...]}.
CREATE TABLE IF NOT EXISTS bookings
(
    id         text PRIMARY KEY,
    payload    text   NOT NULL,
    created_ms bigint NOT NULL
);
