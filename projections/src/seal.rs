//! The tamper-evident event log: a hash chain over every event, in the
//! global commit order, with signed checkpoints of its head.
//!
//! The sealer follows the global stream exactly like a projection (the
//! same `(tx_id, position)` order up to the snapshot horizon on Postgres,
//! position order on SQLite) under its own checkpoint row, so every event
//! is sealed once, in order, whoever appended it and in whichever process:
//! runners take turns on the checkpoint's row lock. Each event's seal is
//!
//! ```text
//! hash(n) = SHA-256( hash(n-1) || field(aggregate_type) || field(aggregate_id)
//!                    || sequence (i64 little-endian) || field(event_type)
//!                    || field(event_version) || field(payload) || field(metadata) )
//! field(x) = length of x in bytes (u64 little-endian) || x
//! hash(0)  = 32 zero bytes
//! ```
//!
//! over the payload and metadata text exactly as stored. Every
//! `checkpoint_every` events the head (chain index, position, hash) is
//! written to `audit_checkpoints` with an HMAC-SHA256 signature keyed with
//! `[audit] checkpoint_key`: `api audit checkpoints` prints them for an
//! auditor to keep outside the database, and `api audit verify --keep FILE`
//! checks the chain against such a file.

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, AnyPool, Connection, Row};

use crate::runner::ProjectionError;
use store::checkpoint::{lock_checkpoint, now_text, save_checkpoint};
use store::stream::{Backend, Checkpoint};

/// The sealer's row in `projection_checkpoints`.
pub const CHECKPOINT: &str = "audit_seal";

pub const GENESIS: [u8; 32] = [0; 32];

/// An event as the chain covers it.
#[derive(Debug, Clone)]
pub struct SealedEvent {
    pub checkpoint: Checkpoint,
    pub aggregate_type: String,
    pub aggregate_id: String,
    pub sequence: i64,
    pub event_type: String,
    pub event_version: String,
    pub payload: String,
    pub metadata: String,
}

fn field(hasher: &mut Sha256, bytes: &[u8]) {
    hasher.update((bytes.len() as u64).to_le_bytes());
    hasher.update(bytes);
}

/// An event as the chain covers it, borrowed (from a [`SealedEvent`], or
/// from a live pass's shared read).
#[derive(Debug, Clone, Copy)]
pub struct SealInput<'a> {
    pub checkpoint: Checkpoint,
    pub aggregate_type: &'a str,
    pub aggregate_id: &'a str,
    pub sequence: i64,
    pub event_type: &'a str,
    pub event_version: &'a str,
    pub payload: &'a str,
    pub metadata: &'a str,
}

impl SealedEvent {
    pub fn input(&self) -> SealInput<'_> {
        SealInput {
            checkpoint: self.checkpoint,
            aggregate_type: &self.aggregate_type,
            aggregate_id: &self.aggregate_id,
            sequence: self.sequence,
            event_type: &self.event_type,
            event_version: &self.event_version,
            payload: &self.payload,
            metadata: &self.metadata,
        }
    }
}

/// The seal of `event` after `prev`.
pub fn chain_hash(prev: &[u8; 32], event: &SealedEvent) -> [u8; 32] {
    chain_hash_of(prev, &event.input())
}

/// [`chain_hash`] of a borrowed event.
pub fn chain_hash_of(prev: &[u8; 32], event: &SealInput<'_>) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(prev);
    field(&mut hasher, event.aggregate_type.as_bytes());
    field(&mut hasher, event.aggregate_id.as_bytes());
    hasher.update(event.sequence.to_le_bytes());
    field(&mut hasher, event.event_type.as_bytes());
    field(&mut hasher, event.event_version.as_bytes());
    field(&mut hasher, event.payload.as_bytes());
    field(&mut hasher, event.metadata.as_bytes());
    hasher.finalize().into()
}

/// The signature of a checkpoint: HMAC-SHA256 over
/// `"{chain_index}:{position}:{hash}"`, lowercase hex.
pub fn sign(key: &[u8], chain_index: i64, position: i64, hash: &str) -> String {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key");
    mac.update(format!("{chain_index}:{position}:{hash}").as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

pub fn parse_hash(text: &str) -> Option<[u8; 32]> {
    let bytes = hex::decode(text).ok()?;
    bytes.try_into().ok()
}

/// Columns of a sealed event, in each dialect.
pub(crate) fn select_sealed(backend: Backend) -> &'static str {
    match backend {
        Backend::Postgres => "tx_id::text::bigint AS tx, position, aggregate_type, aggregate_id, sequence, event_type, event_version, payload::text AS payload, metadata::text AS metadata",
        Backend::Sqlite => "0 AS tx, position, aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata",
    }
}

pub(crate) fn decode_sealed(row: &AnyRow) -> Result<SealedEvent, sqlx::Error> {
    Ok(SealedEvent {
        checkpoint: Checkpoint {
            tx_id: row.try_get("tx")?,
            position: row.try_get("position")?,
        },
        aggregate_type: row.try_get("aggregate_type")?,
        aggregate_id: row.try_get("aggregate_id")?,
        sequence: row.try_get("sequence")?,
        event_type: row.try_get("event_type")?,
        event_version: row.try_get("event_version")?,
        payload: row.try_get("payload")?,
        metadata: row.try_get("metadata")?,
    })
}

/// Seals the stream; run by the projection runner in every process.
pub struct Sealer {
    backend: Backend,
    key: Vec<u8>,
    checkpoint_every: i64,
    batch_size: i64,
    /// Events sealed from a live pass's shared read (the rest: the
    /// sealer's own reads).
    from_shared: std::sync::atomic::AtomicU64,
}

/// Seal rows per multi-row insert (4 parameters each).
const INSERT_CHUNK: usize = 1000;

impl Sealer {
    pub fn new(backend: Backend, key: impl Into<Vec<u8>>, checkpoint_every: i64) -> Self {
        Sealer {
            backend,
            key: key.into(),
            checkpoint_every: checkpoint_every.max(1),
            batch_size: 5000,
            from_shared: Default::default(),
        }
    }

    pub fn with_batch_size(mut self, batch_size: i64) -> Self {
        self.batch_size = batch_size.max(1);
        self
    }

    pub fn key(&self) -> &[u8] {
        &self.key
    }

    /// Seals everything visible now; returns how many events it sealed.
    pub async fn seal_all(&self, pool: &AnyPool) -> Result<u64, ProjectionError> {
        self.seal_all_in_turns(pool, None).await
    }

    /// As `seal_all`, taking SQLite's writer turn (`writer`, the process's
    /// one for this database) for each batch, not for the whole backlog:
    /// bets, leases and heartbeats get their turns in between.
    pub async fn seal_all_in_turns(
        &self,
        pool: &AnyPool,
        writer: Option<&store::writer::WriterLock>,
    ) -> Result<u64, ProjectionError> {
        let mut done = 0u64;
        loop {
            let n = match writer {
                Some(lock) => self.seal_batch_read_first(pool, lock).await?,
                None => self.seal_batch(&mut *pool.acquire().await?).await?,
            };
            done += n as u64;
            if (n as i64) < self.batch_size {
                return Ok(done);
            }
        }
    }

    /// As `seal_all` on one connection (the live runner's pass on
    /// Postgres). A batch short of the limit read everything visible: it
    /// ends the pass without another read.
    pub async fn seal_all_on(&self, conn: &mut AnyConnection) -> Result<u64, ProjectionError> {
        let mut done = 0u64;
        loop {
            let n = self.seal_batch(conn).await?;
            done += n as u64;
            if (n as i64) < self.batch_size {
                return Ok(done);
            }
        }
    }

    /// SQLite: the batch's events are read before the writer turn (a
    /// snapshot read beside the writer); the turn covers the chain's head,
    /// the hashes and the writes. A checkpoint moved meanwhile (another
    /// sealer on the file) reads again.
    async fn seal_batch_read_first(
        &self,
        pool: &AnyPool,
        writer: &store::writer::WriterLock,
    ) -> Result<usize, ProjectionError> {
        for _ in 0..3 {
            let (at, rows) = {
                let mut conn = pool.acquire().await?;
                let at = store::checkpoint::read_checkpoint(&mut conn, CHECKPOINT).await?;
                (at, self.read_batch(&mut conn, at).await?)
            };
            if rows.is_empty() {
                return Ok(0);
            }
            let _turn = writer.turn().await;
            let mut conn = pool.acquire().await?;
            let mut tx = conn.begin().await?;
            if lock_checkpoint(&mut tx, CHECKPOINT).await? != at {
                tx.rollback().await?;
                continue;
            }
            return self.seal_rows(tx, at, &rows).await;
        }
        let _turn = writer.turn().await;
        self.seal_batch(&mut *pool.acquire().await?).await
    }

    /// The next batch of events after `at`, in the chain's order.
    async fn read_batch(
        &self,
        conn: &mut AnyConnection,
        at: crate::Checkpoint,
    ) -> Result<Vec<AnyRow>, sqlx::Error> {
        let columns = select_sealed(self.backend);
        match self.backend {
            Backend::Postgres => {
                sqlx::query(&format!(
                    "SELECT {columns} FROM events
                     WHERE (tx_id, position) > ($1::text::xid8, $2)
                       AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
                     ORDER BY tx_id, position LIMIT $3"
                ))
                .bind(at.tx_id)
                .bind(at.position)
                .bind(self.batch_size)
                .fetch_all(&mut *conn)
                .await
            }
            Backend::Sqlite => {
                sqlx::query(&format!(
                    "SELECT {columns} FROM events WHERE position > $1 ORDER BY position LIMIT $2"
                ))
                .bind(at.position)
                .bind(self.batch_size)
                .fetch_all(&mut *conn)
                .await
            }
        }
    }

    async fn seal_batch(&self, conn: &mut AnyConnection) -> Result<usize, ProjectionError> {
        let mut tx = conn.begin().await?;
        let at = lock_checkpoint(&mut tx, CHECKPOINT).await?;
        let rows = self.read_batch(&mut tx, at).await?;
        self.seal_rows(tx, at, &rows).await
    }

    /// Seals `rows` (the events after `at`) in `tx`, which holds the
    /// checkpoint's lock, and commits.
    async fn seal_rows(
        &self,
        tx: sqlx::Transaction<'_, sqlx::Any>,
        at: crate::Checkpoint,
        rows: &[AnyRow],
    ) -> Result<usize, ProjectionError> {
        let events = rows
            .iter()
            .map(decode_sealed)
            .collect::<Result<Vec<_>, _>>()?;
        let inputs: Vec<SealInput<'_>> = events.iter().map(SealedEvent::input).collect();
        self.seal_inputs(tx, at, &inputs).await
    }

    /// Seals the events of a live pass's shared read (`all`, every event
    /// after `from` in the chain's order, `fields` beside them) that come
    /// after where the chain stands, under the seal checkpoint's lock, in
    /// one transaction on `conn`. `Ok(false)`: the chain stands before
    /// `from` (the events in between are not in this read); the sealer
    /// then reads alone.
    pub(crate) async fn seal_shared(
        &self,
        conn: &mut AnyConnection,
        all: &[crate::StoredEvent],
        fields: &[store::stream::SealFields],
        from: crate::Checkpoint,
    ) -> Result<bool, ProjectionError> {
        let mut tx = conn.begin().await?;
        let at = lock_checkpoint(&mut tx, CHECKPOINT).await?;
        if at < from {
            tx.rollback().await?;
            return Ok(false);
        }
        let start = all.partition_point(|e| e.checkpoint <= at);
        // Every event of a sealing read carries its payload; one without
        // (never seen) is sealed by the sealer's own read, which refuses it.
        if all[start..].iter().any(|e| e.payload.is_none()) || fields.len() != all.len() {
            tx.rollback().await?;
            return Ok(false);
        }
        let inputs: Vec<SealInput<'_>> = all[start..]
            .iter()
            .zip(&fields[start..])
            .map(|(event, more)| SealInput {
                checkpoint: event.checkpoint,
                aggregate_type: &event.aggregate_type,
                aggregate_id: &event.aggregate_id,
                sequence: event.sequence,
                event_type: &event.event_type,
                event_version: &more.event_version,
                payload: event.payload.as_deref().unwrap_or_default(),
                metadata: &more.metadata,
            })
            .collect();
        let sealed = self.seal_inputs(tx, at, &inputs).await?;
        self.from_shared
            .fetch_add(sealed as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(true)
    }

    /// How many events this sealer sealed from live passes' shared reads.
    pub fn sealed_from_shared_reads(&self) -> u64 {
        self.from_shared.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Seals `events` (the events after `at`, in order) in `tx`, which
    /// holds the checkpoint's lock, and commits.
    async fn seal_inputs(
        &self,
        mut tx: sqlx::Transaction<'_, sqlx::Any>,
        at: crate::Checkpoint,
        events: &[SealInput<'_>],
    ) -> Result<usize, ProjectionError> {
        if events.is_empty() {
            tx.rollback().await?;
            return Ok(0);
        }
        let head = sqlx::query(
            "SELECT chain_index, hash FROM event_seals ORDER BY chain_index DESC LIMIT 1",
        )
        .fetch_optional(&mut *tx)
        .await?;
        let (mut index, mut prev) = match head {
            Some(row) => {
                let index: i64 = row.try_get("chain_index")?;
                let hash: String = row.try_get("hash")?;
                let prev = parse_hash(&hash).ok_or_else(|| {
                    sqlx::Error::Protocol(format!("seal {index} holds no hash: {hash}"))
                })?;
                (index, prev)
            }
            None => (0, GENESIS),
        };
        let now = now_text();
        let mut seals = Vec::with_capacity(events.len());
        let mut checkpoints = Vec::new();
        let mut last = at;
        for event in events {
            index += 1;
            prev = chain_hash_of(&prev, event);
            let hash = hex::encode(prev);
            if index % self.checkpoint_every == 0 {
                let signature = sign(&self.key, index, event.checkpoint.position, &hash);
                checkpoints.push((index, event.checkpoint.position, hash.clone(), signature));
            }
            seals.push((index, event.checkpoint.position, hash));
            last = event.checkpoint;
        }
        for chunk in seals.chunks(INSERT_CHUNK) {
            let values: Vec<String> = (0..chunk.len())
                .map(|i| {
                    format!(
                        "(${}, ${}, ${}, ${})",
                        i * 4 + 1,
                        i * 4 + 2,
                        i * 4 + 3,
                        i * 4 + 4
                    )
                })
                .collect();
            let sql = format!(
                "INSERT INTO event_seals (chain_index, position, hash, sealed_at) VALUES {}",
                values.join(", ")
            );
            let sql = store::marks::for_conn(&tx, &sql);
            let mut query = sqlx::query(&sql);
            for (index, position, hash) in chunk {
                query = query
                    .bind(*index)
                    .bind(*position)
                    .bind(hash.as_str())
                    .bind(now.as_str());
            }
            query.execute(&mut *tx).await?;
        }
        for (index, position, hash, signature) in &checkpoints {
            sqlx::query(
                "INSERT INTO audit_checkpoints (chain_index, position, hash, signed_at, signature) VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(*index)
            .bind(*position)
            .bind(hash.as_str())
            .bind(now.as_str())
            .bind(signature.as_str())
            .execute(&mut *tx)
            .await?;
        }
        save_checkpoint(&mut tx, CHECKPOINT, last).await?;
        tx.commit().await?;
        Ok(events.len())
    }

    /// Writes a signed checkpoint of the current head now (when the last
    /// periodic one is behind it); returns it.
    pub async fn checkpoint_now(
        &self,
        pool: &AnyPool,
    ) -> Result<Option<SignedCheckpoint>, ProjectionError> {
        self.seal_all(pool).await?;
        let mut conn = pool.acquire().await?;
        let mut tx = conn.begin().await?;
        lock_checkpoint(&mut tx, CHECKPOINT).await?;
        let head = sqlx::query(
            "SELECT chain_index, position, hash FROM event_seals ORDER BY chain_index DESC LIMIT 1",
        )
        .fetch_optional(&mut *tx)
        .await?;
        let Some(head) = head else {
            tx.rollback().await?;
            return Ok(None);
        };
        let index: i64 = head.try_get("chain_index")?;
        let position: i64 = head.try_get("position")?;
        let hash: String = head.try_get("hash")?;
        let signature = sign(&self.key, index, position, &hash);
        sqlx::query(
            "INSERT INTO audit_checkpoints (chain_index, position, hash, signed_at, signature) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (chain_index) DO NOTHING",
        )
        .bind(index)
        .bind(position)
        .bind(hash.as_str())
        .bind(now_text())
        .bind(signature.as_str())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Some(SignedCheckpoint {
            chain_index: index,
            position,
            hash,
            signature,
        }))
    }
}

/// A signed head of the chain, as kept outside the database: one line
/// `chain_index position hash signature`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SignedCheckpoint {
    pub chain_index: i64,
    pub position: i64,
    pub hash: String,
    pub signature: String,
}

impl SignedCheckpoint {
    pub fn line(&self) -> String {
        format!(
            "{} {} {} {}",
            self.chain_index, self.position, self.hash, self.signature
        )
    }

    pub fn parse(line: &str) -> Option<SignedCheckpoint> {
        let mut parts = line.split_whitespace();
        let checkpoint = SignedCheckpoint {
            chain_index: parts.next()?.parse().ok()?,
            position: parts.next()?.parse().ok()?,
            hash: parts.next()?.to_string(),
            signature: parts.next().unwrap_or_default().to_string(),
        };
        parse_hash(&checkpoint.hash)?;
        Some(checkpoint)
    }
}

/// Every checkpoint in the database, oldest first.
pub async fn checkpoints(pool: &AnyPool) -> Result<Vec<SignedCheckpoint>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT chain_index, position, hash, signature FROM audit_checkpoints ORDER BY chain_index",
    )
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(SignedCheckpoint {
                chain_index: r.try_get("chain_index")?,
                position: r.try_get("position")?,
                hash: r.try_get("hash")?,
                signature: r.try_get("signature")?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(payload: &str) -> SealedEvent {
        SealedEvent {
            checkpoint: Checkpoint::default(),
            aggregate_type: "Wallet".into(),
            aggregate_id: "m1:CNY".into(),
            sequence: 1,
            event_type: "Credited".into(),
            event_version: "1.0".into(),
            payload: payload.into(),
            metadata: "{}".into(),
        }
    }

    #[test]
    fn the_seal_covers_the_payload_and_the_previous_hash() {
        let a = chain_hash(&GENESIS, &event(r#"{"a":1}"#));
        assert_ne!(a, chain_hash(&GENESIS, &event(r#"{"a":2}"#)));
        assert_ne!(
            chain_hash(&a, &event("x")),
            chain_hash(&GENESIS, &event("x"))
        );
        // Field boundaries count: moving a byte between fields changes it.
        let mut moved = event("x");
        moved.aggregate_type = "Walle".into();
        moved.aggregate_id = "tm1:CNY".into();
        assert_ne!(
            chain_hash(&GENESIS, &moved),
            chain_hash(&GENESIS, &event("x"))
        );
    }

    #[test]
    fn a_kept_checkpoint_line_reads_back() {
        let c = SignedCheckpoint {
            chain_index: 10,
            position: 12,
            hash: hex::encode([7u8; 32]),
            signature: sign(b"k", 10, 12, &hex::encode([7u8; 32])),
        };
        assert_eq!(SignedCheckpoint::parse(&c.line()), Some(c));
        assert_eq!(SignedCheckpoint::parse("10 12 nothex"), None);
    }
}
