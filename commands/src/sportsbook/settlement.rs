//! The settlement process manager: result -> bet -> wallet.
//!
//! The `settlement` projection writes a task whenever every selection of a
//! bet has an outcome (and again for each corrected result); this process
//! manager carries the tasks out: the Bet settles (or re-settles) on the
//! outcomes and starting prices the projection holds, the wallet pays or
//! takes back the difference, and the task is marked done. Every step is
//! idempotent per result version (`BetService::settle`), so a task run
//! twice - after a crash, or by two processes whose leases overlapped -
//! pays once.
//!
//! The same module runs placement recovery (`BetService::recover`), the
//! other bet process that must not stop when one process does. Each has
//! its own lease (`commands::platform::lease`), so one process does each pass.

use std::sync::Arc;
use std::time::Duration;

use sqlx::AnyPool;
use tokio::sync::watch;

use crate::platform::lease::{run_leased, Lease, LeaseError};
use crate::sportsbook::bets::{BetService, PlaceError, RECOVER_AFTER_MS};

/// Lease names (rows of `leases`).
pub const SETTLEMENT_LEASE: &str = "settlement";
pub const RECOVERY_LEASE: &str = "placement_recovery";

/// How often each loop looks for work.
pub const SETTLE_EVERY: Duration = Duration::from_millis(200);
pub const RECOVER_EVERY: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum SettlementError {
    #[error("settlement read model: {0}")]
    ReadModel(#[from] sqlx::Error),
    #[error("bet {bet_id}: {source}")]
    Bet {
        bet_id: String,
        #[source]
        source: PlaceError,
    },
    #[error("placement recovery: {0}")]
    Recovery(PlaceError),
    #[error(transparent)]
    Lease(#[from] LeaseError),
}

pub struct Settlement {
    bets: Arc<BetService>,
    pool: AnyPool,
}

impl Settlement {
    pub fn new(bets: Arc<BetService>, pool: AnyPool) -> Self {
        Self { bets, pool }
    }

    /// One pass over the open settlement tasks; returns how many it did.
    /// A task that fails is logged and retried on the next pass without
    /// holding up the others; a task whose selections' outcomes are not all
    /// known (a settlement projection being rebuilt) waits.
    pub async fn pass(&self) -> Result<usize, SettlementError> {
        let tasks = projections::settlement::open_tasks(&self.pool, 500).await?;
        let mut done = 0;
        for (id, bet_id, version) in &tasks {
            match self.task(*id, bet_id, *version).await {
                Ok(true) => done += 1,
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!(bet_id, error = %e, "settlement task failed; retrying later")
                }
            }
        }
        Ok(done)
    }

    async fn task(&self, id: i64, bet_id: &str, version: i64) -> Result<bool, SettlementError> {
        let pool = &self.pool;
        let legs = projections::settlement::legs_of(pool, bet_id).await?;
        let outcomes = projections::settlement::outcomes_of(pool, bet_id).await?;
        if legs == 0 || (outcomes.len() as i64) < legs {
            return Ok(false);
        }
        let sp_prices = projections::settlement::sp_prices_of(pool, bet_id).await?;
        self.bets
            .settle(bet_id, version as u64, outcomes, sp_prices)
            .await
            .map_err(|source| SettlementError::Bet {
                bet_id: bet_id.to_string(),
                source,
            })?;
        projections::settlement::finish_task(pool, id).await?;
        Ok(true)
    }

    /// One pass of placement recovery (see `BetService::recover`).
    pub async fn recover(&self) -> Result<usize, SettlementError> {
        self.bets
            .recover(RECOVER_AFTER_MS)
            .await
            .map_err(SettlementError::Recovery)
    }

    /// Settles while this process holds the settlement lease, until `stop`.
    pub async fn run(self: Arc<Self>, lease: Lease, stop: watch::Receiver<bool>) {
        run_leased(lease, SETTLE_EVERY, stop, || self.pass()).await
    }

    /// Recovers interrupted placements while this process holds the
    /// recovery lease, until `stop`.
    pub async fn run_recovery(self: Arc<Self>, lease: Lease, stop: watch::Receiver<bool>) {
        run_leased(lease, RECOVER_EVERY, stop, || self.recover()).await
    }
}
