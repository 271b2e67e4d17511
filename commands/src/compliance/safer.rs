//! Safer gambling: the member's choices (limits, time-out, self-exclusion,
//! reality check) and the checks every path that takes money in or stakes
//! it makes inside its unit of work.
//!
//! The checks decide the member's `SaferGambling` aggregate in the same
//! unit as the money: a counted stake or deposit is an event of that
//! aggregate, so two stakes or deposits at once, on one node or several,
//! collide on its sequence and are decided again one after the other;
//! they never pass a limit together. Members without a limit add a read
//! and no write. The store never trusts its cache for this aggregate: a
//! time-out set on another node is seen by the next check.

use std::collections::HashMap;
use std::sync::Arc;

use domain::safer::{
    Actor, Calendar, Counter, LimitKind, LimitView, Period, Returns, SaferCommand, SaferError,
    SaferEvent, SaferGambling, SaferServices,
};
use rust_decimal::Decimal;
use serde::Serialize;
use sqlx::{AnyPool, Row};
use store::db::Db;
use store::events::Extra;
use store::events::StoreOptions;
use store::framework::{CommandError, Framework, RetryPolicy};
use store::metrics::CommandMetrics;
use store::unit::{Abort, Failed, Unit, UnitError, UnitOfWork};

use crate::platform::clock::SharedClock;

/// What the member's page and support's view show.
#[derive(Debug, Clone, Serialize)]
pub struct SaferState {
    pub limits: Vec<LimitView>,
    pub timeout_until_ms: i64,
    pub self_excluded_until_ms: i64,
    pub reality_check_minutes: u32,
}

/// One change as support and the auditor see it.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    pub at_ms: i64,
    pub what: String,
    pub by: String,
    pub detail: String,
}

#[derive(Debug, thiserror::Error)]
pub enum SaferFailure {
    #[error("{0}")]
    Refused(SaferError),
    #[error("{0}")]
    Internal(String),
}

impl From<CommandError<SaferError>> for SaferFailure {
    fn from(e: CommandError<SaferError>) -> Self {
        match e {
            CommandError::Rejected(refusal) => SaferFailure::Refused(refusal),
            other => SaferFailure::Internal(other.to_string()),
        }
    }
}

impl From<sqlx::Error> for SaferFailure {
    fn from(e: sqlx::Error) -> Self {
        SaferFailure::Internal(e.to_string())
    }
}

pub struct Safeguards {
    framework: Framework<SaferGambling>,
    pool: AnyPool,
    clock: SharedClock,
    calendar: Calendar,
}

/// Wallet movements that are stakes (`bet`, `game_debit`, a transfer to a
/// game wallet) and returns (payouts, refunded stakes, casino wins, a
/// transfer back) on the member's main wallet, as the ledger read model
/// (`wallet_movements`) has them.
const STAKE_KINDS: &str =
    "(kind IN ('bet', 'game_debit') OR (kind = 'adjustment' AND reference LIKE 'transfer:%:out'))";
const RETURN_KINDS: &str = "(kind IN ('payout', 'bet_refund', 'game_credit') OR (kind = 'adjustment' AND reference LIKE 'transfer:%:in'))";

impl Safeguards {
    pub fn new(
        db: &Db,
        options: StoreOptions,
        retry: RetryPolicy,
        metrics: CommandMetrics,
        clock: SharedClock,
        calendar: Calendar,
    ) -> Self {
        let options = StoreOptions {
            trust_cache: false,
            ..options
        };
        Self {
            framework: Framework::new(
                db,
                options,
                SaferServices { calendar },
                retry,
                metrics,
                None,
            ),
            pool: db.any.clone(),
            clock,
            calendar,
        }
    }

    pub fn calendar(&self) -> Calendar {
        self.calendar
    }

    /// A stake of `amount` on the member's main wallet under `reference`,
    /// decided in `unit`: refused while excluded or timed out, or past a
    /// stake or loss limit; counted when a limit needs it.
    pub async fn stake_in<'f>(
        &'f self,
        unit: &mut Unit<'f>,
        member_id: &str,
        reference: &str,
        amount: Decimal,
    ) -> Result<Result<(), SaferError>, Abort> {
        let at_ms = self.clock.now_ms();
        let command = |returns| SaferCommand::Stake {
            reference: reference.to_string(),
            amount,
            returns,
            at_ms,
        };
        match self.decide_in(unit, member_id, command(None)).await? {
            Ok(()) => Ok(Ok(())),
            Err(SaferError::NeedReturns) => {
                let returns = self
                    .returns(member_id, at_ms)
                    .await
                    .map_err(|e| Abort::Store(e.to_string()))?;
                self.decide_in(unit, member_id, command(Some(returns)))
                    .await
            }
            Err(refusal) => Ok(Err(refusal)),
        }
    }

    /// A deposit order of `amount` about to be placed, decided in `unit`.
    pub async fn deposit_in<'f>(
        &'f self,
        unit: &mut Unit<'f>,
        member_id: &str,
        reference: &str,
        amount: Decimal,
    ) -> Result<Result<(), SaferError>, Abort> {
        let command = SaferCommand::Deposit {
            reference: reference.to_string(),
            amount,
            at_ms: self.clock.now_ms(),
        };
        self.decide_in(unit, member_id, command).await
    }

    /// `command` decided on the member's rules in `unit`.
    async fn decide_in<'f>(
        &'f self,
        unit: &mut Unit<'f>,
        member_id: &str,
        command: SaferCommand,
    ) -> Result<Result<(), SaferError>, Abort> {
        let services = self.framework.services();
        let decided = unit
            .decide(&self.framework, member_id, command, services)
            .await?;
        Ok(decided.map(|_| ()))
    }

    /// A deposit order placed at `placed_at_ms` that will never be paid
    /// (cancelled, expired, failed): its amount no longer counts.
    pub async fn deposit_failed(
        &self,
        member_id: &str,
        reference: &str,
        amount: Decimal,
        placed_at_ms: i64,
    ) -> Result<(), SaferFailure> {
        let command = SaferCommand::DepositFailed {
            reference: reference.to_string(),
            amount,
            placed_at_ms,
            at_ms: self.clock.now_ms(),
        };
        Ok(self
            .framework
            .execute(member_id, command, HashMap::new())
            .await?)
    }

    /// Whether the member may play (casino real mode, free bets) or be
    /// marketed to: refused while self-excluded or timed out.
    pub async fn may_play(&self, member_id: &str) -> Result<(), SaferFailure> {
        let rules = self.load(member_id).await?;
        rules
            .may_play(self.clock.now_ms())
            .map_err(SaferFailure::Refused)
    }

    /// As [`Self::may_play`], decided in `unit` (a free bet or a reward
    /// paid in it).
    pub async fn play_in<'f>(
        &'f self,
        unit: &mut Unit<'f>,
        member_id: &str,
    ) -> Result<Result<(), SaferError>, Abort> {
        let command = SaferCommand::Play {
            at_ms: self.clock.now_ms(),
        };
        self.decide_in(unit, member_id, command).await
    }

    async fn load(&self, member_id: &str) -> Result<SaferGambling, SaferFailure> {
        let loaded = self
            .framework
            .store()
            .load_current(member_id)
            .await
            .map_err(|e| SaferFailure::Internal(e.to_string()))?;
        Ok(loaded.aggregate)
    }

    /// The member's limits with what is used, time-out, exclusion and
    /// reality check, now.
    pub async fn state(&self, member_id: &str) -> Result<SaferState, SaferFailure> {
        let rules = self.load(member_id).await?;
        let at_ms = self.clock.now_ms();
        let returns = if rules.needs_returns(at_ms) {
            self.returns(member_id, at_ms).await?
        } else {
            Returns::default()
        };
        Ok(SaferState {
            limits: rules.view(at_ms, &self.calendar, &returns),
            timeout_until_ms: rules.timeout_until_ms.max(0),
            self_excluded_until_ms: rules.excluded_until_ms.max(0),
            reality_check_minutes: rules.reality_check_minutes,
        })
    }

    /// The member's reality-check interval in minutes (0: off).
    pub async fn reality_check(&self, member_id: &str) -> Result<u32, SaferFailure> {
        Ok(self.load(member_id).await?.reality_check_minutes)
    }

    async fn run(
        &self,
        member_id: &str,
        command: SaferCommand,
        metadata: HashMap<String, String>,
    ) -> Result<SaferState, SaferFailure> {
        self.framework.execute(member_id, command, metadata).await?;
        self.state(member_id).await
    }

    /// Sets, lowers, raises or (`None`) removes the member's limit.
    pub async fn set_limit(
        &self,
        member_id: &str,
        kind: LimitKind,
        period: Period,
        amount: Option<Decimal>,
    ) -> Result<SaferState, SaferFailure> {
        let at_ms = self.clock.now_ms();
        let rules = self.load(member_id).await?;
        let seed = if rules.counts(kind.counter(), at_ms) {
            [Decimal::ZERO; 3]
        } else {
            self.ledger(member_id, kind.counter(), at_ms).await?
        };
        let command = SaferCommand::SetLimit {
            kind,
            period,
            amount,
            seed,
            at_ms,
        };
        self.run(member_id, command, HashMap::new()).await
    }

    /// A time-out of `hours`, by the member or by staff (who can start one
    /// and never end one).
    pub async fn time_out(
        &self,
        member_id: &str,
        hours: u32,
        by: Actor,
    ) -> Result<SaferState, SaferFailure> {
        let command = SaferCommand::StartTimeOut {
            hours,
            by,
            at_ms: self.clock.now_ms(),
        };
        self.run(member_id, command, HashMap::new()).await
    }

    pub async fn self_exclude(
        &self,
        member_id: &str,
        months: u32,
    ) -> Result<SaferState, SaferFailure> {
        let command = SaferCommand::SelfExclude {
            months,
            at_ms: self.clock.now_ms(),
        };
        self.run(member_id, command, HashMap::new()).await
    }

    /// The reality-check interval, with the row the reality-check job
    /// reads (`reality_checks`) in the same unit of work.
    pub async fn set_reality_check(
        &self,
        member_id: &str,
        minutes: u32,
    ) -> Result<SaferState, SaferFailure> {
        let command = SaferCommand::SetRealityCheck {
            minutes,
            at_ms: self.clock.now_ms(),
        };
        let row = Extra::new(
            "INSERT INTO reality_checks (user_id, minutes) VALUES ($1, $2)
             ON CONFLICT (user_id) DO UPDATE SET minutes = excluded.minutes",
        )
        .text(member_id)
        .int(i64::from(minutes));
        let uow = UnitOfWork::new(self.framework.retry())
            .counted(self.framework.metrics(), "SaferGambling");
        let done: Result<(), UnitError<SaferError>> = store::unit_of_work!(uow, |unit| {
            unit.decide(
                &self.framework,
                member_id,
                command.clone(),
                self.framework.services(),
            )
            .await?
            .map_err(Failed::Refused)?;
            unit.extra(row.clone());
            Ok(())
        });
        match done {
            Ok(()) => self.state(member_id).await,
            Err(UnitError::Refused(refusal)) => Err(SaferFailure::Refused(refusal)),
            Err(e) => Err(SaferFailure::Internal(e.to_string())),
        }
    }

    /// What the member staked and got back since `from_ms` (a session's
    /// start): (stakes, net result, currency), from the ledger.
    pub async fn session_figures(
        &self,
        member_id: &str,
        from_ms: i64,
    ) -> Result<(Decimal, Decimal, String), SaferFailure> {
        let sql = format!(
            "SELECT amount, currency, CASE WHEN {STAKE_KINDS} THEN 1 ELSE 0 END AS stake
             FROM wallet_movements WHERE member_id = $1 AND at_ms >= $2
             AND ({STAKE_KINDS} OR {RETURN_KINDS})"
        );
        let rows = sqlx::query(&sql)
            .bind(member_id)
            .bind(from_ms)
            .fetch_all(&self.pool)
            .await?;
        let (mut stakes, mut net, mut currency) = (Decimal::ZERO, Decimal::ZERO, String::new());
        for row in rows {
            let amount = parse(&row.try_get::<String, _>("amount")?)?;
            currency = row.try_get("currency")?;
            let stake: i64 = row.try_get("stake")?;
            if stake == 1 {
                stakes -= amount;
            }
            net += amount;
        }
        Ok((stakes, net, currency))
    }

    /// Every change the member or staff made, oldest first (counted stakes
    /// and deposits are not changes and are left out).
    pub async fn history(&self, member_id: &str) -> Result<Vec<Change>, SaferFailure> {
        let rows = sqlx::query(
            "SELECT CAST(payload AS TEXT) AS payload FROM events WHERE aggregate_type = $1 AND aggregate_id = $2
             AND event_type IN ('LimitSet', 'LimitChangeRequested', 'TimeOutStarted', 'SelfExcluded', 'RealityCheckSet')
             ORDER BY sequence",
        )
        .bind(<SaferGambling as cqrs_es::Aggregate>::TYPE)
        .bind(member_id)
        .fetch_all(&self.pool)
        .await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let payload: String = row.try_get("payload")?;
            let event: SaferEvent = serde_json::from_str(&payload)
                .map_err(|e| SaferFailure::Internal(format!("unreadable safer event: {e}")))?;
            out.push(change_of(&event));
        }
        Ok(out)
    }

    /// What the ledger shows for `counter` in the day, week and month of
    /// `at_ms` (a limit's starting point).
    async fn ledger(
        &self,
        member_id: &str,
        counter: Counter,
        at_ms: i64,
    ) -> Result<[Decimal; 3], SaferFailure> {
        match counter {
            Counter::Stakes => {
                let sums = self.sums(member_id, STAKE_KINDS, at_ms).await?;
                // Stakes are negative movements of the balance.
                Ok(sums.map(|s| -s))
            }
            Counter::Deposits => {
                let starts = self.calendar.starts(at_ms);
                let from = starts.week.min(starts.month);
                let rows = sqlx::query(
                    "SELECT amount, created_ms FROM money_orders WHERE member_id = $1 AND kind = 'deposit'
                     AND created_ms >= $2 AND status NOT IN ('failed', 'cancelled', 'expired', 'reversed')",
                )
                .bind(member_id)
                .bind(from)
                .fetch_all(&self.pool)
                .await?;
                let mut sums = [Decimal::ZERO; 3];
                for row in rows {
                    let amount: String = row.try_get("amount")?;
                    let at: i64 = row.try_get("created_ms")?;
                    add(&mut sums, &starts, at, parse(&amount)?);
                }
                Ok(sums)
            }
        }
    }

    /// The returns of the day, week and month of `at_ms`.
    async fn returns(&self, member_id: &str, at_ms: i64) -> Result<Returns, SaferFailure> {
        let [day, week, month] = self.sums(member_id, RETURN_KINDS, at_ms).await?;
        Ok(Returns { day, week, month })
    }

    async fn sums(
        &self,
        member_id: &str,
        kinds: &str,
        at_ms: i64,
    ) -> Result<[Decimal; 3], SaferFailure> {
        let starts = self.calendar.starts(at_ms);
        let from = starts.week.min(starts.month);
        let sql = format!(
            "SELECT amount, at_ms FROM wallet_movements WHERE member_id = $1 AND at_ms >= $2 AND {kinds}"
        );
        let rows = sqlx::query(&sql)
            .bind(member_id)
            .bind(from)
            .fetch_all(&self.pool)
            .await?;
        let mut sums = [Decimal::ZERO; 3];
        for row in rows {
            let amount: String = row.try_get("amount")?;
            let at: i64 = row.try_get("at_ms")?;
            add(&mut sums, &starts, at, parse(&amount)?);
        }
        Ok(sums)
    }
}

fn parse(amount: &str) -> Result<Decimal, SaferFailure> {
    amount
        .parse()
        .map_err(|_| SaferFailure::Internal(format!("unreadable amount '{amount}'")))
}

fn add(sums: &mut [Decimal; 3], starts: &domain::safer::Starts, at: i64, amount: Decimal) {
    for (i, period) in Period::ALL.iter().enumerate() {
        if at >= starts.of(*period) {
            sums[i] += amount;
        }
    }
}

fn by_name(by: &Actor) -> (String, String) {
    match by {
        Actor::Member => ("member".into(), String::new()),
        Actor::Staff { name, reason } => (format!("staff:{name}"), reason.clone()),
    }
}

fn change_of(event: &SaferEvent) -> Change {
    let member = || "member".to_string();
    match event {
        SaferEvent::LimitSet {
            kind,
            period,
            amount,
            at_ms,
            ..
        } => Change {
            at_ms: *at_ms,
            what: "limit_set".into(),
            by: member(),
            detail: format!("{} per {}: {amount}", kind.name(), period.name()),
        },
        SaferEvent::LimitChangeRequested {
            kind,
            period,
            amount,
            effective_at_ms,
            at_ms,
        } => Change {
            at_ms: *at_ms,
            what: match amount {
                Some(_) => "limit_raise_requested".into(),
                None => "limit_removal_requested".into(),
            },
            by: member(),
            detail: format!(
                "{} per {}: {} from {effective_at_ms}",
                kind.name(),
                period.name(),
                amount.map_or("none".to_string(), |a| a.to_string())
            ),
        },
        SaferEvent::TimeOutStarted {
            until_ms,
            by,
            at_ms,
        } => {
            let (by, reason) = by_name(by);
            Change {
                at_ms: *at_ms,
                what: "time_out".into(),
                by,
                detail: if reason.is_empty() {
                    format!("until {until_ms}")
                } else {
                    format!("until {until_ms}: {reason}")
                },
            }
        }
        SaferEvent::SelfExcluded { until_ms, at_ms } => Change {
            at_ms: *at_ms,
            what: "self_exclusion".into(),
            by: member(),
            detail: format!("until {until_ms}"),
        },
        SaferEvent::RealityCheckSet { minutes, at_ms } => Change {
            at_ms: *at_ms,
            what: "reality_check".into(),
            by: member(),
            detail: format!("{minutes} minutes"),
        },
        SaferEvent::StakeCounted { at_ms, .. }
        | SaferEvent::DepositCounted { at_ms, .. }
        | SaferEvent::DepositUncounted { at_ms, .. } => Change {
            at_ms: *at_ms,
            what: "counted".into(),
            by: member(),
            detail: String::new(),
        },
    }
}

/// The one instance every area shares.
pub type SharedSafeguards = Arc<Safeguards>;
