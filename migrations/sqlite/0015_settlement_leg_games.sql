-- Projection "settlement": each leg's game, market and start (unix s), so
-- that a game or a market can be voided with every selection bets are on,
-- and selections still without a result long after their bet's last leg
-- started can be found (commands/src/unresulted.rs). Rows written before
-- this migration have none: rebuild the projection to fill them
-- (`api projections rebuild settlement`).
ALTER TABLE settlement_legs ADD COLUMN game_id INTEGER;
ALTER TABLE settlement_legs ADD COLUMN market_id INTEGER;
ALTER TABLE settlement_legs ADD COLUMN start_ts INTEGER;
CREATE INDEX IF NOT EXISTS settlement_legs_game ON settlement_legs (game_id);
CREATE INDEX IF NOT EXISTS settlement_legs_start ON settlement_legs (start_ts);
