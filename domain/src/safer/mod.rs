//! Safer gambling: a member's own limits, time-out, self-exclusion and
//! reality check, as one aggregate per member (id: the member id).
//!
//! Rules (DESIGN.md "Responsible gambling"):
//! - A first limit or a lower one applies at once; a higher one or a
//!   removal 24 hours later (`pending` until then).
//! - Periods are the calendar day, week (Monday first) and month in the
//!   market's time zone ([`Calendar`]).
//! - Deposit limits count deposit orders as they are placed; stake limits
//!   count stakes as they are taken; a loss limit counts stakes less the
//!   returns of the period (the returns read from the ledger, so a late
//!   return only makes the check stricter for a moment). A stake or
//!   deposit passes only when what is used plus it stays within every
//!   limit of its kind.
//! - A time-out (24 hours to 6 weeks) and a self-exclusion (6 months to 5
//!   years) can be lengthened, never shortened or lifted; staff may start
//!   a time-out, never end one.
//! - Stakes and deposits are counted (an event) only while a limit of
//!   their kind is in force, so members without limits add no writes; a
//!   limit set later starts from what the ledger shows for the period.

mod calendar;
#[cfg(test)]
mod tests;

use cqrs_es::{Aggregate, DomainEvent};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

pub use calendar::{Calendar, Period, Starts};

use crate::Code;

/// How long a raise or a removal waits, in milliseconds.
pub const COOLING_OFF_MS: i64 = 24 * 3_600_000;
/// Time-out lengths, in hours (24 hours to 6 weeks).
pub const TIMEOUT_HOURS: std::ops::RangeInclusive<u32> = 24..=1008;
/// Self-exclusion lengths, in months (6 months to 5 years).
pub const EXCLUSION_MONTHS: std::ops::RangeInclusive<u32> = 6..=60;
/// Reality check intervals in minutes (spec 000 section 9; 0 is off).
pub const REALITY_CHECK_MINUTES: [u32; 9] = [0, 10, 20, 30, 60, 120, 240, 360, 480];
/// The largest limit accepted, in the member's currency.
pub const LIMIT_MAX: Decimal = Decimal::from_parts(1_000_000_000, 0, 0, false, 0);

/// What a limit bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitKind {
    Deposit,
    Loss,
    Stake,
}

impl LimitKind {
    pub const ALL: [LimitKind; 3] = [LimitKind::Deposit, LimitKind::Loss, LimitKind::Stake];

    pub fn parse(text: &str) -> Option<LimitKind> {
        match text {
            "deposit" => Some(LimitKind::Deposit),
            "loss" => Some(LimitKind::Loss),
            "stake" => Some(LimitKind::Stake),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            LimitKind::Deposit => "deposit",
            LimitKind::Loss => "loss",
            LimitKind::Stake => "stake",
        }
    }

    /// The counter a limit of this kind reads.
    pub fn counter(self) -> Counter {
        match self {
            LimitKind::Deposit => Counter::Deposits,
            LimitKind::Loss | LimitKind::Stake => Counter::Stakes,
        }
    }
}

/// What the aggregate counts while a limit needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Counter {
    Deposits,
    Stakes,
}

/// An amount counted in one period, from `start`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Count {
    pub counter: Counter,
    pub period: Period,
    pub start: i64,
    pub amount: Decimal,
}

/// A change waiting for its time: a raise (`Some`) or a removal (`None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    pub amount: Option<Decimal>,
    pub effective_at_ms: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limit {
    pub kind: LimitKind,
    pub period: Period,
    pub amount: Decimal,
    pub pending: Option<Pending>,
}

impl Limit {
    /// The amount in force at `at_ms` (`None`: a removal has come into
    /// force) and what still waits.
    pub fn at(&self, at_ms: i64) -> (Option<Decimal>, Option<Pending>) {
        match self.pending {
            Some(p) if p.effective_at_ms <= at_ms => (p.amount, None),
            pending => (Some(self.amount), pending),
        }
    }
}

/// Who made a change: the member, or a staff member by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Actor {
    Member,
    Staff { name: String, reason: String },
}

/// Returns of the current periods (from the ledger), for a loss limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Returns {
    pub day: Decimal,
    pub week: Decimal,
    pub month: Decimal,
}

impl Returns {
    pub fn of(&self, period: Period) -> Decimal {
        match period {
            Period::Day => self.day,
            Period::Week => self.week,
            Period::Month => self.month,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum SaferCommand {
    /// Sets, lowers, raises (`Some`) or removes (`None`) a limit. `seed`:
    /// what the ledger shows for the limit's counter in the periods of
    /// `at_ms`, used when nothing counts it yet.
    SetLimit {
        kind: LimitKind,
        period: Period,
        amount: Option<Decimal>,
        seed: [Decimal; 3],
        at_ms: i64,
    },
    StartTimeOut {
        hours: u32,
        by: Actor,
        at_ms: i64,
    },
    SelfExclude {
        months: u32,
        at_ms: i64,
    },
    SetRealityCheck {
        minutes: u32,
        at_ms: i64,
    },
    /// A stake about to be taken. `returns`: needed when a loss limit is
    /// in force (refused with `NeedReturns` without them).
    Stake {
        reference: String,
        amount: Decimal,
        returns: Option<Returns>,
        at_ms: i64,
    },
    /// A deposit order about to be placed.
    Deposit {
        reference: String,
        amount: Decimal,
        at_ms: i64,
    },
    /// A deposit order that failed or expired: its amount no longer counts.
    DepositFailed {
        reference: String,
        amount: Decimal,
        placed_at_ms: i64,
        at_ms: i64,
    },
    /// Whether the member may play or be marketed to at all (casino real
    /// play, free bets, promotions): refused while excluded or timed out.
    Play {
        at_ms: i64,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SaferEvent {
    LimitSet {
        kind: LimitKind,
        period: Period,
        amount: Decimal,
        /// Counts started from the ledger (when nothing counted before).
        seeded: Vec<Count>,
        at_ms: i64,
    },
    LimitChangeRequested {
        kind: LimitKind,
        period: Period,
        /// `None`: the limit is removed.
        amount: Option<Decimal>,
        effective_at_ms: i64,
        at_ms: i64,
    },
    TimeOutStarted {
        until_ms: i64,
        by: Actor,
        at_ms: i64,
    },
    SelfExcluded {
        until_ms: i64,
        at_ms: i64,
    },
    RealityCheckSet {
        minutes: u32,
        at_ms: i64,
    },
    StakeCounted {
        reference: String,
        amount: Decimal,
        starts: Starts,
        at_ms: i64,
    },
    DepositCounted {
        reference: String,
        amount: Decimal,
        starts: Starts,
        at_ms: i64,
    },
    DepositUncounted {
        reference: String,
        amount: Decimal,
        starts: Starts,
        at_ms: i64,
    },
}

impl DomainEvent for SaferEvent {
    fn event_type(&self) -> String {
        match self {
            SaferEvent::LimitSet { .. } => "LimitSet",
            SaferEvent::LimitChangeRequested { .. } => "LimitChangeRequested",
            SaferEvent::TimeOutStarted { .. } => "TimeOutStarted",
            SaferEvent::SelfExcluded { .. } => "SelfExcluded",
            SaferEvent::RealityCheckSet { .. } => "RealityCheckSet",
            SaferEvent::StakeCounted { .. } => "StakeCounted",
            SaferEvent::DepositCounted { .. } => "DepositCounted",
            SaferEvent::DepositUncounted { .. } => "DepositUncounted",
        }
        .to_string()
    }

    fn event_version(&self) -> String {
        "1.0".to_string()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SaferError {
    #[error("You have excluded yourself from gambling.")]
    SelfExcluded { until_ms: i64 },
    #[error("You are taking a time-out from gambling.")]
    TimedOut { until_ms: i64 },
    #[error("Your {period} deposit limit of {limit:.2} is reached: {left:.2} left.")]
    DepositLimit {
        period: &'static str,
        limit: Decimal,
        left: Decimal,
    },
    #[error("Your {period} loss limit of {limit:.2} is reached: {left:.2} left.")]
    LossLimit {
        period: &'static str,
        limit: Decimal,
        left: Decimal,
    },
    #[error("Your {period} stake limit of {limit:.2} is reached: {left:.2} left.")]
    StakeLimit {
        period: &'static str,
        limit: Decimal,
        left: Decimal,
    },
    #[error("There is no {kind} limit per {period} to remove.")]
    NoSuchLimit {
        kind: &'static str,
        period: &'static str,
    },
    #[error("This limit is already {amount}.")]
    Unchanged { amount: Decimal },
    #[error("A time-out or self-exclusion already runs until {until_ms}; it cannot be shortened.")]
    CannotShorten { until_ms: i64 },
    #[error("Invalid request parameters: {0}")]
    Invalid(&'static str),
    /// Not a refusal: the loss check needs the period's returns.
    #[error("the returns of the period are needed")]
    NeedReturns,
}

impl SaferError {
    pub fn code(&self) -> Code {
        match self {
            SaferError::SelfExcluded { .. } => Code::SELF_EXCLUDED,
            SaferError::TimedOut { .. } => Code::TIMED_OUT,
            SaferError::DepositLimit { .. } => Code::DEPOSIT_LIMIT,
            SaferError::LossLimit { .. } => Code::LOSS_LIMIT,
            SaferError::StakeLimit { .. } => Code::STAKE_LIMIT,
            SaferError::NoSuchLimit { .. }
            | SaferError::Unchanged { .. }
            | SaferError::CannotShorten { .. }
            | SaferError::Invalid(_) => Code::BAD_PARAMETERS,
            SaferError::NeedReturns => Code::INTERNAL,
        }
    }

    /// What a client shows with the message: the end (unix seconds) of an
    /// exclusion or time-out, or a limit's period, amount and what is left.
    pub fn details(&self) -> serde_json::Value {
        match self {
            SaferError::SelfExcluded { until_ms } | SaferError::TimedOut { until_ms } => {
                serde_json::json!({ "until": until_ms / 1000 })
            }
            SaferError::DepositLimit {
                period,
                limit,
                left,
            }
            | SaferError::LossLimit {
                period,
                limit,
                left,
            }
            | SaferError::StakeLimit {
                period,
                limit,
                left,
            } => serde_json::json!({
                "period": period,
                "limit": format!("{:.2}", limit.round_dp(2)),
                "left": format!("{:.2}", left.round_dp(2)),
            }),
            _ => serde_json::Value::Null,
        }
    }

    /// Whether this is the member's exclusion or time-out (the casino's
    /// `RS_ERROR_USER_DISABLED`) rather than a limit.
    pub fn is_exclusion(&self) -> bool {
        matches!(
            self,
            SaferError::SelfExcluded { .. } | SaferError::TimedOut { .. }
        )
    }
}

/// What is given to decisions: the market's calendar.
#[derive(Debug, Clone, Copy, Default)]
pub struct SaferServices {
    pub calendar: Calendar,
}

/// One limit as a member sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LimitView {
    pub kind: LimitKind,
    pub period: Period,
    pub amount: Decimal,
    pub used: Decimal,
    pub pending: Option<Pending>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SaferGambling {
    pub limits: Vec<Limit>,
    pub counts: Vec<Count>,
    pub timeout_until_ms: i64,
    pub excluded_until_ms: i64,
    pub reality_check_minutes: u32,
}

impl SaferGambling {
    /// Refused while self-excluded (first) or timed out at `at_ms`.
    pub fn may_play(&self, at_ms: i64) -> Result<(), SaferError> {
        if self.excluded_until_ms > at_ms {
            return Err(SaferError::SelfExcluded {
                until_ms: self.excluded_until_ms,
            });
        }
        if self.timeout_until_ms > at_ms {
            return Err(SaferError::TimedOut {
                until_ms: self.timeout_until_ms,
            });
        }
        Ok(())
    }

    fn limit(&self, kind: LimitKind, period: Period) -> Option<&Limit> {
        self.limits
            .iter()
            .find(|l| l.kind == kind && l.period == period)
    }

    /// The limits of `kind` in force at `at_ms`, by period.
    fn in_force(
        &self,
        kind: LimitKind,
        at_ms: i64,
    ) -> impl Iterator<Item = (Period, Decimal)> + '_ {
        self.limits
            .iter()
            .filter(move |l| l.kind == kind)
            .filter_map(move |l| l.at(at_ms).0.map(|amount| (l.period, amount)))
    }

    /// Whether a limit in force at `at_ms` reads `counter`.
    pub fn counts(&self, counter: Counter, at_ms: i64) -> bool {
        self.limits
            .iter()
            .any(|l| l.kind.counter() == counter && l.at(at_ms).0.is_some())
    }

    /// Whether a loss limit is in force at `at_ms` (stakes then need the
    /// period's returns).
    pub fn needs_returns(&self, at_ms: i64) -> bool {
        self.in_force(LimitKind::Loss, at_ms).next().is_some()
    }

    /// What `counter` holds for the period of `starts`.
    pub fn used(&self, counter: Counter, period: Period, starts: &Starts) -> Decimal {
        self.counts
            .iter()
            .find(|c| c.counter == counter && c.period == period && c.start == starts.of(period))
            .map_or(Decimal::ZERO, |c| c.amount)
    }

    /// Every limit with what is used at `at_ms` (loss: stakes less
    /// `returns`, never below zero), in a stable order.
    pub fn view(&self, at_ms: i64, calendar: &Calendar, returns: &Returns) -> Vec<LimitView> {
        let starts = calendar.starts(at_ms);
        let mut out: Vec<LimitView> = self
            .limits
            .iter()
            .filter_map(|l| {
                let (amount, pending) = l.at(at_ms);
                let amount = amount?;
                let counted = self.used(l.kind.counter(), l.period, &starts);
                let used = match l.kind {
                    LimitKind::Loss => (counted - returns.of(l.period)).max(Decimal::ZERO),
                    _ => counted,
                };
                Some(LimitView {
                    kind: l.kind,
                    period: l.period,
                    amount,
                    used,
                    pending,
                })
            })
            .collect();
        out.sort_by_key(|v| (v.kind, v.period));
        out
    }

    fn check(
        &self,
        kind: LimitKind,
        amount: Decimal,
        starts: &Starts,
        returns: &Returns,
        at_ms: i64,
    ) -> Result<(), SaferError> {
        for (period, limit) in self.in_force(kind, at_ms) {
            let counted = self.used(kind.counter(), period, starts);
            let used = match kind {
                LimitKind::Loss => counted - returns.of(period),
                _ => counted,
            };
            if used + amount > limit {
                let left = (limit - used).max(Decimal::ZERO);
                let period = period.adjective();
                return Err(match kind {
                    LimitKind::Deposit => SaferError::DepositLimit {
                        period,
                        limit,
                        left,
                    },
                    LimitKind::Loss => SaferError::LossLimit {
                        period,
                        limit,
                        left,
                    },
                    LimitKind::Stake => SaferError::StakeLimit {
                        period,
                        limit,
                        left,
                    },
                });
            }
        }
        Ok(())
    }

    pub fn decide(
        &self,
        command: SaferCommand,
        services: &SaferServices,
    ) -> Result<Vec<SaferEvent>, SaferError> {
        let calendar = &services.calendar;
        match command {
            SaferCommand::SetLimit {
                kind,
                period,
                amount,
                seed,
                at_ms,
            } => {
                if let Some(a) = amount {
                    if a < Decimal::ZERO || a > LIMIT_MAX || a.scale() > 2 {
                        return Err(SaferError::Invalid("amount: 0 to 1000000000"));
                    }
                }
                let current = self.limit(kind, period).and_then(|l| l.at(at_ms).0);
                match (current, amount) {
                    (None, None) => Err(SaferError::NoSuchLimit {
                        kind: kind.name(),
                        period: period.name(),
                    }),
                    (Some(now), Some(a)) if a == now => {
                        // Asking again for the limit in force drops a
                        // pending change, as a lower limit would.
                        let pending = self.limit(kind, period).and_then(|l| l.at(at_ms).1);
                        match pending {
                            Some(_) => {
                                Ok(vec![self.limit_set(kind, period, a, seed, at_ms, calendar)])
                            }
                            None => Err(SaferError::Unchanged { amount: a }),
                        }
                    }
                    (None, Some(a)) => {
                        Ok(vec![self.limit_set(kind, period, a, seed, at_ms, calendar)])
                    }
                    (Some(now), Some(a)) if a < now => {
                        Ok(vec![self.limit_set(kind, period, a, seed, at_ms, calendar)])
                    }
                    (Some(_), amount) => Ok(vec![SaferEvent::LimitChangeRequested {
                        kind,
                        period,
                        amount,
                        effective_at_ms: at_ms + COOLING_OFF_MS,
                        at_ms,
                    }]),
                }
            }
            SaferCommand::StartTimeOut { hours, by, at_ms } => {
                if !TIMEOUT_HOURS.contains(&hours) {
                    return Err(SaferError::Invalid("hours: 24 to 1008"));
                }
                let until_ms = at_ms + i64::from(hours) * 3_600_000;
                if self.timeout_until_ms >= until_ms {
                    return Err(SaferError::CannotShorten {
                        until_ms: self.timeout_until_ms,
                    });
                }
                Ok(vec![SaferEvent::TimeOutStarted {
                    until_ms,
                    by,
                    at_ms,
                }])
            }
            SaferCommand::SelfExclude { months, at_ms } => {
                if !EXCLUSION_MONTHS.contains(&months) {
                    return Err(SaferError::Invalid("months: 6 to 60"));
                }
                let until_ms = calendar.add_months(at_ms, months);
                if self.excluded_until_ms >= until_ms {
                    return Err(SaferError::CannotShorten {
                        until_ms: self.excluded_until_ms,
                    });
                }
                Ok(vec![SaferEvent::SelfExcluded { until_ms, at_ms }])
            }
            SaferCommand::SetRealityCheck { minutes, at_ms } => {
                if !REALITY_CHECK_MINUTES.contains(&minutes) {
                    return Err(SaferError::Invalid(
                        "minutes: 0, 10, 20, 30, 60, 120, 240, 360 or 480",
                    ));
                }
                if minutes == self.reality_check_minutes {
                    return Ok(vec![]);
                }
                Ok(vec![SaferEvent::RealityCheckSet { minutes, at_ms }])
            }
            SaferCommand::Stake {
                reference,
                amount,
                returns,
                at_ms,
            } => {
                self.may_play(at_ms)?;
                if !self.counts(Counter::Stakes, at_ms) {
                    return Ok(vec![]);
                }
                let returns = match returns {
                    Some(r) => r,
                    None if self.needs_returns(at_ms) => return Err(SaferError::NeedReturns),
                    None => Returns::default(),
                };
                let starts = calendar.starts(at_ms);
                self.check(LimitKind::Stake, amount, &starts, &returns, at_ms)?;
                self.check(LimitKind::Loss, amount, &starts, &returns, at_ms)?;
                Ok(vec![SaferEvent::StakeCounted {
                    reference,
                    amount,
                    starts,
                    at_ms,
                }])
            }
            SaferCommand::Deposit {
                reference,
                amount,
                at_ms,
            } => {
                self.may_play(at_ms)?;
                if !self.counts(Counter::Deposits, at_ms) {
                    return Ok(vec![]);
                }
                let starts = calendar.starts(at_ms);
                self.check(
                    LimitKind::Deposit,
                    amount,
                    &starts,
                    &Returns::default(),
                    at_ms,
                )?;
                Ok(vec![SaferEvent::DepositCounted {
                    reference,
                    amount,
                    starts,
                    at_ms,
                }])
            }
            SaferCommand::DepositFailed {
                reference,
                amount,
                placed_at_ms,
                at_ms,
            } => {
                if !self.counts(Counter::Deposits, at_ms) {
                    return Ok(vec![]);
                }
                Ok(vec![SaferEvent::DepositUncounted {
                    reference,
                    amount,
                    starts: calendar.starts(placed_at_ms),
                    at_ms,
                }])
            }
            SaferCommand::Play { at_ms } => {
                self.may_play(at_ms)?;
                Ok(vec![])
            }
        }
    }

    fn limit_set(
        &self,
        kind: LimitKind,
        period: Period,
        amount: Decimal,
        seed: [Decimal; 3],
        at_ms: i64,
        calendar: &Calendar,
    ) -> SaferEvent {
        let counter = kind.counter();
        let seeded = if self.counts(counter, at_ms) {
            Vec::new()
        } else {
            let starts = calendar.starts(at_ms);
            Period::ALL
                .iter()
                .zip(seed)
                .map(|(&period, amount)| Count {
                    counter,
                    period,
                    start: starts.of(period),
                    amount,
                })
                .collect()
        };
        SaferEvent::LimitSet {
            kind,
            period,
            amount,
            seeded,
            at_ms,
        }
    }

    fn count(&mut self, counter: Counter, starts: &Starts, amount: Decimal) {
        for period in Period::ALL {
            let start = starts.of(period);
            match self
                .counts
                .iter_mut()
                .find(|c| c.counter == counter && c.period == period)
            {
                Some(c) if c.start == start => c.amount += amount,
                Some(c) if c.start < start => {
                    c.start = start;
                    c.amount = amount;
                }
                // A late event of an earlier period: that period is over.
                Some(_) => {}
                None => self.counts.push(Count {
                    counter,
                    period,
                    start,
                    amount,
                }),
            }
        }
    }
}

impl Aggregate for SaferGambling {
    const TYPE: &'static str = "SaferGambling";
    type Command = SaferCommand;
    type Event = SaferEvent;
    type Error = SaferError;
    type Services = SaferServices;

    async fn handle(
        &mut self,
        command: Self::Command,
        services: &Self::Services,
        sink: &cqrs_es::event_sink::EventSink<Self>,
    ) -> Result<(), Self::Error> {
        for event in self.decide(command, services)? {
            sink.write(event, self).await;
        }
        Ok(())
    }

    fn apply(&mut self, event: Self::Event) {
        match event {
            SaferEvent::LimitSet {
                kind,
                period,
                amount,
                seeded,
                ..
            } => {
                self.limits
                    .retain(|l| !(l.kind == kind && l.period == period));
                self.limits.push(Limit {
                    kind,
                    period,
                    amount,
                    pending: None,
                });
                if let Some(first) = seeded.first() {
                    let counter = first.counter;
                    self.counts.retain(|c| c.counter != counter);
                    self.counts.extend(seeded);
                }
            }
            SaferEvent::LimitChangeRequested {
                kind,
                period,
                amount,
                effective_at_ms,
                at_ms,
            } => {
                if let Some(limit) = self
                    .limits
                    .iter_mut()
                    .find(|l| l.kind == kind && l.period == period)
                {
                    // A change already due is in force now.
                    if let (Some(now), _) = limit.at(at_ms) {
                        limit.amount = now;
                    }
                    limit.pending = Some(Pending {
                        amount,
                        effective_at_ms,
                    });
                }
            }
            SaferEvent::TimeOutStarted { until_ms, .. } => {
                self.timeout_until_ms = self.timeout_until_ms.max(until_ms);
            }
            SaferEvent::SelfExcluded { until_ms, .. } => {
                self.excluded_until_ms = self.excluded_until_ms.max(until_ms);
            }
            SaferEvent::RealityCheckSet { minutes, .. } => self.reality_check_minutes = minutes,
            SaferEvent::StakeCounted { amount, starts, .. } => {
                self.count(Counter::Stakes, &starts, amount)
            }
            SaferEvent::DepositCounted { amount, starts, .. } => {
                self.count(Counter::Deposits, &starts, amount)
            }
            SaferEvent::DepositUncounted { amount, starts, .. } => {
                self.uncount(Counter::Deposits, &starts, amount)
            }
        }
    }
}

impl SaferGambling {
    fn uncount(&mut self, counter: Counter, starts: &Starts, amount: Decimal) {
        for c in self.counts.iter_mut() {
            if c.counter == counter && c.start == starts.of(c.period) {
                c.amount = (c.amount - amount).max(Decimal::ZERO);
            }
        }
    }
}
