//! Leases: which process runs a background job's pass.
//!
//! Several processes share one store, and each starts the same background
//! jobs (settlement, placement recovery, auto cash-out, the void of
//! unresulted bets). A job's pass works only while its process holds the
//! job's lease, a row of `leases` (name, holder, expires_at). Taking and
//! renewing are the same statement, one conditional upsert: the row is
//! written when it is missing, when it has expired, or when this holder
//! already has it; otherwise nothing is written and the caller does not
//! hold the lease. A process that dies stops renewing and loses the lease
//! when it expires (`ttl`), then another process takes it.
//!
//! A lease is not a lock: a pass that outlives its lease (a long stall) may
//! overlap the next holder's. Every pass stays idempotent for that reason;
//! the lease keeps the work from being done N times over, it does not make
//! doing it twice wrong.
//!
//! Expiry is read on the process's clock (`SharedClock`), so tests move
//! time instead of sleeping; in production processes must keep their
//! clocks in step to well within the ttl (NTP does).

use std::future::Future;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use sqlx::AnyPool;
use tokio::sync::watch;

use crate::platform::clock::SharedClock;

/// The default time a lease lasts without renewal.
pub const DEFAULT_TTL: Duration = Duration::from_secs(15);

#[derive(Debug, thiserror::Error)]
pub enum LeaseError {
    #[error("lease store: {0}")]
    Sql(#[from] sqlx::Error),
}

/// A random id for this process (or this service instance in tests): the
/// `holder` of its leases.
pub fn node_id() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// One named lease as one holder sees it.
pub struct Lease {
    pool: AnyPool,
    /// SQLite's writer turn (`store::db::sqlite_writer`).
    writer: Option<store::group_commit::WriterLock>,
    name: String,
    holder: String,
    ttl_ms: i64,
    clock: SharedClock,
    /// When the lease this holder last wrote expires (0: not held).
    held_until: AtomicI64,
}

impl Lease {
    pub fn new(
        pool: AnyPool,
        name: impl Into<String>,
        holder: impl Into<String>,
        ttl: Duration,
        clock: SharedClock,
    ) -> Self {
        Self {
            writer: store::db::sqlite_writer(&pool),
            pool,
            name: name.into(),
            holder: holder.into(),
            ttl_ms: (ttl.as_millis() as i64).max(1),
            clock,
            held_until: AtomicI64::new(0),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn holder(&self) -> &str {
        &self.holder
    }

    /// Takes the lease, or renews it: whether this holder has it now. The
    /// row is renewed once a third of the ttl has passed since the last
    /// renewal; in between, what this holder wrote itself still stands (no
    /// one else may take a lease before it expires).
    pub async fn hold(&self) -> Result<bool, LeaseError> {
        let now = self.clock.now_ms();
        let until = self.held_until.load(Ordering::SeqCst);
        if until - now > self.ttl_ms * 2 / 3 {
            return Ok(true);
        }
        let connection = store::db::write_conn(&self.pool, &self.writer).await;
        // The time is read again once the turn is ours (SQLite).
        let now = self.clock.now_ms();
        let expires = now + self.ttl_ms;
        let written = match connection {
            Ok(mut conn) => sqlx::query(
                "INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, $3)
                 ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
                 WHERE leases.expires_at < $4 OR leases.holder = $2",
            )
            .bind(&self.name)
            .bind(&self.holder)
            .bind(expires)
            .bind(now)
            .execute(&mut *conn)
            .await
            .map(|done| done.rows_affected() == 1),
            Err(e) => Err(e),
        };
        match written {
            Ok(true) => {
                self.held_until.store(expires, Ordering::SeqCst);
                Ok(true)
            }
            Ok(false) => {
                self.held_until.store(0, Ordering::SeqCst);
                Ok(false)
            }
            Err(e) => {
                // Unsure whether the row was written: act as if not held.
                self.held_until.store(0, Ordering::SeqCst);
                Err(e.into())
            }
        }
    }

    /// Lets the lease go (a clean stop), so another process need not wait
    /// for it to expire.
    pub async fn release(&self) -> Result<(), LeaseError> {
        self.held_until.store(0, Ordering::SeqCst);
        sqlx::query("UPDATE leases SET expires_at = 0 WHERE name = $1 AND holder = $2")
            .bind(&self.name)
            .bind(&self.holder)
            .execute(&mut *store::db::write_conn(&self.pool, &self.writer).await?)
            .await?;
        Ok(())
    }

    /// Runs `pass` if this holder has the lease: `None` when another
    /// process has it (nothing was done).
    pub async fn run<T, E, F>(&self, pass: F) -> Result<Option<T>, E>
    where
        F: Future<Output = Result<T, E>>,
        E: From<LeaseError>,
    {
        if !self.hold().await? {
            return Ok(None);
        }
        pass.await.map(Some)
    }
}

/// Runs `pass` every `every` while this process holds `lease`, until
/// `stop`; then lets the lease go. A failed pass is logged and tried again
/// on the next turn.
pub async fn run_leased<T, E, F, Fut>(
    lease: Lease,
    every: Duration,
    mut stop: watch::Receiver<bool>,
    mut pass: F,
) where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
    E: std::fmt::Display + From<LeaseError>,
{
    loop {
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = stop.changed() => {}
        }
        if *stop.borrow() {
            break;
        }
        // Each pass's log lines carry the job and a pass id.
        let span = tracing::info_span!(
            "job",
            name = lease.name(),
            request_id = %format!("{:016x}", rand::random::<u64>()),
        );
        if let Err(e) = tracing::Instrument::instrument(lease.run(pass()), span).await {
            tracing::warn!(lease = lease.name(), error = %e, "background pass failed; retrying");
        }
    }
    if let Err(e) = lease.release().await {
        tracing::debug!(lease = lease.name(), error = %e, "lease not released; it expires");
    }
}
