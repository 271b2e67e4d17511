//! Runs projections: catch-up in batches, each batch one transaction holding
//! the read-model change and the checkpoint; rebuild into a shadow copy
//! swapped in one transaction; poison events parked; lag gauges.
//!
//! Every batch starts by writing its checkpoint row, which locks it (a row
//! lock on Postgres, the write lock on SQLite): two runners on one store,
//! in one process or several, take turns and never apply a batch twice.
//!
//! The pattern every projection follows (docs/projections.md):
//! - `apply` handles a whole batch with a bounded number of statements:
//!   one keyed read of the rows the batch touches (`IN (...)` on an
//!   indexed column, in chunks), the fold in memory, one multi-row upsert
//!   per chunk. Never a statement per event.
//! - `tables` names the read model's tables: a rebuild then fills copies
//!   of them (a shadow schema on Postgres, TEMP tables on SQLite, found
//!   first by the unqualified names the projection's SQL uses) while the
//!   live tables keep serving and catching up, and swaps them in one
//!   transaction. A projection with no tables is rebuilt in place.
//! - an event `apply` cannot handle is an error naming it
//!   (`ProjectionError::bad_event`); the runner parks it in
//!   `parked_events` and goes on (`retry_parked`, `skip_parked`).

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use serde::Serialize;
use sqlx::{AnyConnection, AnyPool, Connection, Executor, Row};
use tokio::sync::{watch, Notify};

use crate::seal::Sealer;
use store::checkpoint::{
    lock_checkpoint, now_text, read_checkpoint, read_checkpoints, save_checkpoint,
};
use store::stream::{self, Backend, Checkpoint, StoredEvent};

#[derive(Debug, thiserror::Error)]
pub enum ProjectionError {
    #[error("database: {0}")]
    Sql(#[from] sqlx::Error),
    #[error("event {aggregate_type}/{aggregate_id}#{sequence} cannot be read: {reason}")]
    BadEvent {
        aggregate_type: String,
        aggregate_id: String,
        sequence: i64,
        reason: String,
    },
    #[error("no projection named '{0}' (known: {1})")]
    Unknown(String, String),
    #[error("no parked event {0} is open")]
    NoParked(i64),
    /// A shared read of the stream starts after this projection's
    /// checkpoint: it reads alone.
    #[error("the projection is behind the shared read")]
    Behind,
}

impl From<stream::BadEvent> for ProjectionError {
    fn from(e: stream::BadEvent) -> Self {
        ProjectionError::BadEvent {
            aggregate_type: e.aggregate_type,
            aggregate_id: e.aggregate_id,
            sequence: e.sequence,
            reason: e.reason,
        }
    }
}

impl ProjectionError {
    pub fn bad_event(event: &StoredEvent, reason: impl ToString) -> Self {
        stream::BadEvent::of(event, reason).into()
    }

    /// Whether the event itself may be the cause (so it is parked when it
    /// fails alone), rather than the database being away or busy.
    fn may_be_the_event(&self) -> bool {
        match self {
            ProjectionError::BadEvent { .. } => true,
            ProjectionError::Sql(sqlx::Error::Database(db)) => {
                let code = db.code().map(|c| c.to_string()).unwrap_or_default();
                // Postgres: 40 (serialization, deadlock), 53 (resources),
                // 57 (operator intervention); SQLite: 5/6 busy, locked.
                !(code.starts_with("40")
                    || code.starts_with("53")
                    || code.starts_with("57")
                    || code == "5"
                    || code == "6"
                    || code == "517"
                    || code == "262")
            }
            _ => false,
        }
    }
}

/// A read model fed from the global stream.
pub trait Projection: Send + Sync {
    /// The checkpoint's name; also what `api projections rebuild NAME` takes.
    fn name(&self) -> &'static str;
    /// Aggregate types whose payloads this projection reads.
    fn aggregate_types(&self) -> &'static [&'static str];
    /// Applies a batch (events of other types carry no payload) inside the
    /// runner's transaction, with a bounded number of statements.
    fn apply<'a>(
        &'a self,
        conn: &'a mut AnyConnection,
        events: &'a [StoredEvent],
    ) -> BoxFuture<'a, Result<(), ProjectionError>>;
    /// Empties the read model (in-place rebuild), inside the runner's
    /// transaction.
    fn reset<'a>(
        &'a self,
        conn: &'a mut AnyConnection,
    ) -> BoxFuture<'a, Result<(), ProjectionError>>;
    /// The tables that hold the read model and nothing else: a rebuild
    /// fills copies of them and swaps them in. Tables written as a side
    /// effect (queues shared with services) do not belong here. Empty:
    /// rebuilt in place (`reset`), readers see it fill up.
    fn tables(&self) -> &'static [&'static str] {
        &[]
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ProjectionLabel {
    pub projection: &'static str,
}

/// `projection_lag_events{projection}`: events written but not yet applied.
#[derive(Clone, Debug, Default)]
pub struct ProjectionMetrics {
    pub lag: Family<ProjectionLabel, Gauge>,
    pub applied: Family<ProjectionLabel, Gauge>,
    /// Open parked events, per projection.
    pub parked: Family<ProjectionLabel, Gauge>,
    /// Events a rebuild under way has applied to its shadow copy.
    pub rebuild_position: Family<ProjectionLabel, Gauge>,
}

impl ProjectionMetrics {
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "projection_lag_events",
            "Events in the store not yet applied, per projection",
            self.lag.clone(),
        );
        registry.register(
            "projection_position",
            "Global position of the last event applied, per projection",
            self.applied.clone(),
        );
        registry.register(
            "projection_parked_events",
            "Events a projection could not apply, parked and waiting for an operator",
            self.parked.clone(),
        );
        registry.register(
            "projection_rebuild_events",
            "Events applied by a rebuild under way (shadow copy), per projection",
            self.rebuild_position.clone(),
        );
    }
}

/// Where a batch goes: the live read model, or a rebuild's shadow copy.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    pub(crate) checkpoint: String,
    /// Postgres shadow: the search path that finds the shadow tables first.
    pub(crate) search_path: Option<String>,
    pub(crate) live: bool,
}

impl Target {
    fn live(name: &str) -> Self {
        Target {
            checkpoint: name.to_string(),
            search_path: None,
            live: true,
        }
    }

    pub(crate) async fn enter(&self, conn: &mut AnyConnection) -> Result<(), sqlx::Error> {
        if let Some(path) = &self.search_path {
            conn.execute(format!("SET LOCAL search_path TO {path}").as_str())
                .await?;
        }
        Ok(())
    }
}

/// A read of the stream shared by the projections of a live pass: every
/// event after `from`, in order.
#[derive(Clone, Copy)]
pub(crate) struct Shared<'a> {
    all: &'a [StoredEvent],
    from: Checkpoint,
}

/// What a live pass's shared reads did: the projections left to go on
/// alone, and whether the log was sealed from them (else the sealer reads
/// alone).
struct Pass {
    failed: Vec<&'static str>,
    sealed: bool,
}

/// The checkpoint name of a rebuild under way of `name`.
pub fn rebuild_checkpoint(name: &str) -> String {
    format!("{name}@rebuild")
}

/// Where one projection stands (`api projections status`).
#[derive(Debug, Clone, Serialize)]
pub struct ProjectionStatus {
    pub name: String,
    pub position: i64,
    pub lag: i64,
    pub parked: i64,
    /// A rebuild under way: events its shadow copy has applied, and how
    /// many it still has to read.
    pub rebuild: Option<(i64, i64)>,
    pub updated_at: String,
}

/// An event a projection could not apply.
#[derive(Debug, Clone, Serialize)]
pub struct Parked {
    pub id: i64,
    pub projection: String,
    pub tx_id: i64,
    pub position: i64,
    pub aggregate_type: String,
    pub aggregate_id: String,
    pub sequence: i64,
    pub event_type: String,
    pub error: String,
    pub status: String,
    pub parked_at: String,
    pub resolved_at: Option<String>,
    pub resolved_by: Option<String>,
}

pub struct Runner {
    pool: AnyPool,
    backend: Backend,
    projections: Vec<Arc<dyn Projection>>,
    batch_size: i64,
    rebuild_batch_size: i64,
    metrics: ProjectionMetrics,
    wake: Arc<Notify>,
    sealer: Option<Arc<Sealer>>,
    writer: Option<store::writer::WriterLock>,
}

impl Runner {
    pub fn new(pool: AnyPool, backend: Backend, projections: Vec<Arc<dyn Projection>>) -> Self {
        Self {
            pool,
            backend,
            projections,
            batch_size: 2000,
            rebuild_batch_size: 20_000,
            metrics: ProjectionMetrics::default(),
            wake: Arc::new(Notify::new()),
            sealer: None,
            writer: None,
        }
    }

    pub fn with_metrics(mut self, metrics: ProjectionMetrics) -> Self {
        self.metrics = metrics;
        self
    }

    pub fn with_batch_size(mut self, batch_size: i64) -> Self {
        self.batch_size = batch_size.max(1);
        self
    }

    /// Events per transaction while a rebuild fills its shadow copy.
    pub fn with_rebuild_batch_size(mut self, batch_size: i64) -> Self {
        self.rebuild_batch_size = batch_size.max(1);
        self
    }

    /// Seals the event log (hash chain) as part of every catch-up.
    /// SQLite: live batches take the process's writer turn (the group
    /// committer's), so commands and projections queue for the one writer;
    /// the runner's are background turns, which let bets go first (see
    /// [`store::writer`]).
    pub fn with_writer_lock(mut self, writer: Option<store::writer::WriterLock>) -> Self {
        self.writer = writer;
        self
    }

    pub fn with_sealer(mut self, sealer: Sealer) -> Self {
        self.sealer = Some(Arc::new(sealer));
        self
    }

    pub fn sealer(&self) -> Option<&Arc<Sealer>> {
        self.sealer.as_ref()
    }

    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    pub(crate) fn rebuild_batch_size(&self) -> i64 {
        self.rebuild_batch_size
    }

    /// Notified after a command commits, so the runner need not wait for its
    /// next poll.
    pub fn waker(&self) -> Arc<Notify> {
        self.wake.clone()
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.projections.iter().map(|p| p.name()).collect()
    }

    pub fn projection(&self, name: &str) -> Result<Arc<dyn Projection>, ProjectionError> {
        self.find(name).cloned()
    }

    pub(crate) fn find(&self, name: &str) -> Result<&Arc<dyn Projection>, ProjectionError> {
        self.projections
            .iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| ProjectionError::Unknown(name.to_string(), self.names().join(", ")))
    }

    /// One batch in one transaction on `conn`; returns how many events it
    /// covered. A batch that fails on its content is taken apart: each
    /// event alone, the one that still fails parked.
    pub(crate) async fn batch(
        &self,
        conn: &mut AnyConnection,
        projection: &dyn Projection,
        target: &Target,
        limit: i64,
    ) -> Result<usize, ProjectionError> {
        self.batch_of(conn, projection, target, limit, None).await
    }

    /// As `batch`; with `read`, the events come from a read of the stream
    /// shared by the projections of the pass (it starts at or before this
    /// projection's checkpoint: `shared_steps` leaves the ones behind it to
    /// read alone, and one found behind it here is refused with
    /// `ProjectionError::Behind`), not from one of its own.
    async fn batch_of(
        &self,
        conn: &mut AnyConnection,
        projection: &dyn Projection,
        target: &Target,
        limit: i64,
        read: Option<Shared<'_>>,
    ) -> Result<usize, ProjectionError> {
        let mut tx = conn.begin().await?;
        target.enter(&mut tx).await?;
        let at = lock_checkpoint(&mut tx, &target.checkpoint).await?;
        let events = match read {
            // The shared read starts after `from`: a checkpoint behind it
            // (moved back by a rebuild's swap since the pass looked) would
            // skip the events in between; that projection reads alone.
            Some(shared) if at < shared.from => {
                tx.rollback().await?;
                return Err(ProjectionError::Behind);
            }
            Some(shared) => stream::slice_after(shared.all, at, projection.aggregate_types()),
            None => {
                stream::read_after(
                    &mut tx,
                    self.backend,
                    at,
                    projection.aggregate_types(),
                    limit,
                )
                .await?
            }
        };
        let Some(last) = events.last().map(|e| e.checkpoint) else {
            tx.rollback().await?;
            return Ok(0);
        };
        match projection.apply(&mut tx, &events).await {
            Ok(()) => {
                save_checkpoint(&mut tx, &target.checkpoint, last).await?;
                tx.commit().await?;
                self.note_position(projection, target, last);
                Ok(events.len())
            }
            Err(e) if e.may_be_the_event() => {
                tx.rollback().await?;
                tracing::warn!(projection = projection.name(), error = %e, "batch failed; applying its events one by one");
                self.isolate(conn, projection, target, at, &events).await
            }
            Err(e) => Err(e),
        }
    }

    fn note_position(&self, projection: &dyn Projection, target: &Target, at: Checkpoint) {
        let label = ProjectionLabel {
            projection: projection.name(),
        };
        if target.live {
            self.metrics.applied.get_or_create(&label).set(at.position);
        } else {
            self.metrics
                .rebuild_position
                .get_or_create(&label)
                .set(at.position);
        }
    }

    /// Applies `events` one at a time after a failed batch; parks the ones
    /// that fail alone. Stops early when another runner moved the
    /// checkpoint meanwhile.
    async fn isolate(
        &self,
        conn: &mut AnyConnection,
        projection: &dyn Projection,
        target: &Target,
        mut at: Checkpoint,
        events: &[StoredEvent],
    ) -> Result<usize, ProjectionError> {
        let mut done = 0;
        for event in events {
            let mut tx = conn.begin().await?;
            target.enter(&mut tx).await?;
            if lock_checkpoint(&mut tx, &target.checkpoint).await? != at {
                tx.rollback().await?;
                return Ok(done);
            }
            match projection.apply(&mut tx, std::slice::from_ref(event)).await {
                Ok(()) => {
                    save_checkpoint(&mut tx, &target.checkpoint, event.checkpoint).await?;
                    tx.commit().await?;
                }
                Err(e) if e.may_be_the_event() => {
                    tx.rollback().await?;
                    let mut tx = conn.begin().await?;
                    target.enter(&mut tx).await?;
                    if lock_checkpoint(&mut tx, &target.checkpoint).await? != at {
                        tx.rollback().await?;
                        return Ok(done);
                    }
                    park(&mut tx, projection.name(), event, &e.to_string()).await?;
                    save_checkpoint(&mut tx, &target.checkpoint, event.checkpoint).await?;
                    tx.commit().await?;
                    tracing::error!(
                        projection = projection.name(),
                        aggregate_type = %event.aggregate_type,
                        aggregate_id = %event.aggregate_id,
                        sequence = event.sequence,
                        position = event.checkpoint.position,
                        error = %e,
                        "poison event parked; the projection goes on"
                    );
                    self.refresh_parked(conn, projection.name()).await?;
                }
                Err(e) => {
                    tx.rollback().await?;
                    return Err(e);
                }
            }
            self.note_position(projection, target, event.checkpoint);
            at = event.checkpoint;
            done += 1;
        }
        Ok(done)
    }

    async fn refresh_parked(
        &self,
        conn: &mut AnyConnection,
        name: &'static str,
    ) -> Result<i64, sqlx::Error> {
        let open: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM parked_events WHERE projection = $1 AND status = 'open'",
        )
        .bind(name)
        .fetch_one(&mut *conn)
        .await?;
        self.metrics
            .parked
            .get_or_create(&ProjectionLabel { projection: name })
            .set(open);
        Ok(open)
    }

    /// One live batch; returns how many events it covered.
    /// SQLite: the process's writer turn (see `with_writer_lock`).
    async fn writer_turn(&self) -> Option<store::writer::Turn> {
        match &self.writer {
            Some(lock) => Some(lock.turn().await),
            None => None,
        }
    }

    async fn step(&self, projection: &dyn Projection) -> Result<usize, ProjectionError> {
        if self.writer.is_some() {
            return self.step_read_first(projection).await;
        }
        let mut conn = self.pool.acquire().await?;
        self.batch(
            &mut conn,
            projection,
            &Target::live(projection.name()),
            self.batch_size,
        )
        .await
    }

    /// SQLite's live batch: the events are read first (a snapshot read,
    /// which runs beside the writer), then the writer turn covers only the
    /// projection's writes, so bets queue behind less. A batch whose
    /// checkpoint moved meanwhile (another runner on the file) is read
    /// again; after a few such races the batch reads under the turn.
    async fn step_read_first(&self, projection: &dyn Projection) -> Result<usize, ProjectionError> {
        let target = Target::live(projection.name());
        for _ in 0..3 {
            let (at, events) = {
                let mut conn = self.pool.acquire().await?;
                let at = read_checkpoint(&mut conn, &target.checkpoint).await?;
                let events = stream::read_after(
                    &mut conn,
                    self.backend,
                    at,
                    projection.aggregate_types(),
                    self.batch_size,
                )
                .await?;
                (at, events)
            };
            let Some(last) = events.last().map(|e| e.checkpoint) else {
                return Ok(0);
            };
            // The turn first, then the connection (a writer waiting for
            // its turn holds none of the pool's connections).
            let _writer = self.writer_turn().await;
            let mut conn = self.pool.acquire().await?;
            let mut tx = conn.begin().await?;
            if lock_checkpoint(&mut tx, &target.checkpoint).await? != at {
                tx.rollback().await?;
                continue;
            }
            return match projection.apply(&mut tx, &events).await {
                Ok(()) => {
                    save_checkpoint(&mut tx, &target.checkpoint, last).await?;
                    tx.commit().await?;
                    self.note_position(projection, &target, last);
                    Ok(events.len())
                }
                Err(e) if e.may_be_the_event() => {
                    tx.rollback().await?;
                    tracing::warn!(projection = projection.name(), error = %e, "batch failed; applying its events one by one");
                    self.isolate(&mut conn, projection, &target, at, &events)
                        .await
                }
                Err(e) => Err(e),
            };
        }
        let _writer = self.writer_turn().await;
        let mut conn = self.pool.acquire().await?;
        self.batch(&mut conn, projection, &target, self.batch_size)
            .await
    }

    /// Applies everything visible now; returns the number of events covered.
    pub async fn catch_up(&self, name: &str) -> Result<u64, ProjectionError> {
        let projection = self.find(name)?.clone();
        self.catch_up_with(projection.as_ref(), &|_| {}).await
    }

    pub(crate) async fn catch_up_with(
        &self,
        projection: &dyn Projection,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<u64, ProjectionError> {
        let done = self.steps(None, projection, progress).await?;
        self.record_lag(projection).await?;
        Ok(done)
    }

    /// Steps until a batch comes back short of the limit (everything
    /// visible then was read); the live runner's pass, which counts the
    /// lag only now and then.
    ///
    /// `conn`: the live pass's one connection on Postgres (each acquire and
    /// release of a pooled connection costs sqlx a round trip); SQLite's
    /// steps take their own, around the writer turn.
    async fn steps(
        &self,
        mut conn: Option<&mut AnyConnection>,
        projection: &dyn Projection,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<u64, ProjectionError> {
        let mut done = 0u64;
        loop {
            let n = match conn.as_deref_mut() {
                Some(conn) if self.writer.is_none() => {
                    let target = Target::live(projection.name());
                    self.batch(conn, projection, &target, self.batch_size)
                        .await?
                }
                _ => self.step(projection).await?,
            };
            done += n as u64;
            if n > 0 {
                progress(done);
            }
            if (n as i64) < self.batch_size {
                return Ok(done);
            }
        }
    }

    /// The live pass: one read of the stream serves every projection (each
    /// of them read every event before, for the checkpoint to pass the
    /// ones of other types), from where most of them stand, with the
    /// payloads of all their types; each projection then applies its slice
    /// in its own transaction under its checkpoint's lock, as `batch` does
    /// (a projection that fails is retried by the per-projection steps
    /// after this, which park a poison event). Repeats while the reads come
    /// back full. Returns the names of the projections left to go on
    /// alone: behind the others, or whose batch failed.
    ///
    /// With a sealer, the same read (with every payload, version and
    /// metadata) seals the log first, in its own transaction; the pass
    /// says whether it did (`Pass::sealed`: the chain stood behind the
    /// read, or its batch failed, and the sealer reads alone).
    ///
    /// `conn`: Postgres's one connection for the pass. SQLite (`None`):
    /// the read takes a pooled connection outside the writer turn (a
    /// snapshot read beside the writer, as `step_read_first`'s), each
    /// projection's batch then takes the turn.
    async fn shared_steps(
        &self,
        mut conn: Option<&mut AnyConnection>,
    ) -> Result<Pass, ProjectionError> {
        let mut failed = Vec::new();
        let mut sealed = true;
        let mut types: Vec<&str> = self
            .projections
            .iter()
            .flat_map(|p| p.aggregate_types().iter().copied())
            .collect();
        types.sort_unstable();
        types.dedup();
        let mut names = self.names();
        if self.sealer.is_some() {
            names.push(crate::seal::CHECKPOINT);
        }
        loop {
            let mut pooled: Option<sqlx::pool::PoolConnection<sqlx::Any>> = None;
            let reader: &mut AnyConnection = match conn.as_deref_mut() {
                Some(conn) => conn,
                None => pooled.insert(self.pool.acquire().await?),
            };
            let at = read_checkpoints(reader, &names).await?;
            let checkpoint =
                |p: &Arc<dyn Projection>| at.get(p.name()).copied().unwrap_or_default();
            // From where most projections stand (all of them, once they
            // have caught up together); one far behind (a long stall, a
            // new projection) catches up alone instead of holding the
            // others back to its pace.
            let mut counts: std::collections::BTreeMap<Checkpoint, usize> = Default::default();
            for projection in &self.projections {
                *counts.entry(checkpoint(projection)).or_default() += 1;
            }
            let Some(from) = counts
                .iter()
                .max_by_key(|(at, count)| (**count, std::cmp::Reverse(**at)))
                .map(|(at, _)| *at)
            else {
                return Ok(Pass {
                    failed,
                    sealed: false,
                });
            };
            for projection in &self.projections {
                if checkpoint(projection) < from && !failed.contains(&projection.name()) {
                    failed.push(projection.name());
                }
            }
            // The chain behind the projections reads alone.
            let seal_at = at.get(crate::seal::CHECKPOINT).copied().unwrap_or_default();
            let sealer = self.sealer.as_ref().filter(|_| sealed && seal_at >= from);
            sealed &= self.sealer.is_none() || sealer.is_some();
            let (all, fields) = match sealer {
                Some(_) => {
                    let (all, fields) =
                        stream::read_after_for_sealing(reader, self.backend, from, self.batch_size)
                            .await?;
                    (all, Some(fields))
                }
                None => (
                    stream::read_after(reader, self.backend, from, &types, self.batch_size).await?,
                    None,
                ),
            };
            drop(pooled);
            let Some(last) = all.last().map(|e| e.checkpoint) else {
                return Ok(Pass { failed, sealed });
            };
            if let (Some(sealer), Some(fields)) = (sealer, &fields) {
                if seal_at < last {
                    let done = match conn.as_deref_mut() {
                        Some(conn) => sealer.seal_shared(conn, &all, fields, from).await,
                        None => {
                            let _writer = self.writer_turn().await;
                            match self.pool.acquire().await {
                                Ok(mut conn) => {
                                    sealer.seal_shared(&mut conn, &all, fields, from).await
                                }
                                Err(e) => Err(e.into()),
                            }
                        }
                    };
                    match done {
                        Ok(true) => {}
                        Ok(false) => sealed = false,
                        Err(e) => {
                            tracing::warn!(error = %e, "sealing from the shared read failed; the sealer reads alone");
                            sealed = false;
                        }
                    }
                }
            }
            let shared = Shared { all: &all, from };
            for projection in &self.projections {
                if failed.contains(&projection.name())
                    || at.get(projection.name()).is_some_and(|c| *c >= last)
                {
                    continue;
                }
                let target = Target::live(projection.name());
                let applied = match conn.as_deref_mut() {
                    Some(conn) => {
                        self.batch_of(
                            conn,
                            projection.as_ref(),
                            &target,
                            self.batch_size,
                            Some(shared),
                        )
                        .await
                    }
                    None => {
                        // The turn first, then the connection (a writer
                        // waiting for its turn holds none of the pool's).
                        let _writer = self.writer_turn().await;
                        match self.pool.acquire().await {
                            Ok(mut conn) => {
                                self.batch_of(
                                    &mut conn,
                                    projection.as_ref(),
                                    &target,
                                    self.batch_size,
                                    Some(shared),
                                )
                                .await
                            }
                            Err(e) => Err(e.into()),
                        }
                    }
                };
                if let Err(e) = applied {
                    tracing::warn!(projection = projection.name(), error = %e, "a shared batch failed; the projection goes on alone");
                    failed.push(projection.name());
                }
            }
            if (all.len() as i64) < self.batch_size {
                return Ok(Pass { failed, sealed });
            }
        }
    }

    /// Catches up until nothing is left, waiting out transactions still
    /// running elsewhere in the database (on Postgres they hold back the
    /// horizon); gives up after `patience`. Returns the events applied.
    pub async fn settle(&self, name: &str, patience: Duration) -> Result<u64, ProjectionError> {
        let deadline = tokio::time::Instant::now() + patience;
        let mut done = 0;
        loop {
            done += self.catch_up(name).await?;
            if self.lag(name).await? == 0 || tokio::time::Instant::now() >= deadline {
                return Ok(done);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Seals what is visible, then catches every projection up.
    pub async fn catch_up_all(&self) -> Result<u64, ProjectionError> {
        if let Some(sealer) = &self.sealer {
            sealer
                .seal_all_in_turns(&self.pool, self.writer.as_ref())
                .await?;
        }
        let mut done = 0;
        for projection in &self.projections {
            done += self.catch_up_with(projection.as_ref(), &|_| {}).await?;
        }
        Ok(done)
    }

    async fn record_lag(&self, projection: &dyn Projection) -> Result<i64, ProjectionError> {
        let mut conn = self.pool.acquire().await?;
        let checkpoint = read_checkpoint(&mut conn, projection.name()).await?;
        let lag = stream::count_after(&mut conn, self.backend, checkpoint).await?;
        self.metrics
            .lag
            .get_or_create(&ProjectionLabel {
                projection: projection.name(),
            })
            .set(lag);
        Ok(lag)
    }

    /// Events not yet applied by `name`.
    pub async fn lag(&self, name: &str) -> Result<i64, ProjectionError> {
        let projection = self.find(name)?.clone();
        self.record_lag(projection.as_ref()).await
    }

    /// Every projection's position, lag, parked events and rebuild under
    /// way (from the shared checkpoints: any process sees any rebuild).
    pub async fn status(&self) -> Result<Vec<ProjectionStatus>, ProjectionError> {
        let mut conn = self.pool.acquire().await?;
        let mut out = Vec::new();
        let mut names: Vec<&str> = self.names();
        if self.sealer.is_some() {
            names.insert(0, crate::seal::CHECKPOINT);
        }
        for name in names {
            let at = read_checkpoint(&mut conn, name).await?;
            let lag = stream::count_after(&mut conn, self.backend, at).await?;
            let parked: i64 = sqlx::query_scalar(
                "SELECT count(*) FROM parked_events WHERE projection = $1 AND status = 'open'",
            )
            .bind(name)
            .fetch_one(&mut *conn)
            .await?;
            let updated_at: Option<String> =
                sqlx::query_scalar("SELECT updated_at FROM projection_checkpoints WHERE name = $1")
                    .bind(name)
                    .fetch_optional(&mut *conn)
                    .await?;
            let shadow = rebuild_checkpoint(name);
            let exists: Option<String> =
                sqlx::query_scalar("SELECT name FROM projection_checkpoints WHERE name = $1")
                    .bind(&shadow)
                    .fetch_optional(&mut *conn)
                    .await?;
            let rebuild = match exists {
                Some(_) => {
                    let at = read_checkpoint(&mut conn, &shadow).await?;
                    let left = stream::count_after(&mut conn, self.backend, at).await?;
                    let done = stream::count_upto(&mut conn, self.backend, at).await?;
                    Some((done, left))
                }
                None => None,
            };
            out.push(ProjectionStatus {
                name: name.to_string(),
                position: at.position,
                lag,
                parked,
                rebuild,
                updated_at: updated_at.unwrap_or_default(),
            });
        }
        Ok(out)
    }

    /// Rebuilds `name` from the whole stream; `progress(done, total)`
    /// follows it. A projection that names its `tables` is rebuilt into a
    /// shadow copy while the live one keeps serving, then swapped in one
    /// transaction; any other is emptied and refilled in place.
    pub async fn rebuild(
        &self,
        name: &str,
        progress: &(dyn Fn(u64, u64) + Sync),
    ) -> Result<u64, ProjectionError> {
        let projection = self.find(name)?.clone();
        if projection.tables().is_empty() {
            self.rebuild_in_place(projection.as_ref(), progress).await
        } else {
            self.rebuild_shadow(projection.as_ref(), progress).await
        }
    }

    async fn rebuild_in_place(
        &self,
        projection: &dyn Projection,
        progress: &(dyn Fn(u64, u64) + Sync),
    ) -> Result<u64, ProjectionError> {
        let mut conn = self.pool.acquire().await?;
        let mut tx = conn.begin().await?;
        lock_checkpoint(&mut tx, projection.name()).await?;
        projection.reset(&mut tx).await?;
        save_checkpoint(&mut tx, projection.name(), Checkpoint::default()).await?;
        let total = stream::count_after(&mut tx, self.backend, Checkpoint::default()).await?;
        tx.commit().await?;
        let target = Target::live(projection.name());
        let mut done = 0u64;
        loop {
            let n = self
                .batch(&mut conn, projection, &target, self.rebuild_batch_size)
                .await?;
            if n == 0 {
                return Ok(done);
            }
            done += n as u64;
            progress(done, total.max(0) as u64);
        }
    }

    async fn rebuild_shadow(
        &self,
        projection: &dyn Projection,
        progress: &(dyn Fn(u64, u64) + Sync),
    ) -> Result<u64, ProjectionError> {
        let mut conn = self.pool.acquire().await?;
        let shadow = crate::shadow::Shadow::create(&mut conn, self.backend, projection).await?;
        let target = Target {
            checkpoint: rebuild_checkpoint(projection.name()),
            search_path: shadow.search_path(),
            live: false,
        };
        let result = self
            .fill_and_swap(&mut conn, projection, &shadow, &target, progress)
            .await;
        let cleanup = shadow.drop(&mut conn).await;
        if result.is_err() {
            // The rebuild's checkpoint goes with its shadow copy.
            let _ = sqlx::query("DELETE FROM projection_checkpoints WHERE name = $1")
                .bind(&target.checkpoint)
                .execute(&mut *conn)
                .await;
        }
        let done = result?;
        cleanup?;
        self.metrics
            .rebuild_position
            .get_or_create(&ProjectionLabel {
                projection: projection.name(),
            })
            .set(0);
        self.record_lag(projection).await?;
        Ok(done)
    }

    async fn fill_and_swap(
        &self,
        conn: &mut AnyConnection,
        projection: &dyn Projection,
        shadow: &crate::shadow::Shadow,
        target: &Target,
        progress: &(dyn Fn(u64, u64) + Sync),
    ) -> Result<u64, ProjectionError> {
        sqlx::query("DELETE FROM projection_checkpoints WHERE name = $1")
            .bind(&target.checkpoint)
            .execute(&mut *conn)
            .await?;
        // Progress counts the events applied: on Postgres the fill reads
        // only the projection's own types.
        let total = match self.backend {
            Backend::Postgres => {
                stream::count_of_types(&mut *conn, projection.aggregate_types()).await?
            }
            Backend::Sqlite => {
                stream::count_after(&mut *conn, self.backend, Checkpoint::default()).await?
            }
        };
        let total = total.max(0) as u64;
        let mut done = 0u64;
        for _attempt in 0..5 {
            // Fill (and catch up) the shadow copy, parking what fails.
            self.fill(conn, projection, target, &mut done, total, progress)
                .await?;
            // Swap: hold the live checkpoint (the live runners wait), apply
            // what arrived since, swap the tables, hand over the checkpoint.
            let mut tx = conn.begin().await?;
            target.enter(&mut tx).await?;
            lock_checkpoint(&mut tx, projection.name()).await?;
            let mut at = lock_checkpoint(&mut tx, &target.checkpoint).await?;
            let mut failed = false;
            loop {
                let events = stream::read_after(
                    &mut tx,
                    self.backend,
                    at,
                    projection.aggregate_types(),
                    self.rebuild_batch_size,
                )
                .await?;
                let Some(last) = events.last().map(|e| e.checkpoint) else {
                    break;
                };
                if let Err(e) = projection.apply(&mut tx, &events).await {
                    if e.may_be_the_event() {
                        failed = true;
                        break;
                    }
                    return Err(e);
                }
                done += events.len() as u64;
                at = last;
            }
            if failed {
                // Park it outside the swap, then try again.
                tx.rollback().await?;
                continue;
            }
            shadow.swap(&mut tx).await?;
            save_checkpoint(&mut tx, projection.name(), at).await?;
            sqlx::query("DELETE FROM projection_checkpoints WHERE name = $1")
                .bind(&target.checkpoint)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            progress(done, total.max(done));
            self.metrics
                .applied
                .get_or_create(&ProjectionLabel {
                    projection: projection.name(),
                })
                .set(at.position);
            return Ok(done);
        }
        Err(ProjectionError::Sql(sqlx::Error::Protocol(format!(
            "rebuild of {} could not swap: events kept failing while it caught up",
            projection.name()
        ))))
    }

    /// Fills a rebuild's shadow copy to the end of the stream, a batch per
    /// transaction, parking what fails. On Postgres the next batch is read
    /// on a second connection while this one applies the current batch:
    /// the server reads while this process folds, instead of taking turns.
    async fn fill(
        &self,
        conn: &mut AnyConnection,
        projection: &dyn Projection,
        target: &Target,
        done: &mut u64,
        total: u64,
        progress: &(dyn Fn(u64, u64) + Sync),
    ) -> Result<(), ProjectionError> {
        let size = self.rebuild_batch_size;
        if self.backend == Backend::Sqlite {
            // One writer, and a rebuild's copies are this connection's TEMP
            // tables: batch after batch.
            loop {
                let n = self.batch(conn, projection, target, size).await?;
                *done += n as u64;
                progress(*done, total.max(*done));
                if n == 0 {
                    return Ok(());
                }
            }
        }
        let types = projection.aggregate_types();
        // The reader runs as its own task, so decoding the next batch's rows
        // goes on beside this batch's fold; it is sent only this
        // projection's events.
        let read = |mut reader: sqlx::pool::PoolConnection<sqlx::Any>, after: Checkpoint| {
            tokio::spawn(async move {
                let window = stream::read_window(&mut reader, after, types, size).await;
                (reader, window)
            })
        };
        let joined = |r: Result<_, tokio::task::JoinError>| {
            r.map_err(|e| ProjectionError::Sql(sqlx::Error::Protocol(e.to_string())))
        };
        let mut at = read_checkpoint(conn, &target.checkpoint).await?;
        let (mut reader, first) = joined(read(self.pool.acquire().await?, at).await)?;
        let mut next = first?;
        loop {
            if next.upto <= at {
                return Ok(());
            }
            let window = std::mem::take(&mut next);
            let ahead = read(reader, window.upto);
            let applied = self
                .apply_at(conn, projection, target, at, &window.events, window.upto)
                .await;
            let (back, read_ahead) = joined(ahead.await)?;
            reader = back;
            match applied {
                Ok(true) => {
                    *done += window.events.len() as u64;
                    at = window.upto;
                    next = read_ahead?;
                }
                // Another runner moved the checkpoint (go on from it), or
                // an event failed: the batch path applies them one by one
                // and parks the one that fails alone.
                Ok(false) | Err(_) => {
                    if let Err(e) = applied {
                        if !e.may_be_the_event() {
                            return Err(e);
                        }
                        *done += self.batch(conn, projection, target, size).await? as u64;
                    }
                    at = read_checkpoint(conn, &target.checkpoint).await?;
                    next = stream::read_window(&mut reader, at, types, size).await?;
                }
            }
            progress(*done, total.max(*done));
        }
    }

    /// Applies `events` (read after `at`) in one transaction and moves the
    /// checkpoint to `upto`, when it still stands at `at`; false when it
    /// has moved.
    async fn apply_at(
        &self,
        conn: &mut AnyConnection,
        projection: &dyn Projection,
        target: &Target,
        at: Checkpoint,
        events: &[StoredEvent],
        upto: Checkpoint,
    ) -> Result<bool, ProjectionError> {
        let mut tx = conn.begin().await?;
        target.enter(&mut tx).await?;
        if lock_checkpoint(&mut tx, &target.checkpoint).await? != at {
            tx.rollback().await?;
            return Ok(false);
        }
        if !events.is_empty() {
            if let Err(e) = projection.apply(&mut tx, events).await {
                tx.rollback().await?;
                return Err(e);
            }
        }
        save_checkpoint(&mut tx, &target.checkpoint, upto).await?;
        tx.commit().await?;
        self.note_position(projection, target, upto);
        Ok(true)
    }

    /// Keeps every projection current until `stop` turns true: seal, catch
    /// up, then sleep until woken or `poll` passes. Errors are logged and
    /// retried after a pause; a poison event is parked, never skipped
    /// silently.
    ///
    /// Passes start at most every `gather` when commits keep waking the
    /// runner: under load each pass takes what gathered meanwhile in one
    /// batch per projection, instead of a pass (a dozen statements per
    /// projection) per commit. A commit after a quiet spell is applied at
    /// once. The lag gauges are counted at most once a second. When a pass
    /// leaves commits waiting behind the Postgres horizon (an older
    /// transaction anywhere still runs), the next pass comes after `gather`,
    /// backing off to `poll`, since no further commit may come to wake it.
    pub async fn run(
        self: Arc<Self>,
        poll: Duration,
        gather: Duration,
        mut stop: watch::Receiver<bool>,
    ) {
        let mut lag_counted = tokio::time::Instant::now() - Duration::from_secs(1);
        let first_retry = gather.max(Duration::from_millis(10));
        let mut retry = first_retry;
        loop {
            let started = tokio::time::Instant::now();
            // Postgres: one connection for the whole pass.
            let mut pass_conn = match self.writer {
                Some(_) => None,
                None => match self.pool.acquire().await {
                    Ok(conn) => Some(conn),
                    Err(e) => {
                        tracing::error!(error = %e, "no connection for the projections' pass; retrying");
                        tokio::time::sleep(Duration::from_secs(1)).await;
                        continue;
                    }
                },
            };
            let count_lag = lag_counted.elapsed() >= Duration::from_secs(1);
            // Commits held back by an older transaction elsewhere wake a
            // pass in vain: it looks again soon (backing off to the poll
            // while that transaction runs on), not only at the next commit.
            // Judged before the pass reads: the horizon only moves forward,
            // so whatever this pass's reads leave behind it shows here. (Judged
            // after them, a transaction ending meanwhile, with no commit
            // and so no wake, hid what they had left: applied at the poll.)
            let held = match pass_conn.as_deref_mut() {
                Some(conn) => stream::held_back(conn, self.backend).await,
                None => self.held_back().await,
            };
            // The projections that the shared read left to go on alone
            // (all of them when that read failed), and whether it sealed
            // the log.
            let (alone, sealed) = match self.shared_steps(pass_conn.as_deref_mut()).await {
                Ok(pass) => (Some(pass.failed), pass.sealed),
                Err(e) => {
                    tracing::warn!(error = %e, "the shared read of the stream failed; each projection reads alone");
                    // The connection may be what failed: each step
                    // takes its own from the pool this pass.
                    pass_conn = None;
                    (None, false)
                }
            };
            // The sealer behind the shared read (or its batch failed)
            // reads alone.
            if let Some(sealer) = self.sealer.as_ref().filter(|_| !sealed) {
                let sealed = match pass_conn.as_deref_mut() {
                    Some(conn) => sealer.seal_all_on(conn).await,
                    None => {
                        sealer
                            .seal_all_in_turns(&self.pool, self.writer.as_ref())
                            .await
                    }
                };
                if let Err(e) = sealed {
                    tracing::error!(error = %e, "sealing the event log stalled; retrying");
                }
            }
            for projection in &self.projections {
                let caught_up = alone
                    .as_ref()
                    .is_some_and(|failed| !failed.contains(&projection.name()));
                let stepped = if caught_up {
                    Ok(0)
                } else {
                    self.steps(pass_conn.as_deref_mut(), projection.as_ref(), &|_| {})
                        .await
                };
                let result = match stepped {
                    Ok(_) if count_lag => self.record_lag(projection.as_ref()).await.map(|_| ()),
                    other => other.map(|_| ()),
                };
                if let Err(e) = result {
                    tracing::error!(projection = projection.name(), error = %e, "projection stalled; retrying");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
            if count_lag {
                lag_counted = tokio::time::Instant::now();
            }
            drop(pass_conn);
            let wait = match held {
                Ok(true) => {
                    let wait = retry.min(poll);
                    retry = (retry * 2).min(poll);
                    wait
                }
                Ok(false) => {
                    retry = first_retry;
                    poll
                }
                Err(e) => {
                    tracing::warn!(error = %e, "could not tell whether commits wait behind the horizon");
                    poll
                }
            };
            tokio::select! {
                _ = self.wake.notified() => {
                    tokio::time::sleep_until(started + gather).await;
                }
                _ = tokio::time::sleep(wait) => {}
                _ = stop.changed() => {}
            }
            if *stop.borrow() {
                return;
            }
        }
    }

    /// Whether committed events wait behind the Postgres horizon (never on
    /// SQLite, which needs no connection to say so).
    async fn held_back(&self) -> Result<bool, sqlx::Error> {
        if self.backend == Backend::Sqlite {
            return Ok(false);
        }
        let mut conn = self.pool.acquire().await?;
        stream::held_back(&mut conn, self.backend).await
    }

    /// Parked events, newest first (`status`: open, applied, skipped).
    pub async fn parked(
        &self,
        status: Option<&str>,
        limit: i64,
    ) -> Result<Vec<Parked>, ProjectionError> {
        let sql = format!(
            "SELECT {PARKED_COLUMNS} FROM parked_events WHERE ($1 = '' OR status = $1) ORDER BY id DESC LIMIT $2"
        );
        let rows = sqlx::query(&sql)
            .bind(status.unwrap_or(""))
            .bind(limit.clamp(1, 1000))
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(decode_parked).collect()
    }

    /// Applies an open parked event alone, now (after a fix), and marks it
    /// applied; its error is updated when it fails again.
    pub async fn retry_parked(&self, id: i64, by: &str) -> Result<Parked, ProjectionError> {
        let found = self.parked_open(id).await?;
        let projection = self.find(&found.projection)?.clone();
        let mut conn = self.pool.acquire().await?;
        let mut tx = conn.begin().await?;
        lock_checkpoint(&mut tx, projection.name()).await?;
        let event = stream::read_at(
            &mut tx,
            self.backend,
            found.position,
            projection.aggregate_types(),
        )
        .await?;
        let outcome = match event {
            Some(event) => {
                projection
                    .apply(&mut tx, std::slice::from_ref(&event))
                    .await
            }
            None => Err(ProjectionError::Sql(sqlx::Error::RowNotFound)),
        };
        match outcome {
            Ok(()) => {
                resolve(&mut tx, id, "applied", by).await?;
                tx.commit().await?;
            }
            Err(e) => {
                tx.rollback().await?;
                sqlx::query("UPDATE parked_events SET error = $2 WHERE id = $1")
                    .bind(id)
                    .bind(e.to_string())
                    .execute(&mut *conn)
                    .await?;
                return Err(e);
            }
        }
        self.refresh_parked(&mut conn, projection.name()).await?;
        self.parked_one(id).await
    }

    /// Marks an open parked event skipped: the read model goes without it.
    pub async fn skip_parked(&self, id: i64, by: &str) -> Result<Parked, ProjectionError> {
        let found = self.parked_open(id).await?;
        let projection = self.find(&found.projection)?.clone();
        let mut conn = self.pool.acquire().await?;
        resolve(&mut conn, id, "skipped", by).await?;
        self.refresh_parked(&mut conn, projection.name()).await?;
        self.parked_one(id).await
    }

    async fn parked_one(&self, id: i64) -> Result<Parked, ProjectionError> {
        let sql = format!("SELECT {PARKED_COLUMNS} FROM parked_events WHERE id = $1");
        let row = sqlx::query(&sql)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or(ProjectionError::NoParked(id))?;
        decode_parked(&row)
    }

    async fn parked_open(&self, id: i64) -> Result<Parked, ProjectionError> {
        let found = self.parked_one(id).await?;
        if found.status != "open" {
            return Err(ProjectionError::NoParked(id));
        }
        Ok(found)
    }
}

const PARKED_COLUMNS: &str = "id, projection, tx_id, position, aggregate_type, aggregate_id, sequence, event_type, error, status, parked_at, resolved_at, resolved_by";

fn decode_parked(row: &sqlx::any::AnyRow) -> Result<Parked, ProjectionError> {
    Ok(Parked {
        id: row.try_get("id")?,
        projection: row.try_get("projection")?,
        tx_id: row.try_get("tx_id")?,
        position: row.try_get("position")?,
        aggregate_type: row.try_get("aggregate_type")?,
        aggregate_id: row.try_get("aggregate_id")?,
        sequence: row.try_get("sequence")?,
        event_type: row.try_get("event_type")?,
        error: row.try_get("error")?,
        status: row.try_get("status")?,
        parked_at: row.try_get("parked_at")?,
        resolved_at: row.try_get("resolved_at")?,
        resolved_by: row.try_get("resolved_by")?,
    })
}

async fn resolve(
    conn: &mut AnyConnection,
    id: i64,
    status: &str,
    by: &str,
) -> Result<(), ProjectionError> {
    let done = sqlx::query(
        "UPDATE parked_events SET status = $2, resolved_at = $3, resolved_by = $4 WHERE id = $1 AND status = 'open'",
    )
    .bind(id)
    .bind(status)
    .bind(now_text())
    .bind(by)
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() == 0 {
        return Err(ProjectionError::NoParked(id));
    }
    Ok(())
}

async fn park(
    conn: &mut AnyConnection,
    projection: &str,
    event: &StoredEvent,
    error: &str,
) -> Result<(), sqlx::Error> {
    let error: String = error.chars().take(2000).collect();
    sqlx::query(
        "INSERT INTO parked_events (projection, tx_id, position, aggregate_type, aggregate_id, sequence, event_type, error, status, parked_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'open', $9)
         ON CONFLICT (projection, position) DO NOTHING",
    )
    .bind(projection)
    .bind(event.checkpoint.tx_id)
    .bind(event.checkpoint.position)
    .bind(&event.aggregate_type)
    .bind(&event.aggregate_id)
    .bind(event.sequence)
    .bind(&event.event_type)
    .bind(error)
    .bind(now_text())
    .execute(&mut *conn)
    .await?;
    Ok(())
}
