-- The wallets' reference book: transaction references a wallet no longer
-- remembers, with their outcome (0: accepted, else the refusal's code).
-- The Wallet aggregate keeps the references of its last two generations
-- of events (2,000 events each) in memory and in its snapshots; the event
-- that starts a generation makes it forget the one before the previous,
-- and the append of that event copies that generation's references here
-- in the same transaction. A reference the wallet does not remember is
-- looked up here, by key, so a repeat still answers its first outcome
-- however long the wallet's history (invariant 2).
CREATE TABLE IF NOT EXISTS wallet_references
(
    wallet_id TEXT    NOT NULL,
    reference TEXT    NOT NULL,
    outcome   INTEGER NOT NULL,
    PRIMARY KEY (wallet_id, reference)
);

-- Every reference of the events stored before the book existed (their
-- wallets' generations were never archived). A wallet event's payload
-- is {"<Variant>": {"reference": ..., ...}}; a refusal carries "code".
INSERT OR IGNORE INTO wallet_references (wallet_id, reference, outcome)
SELECT e.aggregate_id, json_extract(v.value, '$.reference'), COALESCE(max(json_extract(v.value, '$.code')), 0)
FROM events e, json_each(e.payload) v
WHERE e.aggregate_type = 'Wallet' AND json_extract(v.value, '$.reference') IS NOT NULL
GROUP BY e.aggregate_id, json_extract(v.value, '$.reference');
