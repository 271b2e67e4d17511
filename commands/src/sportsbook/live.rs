//! The live market state: the catalogue the feed keeps current, shared by
//! the Swarm hub (reads) and the feed loop (writes). Every change bumps a
//! version that subscribers wait on. Finished games are recorded as
//! `GameResult` events, from which bets are settled.
//!
//! No result is left in limbo: a finished game leaves the live catalogue
//! only in the step after its `GameResulted` event committed. A result the
//! store refused stays pending - in this process's memory and in the table
//! `pending_results`, so the next leader finds it if this one dies - and
//! is tried again on every step; meanwhile the game stays listed, blocked
//! (no bets on a game that has ended).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use domain::catalogue::{Catalogue, ChangeSet};
use domain::result::{GameResult, ResultCommand, ResultError};
use sqlx::{AnyPool, Row};
use tokio::sync::watch;

use crate::platform::clock::SharedClock;
use crate::sportsbook::feed::{Feed, Finished};
use store::db::{Db, StorePool};
use store::events::StoreOptions;
use store::framework::{CommandError, Framework, RetryPolicy};
use store::metrics::CommandMetrics;

pub struct LiveCatalogue {
    catalogue: RwLock<Catalogue>,
    version: watch::Sender<u64>,
    /// The last `catalogue_log` entry this catalogue holds.
    log_position: std::sync::atomic::AtomicI64,
    /// Whether this process writes the log (its catalogue is the newest).
    leader: std::sync::atomic::AtomicBool,
    /// Asks the feed loop of a follower to catch up now.
    wanted: tokio::sync::Notify,
}

/// How long a bet on a follower waits for its catalogue to catch up with
/// the leader's last change before it is refused with the prices it has.
pub const FRESH_PRICES_WAIT: Duration = Duration::from_millis(1_000);

impl LiveCatalogue {
    pub fn new(catalogue: Catalogue) -> Arc<Self> {
        Arc::new(Self {
            catalogue: RwLock::new(catalogue),
            version: watch::Sender::new(0),
            log_position: std::sync::atomic::AtomicI64::new(0),
            leader: std::sync::atomic::AtomicBool::new(true),
            wanted: tokio::sync::Notify::new(),
        })
    }

    fn applied(&self, position: i64, leader: bool) {
        use std::sync::atomic::Ordering;
        self.log_position.store(position, Ordering::Release);
        self.leader.store(leader, Ordering::Release);
    }

    /// Whether this catalogue holds every change the leader has logged
    /// (`pool` reads the log's end). A follower behind it is asked to catch
    /// up and waited for, up to `FRESH_PRICES_WAIT`: a bet must not be
    /// validated against prices older than the leader's last change.
    pub async fn ensure_fresh(&self, pool: &AnyPool) -> Result<bool, sqlx::Error> {
        use std::sync::atomic::Ordering;
        if self.leader.load(Ordering::Acquire) {
            return Ok(true);
        }
        let end: Option<i64> = sqlx::query_scalar("SELECT max(id) FROM catalogue_log")
            .fetch_one(pool)
            .await?;
        let end = end.unwrap_or(0);
        let started = std::time::Instant::now();
        while self.log_position.load(Ordering::Acquire) < end {
            if started.elapsed() >= FRESH_PRICES_WAIT {
                return Ok(false);
            }
            self.wanted.notify_one();
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        Ok(true)
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

    /// Corrects a game's result (support or the feed's correction).
    pub async fn correct(
        &self,
        finished: Finished,
        at_ms: i64,
    ) -> Result<(), CommandError<ResultError>> {
        let command = ResultCommand::Correct {
            score: finished.score,
            selections: finished.selections,
            at_ms,
        };
        self.framework
            .execute(&finished.game_id.to_string(), command, HashMap::new())
            .await
    }

    /// Records, corrects or voids a game's result with `metadata` (who
    /// decided and why, for the audit trail).
    pub async fn decide(
        &self,
        game_id: u64,
        command: ResultCommand,
        metadata: HashMap<String, String>,
    ) -> Result<(), CommandError<ResultError>> {
        self.framework
            .execute(&game_id.to_string(), command, metadata)
            .await
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

/// Snapshots and change sets of the catalogue, in the store.
pub struct CatalogueLog {
    pool: AnyPool,
}

#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    #[error("database: {0}")]
    Sql(#[from] sqlx::Error),
    #[error("catalogue log entry {id}: {reason}")]
    Entry { id: i64, reason: String },
}

enum Entry {
    Snapshot(Catalogue),
    Changes(ChangeSet),
}

impl CatalogueLog {
    pub fn new(pool: AnyPool) -> Self {
        Self { pool }
    }

    async fn append(&self, kind: &str, body: String, at_ms: i64) -> Result<i64, LiveError> {
        Ok(sqlx::query_scalar(
            "INSERT INTO catalogue_log (kind, body, at_ms) VALUES ($1, $2, $3) RETURNING id",
        )
        .bind(kind)
        .bind(body)
        .bind(at_ms)
        .fetch_one(&self.pool)
        .await?)
    }

    /// The games ended outside the feed since the last call (taken once).
    async fn take_ended(&self) -> Result<Vec<u64>, LiveError> {
        let ids: Vec<i64> = sqlx::query_scalar("DELETE FROM ended_games RETURNING game_id")
            .fetch_all(&self.pool)
            .await?;
        Ok(ids.into_iter().map(|id| id as u64).collect())
    }

    async fn snapshot(&self, catalogue: &Catalogue, at_ms: i64) -> Result<i64, LiveError> {
        let body = serde_json::to_string(catalogue).map_err(|e| LiveError::Entry {
            id: 0,
            reason: e.to_string(),
        })?;
        let id = self.append("snapshot", body, at_ms).await?;
        // Everything before the previous snapshot is history nobody reads.
        sqlx::query(
            "DELETE FROM catalogue_log WHERE id < (SELECT coalesce(max(id), 0) FROM catalogue_log WHERE kind = 'snapshot' AND id < $1)",
        )
        .bind(id)
        .execute(&self.pool)
        .await?;
        Ok(id)
    }

    async fn changes(&self, changes: &ChangeSet, at_ms: i64) -> Result<i64, LiveError> {
        let body = serde_json::to_string(changes).map_err(|e| LiveError::Entry {
            id: 0,
            reason: e.to_string(),
        })?;
        self.append("changes", body, at_ms).await
    }

    async fn latest_snapshot_id(&self) -> Result<Option<i64>, LiveError> {
        Ok(
            sqlx::query_scalar("SELECT max(id) FROM catalogue_log WHERE kind = 'snapshot'")
                .fetch_one(&self.pool)
                .await?,
        )
    }

    /// Entries from `from` (inclusive), in order.
    async fn from(&self, from: i64, limit: i64) -> Result<Vec<(i64, Entry)>, LiveError> {
        let rows = sqlx::query(
            "SELECT id, kind, body FROM catalogue_log WHERE id >= $1 ORDER BY id LIMIT $2",
        )
        .bind(from)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        let mut entries = Vec::with_capacity(rows.len());
        for row in rows {
            let id: i64 = row.try_get("id")?;
            let kind: String = row.try_get("kind")?;
            let body: String = row.try_get("body")?;
            let bad = |e: serde_json::Error| LiveError::Entry {
                id,
                reason: e.to_string(),
            };
            let entry = if kind == "snapshot" {
                Entry::Snapshot(serde_json::from_str(&body).map_err(bad)?)
            } else {
                Entry::Changes(serde_json::from_str(&body).map_err(bad)?)
            };
            entries.push((id, entry));
        }
        Ok(entries)
    }
}

/// Finished games whose result is not recorded yet (`pending_results`).
struct PendingResults {
    pool: AnyPool,
}

impl PendingResults {
    async fn save(&self, finished: &Finished, at_ms: i64, error: &str) -> Result<(), LiveError> {
        let body = serde_json::to_string(finished).map_err(|e| LiveError::Entry {
            id: finished.game_id as i64,
            reason: e.to_string(),
        })?;
        sqlx::query(
            "INSERT INTO pending_results (game_id, body, finished_ms, attempts, last_error) VALUES ($1, $2, $3, 1, $4)
             ON CONFLICT (game_id) DO UPDATE SET attempts = pending_results.attempts + 1, last_error = excluded.last_error",
        )
        .bind(finished.game_id as i64)
        .bind(body)
        .bind(at_ms)
        .bind(error)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The oldest pending results: (game, when it finished).
    async fn load(&self, limit: i64) -> Result<Vec<(Finished, i64)>, LiveError> {
        let rows = sqlx::query(
            "SELECT game_id, body, finished_ms FROM pending_results ORDER BY finished_ms, game_id LIMIT $1",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        let mut pending = Vec::with_capacity(rows.len());
        for row in rows {
            let id: i64 = row.try_get("game_id")?;
            let body: String = row.try_get("body")?;
            let finished = serde_json::from_str(&body).map_err(|e| LiveError::Entry {
                id,
                reason: e.to_string(),
            })?;
            pending.push((finished, row.try_get("finished_ms")?));
        }
        Ok(pending)
    }

    async fn done(&self, game_id: u64) -> Result<(), LiveError> {
        sqlx::query("DELETE FROM pending_results WHERE game_id = $1")
            .bind(game_id as i64)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

/// Keeps `game_id` in `next` as it is in `current` (the tick removed it),
/// blocked: it has ended, its result is not recorded yet.
/// Asks the feed's leader to take `game_id` out of the catalogue (its
/// result was recorded outside the feed). Any process may call it; none
/// changes its own copy of the catalogue, which follows the leader's log.
pub async fn end_game(pool: &AnyPool, game_id: u64, at_ms: i64) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO ended_games (game_id, at_ms) VALUES ($1, $2) ON CONFLICT (game_id) DO NOTHING",
    )
    .bind(game_id as i64)
    .bind(at_ms)
    .execute(pool)
    .await?;
    Ok(())
}

fn keep_blocked(next: &mut Catalogue, current: &Catalogue, game_id: u64) {
    if !next.games().contains_key(&game_id) {
        let Some(game) = current.games().get(&game_id) else {
            return;
        };
        let kept = next.insert_game(game.clone()).and_then(|_| {
            for market in current.markets_of(game_id) {
                next.insert_market(market.clone())?;
                for event in current.events_of(market.id) {
                    next.insert_event(event.clone())?;
                }
            }
            Ok(())
        });
        if let Err(e) = kept {
            tracing::warn!(game_id, error = %e, "an unrecorded game could not stay listed");
        }
    }
    let _ = next.update_game(game_id, |g| g.is_blocked = true);
}

/// Which process runs the feed. On Postgres the holder of an advisory lock
/// on its own connection (if that connection dies the lock goes with it and
/// another process takes over); SQLite has one process.
enum Leadership {
    Alone,
    Postgres(Option<sqlx::PgConnection>),
}

const FEED_LOCK: i64 = 0x0fee_d001;

/// The feed and the catalogue log together: the leader ticks the feed and
/// writes change sets; every process applies what the log says.
pub struct LiveFeed {
    feed: Box<dyn Feed>,
    log: CatalogueLog,
    leadership: Leadership,
    pg: Option<sqlx::PgPool>,
    applied: i64,
    since_snapshot: u32,
    started: bool,
    pending: PendingResults,
    /// Finished games not recorded yet, with the time they finished.
    unrecorded: BTreeMap<u64, (Finished, i64)>,
    /// Games recorded that still have to leave the catalogue.
    leaving: BTreeSet<u64>,
}

/// Change sets between two snapshots.
const SNAPSHOT_EVERY: u32 = 300;

impl LiveFeed {
    pub fn new(db: &Db, feed: Box<dyn Feed>) -> Self {
        let (leadership, pg) = match &db.pool {
            StorePool::Postgres(pool) => (Leadership::Postgres(None), Some(pool.clone())),
            StorePool::Sqlite(_) => (Leadership::Alone, None),
        };
        Self {
            feed,
            log: CatalogueLog::new(db.any.clone()),
            leadership,
            pg,
            applied: 0,
            since_snapshot: 0,
            started: false,
            pending: PendingResults {
                pool: db.any.clone(),
            },
            unrecorded: BTreeMap::new(),
            leaving: BTreeSet::new(),
        }
    }

    pub fn is_leader(&self) -> bool {
        matches!(
            self.leadership,
            Leadership::Alone | Leadership::Postgres(Some(_))
        )
    }

    /// Tries to become (or stay) the feed's process.
    async fn lead(&mut self) -> bool {
        let Leadership::Postgres(held) = &mut self.leadership else {
            return true;
        };
        use sqlx::Connection;
        if let Some(connection) = held {
            if connection.ping().await.is_ok() {
                return true;
            }
            *held = None;
            self.started = false;
        }
        let Some(pool) = &self.pg else { return false };
        let Ok(pooled) = pool.acquire().await else {
            return false;
        };
        let mut connection = pooled.detach();
        // Keyed by schema too: deployments in separate schemas of one
        // database (and parallel tests) each have their own feed.
        let won: bool =
            sqlx::query_scalar("SELECT pg_try_advisory_lock($1, hashtext(current_schema()))")
                .bind(FEED_LOCK as i32)
                .fetch_one(&mut connection)
                .await
                .unwrap_or(false);
        if won {
            *held = Some(connection);
            self.started = false;
        }
        won
    }

    /// Applies the log entries this process has not seen.
    async fn catch_up(&mut self, live: &LiveCatalogue) -> Result<(), LiveError> {
        if self.applied == 0 {
            match self.log.latest_snapshot_id().await? {
                Some(id) => self.applied = id - 1,
                None => return Ok(()),
            }
        }
        loop {
            let entries = self.log.from(self.applied + 1, 500).await?;
            if entries.is_empty() {
                return Ok(());
            }
            live.update(|catalogue| {
                for (id, entry) in &entries {
                    match entry {
                        Entry::Snapshot(snapshot) => *catalogue = snapshot.clone(),
                        Entry::Changes(changes) => {
                            if let Err(e) = catalogue.apply_changes(changes) {
                                tracing::error!(id, error = %e, "catalogue change not applied");
                            }
                        }
                    }
                }
            });
            self.applied = entries.last().map(|(id, _)| *id).unwrap_or(self.applied);
            live.applied(self.applied, self.is_leader());
        }
    }

    /// One step: lead or follow.
    pub async fn step(
        &mut self,
        live: &LiveCatalogue,
        results: &ResultService,
        now_ms: i64,
    ) -> Result<(), LiveError> {
        let now_s = now_ms / 1000;
        if !self.lead().await {
            let caught_up = self.catch_up(live).await;
            live.applied(self.applied, false);
            return caught_up;
        }
        if !self.started {
            // New leader: take the catalogue as the log has it, or seed one.
            self.catch_up(live).await?;
            let empty = live.read(|c| c.sports().is_empty());
            if empty {
                live.update(|c| self.feed.start(c, now_s));
            } else {
                live.read(|c| self.feed.adopt(c, now_s));
            }
            let current = live.read(|c| c.clone());
            self.applied = self.log.snapshot(&current, now_ms).await?;
            live.applied(self.applied, true);
            self.since_snapshot = 0;
            self.started = true;
            return Ok(());
        }
        let mut next = live.read(|c| c.clone());
        for game in self.feed.tick(&mut next, now_s) {
            self.unrecorded
                .entry(game.game_id)
                .or_insert((game, now_ms));
        }
        // Results first: a game leaves the catalogue once its result is in.
        self.record_results(results).await;
        live.read(|current| {
            for game_id in self.unrecorded.keys() {
                keep_blocked(&mut next, current, *game_id);
            }
        });
        for game_id in self.log.take_ended().await? {
            self.unrecorded.remove(&game_id);
            next.remove_game(game_id);
        }
        for game_id in &self.leaving {
            next.remove_game(*game_id);
        }
        let changes = live.read(|current| next.changes_since(current));
        if !changes.is_empty() {
            self.applied = if self.since_snapshot >= SNAPSHOT_EVERY {
                self.since_snapshot = 0;
                self.log.snapshot(&next, now_ms).await?
            } else {
                self.since_snapshot += 1;
                self.log.changes(&changes, now_ms).await?
            };
            live.update(|c| *c = next);
            live.applied(self.applied, true);
        }
        self.leaving.clear();
        Ok(())
    }

    /// Tries every result not recorded yet (this leader's, and those an
    /// earlier leader left in `pending_results`). A result recorded is
    /// struck from the pending list and its game leaves the catalogue; one
    /// the store refused is kept pending and tried again on the next step.
    async fn record_results(&mut self, results: &ResultService) {
        match self.pending.load(100).await {
            Ok(rows) => {
                for (finished, at_ms) in rows {
                    self.unrecorded
                        .entry(finished.game_id)
                        .or_insert((finished, at_ms));
                }
            }
            Err(e) => tracing::warn!(error = %e, "pending results not read; retrying"),
        }
        let games: Vec<u64> = self.unrecorded.keys().copied().collect();
        for game_id in games {
            let Some((finished, at_ms)) = self.unrecorded.get(&game_id).cloned() else {
                continue;
            };
            match results.record(finished.clone(), at_ms).await {
                Ok(()) => {
                    self.unrecorded.remove(&game_id);
                    self.leaving.insert(game_id);
                    // A row left behind is recorded again (a no-op) and
                    // deleted by a later step.
                    if let Err(e) = self.pending.done(game_id).await {
                        tracing::warn!(game_id, error = %e, "pending result not cleared");
                    }
                }
                Err(e) => {
                    tracing::error!(game_id, error = %e, "result not recorded yet; kept pending");
                    if let Err(e) = self.pending.save(&finished, at_ms, &e.to_string()).await {
                        tracing::error!(game_id, error = %e, "pending result not saved; kept in memory");
                    }
                }
            }
        }
    }
}

/// Runs the live feed every `tick` until `stop`.
pub async fn run_feed(
    mut feed: LiveFeed,
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
            // A follower's bet waits for the leader's last change.
            _ = live.wanted.notified(), if !feed.is_leader() => {}
            _ = stop.changed() => {}
        }
        if *stop.borrow() {
            return;
        }
        if let Err(e) = feed.step(&live, &results, clock.now_ms()).await {
            tracing::error!(error = %e, "live feed step failed; retrying next tick");
        }
    }
}
