//! The Vip aggregate, one per member (id = member id): the levels reached
//! (`VipLevelReached`), honour decays, and every reward granted, each under
//! its own key so a repeat answers the first outcome and grants nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use cqrs_es::event_sink::EventSink;
use cqrs_es::{Aggregate, DomainEvent};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::account::Market;
use crate::{Code, Currency};

/// What a reward is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RewardKind {
    /// The upgrade gift of a level (`getgrowgift`); key: the level.
    Gift,
    /// The monthly salary; key: `YYYY-MM`.
    Salary,
    /// The daily rebate; key: `YYYY-MM-DD:product`.
    Rebate,
}

impl RewardKind {
    pub fn code(self) -> &'static str {
        match self {
            RewardKind::Gift => "gift",
            RewardKind::Salary => "salary",
            RewardKind::Rebate => "rebate",
        }
    }
}

/// The wallet reference of a reward: unique per member, kind and key.
pub fn reward_reference(member_id: &str, kind: RewardKind, key: &str) -> String {
    format!("vip:{}:{}:{}", kind.code(), member_id, key)
}

/// A reward as granted (and as a repeat answers it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Grant {
    pub kind: RewardKind,
    pub key: String,
    pub reference: String,
    pub level: u8,
    pub currency: Currency,
    pub amount: Decimal,
    /// The turnover the reward was computed from (rebate, salary).
    #[serde(default)]
    pub basis: Decimal,
    /// Rebate rate in percent.
    #[serde(default)]
    pub rate: Decimal,
    /// Valid turnover required before the reward can be withdrawn.
    pub turnover_required: Decimal,
    pub at_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VipError {
    #[error("This level has not been reached yet")]
    NotReached,
    #[error("Nothing to claim")]
    NothingToClaim,
    #[error("Not enough M currency")]
    NotEnoughPoints,
    #[error("Wrong amount")]
    WrongAmount,
}

impl VipError {
    /// Activity codes (spec 001 section 8: activities -61xxx to -69xxx;
    /// the individual messages are not shown, these are the platform's).
    pub fn code(&self) -> Code {
        match self {
            VipError::NotReached => Code(-61001),
            VipError::NothingToClaim => Code(-61002),
            VipError::NotEnoughPoints => Code(-61003),
            VipError::WrongAmount => Code::WRONG_AMOUNT,
        }
    }
}

/// What a command answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum VipReceipt {
    Level {
        level: u8,
    },
    Granted {
        grant: Grant,
        duplicate: bool,
    },
    Spent {
        reference: String,
        amount: Decimal,
        duplicate: bool,
    },
    Decayed {
        level: u8,
    },
}

#[derive(Debug, Clone, Default)]
pub struct VipReply(Arc<Mutex<Option<Result<VipReceipt, VipError>>>>);

impl VipReply {
    pub fn set(&self, outcome: Result<VipReceipt, VipError>) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(outcome);
    }

    pub fn take(&self) -> Option<Result<VipReceipt, VipError>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum VipAction {
    /// The read model says the member's honour values reach `level`.
    Reach {
        level: u8,
        market: Market,
        currency: Currency,
        at_ms: i64,
    },
    /// A season ended (`period` names it): one level down, values reset to
    /// that level's start.
    Decay {
        period: String,
        money: Decimal,
        bets: Decimal,
        at_ms: i64,
    },
    Grant(Grant),
    SpendPoints {
        reference: String,
        amount: Decimal,
        /// Points earned so far (the read model's figure).
        earned: Decimal,
        at_ms: i64,
    },
}

#[derive(Debug, Clone)]
pub struct VipCommand {
    pub action: VipAction,
    pub reply: VipReply,
}

impl VipCommand {
    pub fn new(action: VipAction) -> Self {
        Self {
            action,
            reply: VipReply::default(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum VipEvent {
    VipLevelReached {
        level: u8,
        market: Market,
        currency: Currency,
        at_ms: i64,
    },
    HonourDecayed {
        period: String,
        from: u8,
        to: u8,
        money: Decimal,
        bets: Decimal,
        at_ms: i64,
    },
    RewardGranted(Grant),
    PointsSpent {
        reference: String,
        amount: Decimal,
        at_ms: i64,
    },
}

impl DomainEvent for VipEvent {
    fn event_type(&self) -> String {
        match self {
            VipEvent::VipLevelReached { .. } => "VipLevelReached",
            VipEvent::HonourDecayed { .. } => "HonourDecayed",
            VipEvent::RewardGranted(_) => "RewardGranted",
            VipEvent::PointsSpent { .. } => "PointsSpent",
        }
        .to_string()
    }

    fn event_version(&self) -> String {
        "1.0".to_string()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Vip {
    /// The current level (1 until a level is reached).
    pub level: u8,
    /// Every level ever reached (gifts are per level, once).
    pub reached: BTreeSet<u8>,
    pub grants: BTreeMap<(RewardKind, String), Grant>,
    pub decays: BTreeSet<String>,
    pub spent: BTreeMap<String, Decimal>,
    pub spent_total: Decimal,
}

impl Vip {
    pub fn level(&self) -> u8 {
        self.level.max(1)
    }

    pub fn decide(&self, action: &VipAction) -> Result<(Vec<VipEvent>, VipReceipt), VipError> {
        match action {
            VipAction::Reach {
                level,
                market,
                currency,
                at_ms,
            } => {
                let level = (*level).min(super::LEVELS as u8);
                let events = (self.level() + 1..=level)
                    .map(|l| VipEvent::VipLevelReached {
                        level: l,
                        market: *market,
                        currency: *currency,
                        at_ms: *at_ms,
                    })
                    .collect();
                Ok((
                    events,
                    VipReceipt::Level {
                        level: level.max(self.level()),
                    },
                ))
            }
            VipAction::Decay {
                period,
                money,
                bets,
                at_ms,
            } => {
                if self.decays.contains(period) || self.level() <= 1 {
                    return Ok((
                        vec![],
                        VipReceipt::Decayed {
                            level: self.level(),
                        },
                    ));
                }
                let to = self.level() - 1;
                Ok((
                    vec![VipEvent::HonourDecayed {
                        period: period.clone(),
                        from: self.level(),
                        to,
                        money: *money,
                        bets: *bets,
                        at_ms: *at_ms,
                    }],
                    VipReceipt::Decayed { level: to },
                ))
            }
            VipAction::Grant(grant) => {
                if let Some(first) = self.grants.get(&(grant.kind, grant.key.clone())) {
                    return Ok((
                        vec![],
                        VipReceipt::Granted {
                            grant: first.clone(),
                            duplicate: true,
                        },
                    ));
                }
                if grant.kind == RewardKind::Gift && !self.reached.contains(&grant.level) {
                    return Err(VipError::NotReached);
                }
                if grant.amount <= Decimal::ZERO || grant.amount.scale() > 2 {
                    return Err(VipError::NothingToClaim);
                }
                Ok((
                    vec![VipEvent::RewardGranted(grant.clone())],
                    VipReceipt::Granted {
                        grant: grant.clone(),
                        duplicate: false,
                    },
                ))
            }
            VipAction::SpendPoints {
                reference,
                amount,
                earned,
                at_ms,
            } => {
                if let Some(first) = self.spent.get(reference) {
                    return Ok((
                        vec![],
                        VipReceipt::Spent {
                            reference: reference.clone(),
                            amount: *first,
                            duplicate: true,
                        },
                    ));
                }
                if *amount <= Decimal::ZERO || amount.scale() > 2 {
                    return Err(VipError::WrongAmount);
                }
                if earned - self.spent_total < *amount {
                    return Err(VipError::NotEnoughPoints);
                }
                Ok((
                    vec![VipEvent::PointsSpent {
                        reference: reference.clone(),
                        amount: *amount,
                        at_ms: *at_ms,
                    }],
                    VipReceipt::Spent {
                        reference: reference.clone(),
                        amount: *amount,
                        duplicate: false,
                    },
                ))
            }
        }
    }
}

impl Aggregate for Vip {
    const TYPE: &'static str = "Vip";
    type Command = VipCommand;
    type Event = VipEvent;
    type Error = VipError;
    type Services = ();

    async fn handle(
        &mut self,
        command: Self::Command,
        _services: &Self::Services,
        sink: &EventSink<Self>,
    ) -> Result<(), Self::Error> {
        match self.decide(&command.action) {
            Ok((events, receipt)) => {
                for event in events {
                    sink.write(event, self).await;
                }
                command.reply.set(Ok(receipt));
                Ok(())
            }
            Err(e) => {
                command.reply.set(Err(e.clone()));
                Err(e)
            }
        }
    }

    fn apply(&mut self, event: Self::Event) {
        match event {
            VipEvent::VipLevelReached { level, .. } => {
                self.level = self.level.max(level);
                self.reached.insert(level);
            }
            VipEvent::HonourDecayed { period, to, .. } => {
                self.level = to;
                self.decays.insert(period);
            }
            VipEvent::RewardGranted(grant) => {
                self.grants.insert((grant.kind, grant.key.clone()), grant);
            }
            VipEvent::PointsSpent {
                reference, amount, ..
            } => {
                self.spent_total += amount;
                self.spent.insert(reference, amount);
            }
        }
    }
}
