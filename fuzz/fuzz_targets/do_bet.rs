//! `do_bet` (domain::bet): any params a member sends are a `BetRequest` or
//! a refusal to read them; a request that reads is validated against
//! quotes from a small catalogue (`catalogue::testgen` helpers) the way
//! placement builds them, and an accepted bet is settled on arbitrary
//! outcomes and starting prices and priced for cash-out on arbitrary live
//! prices. None of it may panic, and what the rules promise must hold:
//!
//! - an accepted bet keeps its stake within the limits and the balance,
//!   has one leg per pick and well-formed combinations, and its possible
//!   win is known exactly when no leg is SP;
//! - settlement pays nothing while unsettled, never a negative amount,
//!   never more than the possible win, and settles once every leg has an
//!   outcome; all legs won pays the possible win;
//! - a cash-out amount is positive, at one place, and (on the whole stake)
//!   never above the possible win.
//!
//! Input: the params as JSON, then optionally a NUL byte and bytes that
//! choose the rest (repriced events, limits, balance, outcomes, starting
//! prices, live prices, remaining stake). Without them every leg wins.
//! Prices are anything the catalogue would hold (any positive decimal, at
//! three places): the feed is not trusted to keep them sane.
//!
//! Run: `scripts/fuzz.sh 60 do_bet`, or in `fuzz/`
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run do_bet -- -dict=dicts/do_bet.dict`.

#![no_main]

use std::collections::BTreeMap;
use std::sync::LazyLock;

use domain::bet::{
    cash_out_offered, cashout_amount, settle, validate, BetLimits, BetRequest, BetStatus, BetType,
    ExpressBonus, LegResults, Placement, Quote, ValidBet,
};
use domain::catalogue::testgen;
use domain::catalogue::{Catalogue, GameType, LiveInfo};
use domain::money::round_odds;
use domain::result::SelectionOutcome;
use domain::Currency;
use libfuzzer_sys::arbitrary::{self, Unstructured};
use libfuzzer_sys::fuzz_target;
use rust_decimal::Decimal;

/// The clock of placement (unix seconds): games 1..=5 and 8 start later,
/// game 7 has started.
const NOW_S: i64 = 1_650_000_000;

/// `testgen::small()` (events 100001..100003 on Arsenal v Chelsea) plus
/// games 2001..=2008 in the Premier League, one market each (id 20 + g)
/// with events 2g - 1 and 2g: games 1-4 offer each-way and SP (game 3 an
/// Asian handicap -0.25), market 25 is suspended, game 6 blocked, game 7
/// started, game 8 live with event 16 at 1.000.
static CATALOGUE: LazyLock<Catalogue> = LazyLock::new(|| {
    let mut c = testgen::small();
    for g in 1..=8u64 {
        let game_id = 2000 + g;
        let mut game = testgen::game(game_id, 100, &format!("Home {g}"), Some("Away"));
        game.start_ts = 1_700_000_000 + g as i64;
        match g {
            6 => game.is_blocked = true,
            7 => game.start_ts = NOW_S - 60,
            8 => {
                game.game_type = GameType::Live;
                game.info = Some(LiveInfo {
                    current_game_state: "1st half".into(),
                    clock: 600,
                    score1: 1,
                    score2: 0,
                });
            }
            _ => {}
        }
        c.insert_game(game).unwrap();
        let mut market = testgen::market(20 + g, game_id, "P1XP2");
        if g <= 4 {
            market.ew_allowed = true;
            market.ew_places = Some(3);
            market.ew_coeff = Some(if g <= 2 {
                Decimal::new(25, 2)
            } else {
                Decimal::new(2, 1)
            });
            market.sp_allowed = true;
        }
        if g == 3 {
            market.market_type = "AsianHandicap".into();
            market.base = Some(Decimal::new(-25, 2));
        }
        market.is_suspended = g == 5;
        c.insert_market(market).unwrap();
        for (e, pick) in [(2 * g - 1, "P1"), (2 * g, "P2")] {
            let price = if e == 16 {
                Decimal::ONE
            } else {
                Decimal::new(1_250 + 250 * e as i64, 3)
            };
            c.insert_event(testgen::event(e, 20 + g, pick, price))
                .unwrap();
        }
    }
    c
});

/// The event ids the catalogue holds (what repricing picks from).
const EVENTS: [u64; 19] = [
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 100001, 100002, 100003,
];

/// Any decimal, leaning to odds-like values and the edges.
fn decimal(u: &mut Unstructured) -> arbitrary::Result<Decimal> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 => Decimal::new(u.int_in_range(0..=50_000i64)?, 3),
        1 => Decimal::new(u.arbitrary::<i64>()?, u.int_in_range(0..=28u32)?),
        2 => Decimal::from_parts(
            u.arbitrary()?,
            u.arbitrary()?,
            u.arbitrary()?,
            u.arbitrary()?,
            u.int_in_range(0..=28u32)?,
        ),
        _ => *u.choose(&[
            Decimal::MAX,
            Decimal::MIN,
            Decimal::ZERO,
            Decimal::ONE,
            Decimal::NEGATIVE_ONE,
            Decimal::new(1, 28),
            Decimal::new(1_000_000_000, 0),
        ])?,
    })
}

/// A price as the catalogue holds it: positive, at three places.
fn price(u: &mut Unstructured) -> arbitrary::Result<Decimal> {
    let mut p = round_odds(decimal(u)?.abs());
    p.rescale(3);
    Ok(p)
}

/// The most money any amount here holds (a wallet, a limit): 10^15.
/// Prices are not bounded: they come from the feed.
const MAX_MONEY: Decimal = Decimal::from_parts(0xA4C6_8000, 0x38D7E, 0, false, 0);

/// An amount of money: any decimal from 0 to `MAX_MONEY`.
fn amount(u: &mut Unstructured) -> arbitrary::Result<Decimal> {
    Ok(decimal(u)?.abs().min(MAX_MONEY))
}

/// Server limits (config/default.toml) or the test fixture's wide ones.
fn limits(u: &mut Unstructured) -> arbitrary::Result<(BetLimits, Decimal)> {
    let currency = *u.choose(&Currency::ALL)?;
    let mut limits = match u.int_in_range(0..=2u8)? {
        0 => BetLimits::new(currency, Decimal::ONE, Decimal::new(50_000, 0)),
        1 => {
            let mut l = BetLimits::new(currency, Decimal::new(1, 2), Decimal::new(1_000_000, 0));
            l.max_express_odds = Decimal::new(1_000_000_000, 0);
            l
        }
        _ => {
            let mut l = BetLimits::new(currency, Decimal::ONE, Decimal::new(50_000, 0));
            l.max_express_odds = Decimal::new(10_000, 0);
            l.member_limit = Some(Decimal::new(500, 0));
            l
        }
    };
    if u.ratio(1, 8)? {
        limits.max_stake = amount(u)?;
    }
    let balance = match u.int_in_range(0..=2u8)? {
        0 => Decimal::new(100_000, 0),
        1 => Decimal::new(10_000_000, 0),
        _ => amount(u)?,
    };
    Ok((limits, balance))
}

/// With `FUZZ_EXPLAIN` set (replaying a crash), prints what was decided.
fn explain(what: impl FnOnce() -> String) {
    if std::env::var_os("FUZZ_EXPLAIN").is_some() {
        eprintln!("{}", what());
    }
}

fn outcome(u: &mut Unstructured) -> arbitrary::Result<Option<SelectionOutcome>> {
    use SelectionOutcome::*;
    // Out of input, every leg wins.
    Ok(*u.choose(&[
        Some(Won),
        Some(Lost),
        Some(Returned),
        Some(HalfWon),
        Some(HalfLost),
        Some(Placed),
        None,
    ])?)
}

fn check_accepted(request: &BetRequest, bet: &ValidBet, limits: &BetLimits, balance: Decimal) {
    assert_eq!(bet.legs.len(), request.selections.len());
    assert!(!bet.combinations.is_empty());
    let size = match bet.bet_type {
        BetType::System => bet.sys_bet.expect("a system has a size") as usize,
        _ => bet.legs.len(),
    };
    for combo in &bet.combinations {
        assert_eq!(combo.len(), size, "{combo:?}");
        assert!(combo.iter().all(|&i| i < bet.legs.len()), "{combo:?}");
    }
    assert!(bet.combinations.len() <= limits.max_combinations);
    assert!(bet.unit_stake > Decimal::ZERO && bet.unit_stake >= limits.min_stake);
    assert!(
        bet.stake <= balance,
        "stake {} above balance {balance}",
        bet.stake
    );
    if !bet.super_bet {
        assert!(bet.stake <= limits.max_stake);
    }
    let lines = Decimal::from(bet.combinations.len() * bet.parts());
    if let Some(total) = bet.unit_stake.checked_mul(lines) {
        assert_eq!(bet.stake, limits.currency.round(total));
    }
    let sp = bet.legs.iter().any(|l| l.is_sp());
    assert_eq!(bet.possible_win.is_some(), !sp);
}

fn run(json: &[u8], tail: &[u8]) -> arbitrary::Result<()> {
    let Ok(params) = serde_json::from_slice::<serde_json::Value>(json) else {
        return Ok(());
    };
    // As the api reads it (api::betting::do_bet).
    let Ok(request) = serde_json::from_value::<BetRequest>(params) else {
        return Ok(());
    };
    let mut u = Unstructured::new(tail);
    let mut catalogue = CATALOGUE.clone();
    // Reprice mostly the picked events (the feed moves them).
    let picked: Vec<u64> = request.selections.iter().map(|p| p.event_id).collect();
    for _ in 0..u.int_in_range(0..=3u8)? {
        let id = match u.ratio(3, 4)? && !picked.is_empty() {
            true => *u.choose(&picked)?,
            false => *u.choose(&EVENTS)?,
        };
        if !EVENTS.contains(&id) {
            continue;
        }
        let p = price(&mut u)?;
        catalogue.update_event(id, |e| e.price = p).unwrap();
    }
    let (limits, balance) = limits(&mut u)?;
    let quotes: BTreeMap<u64, Quote> = request
        .selections
        .iter()
        .filter_map(|pick| {
            Quote::from_catalogue(&catalogue, pick.event_id, NOW_S).map(|q| (pick.event_id, q))
        })
        .collect();
    let Ok(bet) = validate(&request, &quotes, &limits, balance) else {
        return Ok(());
    };
    check_accepted(&request, &bet, &limits, balance);
    let currency = limits.currency;

    // Settlement on arbitrary outcomes and starting prices.
    let mut results = LegResults::default();
    for leg in &bet.legs {
        if let Some(o) = outcome(&mut u)? {
            results.outcomes.insert(leg.event_id, o);
        }
        if leg.is_sp() && u.ratio(3, 4)? {
            results.sp_prices.insert(leg.event_id, price(&mut u)?);
        }
    }
    let bonus = *u.choose(&[
        ExpressBonus::None,
        ExpressBonus::PerSelection,
        ExpressBonus::Ladder,
    ])?;
    let settled = settle(&bet, &results, currency, bonus);
    explain(|| format!("bet {bet:#?}\nresults {results:?}\nbonus {bonus:?}\n{settled:?}"));
    assert!(settled.payout >= Decimal::ZERO && settled.bonus >= Decimal::ZERO);
    if settled.status == BetStatus::Unsettled {
        assert_eq!(settled.total(), Decimal::ZERO);
        assert!(
            results.outcomes.len() < bet.legs.len(),
            "every leg has an outcome and the bet is unsettled"
        );
    }
    if let Some(win) = bet.possible_win {
        assert!(settled.payout <= win, "pays {} above {win}", settled.payout);
        if results.outcomes.len() == bet.legs.len()
            && results
                .outcomes
                .values()
                .all(|o| *o == SelectionOutcome::Won)
        {
            assert_eq!(settled.payout, win);
        }
    }

    // Cash-out on arbitrary live prices, on the whole or part of the stake.
    let placement = Placement {
        bet_id: "1".into(),
        member_id: "m".into(),
        currency,
        request_id: "1".into(),
        cash_out: cash_out_offered(&bet),
        bet,
        express_bonus: bonus,
        at_ms: 0,
    };
    let mut prices = BTreeMap::new();
    for leg in &placement.bet.legs {
        let live = if u.ratio(1, 8)? {
            None
        } else {
            Some(price(&mut u)?)
        };
        prices.insert(leg.event_id, live);
    }
    let stake = placement.bet.stake;
    // What partial cash-outs leave: never more than the stake.
    let remaining = if u.ratio(1, 2)? {
        stake
    } else {
        decimal(&mut u)?.abs().min(stake)
    };
    if let Some(k) = placement.bet.odds {
        let amount = cashout_amount(&placement, remaining, k, &prices, &results.outcomes);
        if let Some(amount) = amount {
            assert!(amount > Decimal::ZERO);
            // One place, unless the amount has too many digits for a
            // Decimal to hold one (only past 10^27: an absurd price).
            let huge = amount >= Decimal::from_i128_with_scale(10i128.pow(27), 0);
            assert!(amount.scale() == 1 || huge, "{amount}");
            if remaining == stake {
                let win = placement.bet.possible_win.expect("fixed prices");
                assert!(
                    amount <= win,
                    "cash-out {amount} above the possible win {win}"
                );
            }
        }
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let (json, tail) = match data.iter().position(|b| *b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &data[data.len()..]),
    };
    let _ = run(json, tail);
});
