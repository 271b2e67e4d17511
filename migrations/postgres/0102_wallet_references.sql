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
    wallet_id text    NOT NULL,
    reference text    NOT NULL,
    outcome   integer NOT NULL,
    PRIMARY KEY (wallet_id, reference)
);

-- Every reference of the events stored before the book existed (their
-- wallets' generations were never archived). A wallet event's payload
-- is {"<Variant>": {"reference": ..., ...}}; a refusal carries "code".
INSERT INTO wallet_references (wallet_id, reference, outcome)
SELECT e.aggregate_id, v.value ->> 'reference', COALESCE(max((v.value ->> 'code')::integer), 0)
FROM events e CROSS JOIN LATERAL json_each(e.payload::json) v
WHERE e.aggregate_type = 'Wallet' AND v.value ->> 'reference' IS NOT NULL
GROUP BY e.aggregate_id, v.value ->> 'reference'
ON CONFLICT (wallet_id, reference) DO NOTHING;
