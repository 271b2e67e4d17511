-- Every transaction reference a wallet has used, with its outcome (0:
-- accepted, else the refusal's code), written in the transaction that
-- appends the wallet's events. The Wallet aggregate keeps only its newest
-- references in memory (and in its snapshots); a reference older than
-- those is looked up here, by key, so a repeat still answers its first
-- outcome however long the wallet's history (invariant 2).
CREATE TABLE IF NOT EXISTS wallet_references
(
    wallet_id text    NOT NULL,
    reference text    NOT NULL,
    outcome   integer NOT NULL,
    PRIMARY KEY (wallet_id, reference)
);

-- The references of the events already stored. A wallet event's payload
-- is {"<Variant>": {"reference": ..., ...}}; a refusal carries "code".
INSERT INTO wallet_references (wallet_id, reference, outcome)
SELECT e.aggregate_id, v.value ->> 'reference', COALESCE(max((v.value ->> 'code')::integer), 0)
FROM events e CROSS JOIN LATERAL json_each(e.payload::json) v
WHERE e.aggregate_type = 'Wallet' AND v.value ->> 'reference' IS NOT NULL
GROUP BY e.aggregate_id, v.value ->> 'reference'
ON CONFLICT (wallet_id, reference) DO NOTHING;
