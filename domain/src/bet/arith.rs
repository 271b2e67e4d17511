//! The betslip arithmetic, in one place: what a slip stakes per line, what
//! it charges, which prices it is held to and what it can win. The client
//! has the twin of this module (`web/src/features/betslip/arith.ts`); both
//! pass the same vectors, `domain/testdata/betslip_vectors.json`, so the
//! slip shows what the bet records.
//!
//! The contract (docs/protocol.md "Betslip arithmetic"):
//! - `amount` in `do_bet` is the total the member is charged. A bet is a
//!   set of lines: one per combination (one for a single, express or
//!   chain; C(n - bankers, k - bankers) for a system), twice with each-way
//!   (a win part and a place part). Each line is staked with `amount /
//!   lines` rounded down to the currency; the bet charges that line stake
//!   times the lines (cents that do not divide are not taken). Each-way
//!   halves the amount, a system splits it (spec 000 s5 and s9).
//! - Better odds (`is_offer`, singles at a fixed price): the price raised
//!   by a tenth of its margin over 1, rounded up (to 2 places above 10,
//!   else to 3); prices below 1.06 are not raised.
//! - The odds limit holds every express line: an express, and each
//!   combination of a system. A chain is not an express (its legs are
//!   staked one after another) and a single has one price: neither is
//!   held to it. SP legs are left out of the product (unknown).
//! - Possible win: every line settled as won (`settle::settle`), each
//!   line's return rounded to the currency, half away from zero.

use rust_decimal::{Decimal, RoundingStrategy};

use super::BetType;
use crate::money::round_odds;
use crate::Currency;

/// Better odds (spec 000 section 9): the price raised by 10% of its margin
/// over 1, rounded up; "rounded up above 10" read as: a raised price above
/// 10 is rounded up to 2 places, any other up to 3 (the odds precision).
/// Prices below 1.06 are left as they are, and so is a price too long to
/// raise (past about 7.2 x 10^28, where a Decimal would overflow).
pub fn better_odds(price: Decimal) -> Decimal {
    if price < Decimal::new(106, 2) {
        return price;
    }
    let Some(raised) = price.checked_add((price - Decimal::ONE) / Decimal::TEN) else {
        return price;
    };
    let places = if raised > Decimal::TEN { 2 } else { 3 };
    raised
        .round_dp_with_strategy(places, RoundingStrategy::ToPositiveInfinity)
        .normalize()
}

/// Each-way place odds: 1 + (price - 1) x coefficient, at 3 places.
pub fn place_odds(price: Decimal, ew_coeff: Decimal) -> Decimal {
    round_odds(Decimal::ONE + (price - Decimal::ONE) * ew_coeff)
}

/// How many lines `combinations(n, k, bankers)` would make:
/// C(n - bankers, k - bankers), saturating at `u64::MAX` (so a count can be
/// checked against a cap before anything is generated).
pub fn combination_count(n: usize, k: usize, bankers: usize) -> u64 {
    let (Some(free), Some(pick)) = (n.checked_sub(bankers), k.checked_sub(bankers)) else {
        return 0;
    };
    if pick > free {
        return 0;
    }
    let pick = pick.min(free - pick) as u128;
    let free = free as u128;
    let mut count: u128 = 1;
    for i in 0..pick {
        // count * (free - i) / (i + 1) stays a whole number at every step.
        count = match count.checked_mul(free - i) {
            Some(c) => c / (i + 1),
            None => return u64::MAX,
        };
        if count > u64::MAX as u128 {
            return u64::MAX;
        }
    }
    count as u64
}

/// The lines a bet of `combinations` is made of: twice with each-way.
pub fn line_count(combinations: usize, each_way: bool) -> usize {
    combinations.saturating_mul(if each_way { 2 } else { 1 })
}

/// The stake of each line: the total `amount` over the `lines`, rounded
/// down to the currency (zero when there are no lines).
pub fn line_stake(amount: Decimal, lines: usize, currency: Currency) -> Decimal {
    if lines == 0 {
        return Decimal::ZERO;
    }
    let mut unit = (amount / Decimal::from(lines))
        .round_dp_with_strategy(currency.places(), RoundingStrategy::ToZero);
    unit.rescale(currency.places());
    unit
}

/// What the bet charges: the line stake times the lines, or `None` when
/// that does not fit a Decimal (it always does for a line stake that came
/// from `line_stake`).
pub fn charged(line_stake: Decimal, lines: usize, currency: Currency) -> Option<Decimal> {
    line_stake
        .checked_mul(Decimal::from(lines))
        .map(|s| currency.round(s))
}

/// The bet types whose lines are held to the odds limit.
pub fn odds_limit_applies(bet_type: BetType) -> bool {
    matches!(bet_type, BetType::Express | BetType::System)
}
