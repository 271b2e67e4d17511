//! The Deposit aggregate: one per order.
//!
//! Created -> (Confirmed, bank transfers) -> Paid -> Credited -> Reversed;
//! or Failed, Expired, Cancelled; a payment that does not match the order
//! (amount, currency, or late on a closed order) is Flagged for finance and
//! credits nothing until finance credits or rejects it.
//!
//! Provider reports arrive more than once and out of order: each report is
//! remembered by (provider_tx_id, status); a report older (`created`) than
//! the newest one applied for the same transaction changes nothing; a
//! repeat changes nothing. `DepositCredited` is emitted once per order: the
//! wallet credit it stands for uses the reference `deposit:{order_id}`.

use std::collections::BTreeSet;

use cqrs_es::event_sink::EventSink;
use cqrs_es::{Aggregate, DomainEvent};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::rules::{codes, Chain, Channel};
use crate::Currency;

/// A USDT order's quote: `usdt_amount` USDT at `rate` (currency per USDT),
/// valid until `expires_ms`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Quote {
    pub chain: Chain,
    pub address: String,
    pub rate: Decimal,
    pub usdt_amount: Decimal,
    pub expires_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewOrder {
    pub order_id: String,
    pub member_id: String,
    pub currency: Currency,
    pub amount: Decimal,
    pub channel: Channel,
    pub provider: String,
    pub created_ms: i64,
    pub expires_ms: i64,
    pub quote: Option<Quote>,
}

/// What a payment provider (or the chain watcher) reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReportStatus {
    Paid,
    Failed,
    Reversed,
}

impl ReportStatus {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "paid" => Some(Self::Paid),
            "failed" => Some(Self::Failed),
            "reversed" => Some(Self::Reversed),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub provider_tx_id: String,
    pub amount: Decimal,
    pub currency: String,
    pub status: ReportStatus,
    /// The provider's time of the report (unix seconds).
    pub created: i64,
    pub at_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum DepositCommand {
    Create(NewOrder),
    /// The member says the bank transfer was sent (`confirmorder`).
    Confirm {
        at_ms: i64,
    },
    Report(Report),
    /// The chain watcher saw a transfer to the order's address.
    ChainTransfer {
        tx_hash: String,
        usdt_amount: Decimal,
        confirmations: u32,
        required: u32,
        /// The rate now, used when the order's quote has expired.
        current_rate: Decimal,
        quote_minutes: i64,
        at_ms: i64,
    },
    /// The wallet credit `deposit:{order_id}` is done.
    MarkCredited {
        at_ms: i64,
    },
    /// The chargeback's wallet debit is done (or could not be: `taken`).
    MarkReversed {
        at_ms: i64,
        taken: bool,
    },
    Cancel {
        at_ms: i64,
    },
    Expire {
        at_ms: i64,
    },
    /// Finance decides a flagged order: credit what arrived, or reject.
    Review {
        staff_id: String,
        credit: bool,
        reason: String,
        at_ms: i64,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum DepositEvent {
    DepositCreated(NewOrder),
    DepositConfirmed {
        at_ms: i64,
    },
    DepositPaid {
        provider_tx_id: String,
        amount: Decimal,
        currency: Currency,
        at_ms: i64,
        created: i64,
    },
    DepositCredited {
        member_id: String,
        currency: Currency,
        amount: Decimal,
        order_id: String,
        channel: Channel,
        /// Unix milliseconds.
        credited_at: i64,
    },
    DepositFlagged {
        provider_tx_id: String,
        reason: String,
        amount: Decimal,
        currency: String,
        created: i64,
        at_ms: i64,
    },
    DepositFailed {
        provider_tx_id: String,
        created: i64,
        at_ms: i64,
    },
    DepositReversed {
        provider_tx_id: String,
        member_id: String,
        currency: Currency,
        amount: Decimal,
        order_id: String,
        /// Whether the money was taken back (false: it was not credited,
        /// or the balance could not cover it: finance follows up).
        taken: bool,
        at_ms: i64,
    },
    /// The provider took a payment back (chargeback); the service then
    /// takes the credit back and marks the order reversed.
    DepositReversalReported {
        provider_tx_id: String,
        created: i64,
        at_ms: i64,
    },
    /// A report that changes nothing (stale or repeated), kept for the
    /// reconciliation view.
    DepositReportIgnored {
        provider_tx_id: String,
        status: ReportStatus,
        created: i64,
        at_ms: i64,
    },
    DepositRequoted {
        rate: Decimal,
        usdt_amount: Decimal,
        expires_ms: i64,
        at_ms: i64,
    },
    ChainTransferSeen {
        tx_hash: String,
        usdt_amount: Decimal,
        confirmations: u32,
        at_ms: i64,
    },
    DepositCancelled {
        at_ms: i64,
    },
    DepositExpired {
        at_ms: i64,
    },
    DepositReviewed {
        staff_id: String,
        credit: bool,
        reason: String,
        at_ms: i64,
    },
}

impl DomainEvent for DepositEvent {
    fn event_type(&self) -> String {
        use DepositEvent::*;
        match self {
            DepositCreated(_) => "DepositCreated",
            DepositConfirmed { .. } => "DepositConfirmed",
            DepositPaid { .. } => "DepositPaid",
            DepositCredited { .. } => "DepositCredited",
            DepositFlagged { .. } => "DepositFlagged",
            DepositFailed { .. } => "DepositFailed",
            DepositReversed { .. } => "DepositReversed",
            DepositReportIgnored { .. } => "DepositReportIgnored",
            DepositReversalReported { .. } => "DepositReversalReported",
            DepositRequoted { .. } => "DepositRequoted",
            ChainTransferSeen { .. } => "ChainTransferSeen",
            DepositCancelled { .. } => "DepositCancelled",
            DepositExpired { .. } => "DepositExpired",
            DepositReviewed { .. } => "DepositReviewed",
        }
        .to_string()
    }

    fn event_version(&self) -> String {
        "1.0".to_string()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DepositStatus {
    #[default]
    None,
    Created,
    Confirmed,
    Paid,
    Credited,
    Flagged,
    Failed,
    Expired,
    Cancelled,
    Reversed,
    Rejected,
}

impl DepositStatus {
    pub fn name(self) -> &'static str {
        use DepositStatus::*;
        match self {
            None => "none",
            Created => "created",
            Confirmed => "confirmed",
            Paid => "paid",
            Credited => "credited",
            Flagged => "flagged",
            Failed => "failed",
            Expired => "expired",
            Cancelled => "cancelled",
            Reversed => "reversed",
            Rejected => "rejected",
        }
    }

    /// Still waiting for money (the member may cancel, the clock expires).
    pub fn is_open(self) -> bool {
        matches!(
            self,
            DepositStatus::Created | DepositStatus::Confirmed | DepositStatus::Failed
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DepositError {
    #[error("Unknown deposit order")]
    Unknown,
    #[error("The order cannot do that now ({0})")]
    State(&'static str),
    #[error("The order exists already")]
    Exists,
}

impl DepositError {
    pub fn code(&self) -> i32 {
        match self {
            DepositError::Unknown => codes::UNKNOWN_ORDER,
            DepositError::State(_) | DepositError::Exists => codes::ORDER_STATE,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Deposit {
    pub order: Option<NewOrder>,
    pub status: DepositStatus,
    /// What the credit is: the order's amount, or what finance accepted.
    pub credit_amount: Option<Decimal>,
    pub credited: bool,
    pub provider_tx_id: Option<String>,
    /// (tx id, status) pairs applied, and the newest `created` per tx.
    pub seen: BTreeSet<(String, String)>,
    pub newest_created: Option<i64>,
    pub chain_tx: Option<String>,
    pub confirmations: u32,
    pub flag_reason: Option<String>,
    pub received: Option<(Decimal, String)>,
    pub reversal_reported: bool,
}

impl Deposit {
    fn order(&self) -> Result<&NewOrder, DepositError> {
        self.order.as_ref().ok_or(DepositError::Unknown)
    }

    /// The pure decision.
    pub fn decide(&self, cmd: &DepositCommand) -> Result<Vec<DepositEvent>, DepositError> {
        use DepositCommand::*;
        use DepositEvent as E;
        use DepositStatus as S;
        match cmd {
            Create(order) => {
                if self.order.is_some() {
                    // A repeat of the same creation answers the first one.
                    return if self.order.as_ref() == Some(order) {
                        Ok(vec![])
                    } else {
                        Err(DepositError::Exists)
                    };
                }
                Ok(vec![E::DepositCreated(order.clone())])
            }
            Confirm { at_ms } => {
                let order = self.order()?;
                match self.status {
                    S::Created if order.channel == Channel::Bank => {
                        Ok(vec![E::DepositConfirmed { at_ms: *at_ms }])
                    }
                    S::Confirmed => Ok(vec![]),
                    _ => Err(DepositError::State(
                        "only an open bank transfer is confirmed",
                    )),
                }
            }
            Report(report) => self.decide_report(report),
            ChainTransfer {
                tx_hash,
                usdt_amount,
                confirmations,
                required,
                current_rate,
                quote_minutes,
                at_ms,
            } => {
                let order = self.order()?;
                let quote = order
                    .quote
                    .as_ref()
                    .ok_or(DepositError::State("not a USDT order"))?;
                if self.chain_tx.as_ref().is_some_and(|t| t != tx_hash) {
                    return Err(DepositError::State("another transfer pays this order"));
                }
                let mut events = Vec::new();
                if self.chain_tx.is_none() || *confirmations > self.confirmations {
                    events.push(E::ChainTransferSeen {
                        tx_hash: tx_hash.clone(),
                        usdt_amount: *usdt_amount,
                        confirmations: *confirmations,
                        at_ms: *at_ms,
                    });
                }
                // A transfer first seen after the quote expired is re-quoted
                // at the rate of the moment it was seen.
                let mut rate = self.current_rate().unwrap_or(quote.rate);
                if self.chain_tx.is_none() && *at_ms > self.current_quote_expiry() {
                    rate = *current_rate;
                    events.push(E::DepositRequoted {
                        rate,
                        usdt_amount: *usdt_amount,
                        expires_ms: at_ms + quote_minutes * 60_000,
                        at_ms: *at_ms,
                    });
                }
                if *confirmations >= *required && self.status.is_open() {
                    let worth = super::rules::worth_of(*usdt_amount, rate, order.currency)
                        .ok_or(DepositError::State("amount overflow"))?;
                    events.push(E::DepositPaid {
                        provider_tx_id: tx_hash.clone(),
                        amount: worth,
                        currency: order.currency,
                        at_ms: *at_ms,
                        created: at_ms / 1000,
                    });
                }
                Ok(events)
            }
            MarkCredited { at_ms } => {
                let order = self.order()?;
                if self.credited {
                    return Ok(vec![]);
                }
                if self.status != S::Paid {
                    return Err(DepositError::State("only a paid order is credited"));
                }
                Ok(vec![E::DepositCredited {
                    member_id: order.member_id.clone(),
                    currency: order.currency,
                    amount: self.credit_amount.unwrap_or(order.amount),
                    order_id: order.order_id.clone(),
                    channel: order.channel,
                    credited_at: *at_ms,
                }])
            }
            MarkReversed { at_ms, taken } => {
                let order = self.order()?;
                if self.status == S::Reversed {
                    return Ok(vec![]);
                }
                Ok(vec![E::DepositReversed {
                    provider_tx_id: self.provider_tx_id.clone().unwrap_or_default(),
                    member_id: order.member_id.clone(),
                    currency: order.currency,
                    amount: if self.credited {
                        self.credit_amount.unwrap_or(order.amount)
                    } else {
                        Decimal::ZERO
                    },
                    order_id: order.order_id.clone(),
                    taken: *taken,
                    at_ms: *at_ms,
                }])
            }
            Cancel { at_ms } => {
                self.order()?;
                match self.status {
                    S::Cancelled => Ok(vec![]),
                    s if s.is_open() => Ok(vec![E::DepositCancelled { at_ms: *at_ms }]),
                    _ => Err(DepositError::State("only an open order is cancelled")),
                }
            }
            Expire { at_ms } => {
                let order = self.order()?;
                if self.status.is_open() && *at_ms >= order.expires_ms && self.chain_tx.is_none() {
                    Ok(vec![E::DepositExpired { at_ms: *at_ms }])
                } else {
                    Ok(vec![])
                }
            }
            Review {
                staff_id,
                credit,
                reason,
                at_ms,
            } => {
                let order = self.order()?;
                if self.status != S::Flagged {
                    return Err(DepositError::State("only a flagged order is reviewed"));
                }
                let mut events = vec![E::DepositReviewed {
                    staff_id: staff_id.clone(),
                    credit: *credit,
                    reason: reason.clone(),
                    at_ms: *at_ms,
                }];
                if *credit {
                    let (amount, currency) = self
                        .received
                        .clone()
                        .ok_or(DepositError::State("nothing was received"))?;
                    if currency != order.currency.code() {
                        return Err(DepositError::State(
                            "the payment came in another currency: refund it instead",
                        ));
                    }
                    events.push(E::DepositPaid {
                        provider_tx_id: self.provider_tx_id.clone().unwrap_or_default(),
                        amount,
                        currency: order.currency,
                        at_ms: *at_ms,
                        created: at_ms / 1000,
                    });
                }
                Ok(events)
            }
        }
    }

    fn current_rate(&self) -> Option<Decimal> {
        self.order
            .as_ref()
            .and_then(|o| o.quote.as_ref())
            .map(|q| q.rate)
    }

    fn current_quote_expiry(&self) -> i64 {
        self.order
            .as_ref()
            .and_then(|o| o.quote.as_ref())
            .map(|q| q.expires_ms)
            .unwrap_or(i64::MAX)
    }

    fn decide_report(&self, report: &Report) -> Result<Vec<DepositEvent>, DepositError> {
        use DepositEvent as E;
        use DepositStatus as S;
        let order = self.order()?;
        let key = (
            report.provider_tx_id.clone(),
            format!("{:?}", report.status),
        );
        let ignored = || {
            Ok(vec![E::DepositReportIgnored {
                provider_tx_id: report.provider_tx_id.clone(),
                status: report.status,
                created: report.created,
                at_ms: report.at_ms,
            }])
        };
        if self.seen.contains(&key) {
            return Ok(vec![]);
        }
        // Older than what this order already applied: out of order, stale.
        if self.newest_created.is_some_and(|n| report.created < n) {
            return ignored();
        }
        match report.status {
            ReportStatus::Paid => {
                let matches = report.amount == order.amount
                    && report.currency.eq_ignore_ascii_case(order.currency.code());
                let flag = |reason: &str| {
                    Ok(vec![E::DepositFlagged {
                        provider_tx_id: report.provider_tx_id.clone(),
                        reason: reason.to_string(),
                        amount: report.amount,
                        currency: report.currency.clone(),
                        created: report.created,
                        at_ms: report.at_ms,
                    }])
                };
                match self.status {
                    S::Created | S::Confirmed | S::Failed if matches => Ok(vec![E::DepositPaid {
                        provider_tx_id: report.provider_tx_id.clone(),
                        amount: order.amount,
                        currency: order.currency,
                        at_ms: report.at_ms,
                        created: report.created,
                    }]),
                    S::Created | S::Confirmed | S::Failed => {
                        flag("the amount or currency differs from the order")
                    }
                    S::Expired | S::Cancelled => flag("paid after the order was closed"),
                    S::Paid | S::Credited
                        if self.provider_tx_id.as_deref() != Some(&report.provider_tx_id) =>
                    {
                        flag("a second payment for a paid order")
                    }
                    _ => ignored(),
                }
            }
            ReportStatus::Failed => match self.status {
                S::Created | S::Confirmed => Ok(vec![E::DepositFailed {
                    provider_tx_id: report.provider_tx_id.clone(),
                    created: report.created,
                    at_ms: report.at_ms,
                }]),
                _ => ignored(),
            },
            ReportStatus::Reversed => match self.status {
                S::Reversed => Ok(vec![]),
                // A reversal first (the paid report still on its way):
                // the order closes uncredited and the late paid is stale.
                // A reversal first (the paid report still on its way):
                // the order closes uncredited and the late paid is stale.
                // After a credit the service takes the money back.
                _ => Ok(vec![E::DepositReversalReported {
                    provider_tx_id: report.provider_tx_id.clone(),
                    created: report.created,
                    at_ms: report.at_ms,
                }]),
            },
        }
    }

    /// Whether the service owes this order a wallet credit now.
    pub fn owes_credit(&self) -> bool {
        self.status == DepositStatus::Paid && !self.credited
    }

    /// Whether a reversal was reported and is not yet carried out.
    pub fn owes_reversal(&self) -> bool {
        self.reversal_reported && self.status != DepositStatus::Reversed
    }
}

impl Aggregate for Deposit {
    const TYPE: &'static str = "Deposit";
    type Command = DepositCommand;
    type Event = DepositEvent;
    type Error = DepositError;
    type Services = ();

    async fn handle(
        &mut self,
        command: Self::Command,
        _services: &Self::Services,
        sink: &EventSink<Self>,
    ) -> Result<(), Self::Error> {
        for event in self.decide(&command)? {
            sink.write(event, self).await;
        }
        Ok(())
    }

    fn apply(&mut self, event: Self::Event) {
        use DepositEvent::*;
        use DepositStatus as S;
        match event {
            DepositCreated(order) => {
                self.order = Some(order);
                self.status = S::Created;
            }
            DepositConfirmed { .. } => self.status = S::Confirmed,
            DepositPaid {
                provider_tx_id,
                amount,
                created,
                ..
            } => {
                self.seen.insert((provider_tx_id.clone(), "Paid".into()));
                self.bump(created);
                self.provider_tx_id = Some(provider_tx_id);
                self.credit_amount = Some(amount);
                self.status = S::Paid;
            }
            DepositCredited { .. } => {
                self.credited = true;
                self.status = S::Credited;
            }
            DepositFlagged {
                provider_tx_id,
                reason,
                amount,
                currency,
                created,
                ..
            } => {
                self.seen.insert((provider_tx_id.clone(), "Paid".into()));
                self.bump(created);
                if !matches!(self.status, S::Paid | S::Credited) {
                    self.provider_tx_id = Some(provider_tx_id);
                    self.received = Some((amount, currency));
                    self.status = S::Flagged;
                }
                self.flag_reason = Some(reason);
            }
            DepositFailed {
                provider_tx_id,
                created,
                ..
            } => {
                self.seen.insert((provider_tx_id, "Failed".into()));
                self.bump(created);
                self.status = S::Failed;
            }
            DepositReversed { .. } => self.status = S::Reversed,
            DepositReportIgnored {
                provider_tx_id,
                status,
                ..
            } => {
                self.seen.insert((provider_tx_id, format!("{status:?}")));
            }
            DepositReversalReported {
                provider_tx_id,
                created,
                ..
            } => {
                self.seen.insert((provider_tx_id, "Reversed".into()));
                self.bump(created);
                self.reversal_reported = true;
            }
            DepositRequoted {
                rate,
                usdt_amount,
                expires_ms,
                ..
            } => {
                if let Some(q) = self.order.as_mut().and_then(|o| o.quote.as_mut()) {
                    q.rate = rate;
                    q.usdt_amount = usdt_amount;
                    q.expires_ms = expires_ms;
                }
            }
            ChainTransferSeen {
                tx_hash,
                confirmations,
                ..
            } => {
                self.chain_tx = Some(tx_hash);
                self.confirmations = confirmations;
            }
            DepositCancelled { .. } => self.status = S::Cancelled,
            DepositExpired { .. } => self.status = S::Expired,
            DepositReviewed { credit, .. } => {
                if !credit {
                    self.status = S::Rejected;
                }
            }
        }
    }
}

impl Deposit {
    fn bump(&mut self, created: i64) {
        self.newest_created = Some(self.newest_created.map_or(created, |n| n.max(created)));
    }
}
