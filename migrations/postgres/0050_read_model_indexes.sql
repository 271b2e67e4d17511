-- Indexes for the queries the API and the projections run on read models
-- (docs/projections.md lists each query and the index it uses).
-- Back office: the super-bet queue by status, oldest first.
CREATE INDEX IF NOT EXISTS bets_status_time ON bets (status, date_time, bet_id);
-- Back office: latest bets of everyone.
CREATE INDEX IF NOT EXISTS bets_time ON bets (date_time, bet_id);
-- Settlement: the game of a market; the next result version (max).
CREATE INDEX IF NOT EXISTS settlement_legs_market ON settlement_legs (market_id);
CREATE INDEX IF NOT EXISTS settlement_outcomes_version ON settlement_outcomes (version);
