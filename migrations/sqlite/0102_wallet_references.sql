-- Every transaction reference a wallet has used, with its outcome (0:
-- accepted, else the refusal's code), written in the transaction that
-- appends the wallet's events. The Wallet aggregate keeps only its newest
-- references in memory (and in its snapshots); a reference older than
-- those is looked up here, by key, so a repeat still answers its first
-- outcome however long the wallet's history (invariant 2).
CREATE TABLE IF NOT EXISTS wallet_references
(
    wallet_id TEXT    NOT NULL,
    reference TEXT    NOT NULL,
    outcome   INTEGER NOT NULL,
    PRIMARY KEY (wallet_id, reference)
);

-- The references of the events already stored. A wallet event's payload
-- is {"<Variant>": {"reference": ..., ...}}; a refusal carries "code".
INSERT OR IGNORE INTO wallet_references (wallet_id, reference, outcome)
SELECT e.aggregate_id, json_extract(v.value, '$.reference'), COALESCE(max(json_extract(v.value, '$.code')), 0)
FROM events e, json_each(e.payload) v
WHERE e.aggregate_type = 'Wallet' AND json_extract(v.value, '$.reference') IS NOT NULL
GROUP BY e.aggregate_id, json_extract(v.value, '$.reference');
