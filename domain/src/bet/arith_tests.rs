//! The betslip arithmetic against the shared vectors
//! (`testdata/betslip_vectors.json`, an outside enumeration the client's
//! suite reads too): what placement charges, records and shows as the
//! possible win is what the slip showed.

use std::collections::BTreeMap;
use std::str::FromStr;

use rust_decimal::Decimal;
use serde::Deserialize;

use super::*;
use crate::catalogue::GameType;
use crate::Currency;

#[derive(Deserialize)]
struct Vectors {
    odds_limit: String,
    better_odds: Vec<BetterOdds>,
    slips: Vec<Slip>,
}

#[derive(Deserialize)]
struct BetterOdds {
    price: String,
    offered: String,
}

#[derive(Deserialize)]
struct Slip {
    name: String,
    #[serde(rename = "type")]
    bet_type: u8,
    amount: String,
    each_way: bool,
    sys_bet: Option<u32>,
    is_offer: bool,
    legs: Vec<VectorLeg>,
    expect: Expect,
}

#[derive(Deserialize)]
struct VectorLeg {
    price: String,
    banker: bool,
    ew_coeff: Option<String>,
}

#[derive(Deserialize)]
struct Expect {
    lines: usize,
    unit_stake: String,
    stake: String,
    #[serde(default)]
    refused: Option<String>,
    #[serde(default)]
    odds: Option<String>,
    #[serde(default)]
    possible_win: Option<String>,
}

fn vectors() -> Vectors {
    serde_json::from_str(include_str!("../../testdata/betslip_vectors.json")).unwrap()
}

fn dec(s: &str) -> Decimal {
    Decimal::from_str(s).unwrap()
}

fn bet_type(n: u8) -> BetType {
    match n {
        1 => BetType::Single,
        2 => BetType::Express,
        3 => BetType::System,
        _ => BetType::Chain,
    }
}

/// The request a client sends for the slip: the price shown (the offered
/// one for better odds), -1 for SP.
fn request_and_quotes(slip: &Slip) -> (BetRequest, BTreeMap<u64, Quote>) {
    let mut quotes = BTreeMap::new();
    let mut selections = Vec::new();
    for (i, leg) in slip.legs.iter().enumerate() {
        let event_id = i as u64 + 1;
        let sp = leg.price == "-1";
        let live = if sp { dec("3.5") } else { dec(&leg.price) };
        let mut quote = fixtures::quote(event_id, live);
        quote.game_id = 100 + event_id;
        quote.sp_allowed = sp;
        quote.game_type = GameType::Prematch;
        if let Some(c) = &leg.ew_coeff {
            quote.ew_allowed = true;
            quote.ew_coeff = Some(dec(c));
        }
        quotes.insert(event_id, quote);
        let shown = if sp {
            SP_PRICE
        } else if slip.is_offer && slip.bet_type == 1 {
            better_odds(live)
        } else {
            live
        };
        selections.push(Pick {
            event_id,
            price: shown,
            banker: leg.banker,
            base: None,
        });
    }
    let request = BetRequest {
        bet_type: bet_type(slip.bet_type),
        mode: AcceptMode::NoChanges,
        amount: dec(&slip.amount),
        each_way: slip.each_way,
        sys_bet: slip.sys_bet,
        bonus_id: None,
        is_offer: slip.is_offer,
        selections,
    };
    (request, quotes)
}

fn limits(odds_limit: Decimal) -> BetLimits {
    let mut limits = BetLimits::new(Currency::Cny, dec("0.01"), dec("1000000"));
    limits.max_express_odds = odds_limit;
    limits
}

#[test]
fn better_odds_follow_the_shared_vectors() {
    let v = vectors();
    assert!(v.better_odds.len() >= 10);
    for case in &v.better_odds {
        assert_eq!(
            better_odds(dec(&case.price)),
            dec(&case.offered),
            "{}",
            case.price
        );
    }
}

#[test]
fn placement_charges_records_and_wins_what_the_shared_vectors_say() {
    let v = vectors();
    let limit = dec(&v.odds_limit);
    assert!(v.slips.len() >= 20);
    for slip in &v.slips {
        let (request, quotes) = request_and_quotes(slip);
        let name = &slip.name;
        let lines = arith::line_count(
            match request.bet_type {
                BetType::System => combination_count(
                    slip.legs.len(),
                    slip.sys_bet.unwrap() as usize,
                    slip.legs.iter().filter(|l| l.banker).count(),
                ) as usize,
                _ => 1,
            },
            slip.each_way,
        );
        assert_eq!(lines, slip.expect.lines, "{name}: lines");
        let unit = arith::line_stake(request.amount, lines, Currency::Cny);
        assert_eq!(unit, dec(&slip.expect.unit_stake), "{name}: line stake");
        let outcome = validate(&request, &quotes, &limits(limit), dec("10000000"));
        if let Some(reason) = &slip.expect.refused {
            assert_eq!(reason, "odds_limit");
            assert!(
                matches!(outcome, Err(BetRefusal::OddsLimit { .. })),
                "{name}: {outcome:?}"
            );
            continue;
        }
        let bet = outcome.unwrap_or_else(|e| panic!("{name}: refused {e:?}"));
        assert_eq!(bet.unit_stake, dec(&slip.expect.unit_stake), "{name}: unit");
        assert_eq!(bet.stake, dec(&slip.expect.stake), "{name}: stake");
        assert_eq!(
            bet.combinations.len() * if bet.each_way { 2 } else { 1 },
            slip.expect.lines,
            "{name}: lines of the bet"
        );
        assert_eq!(
            bet.odds,
            slip.expect.odds.as_deref().map(dec),
            "{name}: odds"
        );
        assert_eq!(
            bet.possible_win,
            slip.expect.possible_win.as_deref().map(dec),
            "{name}: possible win"
        );
    }
}

#[test]
fn a_better_odds_single_is_taken_at_the_offered_price_or_the_live_one() {
    // Refused with 1800 before: the offered (raised) price was compared
    // with the plain live price.
    let quotes: BTreeMap<u64, Quote> = [(1, fixtures::quote(1, dec("2")))].into();
    for sent in ["2.1", "2"] {
        let request = BetRequest {
            bet_type: BetType::Single,
            mode: AcceptMode::NoChanges,
            amount: dec("10"),
            each_way: false,
            sys_bet: None,
            bonus_id: None,
            is_offer: true,
            selections: vec![Pick {
                event_id: 1,
                price: dec(sent),
                banker: false,
                base: None,
            }],
        };
        let bet = validate(&request, &quotes, &limits(dec("1000")), dec("100")).unwrap();
        assert_eq!(bet.legs[0].price, dec("2.1"), "sent {sent}");
        assert!(bet.better_odds);
    }
    // The live price moved: 1800 names the plain live price.
    let moved: BTreeMap<u64, Quote> = [(1, fixtures::quote(1, dec("1.9")))].into();
    let request = BetRequest {
        bet_type: BetType::Single,
        mode: AcceptMode::NoChanges,
        amount: dec("10"),
        each_way: false,
        sys_bet: None,
        bonus_id: None,
        is_offer: true,
        selections: vec![Pick {
            event_id: 1,
            price: dec("2.1"),
            banker: false,
            base: None,
        }],
    };
    let refusal = validate(&request, &moved, &limits(dec("1000")), dec("100")).unwrap_err();
    let BetRefusal::OddsChanged { details } = refusal else {
        panic!("{refusal:?}")
    };
    assert_eq!(details[0].new_price, dec("1.9"));
    // Accept higher: a raised live price above the one sent goes through.
    let higher: BTreeMap<u64, Quote> = [(1, fixtures::quote(1, dec("2.2")))].into();
    let mut request = request;
    request.mode = AcceptMode::Higher;
    let bet = validate(&request, &higher, &limits(dec("1000")), dec("100")).unwrap();
    assert_eq!(bet.legs[0].price, dec("2.32"));
}

#[test]
fn each_way_halves_the_amount_into_a_win_and_a_place_part() {
    // A member who typed a unit of 5 sees 10 and is charged 10 (was 20).
    let mut quote = fixtures::quote(1, dec("5"));
    quote.ew_allowed = true;
    quote.ew_coeff = Some(dec("0.25"));
    let request = BetRequest {
        bet_type: BetType::Single,
        mode: AcceptMode::NoChanges,
        amount: dec("10"),
        each_way: true,
        sys_bet: None,
        bonus_id: None,
        is_offer: false,
        selections: vec![Pick {
            event_id: 1,
            price: dec("5"),
            banker: false,
            base: None,
        }],
    };
    let bet = validate(
        &request,
        &[(1, quote)].into(),
        &limits(dec("1000")),
        dec("100"),
    )
    .unwrap();
    assert_eq!((bet.unit_stake, bet.stake), (dec("5.00"), dec("10.00")));
}
