-- The starting price (SP) of a selection, when its result gives one: SP
-- bets on it settle at this price (projections::settlement::sp_prices_of).
ALTER TABLE settlement_outcomes ADD COLUMN sp text;
