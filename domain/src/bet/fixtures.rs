//! Bets for tests (this crate's and the crates built on it): validated the
//! way placement validates them, on plain prematch quotes.

use rust_decimal::Decimal;

use super::{
    validate, AcceptMode, BetLimits, BetRequest, BetType, LegNames, Pick, Quote, ValidBet,
};
use crate::catalogue::GameType;
use crate::Currency;

/// A prematch quote for `event_id` at `price` (market `event_id * 10`,
/// game `event_id * 100`).
pub fn quote(event_id: u64, price: Decimal) -> Quote {
    Quote {
        event_id,
        market_id: event_id * 10,
        game_id: event_id * 100,
        price,
        base: None,
        suspended: false,
        blocked: false,
        game_started: false,
        game_type: GameType::Prematch,
        single_only: false,
        ew_allowed: false,
        ew_coeff: None,
        sp_allowed: false,
        start_ts: 1_700_100_000,
        names: LegNames::default(),
    }
}

/// A CNY bet of `amount` on events `first`, `first + 1`, ... at `prices`:
/// a single for one price, an express for more. Limits wide enough for
/// any test amount.
pub fn straight_bet(mode: AcceptMode, amount: Decimal, first: u64, prices: &[Decimal]) -> ValidBet {
    let bet_type = if prices.len() == 1 {
        BetType::Single
    } else {
        BetType::Express
    };
    let picks: Vec<Pick> = prices
        .iter()
        .enumerate()
        .map(|(i, p)| Pick {
            event_id: first + i as u64,
            price: *p,
            banker: false,
            base: None,
        })
        .collect();
    let quotes = picks
        .iter()
        .map(|p| (p.event_id, quote(p.event_id, p.price)))
        .collect();
    let request = BetRequest {
        bet_type,
        mode,
        amount,
        each_way: false,
        sys_bet: None,
        bonus_id: None,
        is_offer: false,
        selections: picks,
    };
    let mut limits = BetLimits::new(Currency::Cny, Decimal::new(1, 2), Decimal::from(1_000_000));
    limits.max_express_odds = Decimal::from(1_000_000_000);
    validate(&request, &quotes, &limits, Decimal::from(10_000_000)).expect("a fixture bet is valid")
}
