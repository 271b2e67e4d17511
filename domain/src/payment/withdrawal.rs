//! The Withdrawal aggregate: one per withdrawal request.
//!
//! Requested -> Approved | Rejected (finance) -> Paid | Failed; a member may
//! cancel while Requested when the platform allows it. The amount is frozen
//! in the wallet before the request is recorded (`withdrawal:{id}:freeze`);
//! a rejected, cancelled or failed withdrawal unfreezes it
//! (`withdrawal:{id}:unfreeze`); a paid one takes it out of the frozen
//! balance (`withdrawal:{id}:paid`). Who decided and why travel in the
//! events and in the events' metadata.

use cqrs_es::event_sink::EventSink;
use cqrs_es::{Aggregate, DomainEvent};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::rules::codes;
use crate::Currency;

/// Where the money goes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Destination {
    /// "card" or "usdt".
    pub kind: String,
    /// Bank name, or the USDT chain.
    pub bank_name: String,
    /// The masked number or address.
    pub masked: String,
    pub holder: String,
    pub account_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewWithdrawal {
    pub withdrawal_id: String,
    pub member_id: String,
    pub currency: Currency,
    pub amount: Decimal,
    pub destination: Destination,
    pub requested_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum WithdrawalCommand {
    Request(NewWithdrawal),
    Approve {
        staff_id: String,
        reason: String,
        at_ms: i64,
    },
    Reject {
        staff_id: String,
        reason: String,
        at_ms: i64,
    },
    Cancel {
        allowed: bool,
        at_ms: i64,
    },
    /// The payout went out (the wallet's frozen money is already taken).
    MarkPaid {
        staff_id: String,
        payout_reference: String,
        at_ms: i64,
    },
    Fail {
        staff_id: String,
        reason: String,
        at_ms: i64,
    },
    /// `delwithdraw`: the member hides a finished withdrawal from the list.
    Hide {
        at_ms: i64,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum WithdrawalEvent {
    WithdrawalRequested(NewWithdrawal),
    WithdrawalApproved {
        staff_id: String,
        reason: String,
        at_ms: i64,
    },
    WithdrawalRejected {
        staff_id: String,
        reason: String,
        at_ms: i64,
    },
    WithdrawalCancelled {
        at_ms: i64,
    },
    WithdrawalPaid {
        withdrawal_id: String,
        member_id: String,
        currency: Currency,
        amount: Decimal,
        order_id: String,
        /// Unix milliseconds of the payout (named as the deposit's field).
        credited_at: i64,
        staff_id: String,
        payout_reference: String,
    },
    WithdrawalFailed {
        staff_id: String,
        reason: String,
        at_ms: i64,
    },
    WithdrawalHidden {
        at_ms: i64,
    },
}

impl DomainEvent for WithdrawalEvent {
    fn event_type(&self) -> String {
        use WithdrawalEvent::*;
        match self {
            WithdrawalRequested(_) => "WithdrawalRequested",
            WithdrawalApproved { .. } => "WithdrawalApproved",
            WithdrawalRejected { .. } => "WithdrawalRejected",
            WithdrawalCancelled { .. } => "WithdrawalCancelled",
            WithdrawalPaid { .. } => "WithdrawalPaid",
            WithdrawalFailed { .. } => "WithdrawalFailed",
            WithdrawalHidden { .. } => "WithdrawalHidden",
        }
        .to_string()
    }

    fn event_version(&self) -> String {
        "1.0".to_string()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WithdrawalStatus {
    #[default]
    None,
    Requested,
    Approved,
    Rejected,
    Cancelled,
    Paid,
    Failed,
}

impl WithdrawalStatus {
    pub fn name(self) -> &'static str {
        use WithdrawalStatus::*;
        match self {
            None => "none",
            Requested => "requested",
            Approved => "approved",
            Rejected => "rejected",
            Cancelled => "cancelled",
            Paid => "paid",
            Failed => "failed",
        }
    }

    /// Finished, with the frozen amount given back.
    pub fn unfreezes(self) -> bool {
        matches!(
            self,
            WithdrawalStatus::Rejected | WithdrawalStatus::Cancelled | WithdrawalStatus::Failed
        )
    }

    pub fn is_final(self) -> bool {
        self.unfreezes() || self == WithdrawalStatus::Paid
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WithdrawalError {
    #[error("Unknown withdrawal")]
    Unknown,
    #[error("The withdrawal cannot do that now ({0})")]
    State(&'static str),
    #[error("A pending withdrawal cannot be cancelled here")]
    CancelNotAllowed,
}

impl WithdrawalError {
    pub fn code(&self) -> i32 {
        match self {
            WithdrawalError::Unknown => codes::UNKNOWN_WITHDRAWAL,
            WithdrawalError::State(_) => codes::WITHDRAWAL_STATE,
            WithdrawalError::CancelNotAllowed => codes::CANCEL_NOT_ALLOWED,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Withdrawal {
    pub request: Option<NewWithdrawal>,
    pub status: WithdrawalStatus,
    pub hidden: bool,
}

impl Withdrawal {
    /// The pure decision. A repeat of a transition already made answers
    /// with no events, so the caller's idempotent money step can run again.
    pub fn decide(&self, cmd: &WithdrawalCommand) -> Result<Vec<WithdrawalEvent>, WithdrawalError> {
        use WithdrawalCommand::*;
        use WithdrawalEvent as E;
        use WithdrawalStatus as S;
        if let Request(new) = cmd {
            return match &self.request {
                None => Ok(vec![E::WithdrawalRequested(new.clone())]),
                Some(existing) if existing == new => Ok(vec![]),
                Some(_) => Err(WithdrawalError::State("the id is taken")),
            };
        }
        let request = self.request.as_ref().ok_or(WithdrawalError::Unknown)?;
        let status = self.status;
        let events = match cmd {
            Request(_) => unreachable!("handled above"),
            Approve {
                staff_id,
                reason,
                at_ms,
            } => match status {
                S::Requested => vec![E::WithdrawalApproved {
                    staff_id: staff_id.clone(),
                    reason: reason.clone(),
                    at_ms: *at_ms,
                }],
                S::Approved => vec![],
                _ => return Err(WithdrawalError::State("only a requested one is approved")),
            },
            Reject {
                staff_id,
                reason,
                at_ms,
            } => match status {
                S::Requested | S::Approved => vec![E::WithdrawalRejected {
                    staff_id: staff_id.clone(),
                    reason: reason.clone(),
                    at_ms: *at_ms,
                }],
                S::Rejected => vec![],
                _ => return Err(WithdrawalError::State("only an unpaid one is rejected")),
            },
            Cancel { allowed, at_ms } => match status {
                S::Cancelled => vec![],
                S::Requested if *allowed => vec![E::WithdrawalCancelled { at_ms: *at_ms }],
                S::Requested => return Err(WithdrawalError::CancelNotAllowed),
                _ => return Err(WithdrawalError::State("only a requested one is cancelled")),
            },
            MarkPaid {
                staff_id,
                payout_reference,
                at_ms,
            } => match status {
                S::Approved => vec![E::WithdrawalPaid {
                    withdrawal_id: request.withdrawal_id.clone(),
                    member_id: request.member_id.clone(),
                    currency: request.currency,
                    amount: request.amount,
                    order_id: request.withdrawal_id.clone(),
                    credited_at: *at_ms,
                    staff_id: staff_id.clone(),
                    payout_reference: payout_reference.clone(),
                }],
                S::Paid => vec![],
                _ => return Err(WithdrawalError::State("only an approved one is paid")),
            },
            Fail {
                staff_id,
                reason,
                at_ms,
            } => match status {
                S::Approved => vec![E::WithdrawalFailed {
                    staff_id: staff_id.clone(),
                    reason: reason.clone(),
                    at_ms: *at_ms,
                }],
                S::Failed => vec![],
                _ => return Err(WithdrawalError::State("only an approved one fails")),
            },
            Hide { at_ms } => {
                if self.hidden {
                    vec![]
                } else if status.is_final() {
                    vec![E::WithdrawalHidden { at_ms: *at_ms }]
                } else {
                    return Err(WithdrawalError::State("only a finished one is deleted"));
                }
            }
        };
        Ok(events)
    }
}

impl Aggregate for Withdrawal {
    const TYPE: &'static str = "Withdrawal";
    type Command = WithdrawalCommand;
    type Event = WithdrawalEvent;
    type Error = WithdrawalError;
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
        use WithdrawalEvent::*;
        use WithdrawalStatus as S;
        match event {
            WithdrawalRequested(new) => {
                self.request = Some(new);
                self.status = S::Requested;
            }
            WithdrawalApproved { .. } => self.status = S::Approved,
            WithdrawalRejected { .. } => self.status = S::Rejected,
            WithdrawalCancelled { .. } => self.status = S::Cancelled,
            WithdrawalPaid { .. } => self.status = S::Paid,
            WithdrawalFailed { .. } => self.status = S::Failed,
            WithdrawalHidden { .. } => self.hidden = true,
        }
    }
}
