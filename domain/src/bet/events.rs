use std::collections::BTreeMap;

use cqrs_es::DomainEvent;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::{BetStatus, ExpressBonus, ValidBet};
use crate::result::SelectionOutcome;
use crate::Currency;

/// Events of the Bet aggregate. Each carries what the bet history, the
/// wallet and the audit trail need without reading other streams.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum BetEvent {
    BetPlaced {
        bet_id: String,
        member_id: String,
        currency: Currency,
        request_id: String,
        /// Type, stake, legs with names and prices, k, possible win.
        bet: ValidBet,
        #[serde(default)]
        express_bonus: ExpressBonus,
        /// 0 Unsettled, or -5 OnHold for a super bet.
        status: BetStatus,
        /// Unix seconds (spec `date_time`).
        date_time: i64,
        at_ms: i64,
    },
    BetAccepted {
        at_ms: i64,
    },
    BetDeclined {
        member_id: String,
        currency: Currency,
        stake: Decimal,
        reason_code: i32,
        at_ms: i64,
    },
    /// The first settlement: the wallet pays `payout + bonus`.
    BetSettled {
        member_id: String,
        currency: Currency,
        status: BetStatus,
        payout: Decimal,
        bonus: Decimal,
        result_version: u64,
        /// The outcomes of the bet's legs it was settled on.
        outcomes: BTreeMap<u64, SelectionOutcome>,
        #[serde(default)]
        sp_prices: BTreeMap<u64, Decimal>,
        at_ms: i64,
    },
    /// A corrected result: the wallet moves `payout + bonus -
    /// previous_payout` (a credit or a debit); history is never edited.
    BetResettled {
        member_id: String,
        currency: Currency,
        /// Everything paid before this event (payout and bonus).
        previous_payout: Decimal,
        status: BetStatus,
        payout: Decimal,
        bonus: Decimal,
        result_version: u64,
        outcomes: BTreeMap<u64, SelectionOutcome>,
        #[serde(default)]
        sp_prices: BTreeMap<u64, Decimal>,
        at_ms: i64,
    },
}

impl BetEvent {
    /// Money the wallet owes the member because of this event (negative:
    /// the member owes it back).
    pub fn amount_due(&self) -> Decimal {
        match self {
            BetEvent::BetSettled { payout, bonus, .. } => payout + bonus,
            BetEvent::BetResettled {
                payout,
                bonus,
                previous_payout,
                ..
            } => payout + bonus - previous_payout,
            _ => Decimal::ZERO,
        }
    }
}

impl DomainEvent for BetEvent {
    fn event_type(&self) -> String {
        match self {
            BetEvent::BetPlaced { .. } => "BetPlaced",
            BetEvent::BetAccepted { .. } => "BetAccepted",
            BetEvent::BetDeclined { .. } => "BetDeclined",
            BetEvent::BetSettled { .. } => "BetSettled",
            BetEvent::BetResettled { .. } => "BetResettled",
        }
        .to_string()
    }

    fn event_version(&self) -> String {
        "1.0".to_string()
    }
}
