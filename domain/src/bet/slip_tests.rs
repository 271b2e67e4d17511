//! Placement rules: every refusal with its code and message, and what an
//! accepted bet looks like.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use rust_decimal_macros::dec;

use super::*;
use crate::catalogue::GameType;
use crate::{Code, Currency};

fn quote(event_id: u64, game_id: u64, price: Decimal) -> Quote {
    Quote {
        event_id,
        market_id: event_id * 10,
        game_id,
        price,
        base: None,
        suspended: false,
        blocked: false,
        game_started: false,
        game_type: GameType::Prematch,
        single_only: false,
        ew_allowed: true,
        ew_coeff: Some(dec!(0.25)),
        sp_allowed: false,
        start_ts: 1_700_000_000,
        names: LegNames {
            team1: format!("Home {game_id}"),
            team2: Some(format!("Away {game_id}")),
            market_name: "Match Result".into(),
            event_name: "W1".into(),
            ..LegNames::default()
        },
    }
}

fn pick(event_id: u64, price: Decimal) -> Pick {
    Pick {
        event_id,
        price,
        banker: false,
        base: None,
    }
}

fn request(bet_type: BetType, amount: Decimal, selections: Vec<Pick>) -> BetRequest {
    BetRequest {
        bet_type,
        mode: AcceptMode::NoChanges,
        amount,
        each_way: false,
        sys_bet: None,
        bonus_id: None,
        is_offer: false,
        selections,
    }
}

fn limits() -> BetLimits {
    BetLimits::new(Currency::Cny, dec!(1), dec!(10000))
}

/// Quotes for events 1..=n, each in its own game, at the given prices.
fn market(prices: &[Decimal]) -> BTreeMap<u64, Quote> {
    prices
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let id = i as u64 + 1;
            (id, quote(id, 100 + id, *p))
        })
        .collect()
}

fn picks(prices: &[Decimal]) -> Vec<Pick> {
    prices
        .iter()
        .enumerate()
        .map(|(i, p)| pick(i as u64 + 1, *p))
        .collect()
}

fn place(req: &BetRequest, quotes: &BTreeMap<u64, Quote>) -> Result<ValidBet, BetRefusal> {
    validate(req, quotes, &limits(), dec!(100000))
}

fn refused(req: &BetRequest, quotes: &BTreeMap<u64, Quote>) -> BetRefusal {
    place(req, quotes).expect_err("the bet should be refused")
}

fn assert_refusal(refusal: &BetRefusal, code: i32, message: &str) {
    assert_eq!(refusal.code(), Code(code), "{refusal:?}");
    assert_eq!(refusal.to_string(), message, "{refusal:?}");
}

#[test]
fn a_single_is_accepted_at_the_live_price_with_its_possible_win() {
    let prices = [dec!(2.5)];
    let bet = place(
        &request(BetType::Single, dec!(10), picks(&prices)),
        &market(&prices),
    )
    .unwrap();
    assert_eq!(bet.stake, dec!(10.00));
    assert_eq!(bet.unit_stake, dec!(10.00));
    assert_eq!(bet.odds, Some(dec!(2.5)));
    assert_eq!(bet.possible_win, Some(dec!(25.00)));
    assert_eq!(bet.combinations, vec![vec![0]]);
    assert_eq!(bet.legs[0].game_id, 101);
    assert_eq!(bet.legs[0].names.team1, "Home 101");
    assert!(!bet.super_bet && !bet.better_odds);
}

#[test]
fn an_express_multiplies_its_prices() {
    let prices = [dec!(1.5), dec!(2.2), dec!(3.1)];
    let bet = place(
        &request(BetType::Express, dec!(10), picks(&prices)),
        &market(&prices),
    )
    .unwrap();
    assert_eq!(bet.odds, Some(dec!(10.23)));
    assert_eq!(bet.possible_win, Some(dec!(102.30)));
    assert_eq!(bet.combinations, vec![vec![0, 1, 2]]);
}

#[test]
fn too_few_events_are_refused_with_add_more_events() {
    let two = [dec!(2), dec!(2)];
    let one = [dec!(2)];
    for (ty, prices) in [
        (BetType::Single, &[][..]),
        (BetType::Express, &one[..]),
        (BetType::Chain, &one[..]),
        (BetType::System, &two[..]),
    ] {
        let mut req = request(ty, dec!(10), picks(prices));
        req.sys_bet = Some(2);
        let refusal = refused(&req, &market(prices));
        assert_refusal(&refusal, 1901, "Add more events to place a bet.");
    }
}

#[test]
fn an_empty_stake_asks_for_a_stake_and_an_invalid_one_is_a_wrong_amount() {
    let prices = [dec!(2)];
    let q = market(&prices);
    let refusal = refused(&request(BetType::Single, dec!(0), picks(&prices)), &q);
    assert_refusal(&refusal, 1109, "Set stake to place a bet.");
    for amount in [dec!(-5), dec!(1.005)] {
        let refusal = refused(&request(BetType::Single, amount, picks(&prices)), &q);
        assert_refusal(&refusal, 1109, "Wrong amount");
    }
}

#[test]
fn stakes_outside_the_limits_are_refused_with_1560_1550_1510_and_2400() {
    let prices = [dec!(2)];
    let q = market(&prices);
    let req = |amount| request(BetType::Single, amount, picks(&prices));
    let lim = BetLimits {
        member_limit: Some(dec!(500)),
        ..BetLimits::new(Currency::Cny, dec!(5), dec!(1000))
    };
    let answer = |amount, balance| validate(&req(amount), &q, &lim, balance);
    assert_refusal(
        &answer(dec!(4.99), dec!(9999)).unwrap_err(),
        1560,
        "sum below min",
    );
    assert_refusal(
        &answer(dec!(1000.01), dec!(9999)).unwrap_err(),
        1550,
        "sum above max",
    );
    assert_refusal(
        &answer(dec!(500.01), dec!(9999)).unwrap_err(),
        1510,
        "The bet amount exceeds your current limit",
    );
    assert_refusal(
        &answer(dec!(100), dec!(99.99)).unwrap_err(),
        2400,
        "Insufficient balance.",
    );
    assert!(answer(dec!(5), dec!(5)).is_ok());
    assert!(answer(dec!(500), dec!(500)).is_ok());
}

#[test]
fn deleted_suspended_and_blocked_events_are_refused() {
    let prices = [dec!(2), dec!(3)];
    let req = request(BetType::Express, dec!(10), picks(&prices));
    let mut q = market(&prices);
    q.remove(&2);
    assert_eq!(
        refused(&req, &q),
        BetRefusal::EventNotAvailable { event_id: 2 }
    );
    assert_refusal(&refused(&req, &q), 1902, "Event is not available.");

    let mut q = market(&prices);
    q.get_mut(&1).unwrap().suspended = true;
    assert_refusal(&refused(&req, &q), 1902, "Event is not available.");

    let mut q = market(&prices);
    q.get_mut(&2).unwrap().blocked = true;
    assert_eq!(refused(&req, &q), BetRefusal::EventBlocked { event_id: 2 });
    assert_refusal(&refused(&req, &q), 1903, "Event is blocked.");
}

#[test]
fn a_started_game_refuses_prematch_prices_with_1100() {
    let prices = [dec!(2)];
    let mut q = market(&prices);
    q.get_mut(&1).unwrap().game_started = true;
    let refusal = refused(&request(BetType::Single, dec!(10), picks(&prices)), &q);
    assert_eq!(refusal, BetRefusal::GameStarted { event_id: 1 });
    assert_refusal(&refusal, 1100, "game started");
}

#[test]
fn a_price_of_one_or_less_is_a_wrong_coefficient() {
    let prices = [dec!(2)];
    let refusal = refused(
        &request(BetType::Single, dec!(10), vec![pick(1, dec!(0.5))]),
        &market(&prices),
    );
    assert_refusal(&refusal, 1108, "Wrong coefficient");
}

#[test]
fn two_picks_of_one_game_conflict_in_every_combined_type() {
    let prices = [dec!(2), dec!(3), dec!(4)];
    let mut q = market(&prices);
    q.get_mut(&3).unwrap().game_id = 101;
    for ty in [BetType::Express, BetType::System, BetType::Chain] {
        let mut req = request(ty, dec!(10), picks(&prices));
        req.sys_bet = Some(2);
        let refusal = refused(&req, &q);
        assert_eq!(
            refusal,
            BetRefusal::Conflict {
                event_ids: vec![1, 3]
            }
        );
        assert_refusal(&refusal, 1904, "This bet cannot be combined with:");
    }
}

#[test]
fn a_single_only_event_is_refused_in_a_combination_but_not_alone() {
    let prices = [dec!(2), dec!(3)];
    let mut q = market(&prices);
    q.get_mut(&2).unwrap().single_only = true;
    let refusal = refused(&request(BetType::Express, dec!(10), picks(&prices)), &q);
    assert_refusal(
        &refusal,
        1905,
        "Some events in betslip conflict with others.",
    );
    assert!(place(
        &request(BetType::Single, dec!(10), vec![pick(2, dec!(3))]),
        &q
    )
    .is_ok());
}

#[test]
fn price_changes_follow_the_accept_mode() {
    // (mode, live price, accepted?) for a pick sent at 2.00.
    let table = [
        (AcceptMode::NoChanges, dec!(2.1), false),
        (AcceptMode::NoChanges, dec!(1.9), false),
        (AcceptMode::SuperBet, dec!(2.1), false),
        (AcceptMode::Higher, dec!(2.1), true),
        (AcceptMode::Higher, dec!(1.9), false),
        (AcceptMode::Any, dec!(2.1), true),
        (AcceptMode::Any, dec!(1.9), true),
    ];
    for (mode, live, accepted) in table {
        let mut req = request(BetType::Single, dec!(10), vec![pick(1, dec!(2))]);
        req.mode = mode;
        let answer = place(&req, &market(&[live]));
        match answer {
            Ok(bet) => {
                assert!(accepted, "{mode:?} {live}");
                assert_eq!(bet.legs[0].price, live);
                assert_eq!(bet.legs[0].requested_price, dec!(2));
            }
            Err(refusal) => {
                assert!(!accepted, "{mode:?} {live}");
                assert_refusal(&refusal, 1800, "The odds have changed");
                let details = vec![PriceChange {
                    event_id: 1,
                    new_price: live,
                    new_base: None,
                }];
                assert_eq!(refusal, BetRefusal::OddsChanged { details });
            }
        }
    }
}

#[test]
fn the_changes_list_every_moved_pick_when_one_is_refused() {
    let mut req = request(
        BetType::Express,
        dec!(10),
        vec![pick(1, dec!(2)), pick(2, dec!(3)), pick(3, dec!(4))],
    );
    req.mode = AcceptMode::Higher;
    let refusal = refused(&req, &market(&[dec!(2.2), dec!(3), dec!(3.9)]));
    let BetRefusal::OddsChanged { details } = refusal else {
        panic!("{refusal:?}")
    };
    let moved: Vec<(u64, Decimal)> = details.iter().map(|d| (d.event_id, d.new_price)).collect();
    assert_eq!(moved, vec![(1, dec!(2.2)), (3, dec!(3.9))]);
}

#[test]
fn a_changed_base_is_refused_unless_any_change_is_accepted() {
    let mut q = market(&[dec!(1.9)]);
    q.get_mut(&1).unwrap().base = Some(dec!(2.5));
    let mut p = pick(1, dec!(1.9));
    p.base = Some(dec!(2.25));
    for mode in [
        AcceptMode::NoChanges,
        AcceptMode::Higher,
        AcceptMode::SuperBet,
    ] {
        let mut req = request(BetType::Single, dec!(10), vec![p.clone()]);
        req.mode = mode;
        let refusal = refused(&req, &q);
        assert_refusal(&refusal, 1800, "The odds have changed");
        let details = vec![PriceChange {
            event_id: 1,
            new_price: dec!(1.9),
            new_base: Some(dec!(2.5)),
        }];
        assert_eq!(refusal, BetRefusal::OddsChanged { details });
    }
    let mut req = request(BetType::Single, dec!(10), vec![p]);
    req.mode = AcceptMode::Any;
    assert_eq!(place(&req, &q).unwrap().legs[0].base, Some(dec!(2.5)));
}

#[test]
fn express_odds_above_the_limit_are_refused() {
    let prices = [dec!(10), dec!(10), dec!(10.01)];
    let req = request(BetType::Express, dec!(10), picks(&prices));
    let refusal = refused(&req, &market(&prices));
    assert_refusal(&refusal, 1906, "Odds limit exceeded.");
    let exactly = [dec!(10), dec!(10), dec!(10)];
    assert!(place(
        &request(BetType::Express, dec!(10), picks(&exactly)),
        &market(&exactly)
    )
    .is_ok());
    // The spec's other reading.
    let lim = BetLimits {
        max_express_odds: EXPRESS_ODDS_LIMIT_HIGH,
        ..limits()
    };
    assert!(validate(&req, &market(&prices), &lim, dec!(1000)).is_ok());
}

#[test]
fn every_system_combination_is_held_to_the_odds_limit() {
    let prices = [dec!(40), dec!(30), dec!(1.5)];
    let mut req = request(BetType::System, dec!(30), picks(&prices));
    req.sys_bet = Some(2);
    assert_refusal(
        &refused(&req, &market(&prices)),
        1906,
        "Odds limit exceeded.",
    );
}

#[test]
fn sp_is_accepted_only_where_a_starting_price_is_offered() {
    let mut q = market(&[dec!(3), dec!(2)]);
    let req = request(
        BetType::Express,
        dec!(10),
        vec![pick(1, SP_PRICE), pick(2, dec!(2))],
    );
    let refusal = refused(&req, &q);
    assert_eq!(refusal, BetRefusal::SpNotAvailable { event_id: 1 });
    assert_eq!(refusal.code(), Code(1907));
    q.get_mut(&1).unwrap().sp_allowed = true;
    let bet = place(&req, &q).unwrap();
    assert!(bet.legs[0].is_sp());
    assert_eq!(bet.odds, None);
    assert_eq!(bet.possible_win, None);
}

#[test]
fn better_odds_raise_by_a_tenth_of_the_margin_rounded_up() {
    let table = [
        (dec!(2), dec!(2.1)),
        (dec!(1.85), dec!(1.935)),
        (dec!(1.333), dec!(1.367)),
        (dec!(1.06), dec!(1.066)),
        (dec!(1.059), dec!(1.059)),
        (dec!(1.05), dec!(1.05)),
        (dec!(9.2), dec!(10.02)),
        (dec!(9.201), dec!(10.03)),
        (dec!(11.333), dec!(12.37)),
        (dec!(12), dec!(13.1)),
    ];
    for (price, raised) in table {
        assert_eq!(better_odds(price), raised, "{price}");
    }
}

#[test]
fn better_odds_apply_to_singles_only() {
    let mut req = request(BetType::Single, dec!(10), vec![pick(1, dec!(2))]);
    req.is_offer = true;
    let bet = place(&req, &market(&[dec!(2)])).unwrap();
    assert!(bet.better_odds);
    assert_eq!(bet.legs[0].price, dec!(2.1));
    assert_eq!(bet.possible_win, Some(dec!(21.00)));

    let prices = [dec!(2), dec!(3)];
    let mut req = request(BetType::Express, dec!(10), picks(&prices));
    req.is_offer = true;
    let bet = place(&req, &market(&prices)).unwrap();
    assert!(!bet.better_odds);
    assert_eq!(bet.odds, Some(dec!(6)));
}

#[test]
fn each_way_halves_the_amount_and_adds_place_odds() {
    let mut req = request(BetType::Single, dec!(20), vec![pick(1, dec!(5))]);
    req.each_way = true;
    let bet = place(&req, &market(&[dec!(5)])).unwrap();
    assert_eq!(bet.stake, dec!(20.00));
    assert_eq!(bet.unit_stake, dec!(10.00));
    assert_eq!(bet.legs[0].place_price, Some(dec!(2)));
    assert_eq!(bet.possible_win, Some(dec!(70.00)));

    let mut q = market(&[dec!(5)]);
    q.get_mut(&1).unwrap().ew_allowed = false;
    let refusal = refused(&req, &q);
    assert_eq!(refusal, BetRefusal::EachWayNotAvailable { event_id: 1 });
    assert_eq!(refusal.code(), Code(1908));
}

#[test]
fn a_system_splits_the_stake_over_its_combinations_rounding_down() {
    let prices = [dec!(2), dec!(3), dec!(4), dec!(5)];
    let mut req = request(BetType::System, dec!(10), picks(&prices));
    req.sys_bet = Some(2);
    let bet = place(&req, &market(&prices)).unwrap();
    assert_eq!(bet.combinations.len(), 6);
    assert_eq!(bet.unit_stake, dec!(1.66));
    assert_eq!(bet.stake, dec!(9.96));
    assert_eq!(bet.sys_bet, Some(2));
    assert_eq!(bet.odds, None);
    // 1.66 x (6 + 8 + 10 + 12 + 15 + 20)
    assert_eq!(bet.possible_win, Some(dec!(117.86)));
}

#[test]
fn bankers_are_in_every_system_combination() {
    let prices = [dec!(2), dec!(3), dec!(4), dec!(5)];
    let mut selections = picks(&prices);
    selections[1].banker = true;
    let mut req = request(BetType::System, dec!(9), selections);
    req.sys_bet = Some(3);
    let bet = place(&req, &market(&prices)).unwrap();
    assert_eq!(
        bet.combinations,
        vec![vec![0, 1, 2], vec![0, 1, 3], vec![1, 2, 3]]
    );
    assert_eq!(bet.unit_stake, dec!(3));
    assert!(bet.legs[1].banker);
}

#[test]
fn a_system_stake_per_combination_below_the_minimum_is_refused() {
    let prices = [dec!(2), dec!(3), dec!(4), dec!(5)];
    let mut req = request(BetType::System, dec!(5.99), picks(&prices));
    req.sys_bet = Some(2);
    assert_refusal(&refused(&req, &market(&prices)), 1560, "sum below min");
}

#[test]
fn malformed_bets_are_refused_with_1909() {
    let prices = [dec!(2), dec!(3), dec!(4)];
    let q = market(&prices);
    let system = |k: Option<u32>, bankers: usize| {
        let mut selections = picks(&prices);
        for s in selections.iter_mut().take(bankers) {
            s.banker = true;
        }
        let mut req = request(BetType::System, dec!(10), selections);
        req.sys_bet = k;
        req
    };
    for req in [
        system(None, 0),
        system(Some(1), 0),
        system(Some(3), 0),
        system(Some(2), 2),
        request(BetType::Single, dec!(10), picks(&prices[..2])),
        request(
            BetType::Express,
            dec!(10),
            vec![pick(1, dec!(2)), pick(1, dec!(2))],
        ),
    ] {
        assert_refusal(&refused(&req, &q), 1909, "The bet is not valid.");
    }
}

#[test]
fn a_super_bet_above_the_limits_is_held_not_refused() {
    let mut req = request(BetType::Single, dec!(20000), vec![pick(1, dec!(2))]);
    req.mode = AcceptMode::SuperBet;
    let lim = BetLimits {
        member_limit: Some(dec!(100)),
        ..limits()
    };
    let bet = validate(&req, &market(&[dec!(2)]), &lim, dec!(50000)).unwrap();
    assert!(bet.super_bet);
    let refusal = validate(&req, &market(&[dec!(2)]), &lim, dec!(100)).unwrap_err();
    assert_eq!(refusal, BetRefusal::InsufficientBalance);
}

#[test]
fn bankers_outside_a_system_are_ignored_and_a_chain_keeps_its_order() {
    let prices = [dec!(2), dec!(2)];
    let mut selections = picks(&prices);
    selections[0].banker = true;
    let bet = place(
        &request(BetType::Chain, dec!(10), selections),
        &market(&prices),
    )
    .unwrap();
    assert!(!bet.legs[0].banker);
    assert_eq!(bet.combinations, vec![vec![0, 1]]);
    assert_eq!(bet.odds, None);
    assert_eq!(bet.possible_win, Some(dec!(30.00)));
}

#[test]
fn combinations_count_binomially_with_bankers_in_each() {
    fn binomial(n: usize, k: usize) -> usize {
        (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
    }
    for n in 3..=7 {
        for k in 2..n {
            for b in 0..k.min(3) {
                let bankers: Vec<usize> = (0..b).collect();
                let combos = combinations(n, k, &bankers);
                assert_eq!(combos.len(), binomial(n - b, k - b), "n {n} k {k} b {b}");
                for c in &combos {
                    assert_eq!(c.len(), k);
                    assert!(bankers.iter().all(|x| c.contains(x)));
                    assert!(c.windows(2).all(|w| w[0] < w[1]));
                }
                let distinct: std::collections::BTreeSet<_> = combos.iter().collect();
                assert_eq!(distinct.len(), combos.len());
            }
        }
    }
}

#[test]
fn a_quote_is_read_from_the_catalogue() {
    let catalogue = crate::catalogue::testgen::small();
    let q = Quote::from_catalogue(&catalogue, 100001, 1_600_000_000).unwrap();
    assert_eq!((q.market_id, q.game_id, q.price), (10000, 1000, dec!(2.1)));
    assert_eq!(q.names.team1, "Arsenal");
    assert_eq!(q.names.competition_name, "Premier League");
    assert_eq!(q.names.sport_name, "Football");
    assert!(!q.game_started);
    let after_kickoff = Quote::from_catalogue(&catalogue, 100001, 1_700_000_000).unwrap();
    assert!(after_kickoff.game_started);
    assert!(Quote::from_catalogue(&catalogue, 999, 0).is_none());
}

#[test]
fn the_request_reads_the_do_bet_payload() {
    let json = serde_json::json!({
        "type": 3, "mode": 1, "amount": "10", "each_way": false, "sys_bet": 2,
        "bets": [{"event_id": 1, "price": "2.5", "banker": true}, {"event_id": 2, "price": -1}]
    });
    let req: BetRequest = serde_json::from_value(json).unwrap();
    assert_eq!(req.bet_type, BetType::System);
    assert_eq!(req.mode, AcceptMode::Higher);
    assert_eq!(req.selections[1].price, SP_PRICE);
    assert!(req.selections[0].banker);
    assert!(serde_json::from_value::<BetType>(serde_json::json!(5)).is_err());
}

#[test]
fn a_quote_reads_the_markets_each_way_and_sp_terms() {
    let mut catalogue = crate::catalogue::testgen::small();
    let plain = Quote::from_catalogue(&catalogue, 100001, 1_600_000_000).unwrap();
    assert!(!plain.ew_allowed && !plain.sp_allowed);
    assert_eq!(plain.ew_coeff, None);
    catalogue
        .update_market(10000, |m| {
            m.ew_allowed = true;
            m.ew_places = Some(3);
            m.ew_coeff = Some(dec!(0.25));
            m.sp_allowed = true;
        })
        .unwrap();
    let racing = Quote::from_catalogue(&catalogue, 100001, 1_600_000_000).unwrap();
    assert!(racing.ew_allowed && racing.sp_allowed);
    assert_eq!(racing.ew_coeff, Some(dec!(0.25)));
    // Each-way terms without a coefficient, or a coefficient without the flag: no each-way.
    catalogue
        .update_market(10000, |m| m.ew_coeff = None)
        .unwrap();
    let no_coeff = Quote::from_catalogue(&catalogue, 100001, 1_600_000_000).unwrap();
    assert!(!no_coeff.ew_allowed);
    catalogue
        .update_market(10000, |m| {
            m.ew_allowed = false;
            m.ew_coeff = Some(dec!(0.2));
        })
        .unwrap();
    let no_flag = Quote::from_catalogue(&catalogue, 100001, 1_600_000_000).unwrap();
    assert_eq!((no_flag.ew_allowed, no_flag.ew_coeff), (false, None));
}

#[test]
fn each_way_and_sp_bets_are_accepted_on_the_terms_the_catalogue_gives() {
    let mut catalogue = crate::catalogue::testgen::small();
    let quotes = |c: &crate::catalogue::Catalogue| -> BTreeMap<u64, Quote> {
        [(
            100001,
            Quote::from_catalogue(c, 100001, 1_600_000_000).unwrap(),
        )]
        .into()
    };
    let mut ew = request(BetType::Single, dec!(10), vec![pick(100001, dec!(2.1))]);
    ew.each_way = true;
    let sp = request(BetType::Single, dec!(10), vec![pick(100001, SP_PRICE)]);
    let plain = quotes(&catalogue);
    assert_eq!(
        validate(&ew, &plain, &limits(), dec!(100)).unwrap_err(),
        BetRefusal::EachWayNotAvailable { event_id: 100001 }
    );
    assert_eq!(
        validate(&sp, &plain, &limits(), dec!(100)).unwrap_err(),
        BetRefusal::SpNotAvailable { event_id: 100001 }
    );
    catalogue
        .update_market(10000, |m| {
            m.ew_allowed = true;
            m.ew_places = Some(3);
            m.ew_coeff = Some(dec!(0.25));
            m.sp_allowed = true;
        })
        .unwrap();
    let racing = quotes(&catalogue);
    let bet = validate(&ew, &racing, &limits(), dec!(100)).unwrap();
    // The amount is the total: 5 on the win part and 5 on the place part.
    assert_eq!((bet.unit_stake, bet.stake), (dec!(5), dec!(10)));
    // 1 + 1.1 / 4 = 1.275.
    assert_eq!(bet.legs[0].place_price, Some(dec!(1.275)));
    assert_eq!(bet.legs[0].ew_coeff, Some(dec!(0.25)));
    let bet = validate(&sp, &racing, &limits(), dec!(100)).unwrap();
    assert!(bet.legs[0].is_sp());
    assert_eq!((bet.odds, bet.possible_win), (None, None));
}

// ---- bounds on what a member's numbers can make the server do -------------

#[test]
fn more_selections_than_the_cap_are_refused_with_1913() {
    let prices = vec![dec!(1.01); MAX_SELECTIONS + 1];
    let refusal = refused(
        &request(BetType::Express, dec!(10), picks(&prices)),
        &market(&prices),
    );
    assert_refusal(
        &refusal,
        1913,
        "Too many selections: a bet holds at most 30.",
    );
    // The cap counts before anything else is looked at, even unknown events.
    let refusal = refused(
        &request(BetType::Express, dec!(10), picks(&prices)),
        &BTreeMap::new(),
    );
    assert_eq!(refusal, BetRefusal::TooManySelections { max: 30 });
    // 30 is allowed.
    let prices = vec![dec!(1.01); MAX_SELECTIONS];
    place(
        &request(BetType::Express, dec!(10), picks(&prices)),
        &market(&prices),
    )
    .unwrap();
}

#[test]
fn an_express_of_long_prices_past_the_odds_limit_is_refused_not_overflowed() {
    // 40 racing prices of 500: the product would overflow a Decimal
    // (rust_decimal panics on it); the limit refuses it first.
    let prices = vec![dec!(500); 40];
    let lim = BetLimits {
        max_selections: 100,
        ..limits()
    };
    let refusal = validate(
        &request(BetType::Express, dec!(10), picks(&prices)),
        &market(&prices),
        &lim,
        dec!(100000),
    )
    .unwrap_err();
    assert_eq!(refusal.code(), Code(1906));
    assert!(matches!(refusal, BetRefusal::OddsLimit { limit, .. } if limit == dec!(1000)));
    // A chain has no odds limit: it is accepted and its possible win is
    // computed without overflow (a chain never rides more than its stake).
    let bet = validate(
        &request(BetType::Chain, dec!(10), picks(&prices)),
        &market(&prices),
        &lim,
        dec!(100000),
    )
    .unwrap();
    assert!(bet.possible_win.is_some());
}

#[test]
fn a_system_with_more_combinations_than_the_cap_is_refused_at_once() {
    // C(30, 15) = 155,117,520 combinations: counted, never generated.
    let prices = vec![dec!(1.5); 30];
    let mut req = request(BetType::System, dec!(10), picks(&prices));
    req.sys_bet = Some(15);
    let started = std::time::Instant::now();
    let refusal = refused(&req, &market(&prices));
    assert!(started.elapsed() < std::time::Duration::from_millis(200));
    assert_refusal(
        &refusal,
        1914,
        "Too many combinations: a system bet holds at most 5000.",
    );
    // C(13, 6) = 1716 is within the cap.
    let prices = vec![dec!(1.5); 13];
    let mut req = request(BetType::System, dec!(1716), picks(&prices));
    req.sys_bet = Some(6);
    assert_eq!(
        place(&req, &market(&prices)).unwrap().combinations.len(),
        1716
    );
}

#[test]
fn the_combination_count_is_exact_and_saturates_instead_of_overflowing() {
    assert_eq!(combination_count(5, 2, 0), 10);
    assert_eq!(combination_count(6, 3, 1), 10);
    assert_eq!(combination_count(3, 5, 0), 0);
    assert_eq!(combination_count(2, 3, 3), 0);
    assert_eq!(combination_count(200, 100, 0), u64::MAX);
}

#[test]
fn amounts_too_large_to_multiply_are_refused_above_the_maximum() {
    let prices = [dec!(1.5), dec!(2.0), dec!(2.5)];
    for (bet_type, sys, each_way) in [
        (BetType::Single, None, true),
        (BetType::Express, None, true),
        (BetType::System, Some(2), true),
    ] {
        let n = if bet_type == BetType::Single { 1 } else { 3 };
        let mut req = request(bet_type, Decimal::MAX, picks(&prices[..n]));
        req.sys_bet = sys;
        req.each_way = each_way;
        let refusal = refused(&req, &market(&prices[..n]));
        assert!(
            matches!(
                refusal,
                BetRefusal::AboveMax { .. } | BetRefusal::WrongAmount
            ),
            "{bet_type:?}: {refusal:?}"
        );
    }
}

#[test]
fn a_super_bet_of_an_enormous_stake_is_refused_by_the_balance_not_a_panic() {
    let prices = [dec!(1.5), dec!(2.0), dec!(2.5)];
    let mut req = request(
        BetType::Express,
        dec!(7922816251426433759354395033),
        picks(&prices),
    );
    req.mode = AcceptMode::SuperBet;
    req.each_way = true;
    let refusal = refused(&req, &market(&prices));
    assert!(
        matches!(
            refusal,
            BetRefusal::InsufficientBalance | BetRefusal::AboveMax { .. }
        ),
        "{refusal:?}"
    );
}

#[test]
fn thirty_five_of_thirty_six_makes_its_thirty_six_combinations_at_once() {
    // This walked 2^36 dead ends before (over 30 s on one core).
    let started = std::time::Instant::now();
    let all = combinations(36, 35, &[]);
    assert_eq!(all.len(), 36);
    assert_eq!(combinations(36, 35, &[0, 1]).len(), 34);
    assert!(started.elapsed() < std::time::Duration::from_millis(200));
    assert_eq!(combinations(4, 2, &[]).len(), 6);
    assert_eq!(combinations(3, 0, &[]), vec![Vec::<usize>::new()]);
    assert!(combinations(3, 5, &[]).is_empty());
}

#[test]
fn better_odds_leave_a_price_too_long_to_raise_as_it_is() {
    // Found by fuzzing (fuzz/fuzz_targets/do_bet.rs): raising a feed price
    // near the top of the Decimal range by a tenth of its margin
    // overflowed while the single with `is_offer` was validated.
    assert_eq!(better_odds(Decimal::MAX), Decimal::MAX);
    let prices = [Decimal::MAX];
    let mut req = request(BetType::Single, dec!(10), picks(&prices));
    req.is_offer = true;
    let bet = place(&req, &market(&prices)).unwrap();
    assert_eq!(bet.legs[0].price, Decimal::MAX);
    assert!(!bet.better_odds);
}
