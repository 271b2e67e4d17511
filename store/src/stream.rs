//! The global event stream.
//!
//! Postgres assigns `position` at insert time, but transactions commit in
//! any order, so a reader following `position` alone would pass an event
//! whose transaction commits late. Events are therefore read in
//! `(tx_id, position)` order and only from transactions older than the
//! oldest one still running (`pg_snapshot_xmin(pg_current_snapshot())`):
//! those have all finished, so nothing can appear behind the checkpoint.
//! SQLite has a single writer, so position order is commit order.

use std::sync::{Arc, OnceLock};

use domain::bet::BetEvent;

use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

/// Which SQL dialect the stream is read with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Postgres,
    Sqlite,
}

/// Where a projection stands in the global stream.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Checkpoint {
    pub tx_id: i64,
    pub position: i64,
}

/// One event of the global stream. `payload` is the event's JSON, or `None`
/// when the reading projection does not handle its aggregate type.
#[derive(Debug, Clone, Default)]
pub struct StoredEvent {
    pub checkpoint: Checkpoint,
    pub aggregate_type: String,
    pub aggregate_id: String,
    pub sequence: i64,
    pub event_type: String,
    pub payload: Option<String>,
    /// When the event was recorded (unix ms); 0 when the payload was not read.
    pub recorded_ms: i64,
    /// A `Bet` event's payload parsed, once for all the projections of a
    /// pass (the copies [`slice_after`] hands them share it).
    pub bet: BetParse,
}

/// A `Bet` payload parsed at most once (see [`StoredEvent::bet_event`]).
#[derive(Debug, Clone, Default)]
pub struct BetParse(Arc<OnceLock<Result<Arc<BetEvent>, String>>>);

impl StoredEvent {
    /// The event as a `BetEvent`, parsed at first use and shared with the
    /// other projections reading the same shared batch (four of them read
    /// `BetPlaced`, the largest payload).
    pub fn bet_event(&self) -> Result<Arc<BetEvent>, BadEvent> {
        self.bet
            .0
            .get_or_init(|| match self.payload.as_deref() {
                None => Err("a bet event without its payload".to_string()),
                Some(payload) => serde_json::from_str::<BetEvent>(payload)
                    .map(Arc::new)
                    .map_err(|e| e.to_string()),
            })
            .clone()
            .map_err(|e| BadEvent::of(self, e))
    }
}

/// An event of the stream that cannot be read as its type says.
#[derive(Debug, Clone, thiserror::Error)]
#[error("event {aggregate_type}/{aggregate_id}#{sequence} cannot be read: {reason}")]
pub struct BadEvent {
    pub aggregate_type: String,
    pub aggregate_id: String,
    pub sequence: i64,
    pub reason: String,
}

impl BadEvent {
    pub fn of(event: &StoredEvent, reason: impl ToString) -> Self {
        BadEvent {
            aggregate_type: event.aggregate_type.clone(),
            aggregate_id: event.aggregate_id.clone(),
            sequence: event.sequence,
            reason: reason.to_string(),
        }
    }
}

fn type_list(types: &[&str]) -> String {
    // Aggregate types are compile-time names, never user input.
    let quoted: Vec<String> = types
        .iter()
        .map(|t| format!("'{}'", t.replace('\'', "")))
        .collect();
    if quoted.is_empty() {
        "''".to_string()
    } else {
        quoted.join(",")
    }
}

/// An event's recording time in unix ms, in each dialect.
const PG_RECORDED_MS: &str = "(extract(epoch from recorded_at) * 1000)::bigint";
const SQLITE_RECORDED_MS: &str = "CAST((julianday(recorded_at) - 2440587.5) * 86400000 AS INTEGER)";

/// Up to `limit` rows of the stream after `after`, in its order (on
/// Postgres only below the horizon): the position columns, then `columns`.
async fn rows_after(
    conn: &mut AnyConnection,
    backend: Backend,
    after: Checkpoint,
    columns: &str,
    limit: i64,
) -> Result<Vec<AnyRow>, sqlx::Error> {
    match backend {
        Backend::Postgres => {
            let sql = format!(
                "SELECT tx_id::text::bigint AS tx, position, aggregate_type, aggregate_id, sequence, event_type,
                        {columns}
                 FROM events
                 WHERE (tx_id, position) > ($1::text::xid8, $2)
                   AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
                 ORDER BY tx_id, position
                 LIMIT $3"
            );
            sqlx::query(&sql)
                .bind(after.tx_id)
                .bind(after.position)
                .bind(limit)
                .fetch_all(&mut *conn)
                .await
        }
        Backend::Sqlite => {
            let sql = format!(
                "SELECT 0 AS tx, position, aggregate_type, aggregate_id, sequence, event_type,
                        {columns}
                 FROM events
                 WHERE position > $1
                 ORDER BY position
                 LIMIT $2"
            );
            sqlx::query(&sql)
                .bind(after.position)
                .bind(limit)
                .fetch_all(&mut *conn)
                .await
        }
    }
}

/// Reads up to `limit` events after `after`, payloads only for `types`.
pub async fn read_after(
    conn: &mut AnyConnection,
    backend: Backend,
    after: Checkpoint,
    types: &[&str],
    limit: i64,
) -> Result<Vec<StoredEvent>, sqlx::Error> {
    let types = type_list(types);
    let columns = match backend {
        Backend::Postgres => format!(
            "CASE WHEN aggregate_type IN ({types}) THEN payload::text END AS payload,
             CASE WHEN aggregate_type IN ({types}) THEN {PG_RECORDED_MS} END AS recorded_ms"
        ),
        Backend::Sqlite => format!(
            "CASE WHEN aggregate_type IN ({types}) THEN payload END AS payload,
             CASE WHEN aggregate_type IN ({types}) THEN {SQLITE_RECORDED_MS} END AS recorded_ms"
        ),
    };
    let rows = rows_after(conn, backend, after, &columns, limit).await?;
    rows.iter().map(decode).collect()
}

/// What the sealer covers of an event beside a [`StoredEvent`]'s fields.
#[derive(Debug, Clone, Default)]
pub struct SealFields {
    pub event_version: String,
    pub metadata: String,
}

/// As [`read_after`] with every event's payload, version and metadata (as
/// the sealer reads them: [`crate::seal`]): the live pass's shared read
/// when the pass also seals the log.
pub async fn read_after_for_sealing(
    conn: &mut AnyConnection,
    backend: Backend,
    after: Checkpoint,
    limit: i64,
) -> Result<(Vec<StoredEvent>, Vec<SealFields>), sqlx::Error> {
    let columns = match backend {
        Backend::Postgres => format!(
            "event_version, payload::text AS payload, metadata::text AS metadata, {PG_RECORDED_MS} AS recorded_ms"
        ),
        Backend::Sqlite => format!(
            "event_version, payload, metadata, {SQLITE_RECORDED_MS} AS recorded_ms"
        ),
    };
    let rows = rows_after(conn, backend, after, &columns, limit).await?;
    let mut events = Vec::with_capacity(rows.len());
    let mut fields = Vec::with_capacity(rows.len());
    for row in &rows {
        events.push(decode(row)?);
        fields.push(SealFields {
            event_version: row.try_get("event_version")?,
            metadata: row.try_get("metadata")?,
        });
    }
    Ok((events, fields))
}

/// The next events of a reader's types, and where its checkpoint may move
/// once they are applied: past the last of them, or, when the stream
/// holds no more of these types, to the end of what is visible.
#[derive(Debug, Default)]
pub struct Window {
    pub events: Vec<StoredEvent>,
    pub upto: Checkpoint,
}

/// Which events a window read gives: those of some aggregate types, or
/// those of some event types (of whatever aggregate publishes them).
#[derive(Debug, Clone, Copy)]
pub enum Only<'a> {
    AggregateTypes(&'a [&'a str]),
    EventTypes(&'a [&'a str]),
}

impl Only<'_> {
    /// The SQL condition (the names are the code's own constants, quoted).
    fn condition(&self) -> String {
        match self {
            Only::AggregateTypes(types) => format!("aggregate_type IN ({})", type_list(types)),
            Only::EventTypes(types) => format!("event_type IN ({})", type_list(types)),
        }
    }
}

/// Reads up to `limit` events of `types` after `after`, skipping the
/// others in the database: a rebuild of one aggregate type's read model
/// does not receive and decode all the others. First the end of what is
/// visible now (every event up to it has committed), then the events of
/// these types up to that end, in order. Postgres only: a SQLite rebuild
/// reads batch after batch on its one connection (`read_after`).
pub async fn read_window(
    conn: &mut AnyConnection,
    after: Checkpoint,
    types: &[&str],
    limit: i64,
) -> Result<Window, sqlx::Error> {
    read_window_of(
        conn,
        Backend::Postgres,
        after,
        Only::AggregateTypes(types),
        limit,
    )
    .await
}

/// The end of what is visible on Postgres (a window read's first step,
/// once a pass of each process manager): the newest event below the
/// horizon, read backwards on the global-order index.
#[doc(hidden)]
pub const WINDOW_END_SQL: &str = "SELECT tx_id::text::bigint AS tx, position FROM events
     WHERE tx_id < pg_snapshot_xmin(pg_current_snapshot())
     ORDER BY tx_id DESC, position DESC LIMIT 1";

/// As [`read_window`], for either store and either kind of filter: the
/// process managers' passes (inbox, referral links, season progress) read
/// only the few events they act on, where they read (and the server
/// received and decoded) every event of the stream. The window's `upto`
/// moves past the events skipped, so a pass moves its checkpoint over a
/// stretch of bets and wallet movements without reading them.
pub async fn read_window_of(
    conn: &mut AnyConnection,
    backend: Backend,
    after: Checkpoint,
    only: Only<'_>,
    limit: i64,
) -> Result<Window, sqlx::Error> {
    let end = match backend {
        Backend::Postgres => {
            let row = sqlx::query(WINDOW_END_SQL)
                .fetch_optional(&mut *conn)
                .await?;
            match row {
                Some(row) => Checkpoint {
                    tx_id: row.try_get("tx")?,
                    position: row.try_get("position")?,
                },
                None => Checkpoint::default(),
            }
        }
        // One writer: every event up to the newest position has committed.
        Backend::Sqlite => {
            let position: Option<i64> = sqlx::query_scalar("SELECT max(position) FROM events")
                .fetch_one(&mut *conn)
                .await?;
            Checkpoint {
                tx_id: 0,
                position: position.unwrap_or(0),
            }
        }
    };
    if end <= after {
        return Ok(Window {
            events: Vec::new(),
            upto: after,
        });
    }
    let rows: Vec<AnyRow> = match backend {
        Backend::Postgres => {
            let sql = format!(
                "SELECT tx_id::text::bigint AS tx, position, aggregate_type, aggregate_id, sequence, event_type,
                        payload::text AS payload, (extract(epoch from recorded_at) * 1000)::bigint AS recorded_ms
                 FROM events
                 WHERE (tx_id, position) > ($1::text::xid8, $2)
                   AND (tx_id, position) <= ($3::text::xid8, $4)
                   AND {}
                 ORDER BY tx_id, position
                 LIMIT $5",
                only.condition()
            );
            sqlx::query(&sql)
                .bind(after.tx_id)
                .bind(after.position)
                .bind(end.tx_id)
                .bind(end.position)
                .bind(limit)
                .fetch_all(&mut *conn)
                .await?
        }
        Backend::Sqlite => {
            let sql = format!(
                "SELECT 0 AS tx, position, aggregate_type, aggregate_id, sequence, event_type, payload,
                        CAST((julianday(recorded_at) - 2440587.5) * 86400000 AS INTEGER) AS recorded_ms
                 FROM events
                 WHERE position > $1 AND position <= $2 AND {}
                 ORDER BY position
                 LIMIT $3",
                only.condition()
            );
            sqlx::query(&sql)
                .bind(after.position)
                .bind(end.position)
                .bind(limit)
                .fetch_all(&mut *conn)
                .await?
        }
    };
    let events: Vec<StoredEvent> = rows.iter().map(decode).collect::<Result<_, _>>()?;
    let upto = match events.last() {
        Some(last) if events.len() as i64 >= limit => last.checkpoint,
        _ => end,
    };
    Ok(Window { events, upto })
}

/// How many events of `types` the stream holds (a rebuild's progress).
pub async fn count_of_types(conn: &mut AnyConnection, types: &[&str]) -> Result<i64, sqlx::Error> {
    let sql = format!(
        "SELECT count(*) FROM events WHERE aggregate_type IN ({})",
        type_list(types)
    );
    sqlx::query_scalar(&sql).fetch_one(&mut *conn).await
}

/// The events of a shared read after `after`, as `read_after` would have
/// given them to a reader of `types`: every event (the checkpoint moves
/// past the others too), payload and recorded time only for its types.
pub fn slice_after(all: &[StoredEvent], after: Checkpoint, types: &[&str]) -> Vec<StoredEvent> {
    let start = all.partition_point(|e| e.checkpoint <= after);
    all[start..]
        .iter()
        .map(|e| {
            let own = types.contains(&e.aggregate_type.as_str());
            StoredEvent {
                checkpoint: e.checkpoint,
                aggregate_type: e.aggregate_type.clone(),
                aggregate_id: e.aggregate_id.clone(),
                sequence: e.sequence,
                event_type: e.event_type.clone(),
                payload: if own { e.payload.clone() } else { None },
                recorded_ms: if own { e.recorded_ms } else { 0 },
                bet: if own {
                    e.bet.clone()
                } else {
                    BetParse::default()
                },
            }
        })
        .collect()
}

fn decode(row: &AnyRow) -> Result<StoredEvent, sqlx::Error> {
    Ok(StoredEvent {
        checkpoint: Checkpoint {
            tx_id: row.try_get("tx")?,
            position: row.try_get("position")?,
        },
        aggregate_type: row.try_get("aggregate_type")?,
        aggregate_id: row.try_get("aggregate_id")?,
        sequence: row.try_get("sequence")?,
        event_type: row.try_get("event_type")?,
        payload: row.try_get("payload")?,
        recorded_ms: row.try_get::<Option<i64>, _>("recorded_ms")?.unwrap_or(0),
        bet: BetParse::default(),
    })
}

/// [`held_back`]'s probe on Postgres.
#[doc(hidden)]
pub const HELD_BACK_SQL: &str =
    "SELECT COALESCE((SELECT tx_id FROM events ORDER BY tx_id DESC LIMIT 1)
                                 >= pg_snapshot_xmin(pg_current_snapshot()), false)";

/// Whether committed events wait behind the horizon: on Postgres a
/// transaction still running anywhere in the cluster (older than these
/// commits) holds `pg_snapshot_xmin` back, so a pass woken by their commit
/// read nothing of them, and no later commit may come to wake it again.
/// One index probe ([`HELD_BACK_SQL`]): the newest `tx_id`, read
/// backwards on the global-order index, against the horizon. (With
/// `EXISTS (... WHERE tx_id >= horizon)` and statistics older than the
/// table's growth, the planner guessed a third of the rows past the
/// horizon and scanned the heap from its start until it met one: the
/// whole table, since those rows are the newest; 7.6 ms a call in a
/// 60,000-event bench.) Always false on SQLite (its single writer commits
/// in position order).
pub async fn held_back(conn: &mut AnyConnection, backend: Backend) -> Result<bool, sqlx::Error> {
    match backend {
        Backend::Postgres => {
            sqlx::query_scalar(HELD_BACK_SQL)
                .fetch_one(&mut *conn)
                .await
        }
        Backend::Sqlite => Ok(false),
    }
}

/// How many events lie beyond `after` (visible or not yet committed-safe).
pub async fn count_after(
    conn: &mut AnyConnection,
    backend: Backend,
    after: Checkpoint,
) -> Result<i64, sqlx::Error> {
    match backend {
        Backend::Postgres => {
            sqlx::query_scalar(
                "SELECT count(*) FROM events WHERE (tx_id, position) > ($1::text::xid8, $2)",
            )
            .bind(after.tx_id)
            .bind(after.position)
            .fetch_one(&mut *conn)
            .await
        }
        Backend::Sqlite => {
            sqlx::query_scalar("SELECT count(*) FROM events WHERE position > $1")
                .bind(after.position)
                .fetch_one(&mut *conn)
                .await
        }
    }
}

/// How many events lie at or before `upto` (a rebuild's progress).
pub async fn count_upto(
    conn: &mut AnyConnection,
    backend: Backend,
    upto: Checkpoint,
) -> Result<i64, sqlx::Error> {
    match backend {
        Backend::Postgres => {
            sqlx::query_scalar(
                "SELECT count(*) FROM events WHERE (tx_id, position) <= ($1::text::xid8, $2)",
            )
            .bind(upto.tx_id)
            .bind(upto.position)
            .fetch_one(&mut *conn)
            .await
        }
        Backend::Sqlite => {
            sqlx::query_scalar("SELECT count(*) FROM events WHERE position <= $1")
                .bind(upto.position)
                .fetch_one(&mut *conn)
                .await
        }
    }
}

/// The event at `position` (a parked event retried), payload only for
/// `types`.
pub async fn read_at(
    conn: &mut AnyConnection,
    backend: Backend,
    position: i64,
    types: &[&str],
) -> Result<Option<StoredEvent>, sqlx::Error> {
    let types = type_list(types);
    let sql = match backend {
        Backend::Postgres => format!(
            "SELECT tx_id::text::bigint AS tx, position, aggregate_type, aggregate_id, sequence, event_type,
                    CASE WHEN aggregate_type IN ({types}) THEN payload::text END AS payload,
                    CASE WHEN aggregate_type IN ({types}) THEN (extract(epoch from recorded_at) * 1000)::bigint END AS recorded_ms
             FROM events WHERE position = $1"
        ),
        Backend::Sqlite => format!(
            "SELECT 0 AS tx, position, aggregate_type, aggregate_id, sequence, event_type,
                    CASE WHEN aggregate_type IN ({types}) THEN payload END AS payload,
                    CASE WHEN aggregate_type IN ({types}) THEN CAST((julianday(recorded_at) - 2440587.5) * 86400000 AS INTEGER) END AS recorded_ms
             FROM events WHERE position = $1"
        ),
    };
    let row = sqlx::query(&sql)
        .bind(position)
        .fetch_optional(&mut *conn)
        .await?;
    row.as_ref().map(decode).transpose()
}
