//! `api audit verify`: re-reads the store and the chain, and reports the
//! first event whose payload, order or presence differs from what was
//! sealed, and any checkpoint (in the database or kept outside) that the
//! chain no longer matches.
//!
//! Two keyset-paged reads walk side by side: the seals in chain order and
//! the events in the global order (`(tx_id, position)` on Postgres,
//! `position` on SQLite). The n-th seal must name the n-th event, and the
//! hash recomputed from that event and the previous hash must equal the
//! seal's. Sealed events form a prefix of the global order (the sealer
//! seals in that order up to the horizon), so anything else is a
//! difference: an event without a seal inside the sealed range was
//! inserted, a seal whose event is gone was deleted, two events out of
//! their sealed order were moved. Events after the last seal are the
//! sealer's lag, counted, not an error.

use std::collections::{BTreeMap, VecDeque};

use serde::Serialize;
use sqlx::{AnyPool, Row};

use crate::seal::{
    chain_hash, decode_sealed, select_sealed, sign, SealedEvent, SignedCheckpoint, GENESIS,
};
use store::stream::{Backend, Checkpoint};

const PAGE: i64 = 20_000;

/// What kind of difference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DifferenceKind {
    /// The event at the sealed position no longer hashes to its seal
    /// (payload, metadata, type, aggregate or sequence edited, or another
    /// event's content moved there).
    Edited,
    /// A sealed event is gone.
    Deleted,
    /// An event without a seal sits inside the sealed range.
    Inserted,
    /// Sealed events are no longer in their sealed order.
    Reordered,
    /// The chain itself has a gap (a seal row removed).
    ChainGap,
    /// A checkpoint (stored or kept) does not match the chain, or its
    /// signature is wrong.
    Checkpoint,
}

#[derive(Debug, Clone, Serialize)]
pub struct Difference {
    pub kind: DifferenceKind,
    pub chain_index: i64,
    pub position: i64,
    pub detail: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct VerifyReport {
    /// Events whose seal was checked.
    pub checked: u64,
    /// Events after the last seal (not sealed yet).
    pub unsealed: u64,
    pub checkpoints_checked: u64,
    pub head: Option<(i64, String)>,
    pub first_difference: Option<Difference>,
}

struct Seal {
    index: i64,
    position: i64,
    hash: String,
}

struct Events<'a> {
    pool: &'a AnyPool,
    backend: Backend,
    after: Checkpoint,
    buffer: VecDeque<SealedEvent>,
    done: bool,
}

impl Events<'_> {
    async fn next(&mut self) -> Result<Option<SealedEvent>, sqlx::Error> {
        if self.buffer.is_empty() && !self.done {
            let columns = select_sealed(self.backend);
            let rows = match self.backend {
                Backend::Postgres => {
                    sqlx::query(&format!(
                        "SELECT {columns} FROM events WHERE (tx_id, position) > ($1::text::xid8, $2)
                         ORDER BY tx_id, position LIMIT $3"
                    ))
                    .bind(self.after.tx_id)
                    .bind(self.after.position)
                    .bind(PAGE)
                    .fetch_all(self.pool)
                    .await?
                }
                Backend::Sqlite => {
                    sqlx::query(&format!(
                    "SELECT {columns} FROM events WHERE position > $1 ORDER BY position LIMIT $2"
                ))
                    .bind(self.after.position)
                    .bind(PAGE)
                    .fetch_all(self.pool)
                    .await?
                }
            };
            self.done = (rows.len() as i64) < PAGE;
            for row in &rows {
                let event = decode_sealed(row)?;
                self.after = event.checkpoint;
                self.buffer.push_back(event);
            }
        }
        Ok(self.buffer.pop_front())
    }
}

struct Seals<'a> {
    pool: &'a AnyPool,
    after: i64,
    buffer: VecDeque<Seal>,
    done: bool,
}

impl Seals<'_> {
    async fn next(&mut self) -> Result<Option<Seal>, sqlx::Error> {
        if self.buffer.is_empty() && !self.done {
            let rows = sqlx::query(
                "SELECT chain_index, position, hash FROM event_seals WHERE chain_index > $1 ORDER BY chain_index LIMIT $2",
            )
            .bind(self.after)
            .bind(PAGE)
            .fetch_all(self.pool)
            .await?;
            self.done = (rows.len() as i64) < PAGE;
            for row in &rows {
                let seal = Seal {
                    index: row.try_get("chain_index")?,
                    position: row.try_get("position")?,
                    hash: row.try_get("hash")?,
                };
                self.after = seal.index;
                self.buffer.push_back(seal);
            }
        }
        Ok(self.buffer.pop_front())
    }
}

/// Verifies the whole log. `key` checks the stored checkpoints'
/// signatures; `kept` are checkpoints an auditor kept outside the
/// database (each must still match the chain). `progress(done, total)`.
pub async fn verify(
    pool: &AnyPool,
    backend: Backend,
    key: Option<&[u8]>,
    kept: &[SignedCheckpoint],
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<VerifyReport, sqlx::Error> {
    let total: i64 = sqlx::query_scalar("SELECT count(*) FROM event_seals")
        .fetch_one(pool)
        .await?;
    let mut expected: BTreeMap<i64, Vec<(SignedCheckpoint, &'static str)>> = BTreeMap::new();
    for c in crate::seal::checkpoints(pool).await? {
        expected
            .entry(c.chain_index)
            .or_default()
            .push((c, "stored"));
    }
    for c in kept {
        expected
            .entry(c.chain_index)
            .or_default()
            .push((c.clone(), "kept"));
    }
    let mut report = VerifyReport::default();
    let mut events = Events {
        pool,
        backend,
        after: Checkpoint::default(),
        buffer: VecDeque::new(),
        done: false,
    };
    let mut seals = Seals {
        pool,
        after: 0,
        buffer: VecDeque::new(),
        done: false,
    };
    let mut prev = GENESIS;
    let mut expect_index = 1i64;
    let differ = |kind, chain_index, position, detail: String| Difference {
        kind,
        chain_index,
        position,
        detail,
    };
    while let Some(seal) = seals.next().await? {
        if seal.index != expect_index {
            report.first_difference = Some(differ(
                DifferenceKind::ChainGap,
                expect_index,
                seal.position,
                format!(
                    "chain index {expect_index} is missing (next seal is {})",
                    seal.index
                ),
            ));
            return Ok(report);
        }
        let Some(event) = events.next().await? else {
            report.first_difference = Some(differ(
                DifferenceKind::Deleted,
                seal.index,
                seal.position,
                format!(
                    "the event sealed at chain index {} (position {}) is missing",
                    seal.index, seal.position
                ),
            ));
            return Ok(report);
        };
        if event.checkpoint.position != seal.position {
            report.first_difference = Some(classify(pool, backend, &seal, &event).await?);
            return Ok(report);
        }
        let hash = chain_hash(&prev, &event);
        let hex_hash = hex::encode(hash);
        if hex_hash != seal.hash {
            report.first_difference = Some(differ(
                DifferenceKind::Edited,
                seal.index,
                seal.position,
                format!(
                    "event {}/{}#{} ({}) at position {} does not match its seal",
                    event.aggregate_type,
                    event.aggregate_id,
                    event.sequence,
                    event.event_type,
                    seal.position
                ),
            ));
            return Ok(report);
        }
        if let Some(list) = expected.remove(&seal.index) {
            for (c, source) in list {
                report.checkpoints_checked += 1;
                let signature_ok = key
                    .map(|k| sign(k, c.chain_index, c.position, &c.hash) == c.signature)
                    .unwrap_or(true);
                if c.hash != hex_hash || c.position != seal.position || !signature_ok {
                    let why = if signature_ok {
                        format!("the {source} checkpoint at chain index {} says position {} hash {}, the chain has position {} hash {hex_hash}", c.chain_index, c.position, c.hash, seal.position)
                    } else {
                        format!(
                            "the {source} checkpoint at chain index {} has a wrong signature",
                            c.chain_index
                        )
                    };
                    report.first_difference = Some(differ(
                        DifferenceKind::Checkpoint,
                        seal.index,
                        seal.position,
                        why,
                    ));
                    return Ok(report);
                }
            }
        }
        prev = hash;
        report.checked += 1;
        report.head = Some((seal.index, hex_hash));
        expect_index += 1;
        if report.checked % 10_000 == 0 {
            progress(report.checked, total as u64);
        }
    }
    progress(report.checked, total as u64);
    if let Some((index, list)) = expected.into_iter().next() {
        let (c, source) = &list[0];
        report.first_difference = Some(differ(
            DifferenceKind::Checkpoint,
            index,
            c.position,
            format!(
                "the {source} checkpoint at chain index {index} lies beyond the chain's end ({}): seals or events were removed",
                expect_index - 1
            ),
        ));
        return Ok(report);
    }
    while events.next().await?.is_some() {
        report.unsealed += 1;
    }
    Ok(report)
}

/// The event found where the seal expected another: inserted, deleted or
/// moved.
async fn classify(
    pool: &AnyPool,
    _backend: Backend,
    seal: &Seal,
    found: &SealedEvent,
) -> Result<Difference, sqlx::Error> {
    let found_sealed: Option<i64> =
        sqlx::query_scalar("SELECT chain_index FROM event_seals WHERE position = $1")
            .bind(found.checkpoint.position)
            .fetch_optional(pool)
            .await?;
    let expected_exists: Option<i64> =
        sqlx::query_scalar("SELECT position FROM events WHERE position = $1")
            .bind(seal.position)
            .fetch_optional(pool)
            .await?;
    let (kind, detail) = match (found_sealed, expected_exists) {
        (None, _) => (
            DifferenceKind::Inserted,
            format!(
                "event {}/{}#{} at position {} has no seal but comes before chain index {} (position {})",
                found.aggregate_type,
                found.aggregate_id,
                found.sequence,
                found.checkpoint.position,
                seal.index,
                seal.position
            ),
        ),
        (Some(_), None) => (
            DifferenceKind::Deleted,
            format!(
                "the event sealed at chain index {} (position {}) is missing",
                seal.index, seal.position
            ),
        ),
        (Some(other), Some(_)) => (
            DifferenceKind::Reordered,
            format!(
                "chain index {} expects position {} but the store's order has position {} (sealed at chain index {other}) there",
                seal.index, seal.position, found.checkpoint.position
            ),
        ),
    };
    Ok(Difference {
        kind,
        chain_index: seal.index,
        position: seal.position,
        detail,
    })
}
