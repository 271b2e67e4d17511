//! Seasons (spec 001 sections 3, 4 and 9; DESIGN.md "VIP, seasons and
//! engagement"): the calendar (three seasons a year, an off-season of 15 to
//! 30 days between two), the Season aggregate (SeasonStarted,
//! SeasonEnded), season task definitions and the SeasonTask aggregate: one
//! stream per member and season holding the facts counted from source
//! events (bets, deposits, points spent), the progress of every task read
//! from them, and the claims of rewards. Pure: no I/O.

use std::collections::{BTreeMap, BTreeSet};

use cqrs_es::{Aggregate, DomainEvent};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

pub use crate::promo::text::LangText;

pub const DAY_MS: i64 = 86_400_000;

// ---------------------------------------------------------------- dates

/// The Julian day number of 1970-01-01.
const UNIX_EPOCH_JULIAN_DAY: i64 = 2_440_588;

fn calendar_date(y: i64, m: u32, d: u32) -> Option<time::Date> {
    let month = time::Month::try_from(u8::try_from(m).ok()?).ok()?;
    time::Date::from_calendar_date(i32::try_from(y).ok()?, month, u8::try_from(d).ok()?).ok()
}

/// Days since 1970-01-01 of a civil date (proleptic Gregorian; the `time`
/// crate's calendar). An impossible date counts as day 0.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    calendar_date(y, m, d).map_or(0, |date| {
        i64::from(date.to_julian_day()) - UNIX_EPOCH_JULIAN_DAY
    })
}

/// The civil date of a day number (clamped to the years `time` holds).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let date = crate::account::Date::from_days_since_epoch(z);
    (i64::from(date.year()), date.month(), date.day())
}

/// `YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS` (UTC) to unix ms.
pub fn parse_time(text: &str) -> Option<i64> {
    let text = text.trim();
    let (date, clock) = match text.split_once([' ', 'T']) {
        Some((d, t)) => (d, Some(t.trim_end_matches('Z'))),
        None => (text, None),
    };
    let mut parts = date.split('-');
    let y: i64 = parts.next()?.parse().ok()?;
    let m: u32 = parts.next()?.parse().ok()?;
    let d: u32 = parts.next()?.parse().ok()?;
    if parts.next().is_some() {
        return None;
    }
    let date = calendar_date(y, m, d)?;
    let mut at = time::Time::MIDNIGHT;
    if let Some(clock) = clock {
        let v: Vec<&str> = clock.split(':').collect();
        if v.len() < 2 || v.len() > 3 {
            return None;
        }
        let h: u8 = v[0].parse().ok()?;
        let mi: u8 = v[1].parse().ok()?;
        let s: u8 = v.get(2).map(|s| s.parse().ok()).unwrap_or(Some(0))?;
        at = time::Time::from_hms(h, mi, s).ok()?;
    }
    let stamp = time::PrimitiveDateTime::new(date, at).assume_utc();
    i64::try_from(stamp.unix_timestamp_nanos() / 1_000_000).ok()
}

/// Unix ms to `YYYY-MM-DD HH:MM:SS` (UTC).
pub fn format_time(ms: i64) -> String {
    let day = ms.div_euclid(DAY_MS);
    let (y, m, d) = civil_from_days(day);
    let secs = ms.rem_euclid(DAY_MS) / 1000;
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

// ---------------------------------------------------------------- calendar

/// One season of the calendar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeasonDef {
    pub id: u32,
    pub name: String,
    /// Inclusive start, exclusive end (unix ms).
    pub start_ms: i64,
    pub end_ms: i64,
}

/// The season calendar: configuration, checked at start-up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Calendar {
    pub seasons: Vec<SeasonDef>,
}

/// Where a moment falls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase<'a> {
    InSeason(&'a SeasonDef),
    /// Between seasons (or before the first / after the last).
    OffSeason {
        previous: Option<&'a SeasonDef>,
        next: Option<&'a SeasonDef>,
    },
}

impl Calendar {
    /// Checks the rules of spec 001 section 9: at most three seasons start
    /// in one calendar year, seasons do not overlap, ids are unique, and
    /// between two consecutive seasons lies an off-season of `min_off` to
    /// `max_off` days (15 to 30).
    pub fn new(mut seasons: Vec<SeasonDef>, min_off: i64, max_off: i64) -> Result<Self, String> {
        seasons.sort_by_key(|s| s.start_ms);
        let mut ids = BTreeSet::new();
        let mut per_year: BTreeMap<i64, u32> = BTreeMap::new();
        for s in &seasons {
            if s.end_ms <= s.start_ms {
                return Err(format!("season {} ends before it starts", s.id));
            }
            if !ids.insert(s.id) {
                return Err(format!("season id {} appears twice", s.id));
            }
            let year = civil_from_days(s.start_ms.div_euclid(DAY_MS)).0;
            let n = per_year.entry(year).or_default();
            *n += 1;
            if *n > 3 {
                return Err(format!("more than three seasons start in {year}"));
            }
        }
        for pair in seasons.windows(2) {
            let gap = pair[1].start_ms - pair[0].end_ms;
            if gap < min_off * DAY_MS || gap > max_off * DAY_MS {
                return Err(format!(
                    "the off-season between seasons {} and {} is {} days; it must be {min_off} to {max_off}",
                    pair[0].id,
                    pair[1].id,
                    gap as f64 / DAY_MS as f64
                ));
            }
        }
        Ok(Self { seasons })
    }

    pub fn get(&self, id: u32) -> Option<&SeasonDef> {
        self.seasons.iter().find(|s| s.id == id)
    }

    pub fn phase_at(&self, now_ms: i64) -> Phase<'_> {
        if let Some(s) = self
            .seasons
            .iter()
            .find(|s| s.start_ms <= now_ms && now_ms < s.end_ms)
        {
            return Phase::InSeason(s);
        }
        Phase::OffSeason {
            previous: self.seasons.iter().rev().find(|s| s.end_ms <= now_ms),
            next: self.seasons.iter().find(|s| s.start_ms > now_ms),
        }
    }

    /// The season running at `now_ms`, if any.
    pub fn current(&self, now_ms: i64) -> Option<&SeasonDef> {
        match self.phase_at(now_ms) {
            Phase::InSeason(s) => Some(s),
            Phase::OffSeason { .. } => None,
        }
    }

    /// The season whose time covers `at_ms` (the season a source event
    /// counts for).
    pub fn season_of(&self, at_ms: i64) -> Option<&SeasonDef> {
        self.current(at_ms)
    }
}

// ---------------------------------------------------------------- Season aggregate

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Season {
    pub started: bool,
    pub ended: bool,
}

#[derive(Debug, Clone)]
pub enum SeasonCommand {
    /// The scheduled boundary job: starts or ends the season as the clock
    /// says; running it twice changes nothing.
    Boundary { season: SeasonDef, now_ms: i64 },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SeasonEvent {
    SeasonStarted {
        season_id: u32,
        name: String,
        start_ms: i64,
        end_ms: i64,
        started_at: i64,
    },
    /// The VIP honour decay runs on this event (integrator's wiring).
    SeasonEnded {
        season_id: u32,
        /// Unix ms of the season's end.
        ended_at: i64,
    },
}

impl DomainEvent for SeasonEvent {
    fn event_type(&self) -> String {
        match self {
            SeasonEvent::SeasonStarted { .. } => "SeasonStarted",
            SeasonEvent::SeasonEnded { .. } => "SeasonEnded",
        }
        .into()
    }
    fn event_version(&self) -> String {
        "1".into()
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct SeasonError(pub String);

impl Season {
    pub fn decide(&self, command: &SeasonCommand) -> Vec<SeasonEvent> {
        let SeasonCommand::Boundary { season, now_ms } = command;
        let mut events = Vec::new();
        let mut started = self.started;
        if !started && *now_ms >= season.start_ms {
            events.push(SeasonEvent::SeasonStarted {
                season_id: season.id,
                name: season.name.clone(),
                start_ms: season.start_ms,
                end_ms: season.end_ms,
                started_at: season.start_ms,
            });
            started = true;
        }
        if started && !self.ended && *now_ms >= season.end_ms {
            events.push(SeasonEvent::SeasonEnded {
                season_id: season.id,
                ended_at: season.end_ms,
            });
        }
        events
    }
}

impl Aggregate for Season {
    const TYPE: &'static str = "Season";
    type Command = SeasonCommand;
    type Event = SeasonEvent;
    type Error = SeasonError;
    type Services = ();

    async fn handle(
        &mut self,
        command: Self::Command,
        _services: &Self::Services,
        sink: &cqrs_es::event_sink::EventSink<Self>,
    ) -> Result<(), Self::Error> {
        for event in self.decide(&command) {
            sink.write(event, self).await;
        }
        Ok(())
    }

    fn apply(&mut self, event: Self::Event) {
        match event {
            SeasonEvent::SeasonStarted { .. } => self.started = true,
            SeasonEvent::SeasonEnded { .. } => self.ended = true,
        }
    }
}

// ---------------------------------------------------------------- task definitions

/// Task types (spec 001 section 3).
pub mod task_type {
    /// Betting days: days with at least one settled bet.
    pub const BETTING_DAYS: u8 = 1;
    /// Red singles: bets settled as won.
    pub const RED_SINGLES: u8 = 2;
    /// Profit: payouts less stakes of settled bets.
    pub const PROFIT: u8 = 3;
    /// Orders (S5 view): settled bets.
    pub const BET_ORDERS: u8 = 4;
    /// Orders (S5 view): credited deposits.
    pub const DEPOSIT_ORDERS: u8 = 5;
    /// Consumed M currency (points spent).
    pub const POINTS_SPENT: u8 = 6;
    /// Final prize: every other task of the season complete.
    pub const FINAL_PRIZE: u8 = 7;
    /// Active days: days the member bet the day stake or deposited the day
    /// deposit (spec 001 section 9, the receiving condition).
    pub const ACTIVE_DAYS: u8 = 8;
    pub const ALL: [u8; 8] = [1, 2, 3, 4, 5, 6, 7, 8];
}

/// One season task as configured (admin staff edit these).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskDef {
    pub id: u32,
    pub tasktype: u8,
    pub taskvalue: Decimal,
    /// What the member reads, per language (`{zhh, eng, tha}`); an older
    /// definition's single string loads as the same text in all three.
    #[serde(default)]
    pub taskdesc: LangText,
    #[serde(default)]
    pub bonusname: LangText,
    /// Cash paid on claim (member's currency).
    #[serde(default)]
    pub cash: Decimal,
    #[serde(default)]
    pub score: i64,
    #[serde(default = "one")]
    pub bonuscnt: i64,
    /// Claims of this task wait for support review.
    #[serde(default)]
    pub needcheck: bool,
}

fn one() -> i64 {
    1
}

impl TaskDef {
    pub fn check(&self) -> Result<(), String> {
        if !task_type::ALL.contains(&self.tasktype) {
            return Err(format!(
                "task {}: unknown tasktype {}",
                self.id, self.tasktype
            ));
        }
        if self.taskvalue < Decimal::ZERO && self.tasktype != task_type::FINAL_PRIZE {
            return Err(format!("task {}: taskvalue below 0", self.id));
        }
        if self.cash < Decimal::ZERO || self.cash > Decimal::from(1_000_000) {
            return Err(format!("task {}: cash out of range", self.id));
        }
        if !self.taskdesc.check_optional(200) || !self.bonusname.check_optional(100) {
            return Err(format!("task {}: text too long", self.id));
        }
        // A text is given in every language or in none (none: the page
        // names the task by its type).
        for (field, text) in [("taskdesc", &self.taskdesc), ("bonusname", &self.bonusname)] {
            if !text.is_empty() && !text.check_required(200) {
                return Err(format!("task {}: {field} needs zhh, eng and tha", self.id));
            }
        }
        Ok(())
    }
}

/// The receiving condition (spec 001 section 9): active more than 10 days,
/// a day counting when the member bet 1000 or deposited 500.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActivityRule {
    pub day_stake: Decimal,
    pub day_deposit: Decimal,
    /// Claims need at least this many active days (11: "more than 10");
    /// 0 switches the condition off.
    pub min_active_days: u32,
}

impl Default for ActivityRule {
    fn default() -> Self {
        Self {
            day_stake: Decimal::from(1000),
            day_deposit: Decimal::from(500),
            min_active_days: 11,
        }
    }
}

// ---------------------------------------------------------------- SeasonTask aggregate

/// A fact counted from one source event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Fact {
    /// A bet settled (or re-settled: `first` false, then only the profit
    /// moves by `returned - stake`, the difference to before).
    Bet {
        day: i64,
        stake: Decimal,
        /// Payout and bonus paid (for a re-settlement: the difference).
        returned: Decimal,
        won: bool,
        first: bool,
    },
    Deposit {
        day: i64,
        amount: Decimal,
    },
    PointsSpent {
        amount: Decimal,
    },
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DayActivity {
    pub bets: u32,
    pub stake: Decimal,
    pub deposit: Decimal,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ClaimState {
    /// Paid (needcheck 0) or approved.
    Received {
        reference: String,
        cash: Decimal,
    },
    /// Waiting for support.
    Pending {
        reference: String,
        cash: Decimal,
    },
    Rejected {
        reference: String,
        reason: String,
    },
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SeasonTask {
    pub days: BTreeMap<i64, DayActivity>,
    pub red_singles: u64,
    pub bet_orders: u64,
    pub deposit_orders: u64,
    pub profit: Decimal,
    pub points_spent: Decimal,
    pub claims: BTreeMap<u32, ClaimState>,
    /// Source events counted (also guarded by the tracking table).
    pub counted: u64,
}

/// Wire status of a task (spec: 0 undone, 1 claimable, else received).
pub mod status {
    pub const UNDONE: i32 = 0;
    pub const CLAIMABLE: i32 = 1;
    pub const RECEIVED: i32 = 2;
    /// Claimed, waiting for support review.
    pub const UNDER_REVIEW: i32 = 3;
    /// Support rejected the claim.
    pub const REJECTED: i32 = 4;
}

#[derive(Debug, Clone)]
pub enum SeasonTaskCommand {
    Count {
        source: String,
        fact: Fact,
    },
    Claim {
        /// Boxed: a definition carries its texts in three languages.
        task: Box<TaskDef>,
        tasks: Vec<TaskDef>,
        rule: ActivityRule,
        reference: String,
        at_ms: i64,
    },
    Review {
        task_id: u32,
        approve: bool,
        staff_id: String,
        reason: String,
        at_ms: i64,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SeasonTaskEvent {
    ProgressCounted {
        source: String,
        fact: Fact,
    },
    /// needcheck 0: paid at once through the wallet under `reference`.
    TaskRewardClaimed {
        task_id: u32,
        cash: Decimal,
        reference: String,
        at_ms: i64,
    },
    /// needcheck 1: waits for support.
    TaskClaimQueued {
        task_id: u32,
        cash: Decimal,
        reference: String,
        at_ms: i64,
    },
    TaskClaimApproved {
        task_id: u32,
        staff_id: String,
        at_ms: i64,
    },
    TaskClaimRejected {
        task_id: u32,
        staff_id: String,
        reason: String,
        at_ms: i64,
    },
}

impl DomainEvent for SeasonTaskEvent {
    fn event_type(&self) -> String {
        match self {
            SeasonTaskEvent::ProgressCounted { .. } => "ProgressCounted",
            SeasonTaskEvent::TaskRewardClaimed { .. } => "TaskRewardClaimed",
            SeasonTaskEvent::TaskClaimQueued { .. } => "TaskClaimQueued",
            SeasonTaskEvent::TaskClaimApproved { .. } => "TaskClaimApproved",
            SeasonTaskEvent::TaskClaimRejected { .. } => "TaskClaimRejected",
        }
        .into()
    }
    fn event_version(&self) -> String {
        "1".into()
    }
}

/// Refusals of the SeasonTask aggregate (codes in the activities/tasks
/// range -640xx, spec 001 section 8).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SeasonTaskError {
    #[error("The task is not completed yet")]
    NotCompleted,
    #[error("Not eligible: you need more than {0} active days this season")]
    NotActiveEnough(u32),
    #[error("No claim of this task waits for review")]
    NotPending,
    #[error("A reason is required to reject a claim")]
    ReasonRequired,
}

impl SeasonTaskError {
    pub fn code(&self) -> i32 {
        match self {
            SeasonTaskError::NotCompleted => -64001,
            SeasonTaskError::NotActiveEnough(_) => -64003,
            SeasonTaskError::NotPending => -64005,
            SeasonTaskError::ReasonRequired => -64006,
        }
    }
}

/// What a claim did (a repeat answers the first outcome).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClaimOutcome {
    Paid { reference: String, cash: Decimal },
    Queued { reference: String, cash: Decimal },
    Rejected { reason: String },
}

impl SeasonTask {
    pub fn active_days(&self, rule: &ActivityRule) -> u32 {
        self.days
            .values()
            .filter(|d| d.stake >= rule.day_stake || d.deposit >= rule.day_deposit)
            .count() as u32
    }

    /// nowvalue of a task.
    pub fn now_value(&self, task: &TaskDef, tasks: &[TaskDef], rule: &ActivityRule) -> Decimal {
        use task_type::*;
        match task.tasktype {
            BETTING_DAYS => Decimal::from(self.days.values().filter(|d| d.bets > 0).count()),
            RED_SINGLES => Decimal::from(self.red_singles),
            PROFIT => self.profit,
            BET_ORDERS => Decimal::from(self.bet_orders),
            DEPOSIT_ORDERS => Decimal::from(self.deposit_orders),
            POINTS_SPENT => self.points_spent,
            ACTIVE_DAYS => Decimal::from(self.active_days(rule)),
            FINAL_PRIZE => Decimal::from(
                tasks
                    .iter()
                    .filter(|t| t.tasktype != FINAL_PRIZE && self.complete(t, tasks, rule))
                    .count(),
            ),
            _ => Decimal::ZERO,
        }
    }

    /// taskvalue of a task (the final prize: every other task).
    pub fn target(&self, task: &TaskDef, tasks: &[TaskDef]) -> Decimal {
        if task.tasktype == task_type::FINAL_PRIZE {
            Decimal::from(
                tasks
                    .iter()
                    .filter(|t| t.tasktype != task_type::FINAL_PRIZE)
                    .count(),
            )
        } else {
            task.taskvalue
        }
    }

    pub fn complete(&self, task: &TaskDef, tasks: &[TaskDef], rule: &ActivityRule) -> bool {
        self.now_value(task, tasks, rule) >= self.target(task, tasks)
    }

    pub fn status(&self, task: &TaskDef, tasks: &[TaskDef], rule: &ActivityRule) -> i32 {
        match self.claims.get(&task.id) {
            Some(ClaimState::Received { .. }) => status::RECEIVED,
            Some(ClaimState::Pending { .. }) => status::UNDER_REVIEW,
            Some(ClaimState::Rejected { .. }) => status::REJECTED,
            None if self.complete(task, tasks, rule) => status::CLAIMABLE,
            None => status::UNDONE,
        }
    }

    /// The outcome a claim of `task_id` had, if it was claimed.
    pub fn claim_outcome(&self, task_id: u32) -> Option<ClaimOutcome> {
        self.claims.get(&task_id).map(|c| match c {
            ClaimState::Received { reference, cash } => ClaimOutcome::Paid {
                reference: reference.clone(),
                cash: *cash,
            },
            ClaimState::Pending { reference, cash } => ClaimOutcome::Queued {
                reference: reference.clone(),
                cash: *cash,
            },
            ClaimState::Rejected { reason, .. } => ClaimOutcome::Rejected {
                reason: reason.clone(),
            },
        })
    }

    pub fn decide(
        &self,
        command: &SeasonTaskCommand,
    ) -> Result<Vec<SeasonTaskEvent>, SeasonTaskError> {
        match command {
            SeasonTaskCommand::Count { source, fact } => {
                Ok(vec![SeasonTaskEvent::ProgressCounted {
                    source: source.clone(),
                    fact: fact.clone(),
                }])
            }
            SeasonTaskCommand::Claim {
                task,
                tasks,
                rule,
                reference,
                at_ms,
            } => {
                if self.claims.contains_key(&task.id) {
                    // A repeat: the first outcome stands, nothing new.
                    return Ok(vec![]);
                }
                if !self.complete(task, tasks, rule) {
                    return Err(SeasonTaskError::NotCompleted);
                }
                if rule.min_active_days > 0 && self.active_days(rule) < rule.min_active_days {
                    return Err(SeasonTaskError::NotActiveEnough(
                        rule.min_active_days.saturating_sub(1),
                    ));
                }
                let (task_id, cash, reference, at_ms) =
                    (task.id, task.cash, reference.clone(), *at_ms);
                Ok(vec![if task.needcheck {
                    SeasonTaskEvent::TaskClaimQueued {
                        task_id,
                        cash,
                        reference,
                        at_ms,
                    }
                } else {
                    SeasonTaskEvent::TaskRewardClaimed {
                        task_id,
                        cash,
                        reference,
                        at_ms,
                    }
                }])
            }
            SeasonTaskCommand::Review {
                task_id,
                approve,
                staff_id,
                reason,
                at_ms,
            } => match self.claims.get(task_id) {
                Some(ClaimState::Pending { .. }) => {
                    if *approve {
                        Ok(vec![SeasonTaskEvent::TaskClaimApproved {
                            task_id: *task_id,
                            staff_id: staff_id.clone(),
                            at_ms: *at_ms,
                        }])
                    } else if reason.trim().is_empty() {
                        Err(SeasonTaskError::ReasonRequired)
                    } else {
                        Ok(vec![SeasonTaskEvent::TaskClaimRejected {
                            task_id: *task_id,
                            staff_id: staff_id.clone(),
                            reason: reason.trim().chars().take(500).collect(),
                            at_ms: *at_ms,
                        }])
                    }
                }
                // Reviewing the same way again answers the first decision.
                Some(ClaimState::Received { .. }) if *approve => Ok(vec![]),
                Some(ClaimState::Rejected { .. }) if !*approve => Ok(vec![]),
                _ => Err(SeasonTaskError::NotPending),
            },
        }
    }

    pub fn apply_event(&mut self, event: &SeasonTaskEvent) {
        match event {
            SeasonTaskEvent::ProgressCounted { fact, .. } => {
                self.counted += 1;
                match fact {
                    Fact::Bet {
                        day,
                        stake,
                        returned,
                        won,
                        first,
                    } => {
                        if *first {
                            let d = self.days.entry(*day).or_default();
                            d.bets += 1;
                            d.stake += *stake;
                            self.bet_orders += 1;
                            if *won {
                                self.red_singles += 1;
                            }
                            self.profit += *returned - *stake;
                        } else {
                            self.profit += *returned;
                        }
                    }
                    Fact::Deposit { day, amount } => {
                        self.days.entry(*day).or_default().deposit += *amount;
                        self.deposit_orders += 1;
                    }
                    Fact::PointsSpent { amount } => self.points_spent += *amount,
                }
            }
            SeasonTaskEvent::TaskRewardClaimed {
                task_id,
                cash,
                reference,
                ..
            } => {
                self.claims.insert(
                    *task_id,
                    ClaimState::Received {
                        reference: reference.clone(),
                        cash: *cash,
                    },
                );
            }
            SeasonTaskEvent::TaskClaimQueued {
                task_id,
                cash,
                reference,
                ..
            } => {
                self.claims.insert(
                    *task_id,
                    ClaimState::Pending {
                        reference: reference.clone(),
                        cash: *cash,
                    },
                );
            }
            SeasonTaskEvent::TaskClaimApproved { task_id, .. } => {
                if let Some(ClaimState::Pending { reference, cash }) =
                    self.claims.get(task_id).cloned()
                {
                    self.claims
                        .insert(*task_id, ClaimState::Received { reference, cash });
                }
            }
            SeasonTaskEvent::TaskClaimRejected {
                task_id, reason, ..
            } => {
                if let Some(ClaimState::Pending { reference, .. }) =
                    self.claims.get(task_id).cloned()
                {
                    self.claims.insert(
                        *task_id,
                        ClaimState::Rejected {
                            reference,
                            reason: reason.clone(),
                        },
                    );
                }
            }
        }
    }
}

impl Aggregate for SeasonTask {
    const TYPE: &'static str = "SeasonTask";
    type Command = SeasonTaskCommand;
    type Event = SeasonTaskEvent;
    type Error = SeasonTaskError;
    type Services = ();

    async fn handle(
        &mut self,
        command: Self::Command,
        _services: &Self::Services,
        sink: &cqrs_es::event_sink::EventSink<Self>,
    ) -> Result<(), Self::Error> {
        for event in self.decide(&command)? {
            sink.write(event, self).await;
        }
        Ok(())
    }

    fn apply(&mut self, event: Self::Event) {
        self.apply_event(&event);
    }
}

/// The SeasonTask stream of a member in a season.
pub fn task_stream_id(season_id: u32, member_id: &str) -> String {
    format!("{season_id}:{member_id}")
}

/// The wallet reference of a task reward: one movement per claim.
pub fn claim_reference(season_id: u32, member_id: &str, task_id: u32) -> String {
    format!("seasontask:{season_id}:{member_id}:{task_id}")
}

// ---------------------------------------------------------------- home team

/// Home-team sports (spec 001 section 9): football 1, basketball 3.
pub const HOME_SPORTS: [u32; 2] = [1, 3];

/// The message when a home team was already chosen this season.
pub fn home_team_locked_message(sport_id: u32) -> &'static str {
    if sport_id == 3 {
        "The home basketball team can only be selected once per season"
    } else {
        "The home football team can only be selected once per season"
    }
}

// ---------------------------------------------------------------- rank rewards

/// What a rank earns in season 2's rules (spec 001 section 6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum RankReward {
    /// Ranks 5 to 7: a physical gift plus a cash envelope.
    GiftAndCash {
        gift: String,
        cash: Decimal,
        shirt: bool,
        power_bank: bool,
    },
    /// Below 5 except 1: a cash envelope.
    Cash(Decimal),
    /// Above 7: contact support.
    ContactSupport,
    /// Rank 1 (or none): nothing.
    None,
}

/// Season 2 rank rewards: envelopes 88/388/888 for ranks 5/6/7; `small`
/// for ranks 2 to 4.
pub fn rank_reward(rank: u32, envelopes: &[Decimal; 3], small: &[Decimal; 3]) -> RankReward {
    match rank {
        5 => RankReward::GiftAndCash {
            gift: "Team shirt".into(),
            cash: envelopes[0],
            shirt: true,
            power_bank: false,
        },
        6 => RankReward::GiftAndCash {
            gift: "Team shirt and power bank".into(),
            cash: envelopes[1],
            shirt: true,
            power_bank: true,
        },
        7 => RankReward::GiftAndCash {
            gift: "Team shirt and power bank".into(),
            cash: envelopes[2],
            shirt: true,
            power_bank: true,
        },
        2..=4 => RankReward::Cash(small[(rank - 2) as usize]),
        r if r > 7 => RankReward::ContactSupport,
        _ => RankReward::None,
    }
}

/// What a rank reward is called for the member (`jiangpin`), in `lang`
/// (`zhh`, `tha`; anything else reads as `eng`): the gift then the cash
/// envelope, "Team shirt + 88 cash"; "" when the rank earns nothing.
pub fn rank_prize_name(reward: &RankReward, lang: &str) -> String {
    let (shirt, shirt_and_bank, cash) = match lang {
        "zhh" => ("球队球衣", "球队球衣和充电宝", "现金红包"),
        "tha" => ("เสื้อทีม", "เสื้อทีมและพาวเวอร์แบงค์", "เงินสด"),
        _ => ("Team shirt", "Team shirt and power bank", "cash"),
    };
    match reward {
        RankReward::GiftAndCash {
            cash: amount,
            shirt: has_shirt,
            power_bank,
            gift,
        } => {
            let gift = match (has_shirt, power_bank) {
                (true, true) => shirt_and_bank,
                (true, false) => shirt,
                // No rank gives another gift; its own name, as configured.
                _ => gift.as_str(),
            };
            format!("{gift} + {} {cash}", amount.normalize())
        }
        RankReward::Cash(amount) => format!("{} {cash}", amount.normalize()),
        RankReward::ContactSupport | RankReward::None => String::new(),
    }
}

/// One member's honour at a season's end: the input of the season ranking
/// (the VIP read model's honour values after the member's last movement
/// before the season ended).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SeasonHonour {
    pub member_id: String,
    /// The member's market (`zhh`, `eng`, `tha`): positions are counted per
    /// market, whose thresholds and currencies differ.
    pub market: String,
    /// The honour level (1..10): the rank the rewards read.
    pub level: u8,
    /// Honour value "bets" (valid turnover; the VIP experience).
    pub bets: Decimal,
    /// Honour value "money" (deposits).
    pub money: Decimal,
}

/// A member's place in the season ranking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SeasonStanding {
    pub honour: SeasonHonour,
    /// 1 = first of the member's market; no two members share a position.
    pub position: u32,
}

/// The season ranking by honour value: per market, the higher honour level
/// first, then the higher honour value (`bets`, the experience), then the
/// higher `money`; members equal on all three are ordered by member id, so
/// the same values always give the same positions (no shared places).
pub fn rank_season(mut entries: Vec<SeasonHonour>) -> Vec<SeasonStanding> {
    entries.sort_by(|a, b| {
        a.market
            .cmp(&b.market)
            .then(b.level.cmp(&a.level))
            .then(b.bets.cmp(&a.bets))
            .then(b.money.cmp(&a.money))
            .then(a.member_id.cmp(&b.member_id))
    });
    let mut out = Vec::with_capacity(entries.len());
    let mut market = None::<String>;
    let mut position = 0u32;
    for honour in entries {
        if market.as_deref() != Some(honour.market.as_str()) {
            market = Some(honour.market.clone());
            position = 0;
        }
        position += 1;
        out.push(SeasonStanding { honour, position });
    }
    out
}

/// Shirt sizes (spec 001 section 4).
pub const SHIRT_SIZES: [&str; 6] = ["XS", "S", "M", "L", "XL", "XXL"];

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    fn season(id: u32, start: &str, end: &str) -> SeasonDef {
        SeasonDef {
            id,
            name: format!("S{id}"),
            start_ms: parse_time(start).unwrap(),
            end_ms: parse_time(end).unwrap(),
        }
    }

    #[test]
    fn dates_round_trip() {
        for day in [-1000, 0, 19_000, 20_500, 40_000] {
            let (y, m, d) = civil_from_days(day);
            assert_eq!(days_from_civil(y, m, d), day);
        }
        assert_eq!(
            format_time(parse_time("2026-03-01 10:20:30").unwrap()),
            "2026-03-01 10:20:30"
        );
        assert_eq!(parse_time("2026-02-30"), None);
        assert_eq!(parse_time("x"), None);
    }

    #[test]
    fn off_season_must_be_15_to_30_days() {
        let ok = Calendar::new(
            vec![
                season(1, "2026-01-01", "2026-04-01"),
                season(2, "2026-04-20", "2026-08-01"),
            ],
            15,
            30,
        );
        assert!(ok.is_ok());
        let short = Calendar::new(
            vec![
                season(1, "2026-01-01", "2026-04-01"),
                season(2, "2026-04-10", "2026-08-01"),
            ],
            15,
            30,
        );
        assert!(short.is_err());
        let long = Calendar::new(
            vec![
                season(1, "2026-01-01", "2026-04-01"),
                season(2, "2026-05-10", "2026-08-01"),
            ],
            15,
            30,
        );
        assert!(long.is_err());
    }

    #[test]
    fn at_most_three_seasons_a_year() {
        let four = Calendar::new(
            vec![
                season(1, "2026-01-01", "2026-02-01"),
                season(2, "2026-02-20", "2026-04-01"),
                season(3, "2026-04-20", "2026-06-01"),
                season(4, "2026-06-20", "2026-08-01"),
            ],
            15,
            30,
        );
        assert!(four.is_err());
    }

    #[test]
    fn season_boundary_events_once() {
        let s = season(3, "2026-01-01", "2026-04-01");
        let mut agg = Season::default();
        let before = agg.decide(&SeasonCommand::Boundary {
            season: s.clone(),
            now_ms: s.start_ms - 1,
        });
        assert!(before.is_empty());
        let start = agg.decide(&SeasonCommand::Boundary {
            season: s.clone(),
            now_ms: s.start_ms,
        });
        assert_eq!(start.len(), 1);
        for e in start {
            agg.apply(e);
        }
        assert!(agg
            .decide(&SeasonCommand::Boundary {
                season: s.clone(),
                now_ms: s.start_ms + 5
            })
            .is_empty());
        let end = agg.decide(&SeasonCommand::Boundary {
            season: s.clone(),
            now_ms: s.end_ms,
        });
        assert_eq!(
            end,
            vec![SeasonEvent::SeasonEnded {
                season_id: 3,
                ended_at: s.end_ms
            }]
        );
        for e in end {
            agg.apply(e);
        }
        assert!(agg
            .decide(&SeasonCommand::Boundary {
                season: s,
                now_ms: i64::MAX
            })
            .is_empty());
    }

    fn task(id: u32, tasktype: u8, value: Decimal, needcheck: bool) -> TaskDef {
        TaskDef {
            id,
            tasktype,
            taskvalue: value,
            taskdesc: LangText::default(),
            bonusname: LangText::default(),
            cash: dec!(10),
            score: 0,
            bonuscnt: 1,
            needcheck,
        }
    }

    #[test]
    fn receiving_condition_needs_more_than_ten_active_days() {
        let rule = ActivityRule::default();
        let t = task(1, task_type::RED_SINGLES, dec!(1), false);
        let tasks = vec![t.clone()];
        let mut agg = SeasonTask::default();
        for day in 0..10 {
            agg.apply_event(&SeasonTaskEvent::ProgressCounted {
                source: format!("b{day}"),
                fact: Fact::Bet {
                    day,
                    stake: dec!(1000),
                    returned: dec!(2000),
                    won: true,
                    first: true,
                },
            });
        }
        // A small bet does not make a day active.
        agg.apply_event(&SeasonTaskEvent::ProgressCounted {
            source: "small".into(),
            fact: Fact::Bet {
                day: 10,
                stake: dec!(5),
                returned: dec!(0),
                won: false,
                first: true,
            },
        });
        let claim = SeasonTaskCommand::Claim {
            task: Box::new(t.clone()),
            tasks: tasks.clone(),
            rule: rule.clone(),
            reference: "r".into(),
            at_ms: 0,
        };
        assert_eq!(
            agg.decide(&claim),
            Err(SeasonTaskError::NotActiveEnough(10))
        );
        // A deposit of 500 makes day 10 the eleventh active day.
        agg.apply_event(&SeasonTaskEvent::ProgressCounted {
            source: "d".into(),
            fact: Fact::Deposit {
                day: 10,
                amount: dec!(500),
            },
        });
        assert_eq!(agg.active_days(&rule), 11);
        assert_eq!(agg.decide(&claim).unwrap().len(), 1);
    }

    #[test]
    fn needcheck_claims_queue_and_repeat_answers_first() {
        let rule = ActivityRule {
            min_active_days: 0,
            ..Default::default()
        };
        let t = task(2, task_type::BET_ORDERS, dec!(1), true);
        let tasks = vec![t.clone()];
        let mut agg = SeasonTask::default();
        agg.apply_event(&SeasonTaskEvent::ProgressCounted {
            source: "b".into(),
            fact: Fact::Bet {
                day: 1,
                stake: dec!(1),
                returned: dec!(0),
                won: false,
                first: true,
            },
        });
        assert_eq!(agg.status(&t, &tasks, &rule), status::CLAIMABLE);
        let claim = SeasonTaskCommand::Claim {
            task: Box::new(t.clone()),
            tasks: tasks.clone(),
            rule: rule.clone(),
            reference: "r".into(),
            at_ms: 0,
        };
        let events = agg.decide(&claim).unwrap();
        assert!(matches!(events[0], SeasonTaskEvent::TaskClaimQueued { .. }));
        agg.apply_event(&events[0]);
        assert_eq!(agg.status(&t, &tasks, &rule), status::UNDER_REVIEW);
        assert!(agg.decide(&claim).unwrap().is_empty());
        let reject = SeasonTaskCommand::Review {
            task_id: 2,
            approve: false,
            staff_id: "s".into(),
            reason: " ".into(),
            at_ms: 0,
        };
        assert_eq!(agg.decide(&reject), Err(SeasonTaskError::ReasonRequired));
        let approve = SeasonTaskCommand::Review {
            task_id: 2,
            approve: true,
            staff_id: "s".into(),
            reason: String::new(),
            at_ms: 0,
        };
        let events = agg.decide(&approve).unwrap();
        agg.apply_event(&events[0]);
        assert_eq!(agg.status(&t, &tasks, &rule), status::RECEIVED);
        assert!(agg.decide(&approve).unwrap().is_empty());
    }

    #[test]
    fn final_prize_needs_every_other_task() {
        let rule = ActivityRule {
            min_active_days: 0,
            ..Default::default()
        };
        let tasks = vec![
            task(1, task_type::BET_ORDERS, dec!(1), false),
            task(2, task_type::DEPOSIT_ORDERS, dec!(1), false),
            task(3, task_type::FINAL_PRIZE, dec!(0), false),
        ];
        let mut agg = SeasonTask::default();
        agg.apply_event(&SeasonTaskEvent::ProgressCounted {
            source: "b".into(),
            fact: Fact::Bet {
                day: 1,
                stake: dec!(1),
                returned: dec!(0),
                won: false,
                first: true,
            },
        });
        assert_eq!(agg.status(&tasks[2], &tasks, &rule), status::UNDONE);
        agg.apply_event(&SeasonTaskEvent::ProgressCounted {
            source: "d".into(),
            fact: Fact::Deposit {
                day: 1,
                amount: dec!(1),
            },
        });
        assert_eq!(agg.status(&tasks[2], &tasks, &rule), status::CLAIMABLE);
    }

    #[test]
    fn season_ranking_orders_by_level_then_honour_value_and_breaks_ties_by_member_id() {
        let h = |id: &str, market: &str, level: u8, bets: Decimal, money: Decimal| SeasonHonour {
            member_id: id.into(),
            market: market.into(),
            level,
            bets,
            money,
        };
        let ranked = rank_season(vec![
            h("m4", "zhh", 5, dec!(100), dec!(10)),
            h("m2", "zhh", 5, dec!(100), dec!(10)),
            h("m3", "zhh", 6, dec!(1), dec!(1)),
            h("m1", "zhh", 5, dec!(100), dec!(20)),
            h("m5", "zhh", 5, dec!(200), dec!(0)),
            h("e1", "eng", 2, dec!(5), dec!(5)),
        ]);
        let order: Vec<(&str, u32)> = ranked
            .iter()
            .map(|s| (s.honour.member_id.as_str(), s.position))
            .collect();
        assert_eq!(
            order,
            vec![
                ("e1", 1),
                ("m3", 1),
                ("m5", 2),
                ("m1", 3),
                ("m2", 4),
                ("m4", 5)
            ]
        );
        // The input order does not matter.
        let mut reversed: Vec<SeasonHonour> = ranked.iter().map(|s| s.honour.clone()).collect();
        reversed.reverse();
        assert_eq!(rank_season(reversed), ranked);
    }

    #[test]
    fn season_two_rank_bands() {
        let env = [dec!(88), dec!(388), dec!(888)];
        let small = [dec!(8), dec!(18), dec!(38)];
        assert!(
            matches!(rank_reward(5, &env, &small), RankReward::GiftAndCash { cash, .. } if cash == dec!(88))
        );
        assert!(
            matches!(rank_reward(7, &env, &small), RankReward::GiftAndCash { cash, .. } if cash == dec!(888))
        );
        assert_eq!(rank_reward(3, &env, &small), RankReward::Cash(dec!(18)));
        assert_eq!(rank_reward(1, &env, &small), RankReward::None);
        assert_eq!(rank_reward(8, &env, &small), RankReward::ContactSupport);
    }

    #[test]
    fn an_old_single_string_task_definition_loads_in_every_language() {
        let def: TaskDef = serde_json::from_str(
            r#"{"id": 1, "tasktype": 1, "taskvalue": "5", "taskdesc": "Bet on 5 days", "bonusname": "18 cash"}"#,
        )
        .unwrap();
        assert_eq!(def.taskdesc, LangText::same("Bet on 5 days"));
        assert_eq!(def.bonusname.pick("tha"), "18 cash");
        assert!(def.check().is_ok());
        let partial = TaskDef {
            taskdesc: LangText::new("", "Bet", ""),
            ..def
        };
        assert!(partial
            .check()
            .unwrap_err()
            .contains("taskdesc needs zhh, eng and tha"));
    }

    #[test]
    fn a_rank_prize_is_named_in_the_members_language() {
        let env = [dec!(88), dec!(388), dec!(888)];
        let small = [dec!(8), dec!(18), dec!(38)];
        let name = |rank, lang| rank_prize_name(&rank_reward(rank, &env, &small), lang);
        assert_eq!(name(5, "eng"), "Team shirt + 88 cash");
        assert_eq!(name(6, "eng"), "Team shirt and power bank + 388 cash");
        assert_eq!(name(5, "zhh"), "球队球衣 + 88 现金红包");
        assert_eq!(name(7, "zhh"), "球队球衣和充电宝 + 888 现金红包");
        assert_eq!(name(5, "tha"), "เสื้อทีม + 88 เงินสด");
        assert_eq!(name(3, "tha"), "18 เงินสด");
        assert_eq!(name(3, "fra"), "18 cash");
        assert_eq!(name(1, "zhh"), "");
        assert_eq!(name(8, "zhh"), "");
    }
}
