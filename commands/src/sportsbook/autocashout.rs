//! The auto cash-out watcher: a process manager that fires members' auto
//! cash-out rules when prices reach them.
//!
//! The `auto_cashout` projection keeps the active rules (one row per bet);
//! after every catalogue change (at most every 250 ms, and at least once a
//! second, since rules change too) the watcher computes each rule's bet's
//! current amount and fires those that reach it, as a `CashOut` by rule
//! under the rule's own request id (`BetService::fire_auto_cashout`). The
//! Bet aggregate judges whether the rule still holds and a request id cashes
//! out once, so a pass repeated by another process whose lease overlapped
//! pays nothing more. One process watches at a time (lease `auto_cashout`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use sqlx::AnyPool;
use tokio::sync::watch;

use crate::platform::lease::{Lease, LeaseError};
use crate::sportsbook::bets::{BetService, PlaceError};
use crate::sportsbook::cashout::CashOutAnswer;
use crate::sportsbook::live::LiveCatalogue;

pub const AUTO_CASHOUT_LEASE: &str = "auto_cashout";

#[derive(Debug, thiserror::Error)]
pub enum AutoCashoutError {
    #[error("auto cash-out read model: {0}")]
    ReadModel(#[from] sqlx::Error),
    #[error("bet {bet_id}: {source}")]
    Bet {
        bet_id: String,
        #[source]
        source: PlaceError,
    },
    #[error(transparent)]
    Lease(#[from] LeaseError),
}

pub struct AutoCashout {
    bets: Arc<BetService>,
    pool: AnyPool,
}

impl AutoCashout {
    pub fn new(bets: Arc<BetService>, pool: AnyPool) -> Self {
        Self { bets, pool }
    }

    /// One pass over the rules: fires those the current prices reach.
    /// Returns how many fired; a rule that fails is logged and looked at
    /// again on the next pass.
    pub async fn pass(&self) -> Result<usize, AutoCashoutError> {
        let rules = projections::autocashout::active(&self.pool).await?;
        let mut fired = 0;
        for rule in rules {
            match self.fire(&rule.bet_id).await {
                Ok(Some(CashOutAnswer::Ok { .. })) => fired += 1,
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(bet_id = rule.bet_id, error = %e, "auto cash-out failed; retrying")
                }
            }
        }
        Ok(fired)
    }

    async fn fire(&self, bet_id: &str) -> Result<Option<CashOutAnswer>, AutoCashoutError> {
        let outcomes = projections::settlement::outcomes_of(&self.pool, bet_id).await?;
        self.bets
            .fire_auto_cashout(bet_id, &outcomes)
            .await
            .map_err(|source| AutoCashoutError::Bet {
                bet_id: bet_id.to_string(),
                source,
            })
    }

    /// Watches prices while this process holds the lease, until `stop`: a
    /// pass after every catalogue change, at most every 250 ms.
    pub async fn run(
        self: Arc<Self>,
        live: Arc<LiveCatalogue>,
        lease: Lease,
        mut stop: watch::Receiver<bool>,
    ) {
        let mut seen = None;
        let mut passed = Instant::now();
        loop {
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(250)) => {}
                _ = stop.changed() => {}
            }
            if *stop.borrow() {
                break;
            }
            // A price move, or (rules change too) a second since the last pass.
            let version = live.version();
            if seen == Some(version) && passed.elapsed() < Duration::from_secs(1) {
                continue;
            }
            seen = Some(version);
            passed = Instant::now();
            if let Err(e) = lease.run(self.pass()).await {
                tracing::warn!(error = %e, "auto cash-out pass failed; retrying");
            }
        }
        if let Err(e) = lease.release().await {
            tracing::debug!(error = %e, "auto cash-out lease not released; it expires");
        }
    }
}
