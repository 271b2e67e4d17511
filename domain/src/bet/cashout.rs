//! Cash-out, auto cash-out and super-bet counter offers: the pure rules
//! (spec 000 sections 4, 5 and 9; docs/cashout-and-backoffice.md). The Bet
//! aggregate decides with them; the service layer computes the current
//! cash-out amount with `cashout_amount` from live prices and the outcomes
//! known so far, and hands it to the aggregate in the command.
//!
//! Readings chosen where the spec is open:
//! - The cash-out flag (`Placement::cash_out`) is on for singles and
//!   expresses on fixed prices that are not each-way (`cash_out_offered`);
//!   it is decided when the bet is placed and recorded in `BetPlaced`.
//! - Formula: `k / product(current price of each unsettled selection) x
//!   remaining stake x 0.9^(unsettled selections)`, rounded to one decimal
//!   place, half away from zero (12.25 -> 12.3, 12.24 -> 12.2).
//!   - A won selection is settled: it leaves the product and the count and
//!     k keeps its price (its value is locked in).
//!   - A lost selection: not cashable (`None`).
//!   - A returned (void) selection counts as price 1: k is divided by its
//!     placed price.
//!   - Half won / half lost: settled with their effective factor, like
//!     settlement: k is divided by the placed price and multiplied by
//!     (price + 1) / 2 (half won) or 1/2 (half lost).
//!   - An unsettled selection without a live price above 1 suspends the
//!     cash-out (`None`); so does a bet with no unsettled selection left
//!     (the settlement is about to pay it) or an amount that rounds to 0.
//!   - The amount never exceeds what the remaining stake would pay if every
//!     open selection won (remaining stake x the exact product of the
//!     placed prices and the settled factors, at most `MAX_LINE_ODDS` as
//!     settlement caps a line, rounded toward zero to one place). The 0.9
//!     margin keeps the formula far below that; the cap only binds for
//!     stakes below about 0.5, a k rounded up or a price past 10^9, and it
//!     is what makes "cash-outs + settlement never pay more than the
//!     possible win" hold exactly.
//! - Partial cash-out of `partial` out of the current amount `current`: the
//!   stake given up is `remaining stake x partial / current` rounded UP to
//!   the currency (so a member never keeps stake a cash-out paid for; a
//!   tiny partial always gives up at least 0.01). A partial cash-out that
//!   would leave less than 0.01 of stake is a full one (pays `current`).
//! - A cash-out command names the remaining stake its amount was quoted on;
//!   the aggregate refuses it when the bet's remaining stake is another
//!   (`BetError::StaleQuote`: a cash-out committed since the quote), and the
//!   service quotes again. Two partial cash-outs racing on one bet can thus
//!   never both be paid on the same stake.
//! - Auto cash-out bounds: `[current x 1.01 rounded up, possible win x 0.99
//!   rounded down]` at the currency's places; the partial amount (if any)
//!   is > 0 and at most the trigger amount. Amounts must already be at the
//!   currency's precision (slider step 0.01).
//! - Counter offers: support offers a stake (at most the stake asked for)
//!   and/or, on a single with a fixed price, a price (> 1, at most 3
//!   places). The offer records the effective terms: the stake the bet
//!   would stand on (for a system the unit stake is rounded down so the
//!   lines add up) and the bet's k on those terms.

use std::collections::BTreeMap;

use rust_decimal::{Decimal, RoundingStrategy};
use serde::{Deserialize, Serialize};

use super::arith::place_odds;
use super::model::{Leg, ValidBet};
use super::settle::{outcome_factor, settle, ExpressBonus, LegResults, MAX_LINE_ODDS};
use super::{Bet, BetCommand, BetType, Placement};
use crate::money::round_odds;
use crate::result::SelectionOutcome;
use crate::Currency;

/// What each unsettled selection keeps of the bet's value (spec 000
/// section 9: `0.9^n`).
pub const CASHOUT_MARGIN: Decimal = Decimal::from_parts(9, 0, 0, false, 1);
/// Places of a cash-out amount (spec 000 section 9).
pub const CASHOUT_PLACES: u32 = 1;
/// Auto cash-out trigger bounds: 1% above the current amount ...
pub const AUTO_MIN_FACTOR: Decimal = Decimal::from_parts(101, 0, 0, false, 2);
/// ... and 1% below the possible win (spec 000 section 5).
pub const AUTO_MAX_FACTOR: Decimal = Decimal::from_parts(99, 0, 0, false, 2);

/// An auto cash-out rule (spec 000 section 3, cash-out rule).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutoCashout {
    /// The rule fires when the current amount reaches this.
    pub min_amount: Decimal,
    /// Cash out this much of the current amount; none: all of it.
    pub partial_amount: Option<Decimal>,
    /// 1 for the bet's first rule, 2 for the next...: the request id of
    /// the cash-out it fires is `auto:{number}` (see `auto_cashout_due`).
    pub number: u32,
    pub at_ms: i64,
}

/// A counter offer support made on a held super bet: the terms the bet
/// would stand on if the member accepts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CounterOffer {
    /// The stake the bet would stand on.
    pub amount: Decimal,
    /// The bet's k on the offered terms (the single's price when a price
    /// was offered); none for a bet without one k (system, chain, SP).
    pub price: Option<Decimal>,
    pub reason: String,
    pub at_ms: i64,
}

/// The terms a held super bet is accepted on, and what the wallet does:
/// take `stake_taken` from the held stake and release `stake_released`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AcceptedTerms {
    pub member_id: String,
    pub currency: Currency,
    /// The stake the bet now stands on.
    pub stake: Decimal,
    pub unit_stake: Decimal,
    /// The single's new price, when a counter offer changed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<Decimal>,
    pub odds: Option<Decimal>,
    pub possible_win: Option<Decimal>,
    pub stake_taken: Decimal,
    pub stake_released: Decimal,
}

/// Whether a bet gets the cash-out flag: a single or an express on fixed
/// prices, not each-way, not staked with a free bet.
pub fn cash_out_offered(bet: &ValidBet) -> bool {
    matches!(bet.bet_type, BetType::Single | BetType::Express)
        && !bet.each_way
        && bet.bonus_id.is_none()
        && bet.odds.is_some()
        && !bet.legs.iter().any(Leg::is_sp)
}

/// The cash-out amount of `placement` now (see the module notes), at one
/// decimal place, or `None` when it cannot be cashed out now.
///
/// `prices` are the live prices by event id (`None` or missing: no price),
/// `outcomes` the selections' outcomes known so far (missing: unsettled),
/// `k` the bet's odds and `remaining_stake` its stake after partial
/// cash-outs. This does not look at the bet's status: `Bet::cashout_amount`
/// does.
pub fn cashout_amount(
    placement: &Placement,
    remaining_stake: Decimal,
    k: Decimal,
    prices: &BTreeMap<u64, Option<Decimal>>,
    outcomes: &BTreeMap<u64, SelectionOutcome>,
) -> Option<Decimal> {
    let bet = &placement.bet;
    if !placement.cash_out
        || !matches!(bet.bet_type, BetType::Single | BetType::Express)
        || remaining_stake <= Decimal::ZERO
        || k <= Decimal::ZERO
    {
        return None;
    }
    let mut k = k;
    let mut current = Decimal::ONE;
    let mut open: u32 = 0;
    // What the remaining stake pays if every open selection wins.
    let mut value = remaining_stake;
    for leg in &bet.legs {
        if leg.is_sp() || leg.price <= Decimal::ZERO {
            return None;
        }
        match outcomes.get(&leg.event_id) {
            None => {
                let live = prices
                    .get(&leg.event_id)
                    .copied()
                    .flatten()
                    .filter(|p| *p > Decimal::ONE)?;
                current = current.checked_mul(live)?;
                open += 1;
                value = value.checked_mul(leg.price)?;
            }
            Some(SelectionOutcome::Lost | SelectionOutcome::Placed) => return None,
            Some(SelectionOutcome::Won) => value = value.checked_mul(leg.price)?,
            Some(outcome) => {
                let factor = outcome_factor(*outcome, leg.price);
                k = k.checked_div(leg.price)?.checked_mul(factor)?;
                value = value.checked_mul(factor)?;
            }
        }
    }
    if open == 0 {
        return None;
    }
    let mut margin = Decimal::ONE;
    for _ in 0..open {
        margin *= CASHOUT_MARGIN;
    }
    let exact = k
        .checked_div(current)?
        .checked_mul(remaining_stake)?
        .checked_mul(margin)?;
    let rounded =
        exact.round_dp_with_strategy(CASHOUT_PLACES, RoundingStrategy::MidpointAwayFromZero);
    // Settlement pays a line at most `MAX_LINE_ODDS` times its stake.
    let value = value.min(remaining_stake.saturating_mul(MAX_LINE_ODDS));
    let cap = value.round_dp_with_strategy(CASHOUT_PLACES, RoundingStrategy::ToZero);
    let mut amount = rounded.min(cap);
    if amount <= Decimal::ZERO {
        return None;
    }
    amount.rescale(CASHOUT_PLACES);
    Some(amount)
}

/// An amount at one decimal place, half away from zero (how a client's
/// price is compared with the current amount).
pub fn at_one_place(amount: Decimal) -> Decimal {
    let mut rounded =
        amount.round_dp_with_strategy(CASHOUT_PLACES, RoundingStrategy::MidpointAwayFromZero);
    rounded.rescale(CASHOUT_PLACES);
    rounded
}

/// The stake a partial cash-out of `partial` out of `current` gives up:
/// `remaining x partial / current`, rounded up to the currency.
pub fn stake_part(
    remaining: Decimal,
    partial: Decimal,
    current: Decimal,
    currency: Currency,
) -> Decimal {
    let exact = remaining * partial / current;
    let mut part = exact.round_dp_with_strategy(currency.places(), RoundingStrategy::AwayFromZero);
    part.rescale(currency.places());
    part.min(remaining)
}

/// The bounds an auto cash-out trigger must lie in: `(current x 1.01
/// rounded up, possible win x 0.99 rounded down)` at the currency's places.
/// When the first is above the second no trigger is possible.
pub fn auto_cashout_bounds(
    current_amount: Decimal,
    possible_win: Decimal,
    currency: Currency,
) -> (Decimal, Decimal) {
    let places = currency.places();
    let mut min = (current_amount * AUTO_MIN_FACTOR)
        .round_dp_with_strategy(places, RoundingStrategy::ToPositiveInfinity);
    let mut max = (possible_win * AUTO_MAX_FACTOR)
        .round_dp_with_strategy(places, RoundingStrategy::ToNegativeInfinity);
    min.rescale(places);
    max.rescale(places);
    (min, max)
}

/// Whether `bet`'s auto cash-out rule fires at `current_amount` (the
/// current cash-out amount, from `cashout_amount`), and the command to
/// execute when it does: a cash-out by the rule of the whole current amount
/// or of the rule's partial amount. Its request id (`auto:{number}`) is the
/// same for every firing of one rule, so two workers firing it at once cash
/// out once. `current_amount` must be quoted on `bet` as it is (its
/// remaining stake now): the command carries that stake, and the aggregate
/// refuses it once another cash-out has changed it.
pub fn auto_cashout_due(bet: &Bet, current_amount: Decimal, at_ms: i64) -> Option<BetCommand> {
    if !bet.is_cashable() || current_amount <= Decimal::ZERO {
        return None;
    }
    let rule = bet.auto_cashout.as_ref()?;
    if current_amount < rule.min_amount {
        return None;
    }
    Some(BetCommand::CashOut {
        request_id: format!("auto:{}", rule.number),
        quoted_stake: bet.remaining_stake(),
        current_amount,
        client_price: current_amount,
        partial: rule.partial_amount.filter(|p| *p < current_amount),
        by_rule: true,
        at_ms,
    })
}

/// `bet` staked with `stake` (and, for a single, priced at `price`): the
/// unit stake is the stake over the lines, rounded down to the currency;
/// k and the possible win follow.
pub fn reprice(
    bet: &ValidBet,
    stake: Decimal,
    price: Option<Decimal>,
    currency: Currency,
) -> ValidBet {
    let mut out = bet.clone();
    let lines = Decimal::from((bet.combinations.len() * bet.parts()).max(1));
    let unit = (stake / lines).round_dp_with_strategy(currency.places(), RoundingStrategy::ToZero);
    out.unit_stake = currency.round(unit);
    out.stake = currency.round(unit * lines);
    if let (Some(price), BetType::Single) = (price, bet.bet_type) {
        for leg in &mut out.legs {
            leg.price = price;
            leg.place_price = leg.ew_coeff.map(|c| place_odds(price, c));
        }
        out.odds = Some(round_odds(price));
    }
    out.possible_win = possible_win(&out, currency);
    out
}

/// `bet` with only `remaining_stake` left running (after partial
/// cash-outs; singles and expresses only, one line): what a settlement
/// pays on.
pub fn running_bet(bet: &ValidBet, remaining_stake: Decimal, currency: Currency) -> ValidBet {
    if remaining_stake == bet.stake {
        return bet.clone();
    }
    let mut out = bet.clone();
    out.unit_stake = currency.round(remaining_stake);
    out.stake = currency.round(remaining_stake);
    out.possible_win = possible_win(&out, currency);
    out
}

/// The payout when every leg wins (no bonus); none when a leg is SP.
fn possible_win(bet: &ValidBet, currency: Currency) -> Option<Decimal> {
    if bet.legs.iter().any(Leg::is_sp) {
        return None;
    }
    let all_won = LegResults::new(
        bet.legs
            .iter()
            .map(|l| (l.event_id, SelectionOutcome::Won))
            .collect(),
    );
    Some(settle(bet, &all_won, currency, ExpressBonus::None).payout)
}
