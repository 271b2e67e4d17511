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
}
