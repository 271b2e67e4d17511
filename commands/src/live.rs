//! The live market state: the catalogue the feed keeps current, shared by
//! the Swarm hub (reads) and the feed loop (writes). Every change bumps a
//! version that subscribers wait on. Finished games are recorded as
//! `GameResult` events, from which bets are settled.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use domain::catalogue::Catalogue;
use domain::result::{GameResult, ResultCommand, ResultError};
use tokio::sync::watch;

use crate::clock::SharedClock;
use crate::db::Db;
use crate::feed::{Feed, Finished};
use crate::framework::{CommandError, Framework, RetryPolicy};
use crate::metrics::CommandMetrics;
use crate::store::StoreOptions;

pub struct LiveCatalogue {
    catalogue: RwLock<Catalogue>,
    version: watch::Sender<u64>,
}

impl LiveCatalogue {
    pub fn new(catalogue: Catalogue) -> Arc<Self> {
        Arc::new(Self {
            catalogue: RwLock::new(catalogue),
            version: watch::Sender::new(0),
        })
    }

    /// Reads the catalogue (hold no lock across an await).
    pub fn read<R>(&self, f: impl FnOnce(&Catalogue) -> R) -> R {
        f(&self.catalogue.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// Changes the catalogue and tells subscribers.
    pub fn update<R>(&self, f: impl FnOnce(&mut Catalogue) -> R) -> R {
        let out = f(&mut self.catalogue.write().unwrap_or_else(|p| p.into_inner()));
        self.version.send_modify(|v| *v += 1);
        out
    }

    pub fn version(&self) -> u64 {
        *self.version.borrow()
    }

    pub fn changes(&self) -> watch::Receiver<u64> {
        self.version.subscribe()
    }
}

/// Records finished games' results (once per game; the feed may repeat).
pub struct ResultService {
    framework: Framework<GameResult>,
}

impl ResultService {
    pub fn new(
        db: &Db,
        options: StoreOptions,
        retry: RetryPolicy,
        metrics: CommandMetrics,
    ) -> Self {
        Self {
            framework: Framework::new(db, options, (), retry, metrics, None),
        }
    }

    pub async fn record(
        &self,
        finished: Finished,
        at_ms: i64,
    ) -> Result<(), CommandError<ResultError>> {
        let command = ResultCommand::Record {
            game_id: finished.game_id,
            score: finished.score,
            selections: finished.selections,
            at_ms,
        };
        match self
            .framework
            .execute(&finished.game_id.to_string(), command, HashMap::new())
            .await
        {
            Err(CommandError::Rejected(ResultError::AlreadyResulted)) => Ok(()),
            other => other,
        }
    }

    pub async fn load(&self, game_id: u64) -> Result<GameResult, String> {
        self.framework
            .store()
            .load_current(&game_id.to_string())
            .await
            .map(|l| l.aggregate)
            .map_err(|e| e.to_string())
    }
}

/// Runs `feed` every `tick` until `stop`: ticks under the write lock, then
/// records the results of finished games.
pub async fn run_feed(
    mut feed: Box<dyn Feed>,
    live: Arc<LiveCatalogue>,
    results: Arc<ResultService>,
    clock: SharedClock,
    tick: Duration,
    mut stop: watch::Receiver<bool>,
) {
    let mut interval = tokio::time::interval(tick);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = interval.tick() => {}
            _ = stop.changed() => {}
        }
        if *stop.borrow() {
            return;
        }
        let now_ms = clock.now_ms();
        let finished = live.update(|catalogue| feed.tick(catalogue, now_ms / 1000));
        for game in finished {
            let game_id = game.game_id;
            if let Err(e) = results.record(game, now_ms).await {
                tracing::error!(game_id, error = %e, "result not recorded");
            }
        }
    }
}
