//! Settlement, pure: a `ValidBet` and its selections' outcomes in, the
//! status and payout out.
//!
//! A bet is a set of lines: each combination (one for a single, express or
//! chain; C(n - bankers, k - bankers) for a system), twice for each-way (a
//! win part on the price, a place part on the place odds). Each line is
//! staked with `unit_stake` and its payout is rounded to the currency; the
//! bet's payout is the sum of its lines, so a system pays exactly the sum
//! of its combinations' express settlements.
//!
//! Leg factors: Won = price, HalfWon = (price + 1) / 2, Returned = 1,
//! HalfLost = 1/2, Lost = 0. An express line pays stake x product.
//!
//! Readings chosen where the spec is open:
//! - Chain: legs in the order of the request; the first is staked with
//!   the unit stake S; each leg's return funds the next leg's stake up to
//!   S, anything above S is banked; a leg that returns nothing ends the
//!   chain (later legs do not matter) and the bank is paid; after the last
//!   leg the bank plus what rides is paid. All won at 2.0 / 2.0 with S = 10
//!   pays 30 (an express would pay 40). Each leg's return is rounded.
//! - Each-way: the place part pays on the place odds (`Leg::place_price`,
//!   or for an SP leg `place_odds(SP, ew_coeff)`). A `Placed` outcome (the
//!   runner finished within the places but did not win) is Lost for the
//!   win part and Won for the place part; a winner (`Won`) wins both. Any
//!   other outcome applies to both parts alike (a leg "places" exactly
//!   when it wins, half-wins ...): markets without a place result.
//!   Outside each-way (a plain bet, the win part) `Placed` is Lost.
//! - SP legs settle at the starting price the result gives
//!   (`LegResults::sp_prices`); without one a won or half-won SP leg
//!   counts as Returned (Lost, HalfLost and Returned need no price).
//! - Status: payout > stake Won (3), payout == stake Returned (2),
//!   payout < stake Lost (1), also when something came back (a half-lost
//!   single): the status says whether the member gained, `payout` says
//!   what is paid.
//! - A bet settles as soon as its payout cannot change any more: an
//!   express with a lost leg, a chain that ended, a system whose every
//!   combination is decided, even when other legs have no outcome yet.
//! - Express bonus (off by default): a percent of the winnings (payout -
//!   stake) of an express that settles Won, in `bonus` next to `payout`.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::arith::place_odds;
use super::model::{Leg, ValidBet};
use super::{BetStatus, BetType};
use crate::result::SelectionOutcome;
use crate::Currency;

/// The outcomes known so far (a missing event id is unsettled) and the
/// starting prices of SP selections.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LegResults {
    pub outcomes: BTreeMap<u64, SelectionOutcome>,
    #[serde(default)]
    pub sp_prices: BTreeMap<u64, Decimal>,
}

impl LegResults {
    pub fn new(outcomes: BTreeMap<u64, SelectionOutcome>) -> Self {
        Self {
            outcomes,
            sp_prices: BTreeMap::new(),
        }
    }
}

/// Express bonus terms (spec 000 section 9); none by default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExpressBonus {
    #[default]
    None,
    /// Type 1: the percent equals the number of selections.
    PerSelection,
    /// Type 2: n percent up to 5 selections, then 10, 15, 20, 25 and 30
    /// percent for 6, 7, 8, 9 and 10 or more.
    Ladder,
}

impl ExpressBonus {
    /// The bonus percent for an express of `selections` legs.
    pub fn percent(self, selections: usize) -> Decimal {
        let n = selections as u64;
        Decimal::from(match self {
            ExpressBonus::None => 0,
            ExpressBonus::PerSelection => n,
            ExpressBonus::Ladder if n <= 5 => n,
            ExpressBonus::Ladder => (10 + 5 * (n - 6)).min(30),
        })
    }
}

/// A bet's settlement. `payout` excludes `bonus`; the member is paid both.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BetSettlement {
    pub status: BetStatus,
    pub payout: Decimal,
    pub bonus: Decimal,
}

impl BetSettlement {
    pub fn unsettled() -> Self {
        Self {
            status: BetStatus::Unsettled,
            payout: Decimal::ZERO,
            bonus: Decimal::ZERO,
        }
    }

    /// Everything the member is paid.
    pub fn total(&self) -> Decimal {
        self.payout + self.bonus
    }
}

/// The most one line's legs multiply its stake by. Placement keeps fixed
/// prices under the odds limit, but starting prices are only known at
/// settlement: a line past this pays this (rust_decimal would overflow and
/// panic on some products of long prices).
pub const MAX_LINE_ODDS: Decimal = Decimal::from_parts(1_000_000_000, 0, 0, false, 0);

/// What one leg multiplies its stake by (a win bet: `Placed` is a loss).
pub fn outcome_factor(outcome: SelectionOutcome, price: Decimal) -> Decimal {
    let half = Decimal::new(5, 1);
    match outcome {
        SelectionOutcome::Won => price,
        // Halved before the 1 is added only where the sum would not fit a
        // Decimal (a starting price at the top of its range): same value.
        SelectionOutcome::HalfWon => price
            .checked_add(Decimal::ONE)
            .map_or(price * half + half, |sum| sum * half),
        SelectionOutcome::Returned => Decimal::ONE,
        SelectionOutcome::HalfLost => half,
        SelectionOutcome::Lost | SelectionOutcome::Placed => Decimal::ZERO,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Win,
    Place,
}

/// The outcome as `part` reads it: a placed runner wins the place part.
fn part_outcome(outcome: SelectionOutcome, part: Part) -> SelectionOutcome {
    match (outcome, part) {
        (SelectionOutcome::Placed, Part::Place) => SelectionOutcome::Won,
        (SelectionOutcome::Placed, Part::Win) => SelectionOutcome::Lost,
        (other, _) => other,
    }
}

/// The leg's price for `part`; `None` for an SP leg without a starting
/// price (a win on it counts as Returned; losses need no price).
fn leg_price(leg: &Leg, part: Part, results: &LegResults) -> Option<Decimal> {
    let price = if leg.is_sp() {
        *results.sp_prices.get(&leg.event_id)?
    } else {
        leg.price
    };
    Some(match (part, leg.ew_coeff) {
        (Part::Place, Some(coeff)) => leg.place_price.unwrap_or(place_odds(price, coeff)),
        _ => price,
    })
}

fn factor_on(leg: &Leg, part: Part, results: &LegResults, outcome: SelectionOutcome) -> Decimal {
    let outcome = part_outcome(outcome, part);
    match (leg_price(leg, part, results), outcome) {
        (Some(price), _) => outcome_factor(outcome, price),
        (None, SelectionOutcome::Won | SelectionOutcome::HalfWon) => Decimal::ONE,
        (None, _) => outcome_factor(outcome, Decimal::ONE),
    }
}

/// The leg's factor, or `None` while it has no outcome.
fn leg_factor(leg: &Leg, part: Part, results: &LegResults) -> Option<Decimal> {
    let outcome = *results.outcomes.get(&leg.event_id)?;
    Some(factor_on(leg, part, results, outcome))
}

/// An express line: a known zero decides it; otherwise every leg must be
/// known.
fn express_line(
    bet: &ValidBet,
    combo: &[usize],
    part: Part,
    results: &LegResults,
    currency: Currency,
) -> Option<Decimal> {
    let mut product = Decimal::ONE;
    let mut unknown = false;
    for &i in combo {
        match leg_factor(&bet.legs[i], part, results) {
            Some(f) if f.is_zero() => return Some(currency.round(Decimal::ZERO)),
            Some(f) => {
                product = product
                    .checked_mul(f)
                    .unwrap_or(MAX_LINE_ODDS)
                    .min(MAX_LINE_ODDS)
            }
            None => unknown = true,
        }
    }
    (!unknown).then(|| currency.round(bet.unit_stake.saturating_mul(product)))
}

/// A chain line (see the module notes). Once a leg without an outcome is
/// reached, the chain pays at least what is banked then (that leg lost)
/// and at most what it pays when every open leg wins (the payout grows
/// with every factor): it is decided only when the two agree. An open SP
/// leg has no upper bound.
fn chain_line(
    bet: &ValidBet,
    combo: &[usize],
    part: Part,
    results: &LegResults,
    currency: Currency,
) -> Option<Decimal> {
    let cap = bet.unit_stake;
    let (mut riding, mut banked) = (cap, Decimal::ZERO);
    let mut floor = None;
    let mut ended = false;
    for &i in combo {
        let leg = &bet.legs[i];
        let factor = match leg_factor(leg, part, results) {
            Some(f) => f,
            None if leg.is_sp() => return None,
            None => {
                floor.get_or_insert(banked);
                factor_on(leg, part, results, SelectionOutcome::Won)
            }
        };
        // A long (starting) price would overflow: a leg multiplies its
        // stake by at most the line maximum, and the line pays at most
        // `MAX_LINE_ODDS` times its stake, like an express line.
        let back = currency.round(riding.saturating_mul(factor.min(MAX_LINE_ODDS)));
        if back.is_zero() {
            ended = true;
            break;
        }
        riding = back.min(cap);
        banked = banked.saturating_add(back - riding);
    }
    let most = cap.saturating_mul(MAX_LINE_ODDS);
    let paid = if ended {
        banked
    } else {
        banked.saturating_add(riding)
    };
    let payout = currency.round(paid.min(most));
    match floor {
        None => Some(payout),
        Some(least) if currency.round(least.min(most)) == payout => Some(payout),
        Some(_) => None,
    }
}

/// Settles `bet` on the outcomes known so far.
pub fn settle(
    bet: &ValidBet,
    results: &LegResults,
    currency: Currency,
    bonus: ExpressBonus,
) -> BetSettlement {
    let parts: &[Part] = if bet.each_way {
        &[Part::Win, Part::Place]
    } else {
        &[Part::Win]
    };
    let mut payout = Decimal::ZERO;
    for part in parts {
        for combo in &bet.combinations {
            let line = match bet.bet_type {
                BetType::Chain => chain_line(bet, combo, *part, results, currency),
                _ => express_line(bet, combo, *part, results, currency),
            };
            match line {
                Some(p) => payout += p,
                None => return BetSettlement::unsettled(),
            }
        }
    }
    let payout = currency.round(payout);
    let status = status_of(payout, bet.stake);
    // The bonus is a percent of the winnings: what the bet pays above its
    // stake (taken before a free bet's payout is cut to its winnings).
    let bonus = if bet.bet_type == BetType::Express && status == BetStatus::Won {
        let percent = bonus.percent(bet.legs.len());
        currency.round((payout - bet.stake) * percent / Decimal::ONE_HUNDRED)
    } else {
        currency.round(Decimal::ZERO)
    };
    // A free bet's stake is not returned: it pays its winnings only.
    let payout = if bet.bonus_id.is_some() {
        (payout - bet.stake).max(Decimal::ZERO)
    } else {
        payout
    };
    BetSettlement {
        status,
        payout,
        bonus,
    }
}

/// The status of a settled bet from what it pays (see the module notes).
pub fn status_of(payout: Decimal, stake: Decimal) -> BetStatus {
    match payout.cmp(&stake) {
        std::cmp::Ordering::Greater => BetStatus::Won,
        std::cmp::Ordering::Equal => BetStatus::Returned,
        std::cmp::Ordering::Less => BetStatus::Lost,
    }
}
