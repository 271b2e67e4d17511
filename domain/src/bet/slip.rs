//! Bet placement rules (spec 000 sections 5, 8 and 9), pure: the member's
//! request plus what the live catalogue says now in, a `ValidBet` with the
//! accepted prices or a `BetRefusal` with its catalogue code out.
//!
//! Readings chosen where the spec is open:
//! - `amount` is the total stake (see `arith`, the one place of the
//!   betslip arithmetic): split over the bet's lines (a system's
//!   combinations; each-way halves it into a win and a place part), each
//!   line stake rounded down to the currency, the unspent cents not taken.
//! - The minimum stake applies to the smallest line (one part of one
//!   combination); the maximum, the member limit and the balance apply to
//!   the total stake taken. Stake limits answer 1560 / 1550 (the betting
//!   codes); 20003 / 20004 stay with deposits and withdrawals.
//! - Mode -1 (super bet) accepts no price change, like mode 0, and is never
//!   refused for a stake above the maximum or the member limit: the bet is
//!   held for support (status -5) instead. The balance still applies.
//! - A pick may carry the `base` the member saw; a different live base is
//!   a change (1800 with `new_base`) unless mode 2. Without it, no check.
//! - The express odds limit is 1000 (`EXPRESS_ODDS_LIMIT`; the spec's other
//!   reading, 10000, is `EXPRESS_ODDS_LIMIT_HIGH`). It applies to an express
//!   and to every combination of a system (each is an express), not to a
//!   chain; SP legs count as unknown and are left out of the product.
//! - Better odds (`is_offer`) apply to single bets on a fixed price only
//!   (ignored elsewhere): see `better_odds`. The pick's price is the
//!   offered (raised) price the member saw; it is compared with the raised
//!   live price (the plain live price is taken too), and 1800 carries the
//!   plain live price in `new_price`, which the client raises again.
//! - Bankers count in system bets only; elsewhere the flag is ignored.
//! - A chain's legs keep the order of the request (see `settle`).

use std::collections::{BTreeMap, BTreeSet};

use rust_decimal::Decimal;

use super::arith::{
    better_odds, charged, combination_count, line_count, line_stake, odds_limit_applies, place_odds,
};
use super::model::*;
use super::settle::{settle, ExpressBonus, LegResults};
use super::{AcceptMode, BetType};
use crate::money::round_odds;
use crate::result::SelectionOutcome;
use crate::Currency;

/// The k-subsets of 0..n that contain every banker, in lexicographic
/// order: C(n - bankers, k - bankers) of them.
pub fn combinations(n: usize, k: usize, bankers: &[usize]) -> Vec<Vec<usize>> {
    let fixed: BTreeSet<usize> = bankers.iter().copied().collect();
    let free: Vec<usize> = (0..n).filter(|i| !fixed.contains(i)).collect();
    let Some(pick) = k.checked_sub(fixed.len()) else {
        return vec![];
    };
    let mut out = Vec::new();
    let mut chosen = Vec::with_capacity(pick);
    choose(&free, pick, 0, &mut chosen, &mut |c| {
        let mut combo: Vec<usize> = c.iter().copied().chain(fixed.iter().copied()).collect();
        combo.sort_unstable();
        out.push(combo);
    });
    out
}

fn choose(
    from: &[usize],
    k: usize,
    start: usize,
    chosen: &mut Vec<usize>,
    emit: &mut impl FnMut(&[usize]),
) {
    if chosen.len() == k {
        emit(chosen);
        return;
    }
    // Only starts that leave enough elements to fill the subset: without
    // this bound, C(36, 35) walks a tree of 2^36 dead ends.
    let last = (from.len() + chosen.len() + 1).saturating_sub(k);
    for i in start..last {
        chosen.push(from[i]);
        choose(from, k, i + 1, chosen, emit);
        chosen.pop();
    }
}

/// Checks a `do_bet` request against the live `quotes` (keyed by event id;
/// a missing one is deleted), the member's `limits` and `balance`. Rules
/// run in this order and the first that fails answers: shape, stake,
/// each selection, combinations of selections, price changes, odds limit,
/// stake limits, balance.
pub fn validate(
    request: &BetRequest,
    quotes: &BTreeMap<u64, Quote>,
    limits: &BetLimits,
    balance: Decimal,
) -> Result<ValidBet, BetRefusal> {
    let size = check_shape(request, limits)?;
    check_stake(request.amount, limits.currency)?;
    let picked = request
        .selections
        .iter()
        .map(|pick| check_pick(request, pick, quotes.get(&pick.event_id)))
        .collect::<Result<Vec<_>, _>>()?;
    check_combination(request.bet_type, &picked)?;
    check_prices(
        request.mode,
        is_boosted(request),
        &request.selections,
        &picked,
    )?;
    let legs = accepted_legs(request, &picked);
    let boosted = is_boosted(request)
        && request
            .selections
            .iter()
            .zip(&picked)
            .any(|(p, q)| p.price != SP_PRICE && better_odds(q.price) != q.price);
    let combos = combinations_of(request.bet_type, size, &legs);
    check_odds_limit(request.bet_type, &legs, &combos, limits.max_express_odds)?;
    let lines = line_count(combos.len(), request.each_way);
    let unit_stake = line_stake(request.amount, lines, limits.currency);
    let super_bet = request.mode == AcceptMode::SuperBet;
    // Defensive: the line stake times the lines never exceeds the amount,
    // but a stake that did not fit would be above any maximum.
    let stake = charged(unit_stake, lines, limits.currency).ok_or(if super_bet {
        BetRefusal::InsufficientBalance
    } else {
        BetRefusal::AboveMax {
            max: limits.max_stake,
        }
    })?;
    check_limits(unit_stake, stake, super_bet, limits, balance)?;
    let mut bet = ValidBet {
        bet_type: request.bet_type,
        mode: request.mode,
        each_way: request.each_way,
        super_bet,
        better_odds: boosted,
        bonus_id: request.bonus_id.clone(),
        sys_bet: (request.bet_type == BetType::System).then_some(size as u32),
        unit_stake: limits.currency.round(unit_stake),
        stake,
        legs,
        combinations: combos,
        odds: None,
        possible_win: None,
    };
    bet.odds = total_odds(&bet);
    bet.possible_win = possible_win(&bet, limits.currency);
    Ok(bet)
}

/// The number of legs per combination (system size k; n otherwise).
fn check_shape(request: &BetRequest, limits: &BetLimits) -> Result<usize, BetRefusal> {
    let n = request.selections.len();
    let ty = request.bet_type;
    if n > limits.max_selections {
        return Err(BetRefusal::TooManySelections {
            max: limits.max_selections,
        });
    }
    if n < ty.min_events() {
        return Err(BetRefusal::NotEnoughEvents {
            needed: ty.min_events(),
        });
    }
    if ty == BetType::Single && n > 1 {
        return Err(BetRefusal::InvalidBet {
            reason: "a single bet takes one selection",
        });
    }
    let distinct: BTreeSet<u64> = request.selections.iter().map(|p| p.event_id).collect();
    if distinct.len() != n {
        return Err(BetRefusal::InvalidBet {
            reason: "a selection appears twice",
        });
    }
    if ty != BetType::System {
        return Ok(n);
    }
    let k = request.sys_bet.unwrap_or(0) as usize;
    let bankers = request.selections.iter().filter(|p| p.banker).count();
    if k < 2 || k >= n {
        return Err(BetRefusal::InvalidBet {
            reason: "the system size must be from 2 to the selections less one",
        });
    }
    if bankers >= k {
        return Err(BetRefusal::InvalidBet {
            reason: "a system needs fewer bankers than its size",
        });
    }
    if combination_count(n, k, bankers) > limits.max_combinations as u64 {
        return Err(BetRefusal::TooManyCombinations {
            max: limits.max_combinations,
        });
    }
    Ok(k)
}

fn check_stake(amount: Decimal, currency: Currency) -> Result<(), BetRefusal> {
    if amount.is_zero() {
        return Err(BetRefusal::EmptyStake);
    }
    currency
        .exact_amount(amount)
        .map(|_| ())
        .ok_or(BetRefusal::WrongAmount)
}

fn check_pick<'q>(
    request: &BetRequest,
    pick: &Pick,
    quote: Option<&'q Quote>,
) -> Result<&'q Quote, BetRefusal> {
    let event_id = pick.event_id;
    let quote = quote.ok_or(BetRefusal::EventNotAvailable { event_id })?;
    if quote.blocked {
        return Err(BetRefusal::EventBlocked { event_id });
    }
    if quote.suspended || quote.price <= Decimal::ONE {
        return Err(BetRefusal::EventNotAvailable { event_id });
    }
    if quote.game_started {
        return Err(BetRefusal::GameStarted { event_id });
    }
    if pick.price == SP_PRICE {
        if !quote.sp_allowed {
            return Err(BetRefusal::SpNotAvailable { event_id });
        }
    } else if pick.price <= Decimal::ONE {
        return Err(BetRefusal::WrongCoefficient { event_id });
    }
    let ew_ok = quote.ew_allowed && quote.ew_coeff.is_some_and(|c| c > Decimal::ZERO);
    if request.each_way && !ew_ok {
        return Err(BetRefusal::EachWayNotAvailable { event_id });
    }
    Ok(quote)
}

fn check_combination(bet_type: BetType, quotes: &[&Quote]) -> Result<(), BetRefusal> {
    if bet_type == BetType::Single {
        return Ok(());
    }
    if let Some(q) = quotes.iter().find(|q| q.single_only) {
        return Err(BetRefusal::SingleOnly {
            event_id: q.event_id,
        });
    }
    let mut by_game: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for q in quotes {
        by_game.entry(q.game_id).or_default().push(q.event_id);
    }
    match by_game.into_values().find(|ids| ids.len() > 1) {
        Some(event_ids) => Err(BetRefusal::Conflict { event_ids }),
        None => Ok(()),
    }
}

/// 1800 when a price or base moved in a way the mode does not accept; the
/// details list every moved selection so the client can refresh them all.
/// A better-odds single is held to the raised live price (or the plain one).
fn check_prices(
    mode: AcceptMode,
    boosted: bool,
    picks: &[Pick],
    quotes: &[&Quote],
) -> Result<(), BetRefusal> {
    let mut details = Vec::new();
    let mut refused = false;
    for (pick, quote) in picks.iter().zip(quotes) {
        let offered = if boosted {
            better_odds(quote.price)
        } else {
            quote.price
        };
        let price_moved =
            pick.price != SP_PRICE && pick.price != offered && pick.price != quote.price;
        let base_moved = pick.base.is_some() && pick.base != quote.base;
        if !price_moved && !base_moved {
            continue;
        }
        let price_ok = !price_moved
            || match mode {
                AcceptMode::Any => true,
                AcceptMode::Higher => offered > pick.price,
                AcceptMode::NoChanges | AcceptMode::SuperBet => false,
            };
        let base_ok = !base_moved || mode == AcceptMode::Any;
        refused |= !(price_ok && base_ok);
        details.push(PriceChange {
            event_id: pick.event_id,
            new_price: quote.price,
            new_base: if base_moved { quote.base } else { None },
        });
    }
    if refused {
        Err(BetRefusal::OddsChanged { details })
    } else {
        Ok(())
    }
}

fn is_boosted(request: &BetRequest) -> bool {
    request.is_offer && request.bet_type == BetType::Single
}

fn accepted_legs(request: &BetRequest, quotes: &[&Quote]) -> Vec<Leg> {
    let boost = is_boosted(request);
    let system = request.bet_type == BetType::System;
    request
        .selections
        .iter()
        .zip(quotes)
        .map(|(pick, q)| {
            let price = if pick.price == SP_PRICE {
                SP_PRICE
            } else if boost {
                better_odds(q.price)
            } else {
                q.price
            };
            let ew_coeff = if request.each_way { q.ew_coeff } else { None };
            Leg {
                event_id: pick.event_id,
                market_id: q.market_id,
                game_id: q.game_id,
                price,
                requested_price: pick.price,
                base: q.base,
                place_price: ew_coeff
                    .filter(|_| price != SP_PRICE)
                    .map(|c| place_odds(price, c)),
                ew_coeff,
                banker: system && pick.banker,
                game_type: q.game_type,
                start_ts: q.start_ts,
                names: q.names.clone(),
            }
        })
        .collect()
}

fn combinations_of(bet_type: BetType, size: usize, legs: &[Leg]) -> Vec<Vec<usize>> {
    match bet_type {
        BetType::System => {
            let bankers: Vec<usize> = (0..legs.len()).filter(|&i| legs[i].banker).collect();
            combinations(legs.len(), size, &bankers)
        }
        _ => vec![(0..legs.len()).collect()],
    }
}

/// The product of the combination's known prices, or `None` as soon as it
/// passes `limit` (checked before every multiplication, so a long list of
/// long prices never overflows).
fn product_within(legs: &[Leg], combo: &[usize], limit: Decimal) -> Result<Decimal, Decimal> {
    let mut product = Decimal::ONE;
    for leg in combo.iter().map(|&i| &legs[i]).filter(|l| !l.is_sp()) {
        product = product.checked_mul(leg.price).ok_or(Decimal::MAX)?;
        if product > limit {
            return Err(product);
        }
    }
    Ok(product)
}

fn check_odds_limit(
    bet_type: BetType,
    legs: &[Leg],
    combos: &[Vec<usize>],
    limit: Decimal,
) -> Result<(), BetRefusal> {
    if !odds_limit_applies(bet_type) {
        return Ok(());
    }
    for combo in combos {
        if let Err(odds) = product_within(legs, combo, limit) {
            return Err(BetRefusal::OddsLimit {
                odds: round_odds(odds),
                limit,
            });
        }
    }
    Ok(())
}

fn check_limits(
    unit_stake: Decimal,
    stake: Decimal,
    super_bet: bool,
    limits: &BetLimits,
    balance: Decimal,
) -> Result<(), BetRefusal> {
    if unit_stake.is_zero() || unit_stake < limits.min_stake {
        return Err(BetRefusal::BelowMin {
            min: limits.min_stake,
        });
    }
    if !super_bet && stake > limits.max_stake {
        return Err(BetRefusal::AboveMax {
            max: limits.max_stake,
        });
    }
    if let Some(limit) = limits.member_limit.filter(|l| !super_bet && stake > *l) {
        return Err(BetRefusal::MemberLimit { limit });
    }
    if stake > balance {
        return Err(BetRefusal::InsufficientBalance);
    }
    Ok(())
}

fn total_odds(bet: &ValidBet) -> Option<Decimal> {
    let priced = !bet.legs.iter().any(Leg::is_sp);
    let product_type = matches!(bet.bet_type, BetType::Single | BetType::Express);
    if !(priced && product_type) {
        return None;
    }
    let all: Vec<usize> = (0..bet.legs.len()).collect();
    product_within(&bet.legs, &all, Decimal::MAX)
        .ok()
        .map(round_odds)
}

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
