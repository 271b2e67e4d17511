//! A scheduled job: selections that never get a result are void.
//!
//! A bet must not stay open for ever because a game was abandoned, or the
//! feed never sent a market's result. Once a bet's last leg started longer
//! ago than `[bets] void_unresulted_after_hours` (72 h by default), every
//! selection of it still without an outcome is voided: the job records
//! `SelectionsVoided` on the selection's game (`ResultCommand::
//! VoidSelections`, metadata `staff_id: system`, the reason), and
//! settlement treats a void selection as returned (price 1): a single gets
//! its stake back, a multiple settles on its other legs. A voided selection
//! stays void whatever result comes later.
//!
//! The pass is idempotent (a voided selection has an outcome, so the next
//! pass does not find it; the aggregate ignores a repeat) and runs in one
//! process at a time under the lease `void_unresulted`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use domain::result::{ResultCommand, ResultError};
use sqlx::AnyPool;
use tokio::sync::watch;

use crate::platform::clock::SharedClock;
use crate::platform::lease::{run_leased, Lease, LeaseError};
use crate::sportsbook::live::ResultService;
use store::framework::CommandError;

pub const VOID_UNRESULTED_LEASE: &str = "void_unresulted";

/// How often the job looks.
pub const EVERY: Duration = Duration::from_secs(60);

/// The default wait after a bet's last leg started.
pub const DEFAULT_AFTER: Duration = Duration::from_secs(72 * 3600);

/// Selections one pass reads at most.
const PASS_SELECTIONS: i64 = 1000;

/// How far before the due time a pass looks for bets' last legs: a pass
/// runs every minute, so a bet comes due within the range of many passes.
/// A process's first pass looks at every bet (what came due while no
/// process ran the job, or before this range existed), and so does each
/// pass until one finds and voids everything due.
pub const LOOKBACK: Duration = Duration::from_secs(7 * 24 * 3600);

#[derive(Debug, thiserror::Error)]
pub enum VoidError {
    #[error("settlement read model: {0}")]
    ReadModel(#[from] sqlx::Error),
    #[error("game {game_id}: {source}")]
    Result {
        game_id: u64,
        #[source]
        source: CommandError<ResultError>,
    },
    #[error(transparent)]
    Lease(#[from] LeaseError),
}

pub struct VoidUnresulted {
    results: Arc<ResultService>,
    pool: AnyPool,
    clock: SharedClock,
    after: Duration,
    /// Whether this process has made its first pass (over every bet).
    swept: std::sync::atomic::AtomicBool,
}

impl VoidUnresulted {
    pub fn new(
        results: Arc<ResultService>,
        pool: AnyPool,
        clock: SharedClock,
        after: Duration,
    ) -> Self {
        Self {
            results,
            pool,
            clock,
            after,
            swept: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// One pass: voids what is due. Returns how many games it voided
    /// selections of; a game that fails is logged and tried next time.
    pub async fn pass(&self) -> Result<usize, VoidError> {
        use std::sync::atomic::Ordering;
        let started_before = (self.clock.now_ms() - self.after.as_millis() as i64) / 1000;
        let since = self
            .swept
            .load(Ordering::Relaxed)
            .then(|| started_before - LOOKBACK.as_secs() as i64);
        let due =
            projections::settlement::unresulted(&self.pool, started_before, since, PASS_SELECTIONS)
                .await?;
        // The sweep is done once a pass over every bet found them all
        // (fewer than its limit) and voided them.
        let mut complete = due.values().map(Vec::len).sum::<usize>() < PASS_SELECTIONS as usize;
        let hours = self.after.as_secs() / 3600;
        let mut voided = 0;
        for (game_id, selections) in due {
            let command = ResultCommand::VoidSelections {
                game_id,
                market_id: None,
                selections,
                at_ms: self.clock.now_ms(),
            };
            let metadata = HashMap::from([
                ("staff_id".to_string(), "system".to_string()),
                (
                    "reason".to_string(),
                    format!("no result {hours} h after the bet's last leg started"),
                ),
            ]);
            match self.results.decide(game_id, command, metadata).await {
                Ok(()) => voided += 1,
                Err(source) => {
                    complete = false;
                    let e = VoidError::Result { game_id, source };
                    tracing::warn!(game_id, error = %e, "unresulted selections not voided; retrying")
                }
            }
        }
        if complete {
            self.swept.store(true, Ordering::Relaxed);
        }
        Ok(voided)
    }

    /// Runs the pass every minute while this process holds the lease.
    pub async fn run(self: Arc<Self>, lease: Lease, stop: watch::Receiver<bool>) {
        run_leased(lease, EVERY, stop, || self.pass()).await
    }
}
