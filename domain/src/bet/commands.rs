use std::collections::BTreeMap;

use rust_decimal::Decimal;

use super::{ExpressBonus, ValidBet};
use crate::result::SelectionOutcome;
use crate::Currency;

/// Commands of the Bet aggregate (one per bet id). Time comes in as
/// `at_ms` (unix milliseconds).
#[derive(Debug, Clone, PartialEq)]
pub enum BetCommand {
    /// Record a bet that passed `validate` and whose stake the wallet holds.
    /// A repeat with the same `request_id` changes nothing.
    Place {
        bet_id: String,
        member_id: String,
        currency: Currency,
        request_id: String,
        bet: ValidBet,
        /// The express bonus terms in force when the bet is placed.
        express_bonus: ExpressBonus,
        at_ms: i64,
    },
    /// Support accepts a super bet held for approval.
    Accept { at_ms: i64 },
    /// Decline a bet not settled yet (a held super bet, or a bet the stake
    /// could not be taken for).
    Decline { reason_code: i32, at_ms: i64 },
    /// Settle (or re-settle) on the outcomes known at `result_version`.
    /// Versions must grow with every new piece of result information that
    /// can touch the bet (for example the global position of the result
    /// event that triggered it); a version not above the last one applied
    /// changes nothing.
    Settle {
        result_version: u64,
        outcomes: BTreeMap<u64, SelectionOutcome>,
        sp_prices: BTreeMap<u64, Decimal>,
        at_ms: i64,
    },
    /// Cash out (all, or `partial` of) the bet at `current_amount`, the
    /// amount `cashout_amount` gives now. `client_price` is the full amount
    /// the client showed: a different amount at one decimal place, or a
    /// `partial` above `current_amount`, is refused with the new price. A
    /// repeat of a `request_id` already cashed out changes nothing. `by_rule`:
    /// fired by the bet's auto cash-out rule (see `auto_cashout_due`), which
    /// it spends. `quoted_stake` is the remaining stake `current_amount`
    /// was computed on (`Bet::remaining_stake` when quoted): a command
    /// quoted on another stake is refused (`BetError::StaleQuote`), so two
    /// cash-outs racing on one bet are never both paid on the stake only
    /// one of them may take.
    CashOut {
        request_id: String,
        quoted_stake: Decimal,
        current_amount: Decimal,
        client_price: Decimal,
        partial: Option<Decimal>,
        by_rule: bool,
        at_ms: i64,
    },
    /// Set (or replace) the auto cash-out rule: fire when the current
    /// amount reaches `min_amount`, cashing out all or `partial_amount`.
    /// `current_amount` and `possible_win` are the bet's now (the bounds
    /// of `min_amount` follow from them).
    SetAutoCashout {
        min_amount: Decimal,
        partial_amount: Option<Decimal>,
        current_amount: Decimal,
        possible_win: Decimal,
        at_ms: i64,
    },
    /// Drop the auto cash-out rule (nothing happens when there is none).
    CancelAutoCashout { at_ms: i64 },
    /// Support offers other terms for a held super bet: a lower stake
    /// and/or (a single) another price; at least one.
    OfferCounter {
        staff_id: String,
        amount: Option<Decimal>,
        price: Option<Decimal>,
        reason: String,
        at_ms: i64,
    },
    /// Support accepts a held super bet on the terms asked for.
    SupportAccept {
        staff_id: String,
        reason: Option<String>,
        at_ms: i64,
    },
    /// Support declines a held super bet; a reason is required.
    SupportDecline {
        staff_id: String,
        reason: String,
        at_ms: i64,
    },
    /// The member's answer to the pending counter offer.
    AnswerCounter { accept: bool, at_ms: i64 },
}
