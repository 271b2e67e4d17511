use std::collections::BTreeMap;

use cqrs_es::DomainEvent;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::{AcceptedTerms, BetStatus, ExpressBonus, ValidBet};
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
        /// The cash-out flag (`cash_out_offered`); none on events recorded
        /// before cash-out existed (the flag is then derived from the bet).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cash_out: Option<bool>,
    },
    /// A held super bet stands (super_bet_status 1).
    BetAccepted {
        at_ms: i64,
        /// The staff member who accepted it; none when the member accepted
        /// a counter offer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        staff_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// The member accepted support's counter offer.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        counter_offer: bool,
        /// The terms it stands on and the wallet step (take `stake_taken`
        /// of the held stake, release `stake_released`); none on events
        /// recorded before counter offers (the terms asked for).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        terms: Option<AcceptedTerms>,
    },
    /// The wallet releases `stake` (held, never taken).
    BetDeclined {
        member_id: String,
        currency: Currency,
        stake: Decimal,
        /// 0 for a decision by support or the member (see `reason`).
        reason_code: i32,
        at_ms: i64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        staff_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// The member declined support's counter offer.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        counter_offer: bool,
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
    /// A cash-out: the wallet credits `amount` once (reference
    /// `bet:{id}:cashout:{number}`). `stake_part` of the stake stops
    /// running, `remaining_stake` runs on; `full`: nothing runs on and the
    /// bet is Cashed out (5).
    BetCashedOut {
        member_id: String,
        currency: Currency,
        request_id: String,
        /// 1 for the bet's first cash-out, 2 for the next...
        number: u32,
        amount: Decimal,
        stake_part: Decimal,
        remaining_stake: Decimal,
        /// The possible win of the remaining stake.
        possible_win: Option<Decimal>,
        full: bool,
        by_rule: bool,
        at_ms: i64,
    },
    AutoCashoutSet {
        min_amount: Decimal,
        partial_amount: Option<Decimal>,
        at_ms: i64,
    },
    AutoCashoutCancelled {
        at_ms: i64,
    },
    /// Support's counter offer on a held super bet: the effective terms
    /// (see `CounterOffer`). Nothing moves in the wallet.
    CounterOffered {
        staff_id: String,
        amount: Decimal,
        price: Option<Decimal>,
        reason: String,
        at_ms: i64,
    },
}

impl BetEvent {
    /// Money the wallet owes the member because of this event (negative:
    /// the member owes it back): a settlement's payout and bonus, a
    /// re-settlement's difference, a cash-out's amount. Stakes taken or
    /// released are not in it (`BetAccepted::terms`, `BetDeclined::stake`).
    pub fn amount_due(&self) -> Decimal {
        match self {
            BetEvent::BetSettled { payout, bonus, .. } => payout + bonus,
            BetEvent::BetResettled {
                payout,
                bonus,
                previous_payout,
                ..
            } => payout + bonus - previous_payout,
            BetEvent::BetCashedOut { amount, .. } => *amount,
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
            BetEvent::BetCashedOut { .. } => "BetCashedOut",
            BetEvent::AutoCashoutSet { .. } => "AutoCashoutSet",
            BetEvent::AutoCashoutCancelled { .. } => "AutoCashoutCancelled",
            BetEvent::CounterOffered { .. } => "CounterOffered",
        }
        .to_string()
    }

    fn event_version(&self) -> String {
        "1.0".to_string()
    }
}
