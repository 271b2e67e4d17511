//! Runs projections: catch-up in batches, each batch one transaction holding
//! the read-model change and the checkpoint; rebuild from zero; lag gauges.
//!
//! Every batch starts by writing its checkpoint row, which locks it (a row
//! lock on Postgres, the write lock on SQLite): two runners on one store,
//! in one process or several, take turns and never apply a batch twice.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use sqlx::{AnyConnection, AnyPool, Row};
use tokio::sync::{watch, Notify};

use crate::stream::{self, Backend, Checkpoint, StoredEvent};

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
}

impl ProjectionError {
    pub fn bad_event(event: &StoredEvent, reason: impl ToString) -> Self {
        ProjectionError::BadEvent {
            aggregate_type: event.aggregate_type.clone(),
            aggregate_id: event.aggregate_id.clone(),
            sequence: event.sequence,
            reason: reason.to_string(),
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
    /// runner's transaction.
    fn apply<'a>(
        &'a self,
        conn: &'a mut AnyConnection,
        events: &'a [StoredEvent],
    ) -> BoxFuture<'a, Result<(), ProjectionError>>;
    /// Empties the read model (rebuild), inside the runner's transaction.
    fn reset<'a>(
        &'a self,
        conn: &'a mut AnyConnection,
    ) -> BoxFuture<'a, Result<(), ProjectionError>>;
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
    }
}

pub struct Runner {
    pool: AnyPool,
    backend: Backend,
    projections: Vec<Arc<dyn Projection>>,
    batch_size: i64,
    metrics: ProjectionMetrics,
    wake: Arc<Notify>,
}

impl Runner {
    pub fn new(pool: AnyPool, backend: Backend, projections: Vec<Arc<dyn Projection>>) -> Self {
        Self {
            pool,
            backend,
            projections,
            batch_size: 2000,
            metrics: ProjectionMetrics::default(),
            wake: Arc::new(Notify::new()),
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

    /// Notified after a command commits, so the runner need not wait for its
    /// next poll.
    pub fn waker(&self) -> Arc<Notify> {
        self.wake.clone()
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.projections.iter().map(|p| p.name()).collect()
    }

    fn find(&self, name: &str) -> Result<&Arc<dyn Projection>, ProjectionError> {
        self.projections
            .iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| ProjectionError::Unknown(name.to_string(), self.names().join(", ")))
    }

    /// One batch in one transaction; returns how many events it covered.
    async fn step(&self, projection: &dyn Projection) -> Result<usize, ProjectionError> {
        let mut tx = self.pool.begin().await?;
        let checkpoint = lock_checkpoint(&mut tx, projection.name()).await?;
        let events = stream::read_after(
            &mut tx,
            self.backend,
            checkpoint,
            projection.aggregate_types(),
            self.batch_size,
        )
        .await?;
        let Some(last) = events.last().map(|e| e.checkpoint) else {
            tx.rollback().await?;
            return Ok(0);
        };
        projection.apply(&mut tx, &events).await?;
        save_checkpoint(&mut tx, projection.name(), last).await?;
        tx.commit().await?;
        self.metrics
            .applied
            .get_or_create(&ProjectionLabel {
                projection: projection.name(),
            })
            .set(last.position);
        Ok(events.len())
    }

    /// Applies everything visible now; returns the number of events covered.
    pub async fn catch_up(&self, name: &str) -> Result<u64, ProjectionError> {
        let projection = self.find(name)?.clone();
        self.catch_up_with(projection.as_ref(), &|_| {}).await
    }

    async fn catch_up_with(
        &self,
        projection: &dyn Projection,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<u64, ProjectionError> {
        let mut done = 0u64;
        loop {
            let n = self.step(projection).await?;
            if n == 0 {
                self.record_lag(projection).await?;
                return Ok(done);
            }
            done += n as u64;
            progress(done);
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

    pub async fn catch_up_all(&self) -> Result<u64, ProjectionError> {
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

    /// Empties the read model and its checkpoint, then replays the whole
    /// stream; `progress(done, total)` follows it.
    pub async fn rebuild(
        &self,
        name: &str,
        progress: &(dyn Fn(u64, u64) + Sync),
    ) -> Result<u64, ProjectionError> {
        let projection = self.find(name)?.clone();
        let mut tx = self.pool.begin().await?;
        lock_checkpoint(&mut tx, projection.name()).await?;
        projection.reset(&mut tx).await?;
        save_checkpoint(&mut tx, projection.name(), Checkpoint::default()).await?;
        let total = stream::count_after(&mut tx, self.backend, Checkpoint::default()).await?;
        tx.commit().await?;
        let total = total as u64;
        self.catch_up_with(projection.as_ref(), &|done| progress(done, total))
            .await
    }

    /// Keeps every projection current until `stop` turns true: catch up,
    /// then sleep until woken or `poll` passes. Errors are logged and
    /// retried after a pause; they never skip an event.
    pub async fn run(self: Arc<Self>, poll: Duration, mut stop: watch::Receiver<bool>) {
        loop {
            for projection in &self.projections {
                if let Err(e) = self.catch_up_with(projection.as_ref(), &|_| {}).await {
                    tracing::error!(projection = projection.name(), error = %e, "projection stalled; retrying");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
            tokio::select! {
                _ = self.wake.notified() => {}
                _ = tokio::time::sleep(poll) => {}
                _ = stop.changed() => {}
            }
            if *stop.borrow() {
                return;
            }
        }
    }
}

/// Touches the checkpoint row first, so the transaction holds its lock
/// before it reads anything, and returns where the projection stands.
async fn lock_checkpoint(conn: &mut AnyConnection, name: &str) -> Result<Checkpoint, sqlx::Error> {
    sqlx::query(
        "INSERT INTO projection_checkpoints (name, tx_id, position, updated_at) VALUES ($1, 0, 0, '')
         ON CONFLICT (name) DO UPDATE SET updated_at = projection_checkpoints.updated_at",
    )
    .bind(name)
    .execute(&mut *conn)
    .await?;
    read_checkpoint(conn, name).await
}

async fn read_checkpoint(conn: &mut AnyConnection, name: &str) -> Result<Checkpoint, sqlx::Error> {
    let row = sqlx::query("SELECT tx_id, position FROM projection_checkpoints WHERE name = $1")
        .bind(name)
        .fetch_optional(&mut *conn)
        .await?;
    Ok(match row {
        Some(row) => Checkpoint {
            tx_id: row.try_get("tx_id")?,
            position: row.try_get("position")?,
        },
        None => Checkpoint::default(),
    })
}

async fn save_checkpoint(
    conn: &mut AnyConnection,
    name: &str,
    at: Checkpoint,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE projection_checkpoints SET tx_id = $2, position = $3, updated_at = $4 WHERE name = $1",
    )
    .bind(name)
    .bind(at.tx_id)
    .bind(at.position)
    .bind(now_text())
    .execute(&mut *conn)
    .await?;
    Ok(())
}

fn now_text() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    format!("{}.{:03}", now.as_secs(), now.subsec_millis())
}
