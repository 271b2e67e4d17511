//! Seasons: the boundary job (SeasonStarted / SeasonEnded on the calendar),
//! the season progress process manager (source events -> SeasonTask), task
//! reward claims (paid through the wallet once per reference, or queued for
//! support review), task definitions, and home teams.
//!
//! Claims, reviews and rank claims commit through the store's unit of work
//! (`store::unit`): the SeasonTask's events, the queue row (`season_claims`,
//! `season_rank_claims`) and the wallet credit in one transaction, so a
//! reward is never recorded unpaid or paid unrecorded.
//!
//! The progress pass and the boundary job still write SeasonTask and
//! Season events inside their own SQL transactions (`load_in` /
//! `append_in`, with the pass's checkpoint and its tracking record
//! `season_counted`): the aggregate is folded in the transaction, decides,
//! and its new events are inserted with the next sequences; a concurrent
//! writer of the same stream makes the insert collide and the whole
//! transaction is retried.
//!
//! Exactly once: the progress pass locks its checkpoint row first (passes
//! on several processes take turns) and inserts a tracking record per
//! source event with ON CONFLICT DO NOTHING; an event whose record exists
//! (a pass repeated after a crash, a checkpoint reset) is skipped.

use std::sync::Arc;
use std::time::Duration;

use cqrs_es::{Aggregate, DomainEvent};
use domain::season::{
    self, claim_reference, task_stream_id, ActivityRule, Calendar, ClaimOutcome, Fact, Phase,
    Season, SeasonCommand, SeasonDef, SeasonHonour, SeasonTask, SeasonTaskCommand, SeasonTaskError,
    TaskDef, DAY_MS,
};
use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletId};
use domain::Currency;
use rust_decimal::Decimal;
use serde_json::Value;
use sqlx::{Any, AnyConnection, AnyPool, Row, Transaction};
use store::stream::{self, Backend, Checkpoint};
use tokio::sync::watch;

use store::events::{EventRow, Extra, StoreOptions};
use store::framework::Framework;
use store::unit::{Failed, Unit, UnitError, UnitOfWork};
use store::Db;

use crate::platform::clock::{OffsetClock, SharedClock};
use crate::platform::lease::{run_leased, Lease};
use crate::wallet::WalletService;

pub const PROGRESS_LEASE: &str = "season_progress";
pub const BOUNDARY_LEASE: &str = "season_boundaries";
/// The progress pass's checkpoint (a row of `projection_checkpoints`).
pub const PROGRESS_CHECKPOINT: &str = "season_progress";
/// Events a batch of the progress pass reads at most.
const PROGRESS_BATCH: usize = 500;

pub const PROGRESS_EVERY: Duration = Duration::from_millis(500);
pub const BOUNDARY_EVERY: Duration = Duration::from_secs(5);
pub const RANKING_LEASE: &str = "season_ranking";
/// How often the season ranking is recomputed while a season runs.
pub const RANKING_EVERY: Duration = Duration::from_secs(30);
/// The VIP read model's checkpoint (the ranking freezes once it has passed
/// the season's SeasonEnded event).
pub const VIP_CHECKPOINT: &str = "vip";

/// Source event types the progress engine counts.
pub const SOURCE_EVENTS: [&str; 4] = [
    "BetSettled",
    "BetResettled",
    "DepositCredited",
    "PointsSpent",
];

#[derive(Debug, thiserror::Error)]
pub enum SeasonFailure {
    /// A rule: its code and message.
    #[error("{1}")]
    Refused(i32, String),
    #[error("{0}")]
    Internal(String),
}

impl From<sqlx::Error> for SeasonFailure {
    fn from(e: sqlx::Error) -> Self {
        SeasonFailure::Internal(e.to_string())
    }
}

impl From<crate::platform::lease::LeaseError> for SeasonFailure {
    fn from(e: crate::platform::lease::LeaseError) -> Self {
        SeasonFailure::Internal(e.to_string())
    }
}

impl From<SeasonTaskError> for SeasonFailure {
    fn from(e: SeasonTaskError) -> Self {
        SeasonFailure::Refused(e.code(), e.to_string())
    }
}

/// Codes of this area (spec 001 section 8: tasks -640xx, team selection).
pub mod codes {
    pub const NO_SUCH_TASK: i32 = -64002;
    pub const NO_SEASON: i32 = -64004;
    pub const TEAM_LOCKED: i32 = -64010;
    pub const BAD_TEAM: i32 = -64011;
    pub const BAD_DEF: i32 = -64012;
}

/// Season settings (config `[seasons]`).
#[derive(Debug, Clone)]
pub struct SeasonSettings {
    pub calendar: Calendar,
    pub rule: ActivityRule,
    /// Offset of the local day from UTC, minutes (a day of activity).
    pub day_offset_minutes: i64,
    /// Task definitions seeded per season when it has none.
    pub default_tasks: Vec<TaskDef>,
    /// Rank rewards: cash envelopes of ranks 5, 6, 7 (88, 388, 888) and of
    /// ranks 2, 3, 4 (spec: "a cash envelope", amount configurable).
    pub envelopes: [Decimal; 3],
    pub small_envelopes: [Decimal; 3],
}

/// A member's season reward info (`aUserActInfo`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct RankInfo {
    pub seasonid: u32,
    pub userrank: u32,
    /// 0 not eligible, 1 claimable, 2 received.
    pub status: i32,
    pub jiangpin: String,
    pub cash: String,
    pub clothes: i32,
    pub mouse: i32,
    #[serde(rename = "actRand")]
    pub act_rand: String,
    /// Ranks above 7: contact support.
    pub contact_support: bool,
    /// Place in the season ranking of the member's market (0: not ranked).
    pub position: i64,
    /// The rank is final (the season's ranking frozen, or set by staff).
    pub final_rank: bool,
    pub size: String,
}

/// One row of the season ranking (back office, tests).
#[derive(Debug, Clone, serde::Serialize)]
pub struct RankRow {
    pub season_id: i64,
    pub member_id: String,
    pub market: String,
    pub position: i64,
    pub rank: i64,
    pub honour: String,
    pub source: String,
}

/// What one pass of the ranking job did to a season.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankingPass {
    pub season_id: u32,
    pub members: usize,
    /// The pass froze the season's ranking.
    pub frozen: bool,
}

/// One row of the fulfilment queue.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Fulfilment {
    pub season_id: i64,
    pub member_id: String,
    pub rank: i64,
    pub prize: String,
    pub cash: String,
    pub currency: String,
    pub size: String,
    pub address: String,
    pub state: String,
    pub created_ms: i64,
    pub shipped_ms: i64,
    pub shipped_by: String,
}

/// One task as a member sees it (spec 001 section 3, season task).
#[derive(Debug, Clone, serde::Serialize)]
pub struct TaskView {
    pub id: u32,
    pub tasktype: u8,
    pub taskvalue: String,
    pub nowvalue: String,
    pub taskdesc: String,
    pub bonusname: String,
    pub cash: String,
    pub score: i64,
    pub bonuscnt: i64,
    pub status: i32,
    pub needcheck: i32,
    /// Progress percent, capped at 100 (spec 001 section 9).
    pub percent: u32,
}

/// One claim of the support queue.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ClaimRow {
    pub reference: String,
    pub season_id: i64,
    pub member_id: String,
    pub task_id: i64,
    pub cash: String,
    pub currency: String,
    pub state: String,
    pub reason: String,
    pub staff_id: String,
    pub created_ms: i64,
    pub decided_ms: i64,
}

pub struct Seasons {
    pool: AnyPool,
    backend: Backend,
    /// SeasonTask decisions that commit through the unit of work (claims
    /// and reviews, with their wallet credit and queue row).
    tasks: Framework<SeasonTask>,
    wallets: Arc<WalletService>,
    clock: SharedClock,
    settings: SeasonSettings,
    /// DEMO=1 only: the clock `clock` reads, which the demo aid moves to
    /// the running season's end (`demo_end_season`). None in production.
    demo_clock: Option<Arc<OffsetClock>>,
}

/// A unit of work that did not commit, as this area answers it.
fn unit_failure(error: UnitError<SeasonFailure>) -> SeasonFailure {
    match error {
        UnitError::Refused(failure) => failure,
        other => SeasonFailure::Internal(other.to_string()),
    }
}

fn retryable(e: &sqlx::Error) -> bool {
    let text = e.to_string().to_lowercase();
    text.contains("unique")
        || text.contains("duplicate")
        || text.contains("locked")
        || text.contains("busy")
        || text.contains("serializ")
        || text.contains("deadlock")
}

impl Seasons {
    pub fn new(
        db: &Db,
        wallets: Arc<WalletService>,
        clock: SharedClock,
        settings: SeasonSettings,
    ) -> Self {
        Self {
            pool: db.any.clone(),
            backend: db.backend(),
            tasks: Framework::new(
                db,
                StoreOptions::default(),
                (),
                wallets.framework().retry(),
                wallets.framework().metrics().clone(),
                wallets.framework().on_commit().cloned(),
            ),
            wallets,
            clock,
            settings,
            demo_clock: None,
        }
    }

    /// DEMO=1 only: the seasons read time from `demo` (an offset over the
    /// process clock) so the demo aid can end the running season now.
    pub fn with_demo_clock(
        db: &Db,
        wallets: Arc<WalletService>,
        demo: Arc<OffsetClock>,
        settings: SeasonSettings,
    ) -> Self {
        let clock: SharedClock = demo.clone();
        Self {
            demo_clock: Some(demo),
            ..Self::new(db, wallets, clock, settings)
        }
    }

    /// DEMO=1 only (`POST /api/dev/season/end`): ends the running season
    /// now. The seasons' clock moves to the season's calendar end and the
    /// boundary job's own pass writes `SeasonEnded` (the same event, the
    /// same `ended_at`, as at the real end); the ranking job then freezes
    /// the ranking as in production. Answers the season ended, or None
    /// between seasons. Refused without a demo clock.
    pub async fn demo_end_season(&self) -> Result<Option<SeasonDef>, SeasonFailure> {
        let Some(demo) = &self.demo_clock else {
            return Err(SeasonFailure::Internal(
                "the demo season end needs DEMO=1".into(),
            ));
        };
        let Some(season) = self.settings.calendar.current(self.now_ms()).cloned() else {
            return Ok(None);
        };
        demo.advance_to(season.end_ms);
        self.boundaries().await?;
        Ok(Some(season))
    }

    /// Runs the ranking pass until `season_id`'s ranking is final (the VIP
    /// read model must have passed its SeasonEnded), within `patience`.
    /// Answers whether it is final.
    pub async fn ranking_settle(
        &self,
        season_id: u32,
        patience: Duration,
    ) -> Result<bool, SeasonFailure> {
        let deadline = tokio::time::Instant::now() + patience;
        loop {
            self.ranking_pass().await?;
            if self.ranking_state(season_id).await?.as_deref() == Some("final") {
                return Ok(true);
            }
            if tokio::time::Instant::now() >= deadline {
                return Ok(false);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Whether the season's `SeasonEnded` is written (every process sees
    /// the season ended once it is, whatever its own clock says).
    async fn ended_written(&self, season_id: u32) -> Result<bool, SeasonFailure> {
        let found: Option<i64> = sqlx::query_scalar(
            "SELECT sequence FROM events WHERE aggregate_type = 'Season' AND aggregate_id = $1 AND event_type = 'SeasonEnded'",
        )
        .bind(season_id.to_string())
        .fetch_optional(&self.pool)
        .await?;
        Ok(found.is_some())
    }

    pub fn calendar(&self) -> &Calendar {
        &self.settings.calendar
    }

    pub fn rule(&self) -> &ActivityRule {
        &self.settings.rule
    }

    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    /// Folds stream `id` of aggregate `A` inside `tx`: (state, last sequence).
    async fn load_in<A: Aggregate + Default>(
        conn: &mut AnyConnection,
        id: &str,
    ) -> Result<(A, i64), SeasonFailure> {
        let rows = sqlx::query(
            "SELECT sequence, CAST(payload AS TEXT) AS payload FROM events WHERE aggregate_type = $1 AND aggregate_id = $2 ORDER BY sequence",
        )
        .bind(A::TYPE)
        .bind(id)
        .fetch_all(&mut *conn)
        .await?;
        let mut aggregate = A::default();
        let mut last = 0;
        for row in rows {
            last = row.try_get::<i64, _>("sequence")?;
            let payload: String = row.try_get("payload")?;
            let event: A::Event = serde_json::from_str(&payload)
                .map_err(|e| SeasonFailure::Internal(format!("{} {id}#{last}: {e}", A::TYPE)))?;
            aggregate.apply(event);
        }
        Ok((aggregate, last))
    }

    async fn append_in<A: Aggregate>(
        &self,
        conn: &mut AnyConnection,
        id: &str,
        after: i64,
        events: &[A::Event],
    ) -> Result<(), sqlx::Error> {
        let mut rows = Vec::with_capacity(events.len());
        for (i, event) in events.iter().enumerate() {
            rows.push(EventRow {
                aggregate_type: A::TYPE.to_string(),
                aggregate_id: id.to_string(),
                sequence: (after + 1) as usize + i,
                event_type: event.event_type(),
                event_version: event.event_version(),
                payload: serde_json::to_string(event)
                    .map_err(|e| sqlx::Error::Protocol(e.to_string()))?,
                metadata: "{}".to_string(),
            });
        }
        store::events::insert_rows_in(conn, &rows).await
    }

    // ------------------------------------------------------------ calendar

    /// The season member-facing season calls address: the running season,
    /// or between seasons the one that just ended (its tasks can still be
    /// claimed in the off-season).
    pub fn task_season(&self) -> Option<&SeasonDef> {
        match self.settings.calendar.phase_at(self.now_ms()) {
            Phase::InSeason(s) => Some(s),
            Phase::OffSeason { previous, .. } => previous,
        }
    }

    /// A transaction that reads before it writes. On SQLite it takes the
    /// database's write lock with its first statement (an UPDATE that
    /// matches nothing), so it waits for another writer in the busy handler
    /// instead of failing with SQLITE_BUSY when it upgrades from reading to
    /// writing while another connection writes.
    /// The process's writer turn comes with it (SQLite), held until the
    /// caller drops it after the commit or rollback: a first turn for a
    /// request (a member's claim, support's review), which goes before the
    /// background writers, a background one for the boundary job.
    async fn begin_write(
        &self,
        request: bool,
    ) -> Result<(Option<store::writer::Turn>, Transaction<'static, Any>), sqlx::Error> {
        let turn = if request {
            store::db::writer_turn(&store::db::sqlite_writer(&self.pool)).await
        } else {
            store::db::turn_of(&self.pool).await
        };
        let mut tx = self.pool.begin().await?;
        if matches!(self.backend, Backend::Sqlite) {
            sqlx::query("UPDATE season_rankings SET state = state WHERE 0 = 1")
                .execute(&mut *tx)
                .await?;
        }
        Ok((turn, tx))
    }

    /// One pass of the boundary job: every season whose start or end has
    /// come gets its SeasonStarted / SeasonEnded once (the Season aggregate
    /// refuses nothing and decides nothing twice). Returns events written.
    pub async fn boundaries(&self) -> Result<usize, SeasonFailure> {
        let now = self.now_ms();
        let mut written = 0;
        for def in self.settings.calendar.seasons.clone() {
            if def.start_ms > now {
                continue;
            }
            for attempt in 0..5 {
                let (_turn, mut tx) = self.begin_write(false).await?;
                let id = def.id.to_string();
                let (aggregate, last) = Self::load_in::<Season>(&mut tx, &id).await?;
                let events = aggregate.decide(&SeasonCommand::Boundary {
                    season: def.clone(),
                    now_ms: now,
                });
                if events.is_empty() {
                    tx.rollback().await?;
                    break;
                }
                match self.append_in::<Season>(&mut tx, &id, last, &events).await {
                    Ok(()) => {
                        tx.commit().await?;
                        written += events.len();
                        for e in &events {
                            tracing::info!(season = def.id, event = %e.event_type(), "season boundary");
                        }
                        break;
                    }
                    Err(e) if retryable(&e) && attempt < 4 => {
                        let _ = tx.rollback().await;
                        continue;
                    }
                    Err(e) => return Err(e.into()),
                }
            }
        }
        Ok(written)
    }

    pub async fn run_boundaries(self: Arc<Self>, lease: Lease, stop: watch::Receiver<bool>) {
        run_leased(lease, BOUNDARY_EVERY, stop, || self.boundaries()).await
    }

    /// The Season events written so far (audits, tests).
    pub async fn season_events(&self) -> Result<Vec<(String, String)>, SeasonFailure> {
        let rows = sqlx::query(
            "SELECT aggregate_id, event_type FROM events WHERE aggregate_type = 'Season' ORDER BY position",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok((r.try_get("aggregate_id")?, r.try_get("event_type")?)))
            .collect()
    }

    // ------------------------------------------------------------ progress

    fn day_of(&self, at_ms: i64) -> i64 {
        (at_ms + self.settings.day_offset_minutes * 60_000).div_euclid(DAY_MS)
    }

    /// One batch of the progress process manager, in one transaction:
    /// checkpoint lock, source events after it, a tracking record and a
    /// SeasonTask event per counted event, the checkpoint. Returns the
    /// number of source events counted.
    pub async fn progress_pass(&self) -> Result<usize, SeasonFailure> {
        let mut counted = 0;
        loop {
            match self.progress_batch().await {
                // A short batch read everything visible: the pass ends
                // there rather than chasing each new commit batch by batch.
                Ok((read, n)) if read < PROGRESS_BATCH => return Ok(counted + n),
                Ok((_, n)) => counted += n,
                Err(SeasonFailure::Internal(e)) if retryable(&sqlx::Error::Protocol(e.clone())) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Passes until every event in the store is behind the checkpoint (on
    /// Postgres, events of transactions still running elsewhere wait until
    /// those finish), or `patience` runs out. Returns events counted.
    pub async fn progress_settle(&self, patience: Duration) -> Result<usize, SeasonFailure> {
        let deadline = tokio::time::Instant::now() + patience;
        let mut counted = 0;
        loop {
            counted += self.progress_pass().await?;
            let mut conn = self.pool.acquire().await?;
            let row =
                sqlx::query("SELECT tx_id, position FROM projection_checkpoints WHERE name = $1")
                    .bind(PROGRESS_CHECKPOINT)
                    .fetch_optional(&mut *conn)
                    .await?;
            let at = match row {
                Some(row) => Checkpoint {
                    tx_id: row.try_get("tx_id")?,
                    position: row.try_get("position")?,
                },
                None => Checkpoint::default(),
            };
            let left = stream::count_after(&mut conn, self.backend, at).await?;
            if left == 0 || tokio::time::Instant::now() >= deadline {
                return Ok(counted);
            }
            drop(conn);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// (events read, events counted)
    async fn progress_batch(&self) -> Result<(usize, usize), SeasonFailure> {
        let Some(mut batch) = store::db::pass_batch(
            &self.pool,
            self.backend,
            PROGRESS_CHECKPOINT,
            store::stream::Only::EventTypes(&SOURCE_EVENTS),
            PROGRESS_BATCH as i64,
        )
        .await?
        else {
            return Ok((0, 0));
        };
        let events = std::mem::take(&mut batch.events);
        let last = batch.upto;
        let mut counted = 0;
        // The window holds only SOURCE_EVENTS, each with its payload
        // (a PointsSpent of whatever aggregate type publishes it).
        for event in &events {
            let Some(payload) = &event.payload else {
                continue;
            };
            let source = format!(
                "{}/{}#{}",
                event.aggregate_type, event.aggregate_id, event.sequence
            );
            if self
                .count_one(
                    &mut batch.tx,
                    &source,
                    &event.event_type,
                    &event.aggregate_id,
                    payload,
                )
                .await?
            {
                counted += 1;
            }
        }
        let now_text = self.now_ms().to_string();
        sqlx::query(
            "UPDATE projection_checkpoints SET tx_id = $2, position = $3, updated_at = $4 WHERE name = $1",
        )
        .bind(PROGRESS_CHECKPOINT)
        .bind(last.tx_id)
        .bind(last.position)
        .bind(now_text)
        .execute(&mut *batch.tx)
        .await?;
        batch.tx.commit().await?;
        Ok((events.len(), counted))
    }

    /// Reads a source event into (member, at, fact); None: not countable.
    async fn fact_of(
        &self,
        conn: &mut AnyConnection,
        event_type: &str,
        aggregate_id: &str,
        payload: &str,
    ) -> Result<Option<(String, i64, Fact)>, SeasonFailure> {
        let value: Value = serde_json::from_str(payload).unwrap_or(Value::Null);
        let body = value.get(event_type).cloned().unwrap_or(value);
        let member = match body.get("member_id").and_then(Value::as_str) {
            Some(m) if !m.is_empty() => m.to_string(),
            _ => return Ok(None),
        };
        let now = self.now_ms();
        let decimal = |v: Option<&Value>| -> Decimal {
            match v {
                Some(Value::String(s)) => s.parse().unwrap_or_default(),
                Some(Value::Number(n)) => n.to_string().parse().unwrap_or_default(),
                _ => Decimal::ZERO,
            }
        };
        let time = |v: Option<&Value>| -> Option<i64> {
            match v {
                Some(Value::Number(n)) => {
                    n.as_i64()
                        .map(|t| if t < 100_000_000_000 { t * 1000 } else { t })
                }
                Some(Value::String(s)) => {
                    season::parse_time(&s.chars().take(19).collect::<String>())
                }
                _ => None,
            }
        };
        Ok(Some(match event_type {
            "BetSettled" | "BetResettled" => {
                let at = time(body.get("at_ms")).unwrap_or(now);
                let returned = decimal(body.get("payout")) + decimal(body.get("bonus"));
                if event_type == "BetResettled" {
                    let delta = returned - decimal(body.get("previous_payout"));
                    (
                        member,
                        at,
                        Fact::Bet {
                            day: self.day_of(at),
                            stake: Decimal::ZERO,
                            returned: delta,
                            won: false,
                            first: false,
                        },
                    )
                } else {
                    let placed: Option<String> = sqlx::query_scalar(
                        "SELECT CAST(payload AS TEXT) FROM events WHERE aggregate_type = 'Bet' AND aggregate_id = $1 AND event_type = 'BetPlaced'",
                    )
                    .bind(aggregate_id)
                    .fetch_optional(&mut *conn)
                    .await?;
                    let stake = placed
                        .and_then(|p| serde_json::from_str::<Value>(&p).ok())
                        .map(|p| decimal(p.pointer("/BetPlaced/bet/stake")))
                        .unwrap_or_default();
                    let won = body.get("status").and_then(Value::as_i64) == Some(3);
                    (
                        member,
                        at,
                        Fact::Bet {
                            day: self.day_of(at),
                            stake,
                            returned,
                            won,
                            first: true,
                        },
                    )
                }
            }
            "DepositCredited" => {
                let at = time(body.get("credited_at")).unwrap_or(now);
                let amount = decimal(body.get("amount"));
                (
                    member,
                    at,
                    Fact::Deposit {
                        day: self.day_of(at),
                        amount,
                    },
                )
            }
            "PointsSpent" => {
                let at = time(body.get("at_ms"))
                    .or_else(|| time(body.get("spent_at")))
                    .unwrap_or(now);
                (
                    member,
                    at,
                    Fact::PointsSpent {
                        amount: decimal(body.get("amount")),
                    },
                )
            }
            _ => return Ok(None),
        }))
    }

    /// Counts one source event: its tracking record, then (when the event
    /// falls in a season) the SeasonTask event. False when counted before.
    async fn count_one(
        &self,
        tx: &mut Transaction<'static, Any>,
        source: &str,
        event_type: &str,
        aggregate_id: &str,
        payload: &str,
    ) -> Result<bool, SeasonFailure> {
        let inserted = sqlx::query(
            "INSERT INTO season_counted (source, counted_ms) VALUES ($1, $2) ON CONFLICT (source) DO NOTHING",
        )
        .bind(source)
        .bind(self.now_ms())
        .execute(&mut **tx)
        .await?
        .rows_affected();
        if inserted == 0 {
            return Ok(false);
        }
        let Some((member, at, fact)) = self.fact_of(tx, event_type, aggregate_id, payload).await?
        else {
            return Ok(true);
        };
        let Some(def) = self.settings.calendar.season_of(at) else {
            return Ok(true);
        };
        let stream = task_stream_id(def.id, &member);
        let (aggregate, last) = Self::load_in::<SeasonTask>(tx, &stream).await?;
        let events = aggregate.decide(&SeasonTaskCommand::Count {
            source: source.to_string(),
            fact,
        })?;
        self.append_in::<SeasonTask>(tx, &stream, last, &events)
            .await
            .map_err(|e| SeasonFailure::Internal(e.to_string()))?;
        Ok(true)
    }

    pub async fn run_progress(self: Arc<Self>, lease: Lease, stop: watch::Receiver<bool>) {
        run_leased(lease, PROGRESS_EVERY, stop, || self.progress_pass()).await
    }

    // ------------------------------------------------------------ tasks

    /// The season's task definitions (seeded from configuration once).
    pub async fn task_defs(&self, season_id: u32) -> Result<Vec<TaskDef>, SeasonFailure> {
        let rows: Vec<String> = sqlx::query_scalar(
            "SELECT def FROM season_task_defs WHERE season_id = $1 ORDER BY task_id",
        )
        .bind(season_id as i64)
        .fetch_all(&self.pool)
        .await?;
        if rows.is_empty() && !self.settings.default_tasks.is_empty() {
            for def in &self.settings.default_tasks {
                self.put_def(season_id, def, "config", false).await?;
            }
            return Box::pin(self.task_defs(season_id)).await;
        }
        rows.iter()
            .map(|r| serde_json::from_str(r).map_err(|e| SeasonFailure::Internal(e.to_string())))
            .collect()
    }

    async fn put_def(
        &self,
        season_id: u32,
        def: &TaskDef,
        by: &str,
        replace: bool,
    ) -> Result<(), SeasonFailure> {
        let json =
            serde_json::to_string(def).map_err(|e| SeasonFailure::Internal(e.to_string()))?;
        let sql = if replace {
            "INSERT INTO season_task_defs (season_id, task_id, def, updated_by) VALUES ($1, $2, $3, $4)
             ON CONFLICT (season_id, task_id) DO UPDATE SET def = excluded.def, updated_by = excluded.updated_by"
        } else {
            "INSERT INTO season_task_defs (season_id, task_id, def, updated_by) VALUES ($1, $2, $3, $4)
             ON CONFLICT (season_id, task_id) DO NOTHING"
        };
        sqlx::query(sql)
            .bind(season_id as i64)
            .bind(def.id as i64)
            .bind(json)
            .bind(by)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Admin staff add or change a task definition.
    pub async fn save_def(
        &self,
        season_id: u32,
        def: TaskDef,
        staff_id: &str,
    ) -> Result<(), SeasonFailure> {
        if self.settings.calendar.get(season_id).is_none() {
            return Err(SeasonFailure::Refused(
                codes::NO_SEASON,
                "No such season".into(),
            ));
        }
        def.check()
            .map_err(|m| SeasonFailure::Refused(codes::BAD_DEF, m))?;
        // Seed first so that editing one task keeps the configured others.
        self.task_defs(season_id).await?;
        self.put_def(season_id, &def, staff_id, true).await
    }

    /// The member's SeasonTask state in a season.
    pub async fn progress(
        &self,
        season_id: u32,
        member_id: &str,
    ) -> Result<SeasonTask, SeasonFailure> {
        let mut conn = self.pool.acquire().await?;
        Ok(
            Self::load_in::<SeasonTask>(&mut conn, &task_stream_id(season_id, member_id))
                .await?
                .0,
        )
    }

    /// `seasontaskbonusinfo`: the task list with progress; `season_id`
    /// picks a started season (the report pages), none the task season.
    /// Task texts (`taskdesc`, `bonusname`) are given in `lang` (zhh, eng,
    /// tha; else eng).
    pub async fn task_list(
        &self,
        member_id: &str,
        season_id: Option<u32>,
        lang: &str,
    ) -> Result<(SeasonDef, Vec<TaskView>, u32), SeasonFailure> {
        let def = match season_id {
            Some(id) => self
                .settings
                .calendar
                .get(id)
                .filter(|s| s.start_ms <= self.now_ms()),
            None => self.task_season(),
        }
        .cloned()
        .ok_or_else(|| SeasonFailure::Refused(codes::NO_SEASON, "off-season".into()))?;
        let tasks = self.task_defs(def.id).await?;
        let state = self.progress(def.id, member_id).await?;
        let rule = &self.settings.rule;
        let views = tasks
            .iter()
            .map(|t| {
                let now = state.now_value(t, &tasks, rule);
                let target = state.target(t, &tasks);
                let percent = if target <= Decimal::ZERO {
                    100
                } else {
                    let p = (now.max(Decimal::ZERO) * Decimal::from(100) / target).floor();
                    p.min(Decimal::from(100)).to_string().parse().unwrap_or(0)
                };
                TaskView {
                    id: t.id,
                    tasktype: t.tasktype,
                    taskvalue: target.normalize().to_string(),
                    nowvalue: now.normalize().to_string(),
                    taskdesc: t.taskdesc.pick(lang).to_string(),
                    bonusname: t.bonusname.pick(lang).to_string(),
                    cash: t.cash.normalize().to_string(),
                    score: t.score,
                    bonuscnt: t.bonuscnt,
                    status: state.status(t, &tasks, rule),
                    needcheck: t.needcheck as i32,
                    percent,
                }
            })
            .collect();
        let active = state.active_days(rule);
        Ok((def, views, active))
    }

    /// `getseasontaskbonus`: claims task `task_id` of the task season.
    /// needcheck 0 pays at once (wallet reference `seasontask:...`, once);
    /// needcheck 1 queues the claim for support. A repeat answers the first
    /// outcome and pays nothing more.
    pub async fn claim(
        &self,
        member_id: &str,
        currency: Currency,
        task_id: u32,
    ) -> Result<ClaimOutcome, SeasonFailure> {
        let def = self
            .task_season()
            .cloned()
            .ok_or_else(|| SeasonFailure::Refused(codes::NO_SEASON, "off-season".into()))?;
        let tasks = self.task_defs(def.id).await?;
        let task = tasks
            .iter()
            .find(|t| t.id == task_id)
            .cloned()
            .ok_or_else(|| SeasonFailure::Refused(codes::NO_SUCH_TASK, "No such task".into()))?;
        let stream = task_stream_id(def.id, member_id);
        let reference = claim_reference(def.id, member_id, task_id);
        let wallet = WalletId::new(member_id, currency);
        // The claim, its queue row and (paid at once) its wallet credit
        // commit together. A repeat decides nothing; its credit, already
        // made, is a repeated reference that moves nothing.
        let uow = UnitOfWork::new(self.tasks.retry()).counted(self.tasks.metrics(), "SeasonTask");
        let claimed = store::unit_of_work!(uow, |unit| {
            let decided = unit
                .decide(
                    &self.tasks,
                    &stream,
                    SeasonTaskCommand::Claim {
                        task: Box::new(task.clone()),
                        tasks: tasks.clone(),
                        rule: self.settings.rule.clone(),
                        reference: reference.clone(),
                        at_ms: self.now_ms(),
                    },
                    &(),
                )
                .await?
                .map_err(|e| Failed::Refused(SeasonFailure::from(e)))?;
            let wrote = !decided.events.is_empty();
            let outcome = decided.state.claim_outcome(task_id).ok_or_else(|| {
                Failed::Refused(SeasonFailure::Internal("claim without outcome".into()))
            })?;
            if wrote {
                let state_text = match outcome {
                    ClaimOutcome::Queued { .. } => "pending",
                    _ => "paid",
                };
                unit.extra(
                    Extra::new("INSERT INTO season_claims (reference, season_id, member_id, task_id, cash, currency, state, created_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)")
                        .text(&reference)
                        .int(def.id as i64)
                        .text(member_id)
                        .int(task_id as i64)
                        .text(task.cash.to_string())
                        .text(currency.code())
                        .text(state_text)
                        .int(self.now_ms()),
                );
            }
            if let ClaimOutcome::Paid { reference, cash } = &outcome {
                self.credit_in(unit, &wallet, reference, *cash).await?;
            }
            Ok(outcome)
        });
        claimed.map_err(unit_failure)
    }

    /// Adds the credit of a reward to `unit` (nothing for no cash).
    async fn credit_in<'f>(
        &'f self,
        unit: &mut Unit<'f>,
        wallet: &WalletId,
        reference: &str,
        cash: Decimal,
    ) -> Result<(), Failed<SeasonFailure>> {
        if cash <= Decimal::ZERO {
            return Ok(());
        }
        self.wallets
            .move_in(
                unit,
                wallet,
                reference.to_string(),
                WalletAction::Credit {
                    amount: cash,
                    pot: Pot::Main,
                    kind: MovementKind::Bonus,
                },
            )
            .await?
            .map_err(|e| Failed::Refused(SeasonFailure::Internal(e.to_string())))?;
        Ok(())
    }

    /// The support queue: claims in `state` ("pending", "paid",
    /// "approved", "rejected"; empty: all), newest first.
    pub async fn claims(&self, state: &str, limit: i64) -> Result<Vec<ClaimRow>, SeasonFailure> {
        let rows = sqlx::query(
            "SELECT reference, season_id, member_id, task_id, cash, currency, state, reason, staff_id, created_ms, decided_ms
             FROM season_claims WHERE ($1 = '' OR state = $1) ORDER BY created_ms DESC, reference LIMIT $2",
        )
        .bind(state)
        .bind(limit.clamp(1, 500))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(claim_row)
            .collect::<Result<_, _>>()
            .map_err(Into::into)
    }

    pub async fn claim_row(&self, reference: &str) -> Result<Option<ClaimRow>, SeasonFailure> {
        let row = sqlx::query(
            "SELECT reference, season_id, member_id, task_id, cash, currency, state, reason, staff_id, created_ms, decided_ms
             FROM season_claims WHERE reference = $1",
        )
        .bind(reference)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.as_ref().map(claim_row).transpose()?)
    }

    /// Support decides a needcheck claim: approve pays (once), reject needs
    /// a reason. Deciding the same way again answers the first decision.
    pub async fn review(
        &self,
        reference: &str,
        approve: bool,
        reason: &str,
        staff_id: &str,
    ) -> Result<ClaimRow, SeasonFailure> {
        let claim = self.claim_row(reference).await?.ok_or_else(|| {
            SeasonFailure::Refused(
                SeasonTaskError::NotPending.code(),
                SeasonTaskError::NotPending.to_string(),
            )
        })?;
        let stream = task_stream_id(claim.season_id as u32, &claim.member_id);
        let task_id = claim.task_id as u32;
        let currency = claim
            .currency
            .parse::<Currency>()
            .map_err(|e| SeasonFailure::Internal(e.to_string()))?;
        let wallet = WalletId::new(claim.member_id.as_str(), currency);
        let cash: Decimal = claim.cash.parse().unwrap_or_default();
        // The review, the queue row's state and (approved) the credit
        // commit together.
        let uow = UnitOfWork::new(self.tasks.retry()).counted(self.tasks.metrics(), "SeasonTask");
        let reviewed = store::unit_of_work!(uow, |unit| {
            let decided = unit
                .decide(
                    &self.tasks,
                    &stream,
                    SeasonTaskCommand::Review {
                        task_id,
                        approve,
                        staff_id: staff_id.to_string(),
                        reason: reason.to_string(),
                        at_ms: self.now_ms(),
                    },
                    &(),
                )
                .await?
                .map_err(|e| Failed::Refused(SeasonFailure::from(e)))?;
            if !decided.events.is_empty() {
                unit.extra(
                    Extra::new("UPDATE season_claims SET state = $2, reason = $3, staff_id = $4, decided_ms = $5 WHERE reference = $1")
                        .text(reference)
                        .text(if approve { "approved" } else { "rejected" })
                        .text(reason.trim().chars().take(500).collect::<String>())
                        .text(staff_id)
                        .int(self.now_ms()),
                );
            }
            // A repeat of an approval credits again: a repeated reference,
            // which moves nothing.
            if approve {
                self.credit_in(unit, &wallet, reference, cash).await?;
            }
            Ok(())
        });
        reviewed.map_err(unit_failure)?;
        self.claim_row(reference)
            .await?
            .ok_or_else(|| SeasonFailure::Internal("claim vanished".into()))
    }

    /// The member's task history beside a claim: every SeasonTask event of
    /// the claim's season (type and payload), oldest first, at most 200.
    pub async fn history(
        &self,
        season_id: u32,
        member_id: &str,
    ) -> Result<Vec<Value>, SeasonFailure> {
        let rows = sqlx::query(
            "SELECT sequence, event_type, CAST(payload AS TEXT) AS payload FROM events WHERE aggregate_type = 'SeasonTask' AND aggregate_id = $1 ORDER BY sequence DESC LIMIT 200",
        )
        .bind(task_stream_id(season_id, member_id))
        .fetch_all(&self.pool)
        .await?;
        let mut out = Vec::new();
        for r in rows.iter().rev() {
            let payload: String = r.try_get("payload")?;
            out.push(serde_json::json!({
                "sequence": r.try_get::<i64, _>("sequence")?,
                "event_type": r.try_get::<String, _>("event_type")?,
                "payload": serde_json::from_str::<Value>(&payload).unwrap_or(Value::Null),
            }));
        }
        Ok(out)
    }

    // ------------------------------------------------------------ home team

    /// The member's home teams: (sport, team id, team name, season chosen in).
    pub async fn home_teams(
        &self,
        member_id: &str,
    ) -> Result<Vec<(u32, String, String, i64)>, SeasonFailure> {
        let rows = sqlx::query(
            "SELECT sport_id, team_id, team_name, season_id FROM home_teams WHERE member_id = $1 ORDER BY sport_id",
        )
        .bind(member_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok((
                    r.try_get::<i64, _>("sport_id")? as u32,
                    r.try_get("team_id")?,
                    r.try_get("team_name")?,
                    r.try_get("season_id")?,
                ))
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(Into::into)
    }

    /// Whether the member may choose a home team for `sport_id` now: in
    /// the off-season always; in a season only while none is held (once
    /// per season per sport, then locked until the season ends).
    pub async fn may_choose(&self, member_id: &str, sport_id: u32) -> Result<bool, SeasonFailure> {
        if self.settings.calendar.current(self.now_ms()).is_none() {
            return Ok(true);
        }
        let held: Option<i64> = sqlx::query_scalar(
            "SELECT season_id FROM home_teams WHERE member_id = $1 AND sport_id = $2",
        )
        .bind(member_id)
        .bind(sport_id as i64)
        .fetch_optional(&self.pool)
        .await?;
        Ok(held.is_none())
    }

    /// `chooseteam`: sets the home team of `sport_id`. Locked during a
    /// season once a team is held (chosen in this season or carried in);
    /// free in the off-season. Two choices at once: one wins (the row is
    /// inserted only when absent during a season).
    pub async fn choose_team(
        &self,
        member_id: &str,
        sport_id: u32,
        team_id: &str,
        team_name: &str,
    ) -> Result<(), SeasonFailure> {
        if !season::HOME_SPORTS.contains(&sport_id) {
            return Err(SeasonFailure::Refused(
                codes::BAD_TEAM,
                "Invalid sport".into(),
            ));
        }
        let now = self.now_ms();
        match self.settings.calendar.current(now) {
            None => {
                sqlx::query(
                    "INSERT INTO home_teams (member_id, sport_id, team_id, team_name, season_id, chosen_ms) VALUES ($1, $2, $3, $4, 0, $5)
                     ON CONFLICT (member_id, sport_id) DO UPDATE SET team_id = excluded.team_id, team_name = excluded.team_name, season_id = 0, chosen_ms = excluded.chosen_ms",
                )
                .bind(member_id)
                .bind(sport_id as i64)
                .bind(team_id)
                .bind(team_name)
                .bind(now)
                .execute(&self.pool)
                .await?;
                Ok(())
            }
            Some(def) => {
                let inserted = sqlx::query(
                    "INSERT INTO home_teams (member_id, sport_id, team_id, team_name, season_id, chosen_ms) VALUES ($1, $2, $3, $4, $5, $6)
                     ON CONFLICT (member_id, sport_id) DO NOTHING",
                )
                .bind(member_id)
                .bind(sport_id as i64)
                .bind(team_id)
                .bind(team_name)
                .bind(def.id as i64)
                .bind(now)
                .execute(&self.pool)
                .await?
                .rows_affected();
                if inserted == 0 {
                    return Err(SeasonFailure::Refused(
                        codes::TEAM_LOCKED,
                        season::home_team_locked_message(sport_id).into(),
                    ));
                }
                Ok(())
            }
        }
    }
}

impl Seasons {
    /// Records a member's rank (honour level) in a season by hand (admin
    /// staff: a correction, or a rank for a member the ranking does not
    /// hold). The row is marked `admin`: the ranking job never overwrites
    /// it, and it is claimable once the season has ended. The claim token
    /// (`actRand`) is made once.
    pub async fn set_rank(
        &self,
        season_id: u32,
        member_id: &str,
        rank: u32,
        honour: Decimal,
    ) -> Result<(), SeasonFailure> {
        let token = format!("{:032x}", rand::random::<u128>());
        sqlx::query(
            "INSERT INTO season_ranks (season_id, member_id, rank, honour, act_rand, source) VALUES ($1, $2, $3, $4, $5, 'admin')
             ON CONFLICT (season_id, member_id) DO UPDATE SET rank = excluded.rank, honour = excluded.honour, source = 'admin'",
        )
        .bind(season_id as i64)
        .bind(member_id)
        .bind(rank as i64)
        .bind(honour.to_string())
        .bind(token)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// `seasonbonusinfo` / aid 13 info: what the member's rank earns, the
    /// prize named in English (back office, tests).
    pub async fn rank_info(
        &self,
        season_id: u32,
        member_id: &str,
    ) -> Result<RankInfo, SeasonFailure> {
        self.rank_info_in(season_id, member_id, "eng").await
    }

    /// `rank_info` with the prize (`jiangpin`) named in `lang` (zhh, eng,
    /// tha; `season::rank_prize_name`).
    pub async fn rank_info_in(
        &self,
        season_id: u32,
        member_id: &str,
        lang: &str,
    ) -> Result<RankInfo, SeasonFailure> {
        let row = sqlx::query(
            "SELECT rank, act_rand, source, position FROM season_ranks WHERE season_id = $1 AND member_id = $2",
        )
        .bind(season_id as i64)
        .bind(member_id)
        .fetch_optional(&self.pool)
        .await?;
        let (rank, act_rand, admin, position) = match row {
            Some(r) => (
                r.try_get::<i64, _>("rank")? as u32,
                r.try_get::<String, _>("act_rand")?,
                r.try_get::<String, _>("source")? == "admin",
                r.try_get::<i64, _>("position")?,
            ),
            None => (0, String::new(), false, 0),
        };
        // Computed ranks pay only once frozen (the final ranks); a rank
        // admin staff set is final as it is.
        let final_rank = admin || self.ranking_state(season_id).await?.as_deref() == Some("final");
        let claimed = sqlx::query(
            "SELECT size FROM season_rank_claims WHERE season_id = $1 AND member_id = $2",
        )
        .bind(season_id as i64)
        .bind(member_id)
        .fetch_optional(&self.pool)
        .await?;
        let ended = self
            .settings
            .calendar
            .get(season_id)
            .is_some_and(|s| self.now_ms() >= s.end_ms)
            || self.ended_written(season_id).await?;
        let reward = season::rank_reward(
            rank,
            &self.settings.envelopes,
            &self.settings.small_envelopes,
        );
        let jiangpin = season::rank_prize_name(&reward, lang);
        let (cash, clothes, mouse) = match &reward {
            season::RankReward::GiftAndCash {
                cash,
                shirt,
                power_bank,
                ..
            } => (*cash, *shirt, *power_bank),
            season::RankReward::Cash(c) => (*c, false, false),
            _ => (Decimal::ZERO, false, false),
        };
        let eligible = matches!(
            reward,
            season::RankReward::GiftAndCash { .. } | season::RankReward::Cash(_)
        );
        let status = match (&claimed, eligible && ended && final_rank) {
            (Some(_), _) => 2,
            (None, true) => 1,
            _ => 0,
        };
        Ok(RankInfo {
            seasonid: season_id,
            userrank: rank,
            status,
            jiangpin,
            cash: cash.normalize().to_string(),
            clothes: clothes as i32,
            mouse: mouse as i32,
            act_rand: if status == 1 { act_rand } else { String::new() },
            contact_support: reward == season::RankReward::ContactSupport,
            position,
            final_rank,
            size: match claimed {
                Some(r) => r.try_get("size")?,
                None => String::new(),
            },
        })
    }

    /// `getseasonbonus` / aid 13 claim: once per member and season. A shirt
    /// prize needs a size (XS..XXL); a physical prize needs the delivery
    /// address (`address`, JSON of `useraddress`). The envelope is paid
    /// under `seasonrank:{season}:{member}`; the gift joins the fulfilment
    /// queue. A repeat answers the first claim and pays nothing. The answer
    /// names the prize in `lang`; the queue keeps the English name (staff).
    #[allow(clippy::too_many_arguments)]
    pub async fn claim_rank(
        &self,
        season_id: u32,
        member_id: &str,
        currency: Currency,
        act_rand: Option<&str>,
        size: Option<&str>,
        address: Option<String>,
        lang: &str,
    ) -> Result<RankInfo, SeasonFailure> {
        let info = self.rank_info(season_id, member_id).await?;
        let reference = format!("seasonrank:{season_id}:{member_id}");
        if info.status == 2 {
            let cash: Decimal = info.cash.parse().unwrap_or_default();
            self.pay_rank(member_id, &reference, cash, season_id)
                .await?;
            return self.rank_info_in(season_id, member_id, lang).await;
        }
        if info.contact_support {
            return Err(SeasonFailure::Refused(
                -64020,
                "Please contact customer service for your reward".into(),
            ));
        }
        if info.status != 1 {
            return Err(SeasonFailure::Refused(-64021, "Not eligible".into()));
        }
        if let Some(given) = act_rand {
            let stored: String = sqlx::query_scalar(
                "SELECT act_rand FROM season_ranks WHERE season_id = $1 AND member_id = $2",
            )
            .bind(season_id as i64)
            .bind(member_id)
            .fetch_one(&self.pool)
            .await?;
            if given != stored {
                return Err(SeasonFailure::Refused(
                    -64022,
                    "The reward link has expired, please reload".into(),
                ));
            }
        }
        let size = size.map(|s| s.trim().to_uppercase()).unwrap_or_default();
        if info.clothes == 1 && !season::SHIRT_SIZES.contains(&size.as_str()) {
            return Err(SeasonFailure::Refused(
                -64023,
                "Please choose a shirt size".into(),
            ));
        }
        let physical = info.clothes == 1 || info.mouse == 1;
        let address = address.unwrap_or_default();
        if physical && address.is_empty() {
            return Err(SeasonFailure::Refused(
                -64024,
                "Please fill in the delivery address".into(),
            ));
        }
        let state = if physical { "to_ship" } else { "paid" };
        let cash: Decimal = info.cash.parse().unwrap_or_default();
        let wallet = WalletId::new(member_id, currency);
        // The rank claim's row and its credit commit together.
        let uow = UnitOfWork::new(self.tasks.retry()).on(self.tasks.store().group());
        let first = store::unit_of_work!(uow, |unit| {
            unit.extra(
                Extra::new(
                    "INSERT INTO season_rank_claims (season_id, member_id, rank, prize, cash, currency, size, address, state, created_ms)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (season_id, member_id) DO NOTHING",
                )
                .int(season_id as i64)
                .text(member_id)
                .int(info.userrank as i64)
                .text(&info.jiangpin)
                .text(&info.cash)
                .text(currency.code())
                .text(if info.clothes == 1 { size.as_str() } else { "" })
                .text(if physical { address.as_str() } else { "" })
                .text(state)
                .int(self.now_ms())
                .expect(1),
            );
            self.credit_in(unit, &wallet, &reference, cash).await?;
            Ok(())
        });
        match first {
            Ok(()) => {}
            // Claimed by another request meanwhile: the first claim's
            // currency pays (a repeated reference moves nothing).
            Err(UnitError::Unmet(_)) => {
                self.pay_rank(member_id, &reference, cash, season_id)
                    .await?
            }
            Err(e) => return Err(unit_failure(e)),
        }
        self.rank_info_in(season_id, member_id, lang).await
    }

    async fn pay_rank(
        &self,
        member_id: &str,
        reference: &str,
        cash: Decimal,
        season_id: u32,
    ) -> Result<(), SeasonFailure> {
        if cash <= Decimal::ZERO {
            return Ok(());
        }
        // The currency of the first claim (a repeat pays in the same one).
        let currency: String = sqlx::query_scalar(
            "SELECT currency FROM season_rank_claims WHERE season_id = $1 AND member_id = $2",
        )
        .bind(season_id as i64)
        .bind(member_id)
        .fetch_one(&self.pool)
        .await?;
        let currency = currency
            .parse::<Currency>()
            .map_err(|e| SeasonFailure::Internal(e.to_string()))?;
        self.wallets
            .execute(WalletCommand::new(
                WalletId::new(member_id, currency),
                reference.to_string(),
                WalletAction::Credit {
                    amount: cash,
                    pot: Pot::Main,
                    kind: MovementKind::Bonus,
                },
            ))
            .await
            .map_err(|e| SeasonFailure::Internal(e.to_string()))?;
        Ok(())
    }

    /// The fulfilment queue: physical prizes to ship (state to_ship) or
    /// shipped.
    pub async fn fulfilment(&self, state: &str) -> Result<Vec<Fulfilment>, SeasonFailure> {
        let rows = sqlx::query(
            "SELECT season_id, member_id, rank, prize, cash, currency, size, address, state, created_ms, shipped_ms, shipped_by
             FROM season_rank_claims WHERE state = $1 ORDER BY created_ms LIMIT 500",
        )
        .bind(state)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(Fulfilment {
                    season_id: r.try_get("season_id")?,
                    member_id: r.try_get("member_id")?,
                    rank: r.try_get("rank")?,
                    prize: r.try_get("prize")?,
                    cash: r.try_get("cash")?,
                    currency: r.try_get("currency")?,
                    size: r.try_get("size")?,
                    address: r.try_get("address")?,
                    state: r.try_get("state")?,
                    created_ms: r.try_get("created_ms")?,
                    shipped_ms: r.try_get("shipped_ms")?,
                    shipped_by: r.try_get("shipped_by")?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(Into::into)
    }

    /// Marks a prize shipped; true when it was waiting (a repeat: false).
    pub async fn ship(
        &self,
        season_id: u32,
        member_id: &str,
        staff_id: &str,
    ) -> Result<bool, SeasonFailure> {
        let n = sqlx::query(
            "UPDATE season_rank_claims SET state = 'shipped', shipped_ms = $3, shipped_by = $4 WHERE season_id = $1 AND member_id = $2 AND state = 'to_ship'",
        )
        .bind(season_id as i64)
        .bind(member_id)
        .bind(self.now_ms())
        .bind(staff_id)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(n == 1)
    }
}

// ---------------------------------------------------------------- season ranking

impl Seasons {
    /// The state of a season's ranking: none yet, `live` (recomputed by the
    /// job) or `final` (frozen after SeasonEnded).
    pub async fn ranking_state(&self, season_id: u32) -> Result<Option<String>, SeasonFailure> {
        Ok(
            sqlx::query_scalar("SELECT state FROM season_rankings WHERE season_id = $1")
                .bind(season_id as i64)
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    /// Every member's honour at the end of `def` (or now, while it runs):
    /// the VIP ledger's values after the member's last movement before the
    /// season's end (last in the read model's order, `position`: the values
    /// are cumulative in that order, and the sources stamp their times in
    /// different resolutions, e.g. a casino round's `closed_at` in seconds
    /// after a deposit's `credited_at` in ms), for members with an honour movement (a deposit or
    /// valid turnover, not a decay) inside the season. Decays are written
    /// after the season has ended, so they never lower a season's values.
    async fn season_honours(
        conn: &mut AnyConnection,
        def: &SeasonDef,
    ) -> Result<Vec<SeasonHonour>, SeasonFailure> {
        let rows = sqlx::query(
            "SELECT l.member_id, l.money, l.bets, l.level, m.market FROM vip_ledger l
             JOIN vip_members m ON m.member_id = l.member_id
             WHERE l.at_ms < $2
               AND EXISTS (SELECT 1 FROM vip_ledger a WHERE a.member_id = l.member_id
                           AND a.at_ms >= $1 AND a.at_ms < $2 AND a.kind <> 'decay'
                           AND (a.money_delta <> '0' OR a.bets_delta <> '0'))
               AND NOT EXISTS (SELECT 1 FROM vip_ledger b WHERE b.member_id = l.member_id AND b.at_ms < $2
                               AND b.position > l.position)",
        )
        .bind(def.start_ms)
        .bind(def.end_ms)
        .fetch_all(&mut *conn)
        .await?;
        let dec = |text: String| {
            text.parse::<Decimal>()
                .map_err(|e| SeasonFailure::Internal(format!("vip_ledger value '{text}': {e}")))
        };
        rows.iter()
            .map(|r| {
                Ok(SeasonHonour {
                    member_id: r.try_get("member_id")?,
                    market: r.try_get("market")?,
                    level: r.try_get::<i64, _>("level")?.clamp(1, 10) as u8,
                    bets: dec(r.try_get("bets")?)?,
                    money: dec(r.try_get("money")?)?,
                })
            })
            .collect()
    }

    /// Whether the VIP read model has passed the season's SeasonEnded
    /// event: every honour movement before the end is then in the ledger
    /// (the read model follows the stream in commit order), so the ranking
    /// can be frozen.
    async fn vip_passed_end(
        &self,
        conn: &mut AnyConnection,
        season_id: u32,
    ) -> Result<bool, SeasonFailure> {
        let sql = match self.backend {
            Backend::Postgres => "SELECT tx_id::text::bigint AS tx, position FROM events WHERE aggregate_type = 'Season' AND aggregate_id = $1 AND event_type = 'SeasonEnded'",
            Backend::Sqlite => "SELECT 0 AS tx, position FROM events WHERE aggregate_type = 'Season' AND aggregate_id = $1 AND event_type = 'SeasonEnded'",
        };
        let Some(row) = sqlx::query(sql)
            .bind(season_id.to_string())
            .fetch_optional(&mut *conn)
            .await?
        else {
            return Ok(false);
        };
        let ended = Checkpoint {
            tx_id: row.try_get("tx")?,
            position: row.try_get("position")?,
        };
        let vip = sqlx::query("SELECT tx_id, position FROM projection_checkpoints WHERE name = $1")
            .bind(VIP_CHECKPOINT)
            .fetch_optional(&mut *conn)
            .await?;
        Ok(match vip {
            Some(r) => {
                Checkpoint {
                    tx_id: r.try_get("tx_id")?,
                    position: r.try_get("position")?,
                } >= ended
            }
            None => false,
        })
    }

    /// Recomputes one season's ranking in one transaction that holds the
    /// season's `season_rankings` row (passes of several processes take
    /// turns); freezes it when SeasonEnded is written and the VIP read model
    /// has passed it. A final ranking is never written again (None).
    async fn rank_season_once(
        &self,
        def: &SeasonDef,
    ) -> Result<Option<RankingPass>, SeasonFailure> {
        let now = self.now_ms();
        let _turn = store::db::turn_of(&self.pool).await;
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO season_rankings (season_id, state) VALUES ($1, 'live') ON CONFLICT (season_id) DO NOTHING",
        )
        .bind(def.id as i64)
        .execute(&mut *tx)
        .await?;
        let lock = match self.backend {
            Backend::Postgres => " FOR UPDATE",
            Backend::Sqlite => "",
        };
        let state: String = sqlx::query_scalar(&format!(
            "SELECT state FROM season_rankings WHERE season_id = $1{lock}"
        ))
        .bind(def.id as i64)
        .fetch_one(&mut *tx)
        .await?;
        if state == "final" {
            tx.rollback().await?;
            return Ok(None);
        }
        // Decided before the ledger is read: what the read model held when
        // it had passed the end is all there is.
        let freeze = self.vip_passed_end(&mut tx, def.id).await?;
        let standings = season::rank_season(Self::season_honours(&mut tx, def).await?);
        for s in &standings {
            sqlx::query(
                "INSERT INTO season_ranks (season_id, member_id, rank, honour, act_rand, position, market, source, computed_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, 'computed', $8)
                 ON CONFLICT (season_id, member_id) DO UPDATE SET
                   position = excluded.position, market = excluded.market, computed_ms = excluded.computed_ms,
                   rank = CASE WHEN season_ranks.source = 'computed' THEN excluded.rank ELSE season_ranks.rank END,
                   honour = CASE WHEN season_ranks.source = 'computed' THEN excluded.honour ELSE season_ranks.honour END",
            )
            .bind(def.id as i64)
            .bind(&s.honour.member_id)
            .bind(s.honour.level as i64)
            .bind(s.honour.bets.normalize().to_string())
            .bind(format!("{:032x}", rand::random::<u128>()))
            .bind(s.position as i64)
            .bind(&s.honour.market)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        // A computed row this pass did not write (its member left the
        // ranking, e.g. after a read-model rebuild) goes.
        sqlx::query(
            "DELETE FROM season_ranks WHERE season_id = $1 AND source = 'computed' AND computed_ms <> $2",
        )
        .bind(def.id as i64)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "UPDATE season_rankings SET state = $2, members = $3, computed_ms = $4, frozen_ms = $5 WHERE season_id = $1",
        )
        .bind(def.id as i64)
        .bind(if freeze { "final" } else { "live" })
        .bind(standings.len() as i64)
        .bind(now)
        .bind(if freeze { now } else { 0 })
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        if freeze {
            tracing::info!(
                season = def.id,
                members = standings.len(),
                "season ranking frozen"
            );
        }
        Ok(Some(RankingPass {
            season_id: def.id,
            members: standings.len(),
            frozen: freeze,
        }))
    }

    /// One pass of the ranking job: every season that has started and whose
    /// ranking is not final is recomputed from the members' honour values
    /// (and frozen once it can be). Safe to run twice at once.
    pub async fn ranking_pass(&self) -> Result<Vec<RankingPass>, SeasonFailure> {
        let now = self.now_ms();
        let mut out = Vec::new();
        for def in self.settings.calendar.seasons.clone() {
            if def.start_ms > now || self.ranking_state(def.id).await?.as_deref() == Some("final") {
                continue;
            }
            for attempt in 0..5 {
                match self.rank_season_once(&def).await {
                    Ok(Some(pass)) => {
                        out.push(pass);
                        break;
                    }
                    Ok(None) => break,
                    Err(SeasonFailure::Internal(e))
                        if attempt < 4 && {
                            let e = e.to_lowercase();
                            [
                                "unique",
                                "duplicate",
                                "locked",
                                "busy",
                                "serializ",
                                "deadlock",
                            ]
                            .iter()
                            .any(|w| e.contains(w))
                        } =>
                    {
                        continue
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(out)
    }

    /// Runs `ranking_pass` every `RANKING_EVERY` while this process holds
    /// the lease `season_ranking`, until `stop`.
    pub async fn run_ranking(self: Arc<Self>, lease: Lease, stop: watch::Receiver<bool>) {
        run_leased(lease, RANKING_EVERY, stop, || self.ranking_pass()).await
    }

    /// A season's ranking, best first per market (back office, tests).
    pub async fn ranking(&self, season_id: u32, limit: i64) -> Result<Vec<RankRow>, SeasonFailure> {
        let rows = sqlx::query(
            "SELECT season_id, member_id, market, position, rank, honour, source FROM season_ranks
             WHERE season_id = $1 ORDER BY market, position, member_id LIMIT $2",
        )
        .bind(season_id as i64)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(RankRow {
                    season_id: r.try_get("season_id")?,
                    member_id: r.try_get("member_id")?,
                    market: r.try_get("market")?,
                    position: r.try_get("position")?,
                    rank: r.try_get("rank")?,
                    honour: r.try_get("honour")?,
                    source: r.try_get("source")?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(Into::into)
    }
}

fn claim_row(r: &sqlx::any::AnyRow) -> Result<ClaimRow, sqlx::Error> {
    Ok(ClaimRow {
        reference: r.try_get("reference")?,
        season_id: r.try_get("season_id")?,
        member_id: r.try_get("member_id")?,
        task_id: r.try_get("task_id")?,
        cash: r.try_get("cash")?,
        currency: r.try_get("currency")?,
        state: r.try_get("state")?,
        reason: r.try_get("reason")?,
        staff_id: r.try_get("staff_id")?,
        created_ms: r.try_get("created_ms")?,
        decided_ms: r.try_get("decided_ms")?,
    })
}
