//! Settlement: tables per type, a brute-force oracle over every outcome
//! combination (n <= 4 legs, 5 outcomes each), and seeded properties.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use rust_decimal_macros::dec;

use super::*;
use crate::catalogue::testgen::Rng;
use crate::catalogue::GameType;
use crate::result::SelectionOutcome::{self, *};
use crate::Currency;

const ALL: [SelectionOutcome; 5] = [Won, HalfWon, Returned, HalfLost, Lost];
const CNY: Currency = Currency::Cny;
const EW_COEFF: Decimal = dec!(0.25);

fn leg(event_id: u64, price: Decimal, each_way: bool) -> Leg {
    let ew_coeff = each_way.then_some(EW_COEFF);
    Leg {
        event_id,
        market_id: event_id * 10,
        game_id: event_id * 100,
        price,
        requested_price: price,
        base: None,
        place_price: ew_coeff
            .filter(|_| price != SP_PRICE)
            .map(|c| place_odds(price, c)),
        ew_coeff,
        banker: false,
        game_type: GameType::Prematch,
        start_ts: 0,
        names: LegNames::default(),
    }
}

/// A bet on legs 1..=n at `prices`, built directly (no catalogue).
fn bet(
    bet_type: BetType,
    prices: &[Decimal],
    unit: Decimal,
    each_way: bool,
    k: usize,
    bankers: &[usize],
) -> ValidBet {
    let n = prices.len();
    let mut legs: Vec<Leg> = prices
        .iter()
        .enumerate()
        .map(|(i, p)| leg(i as u64 + 1, *p, each_way))
        .collect();
    for &b in bankers {
        legs[b].banker = true;
    }
    let combinations = match bet_type {
        BetType::System => combinations(n, k, bankers),
        _ => vec![(0..n).collect()],
    };
    let parts = if each_way { 2 } else { 1 };
    ValidBet {
        bet_type,
        mode: AcceptMode::NoChanges,
        each_way,
        super_bet: false,
        better_odds: false,
        bonus_id: None,
        sys_bet: (bet_type == BetType::System).then_some(k as u32),
        unit_stake: unit,
        stake: CNY.round(unit * Decimal::from(combinations.len() * parts)),
        legs,
        combinations,
        odds: None,
        possible_win: None,
    }
}

fn results(outcomes: &[Option<SelectionOutcome>]) -> LegResults {
    LegResults::new(
        outcomes
            .iter()
            .enumerate()
            .filter_map(|(i, o)| o.map(|o| (i as u64 + 1, o)))
            .collect(),
    )
}

fn known(outcomes: &[SelectionOutcome]) -> LegResults {
    results(&outcomes.iter().copied().map(Some).collect::<Vec<_>>())
}

fn pay(bet: &ValidBet, outcomes: &[SelectionOutcome]) -> (BetStatus, Decimal) {
    let s = settle(bet, &known(outcomes), CNY, ExpressBonus::None);
    (s.status, s.payout)
}

// ---- tables -------------------------------------------------------------

#[test]
fn a_single_pays_per_outcome() {
    let single = bet(BetType::Single, &[dec!(2.5)], dec!(10), false, 1, &[]);
    let table = [
        (Won, BetStatus::Won, dec!(25)),
        (HalfWon, BetStatus::Won, dec!(17.5)),
        (Returned, BetStatus::Returned, dec!(10)),
        (HalfLost, BetStatus::Lost, dec!(5)),
        (Lost, BetStatus::Lost, dec!(0)),
    ];
    for (outcome, status, payout) in table {
        assert_eq!(pay(&single, &[outcome]), (status, payout), "{outcome:?}");
    }
    let open = settle(&single, &LegResults::default(), CNY, ExpressBonus::None);
    assert_eq!(open, BetSettlement::unsettled());
}

#[test]
fn an_express_multiplies_its_leg_factors() {
    let express = bet(
        BetType::Express,
        &[dec!(2), dec!(3)],
        dec!(10),
        false,
        2,
        &[],
    );
    let table = [
        ([Won, Won], BetStatus::Won, dec!(60)),
        ([Won, HalfWon], BetStatus::Won, dec!(40)),
        ([HalfLost, Won], BetStatus::Won, dec!(15)),
        ([Returned, Returned], BetStatus::Returned, dec!(10)),
        ([HalfLost, Returned], BetStatus::Lost, dec!(5)),
        ([Won, Lost], BetStatus::Lost, dec!(0)),
    ];
    for (outcomes, status, payout) in table {
        assert_eq!(pay(&express, &outcomes), (status, payout), "{outcomes:?}");
    }
}

#[test]
fn a_chain_carries_up_to_the_stake_and_banks_the_rest() {
    let chain = bet(BetType::Chain, &[dec!(2), dec!(3)], dec!(10), false, 2, &[]);
    let table = [
        ([Won, Won], BetStatus::Won, dec!(40)),
        ([Won, Lost], BetStatus::Returned, dec!(10)),
        ([Lost, Won], BetStatus::Lost, dec!(0)),
        ([HalfLost, Won], BetStatus::Won, dec!(15)),
        ([Returned, Returned], BetStatus::Returned, dec!(10)),
        ([HalfWon, HalfLost], BetStatus::Returned, dec!(10)),
    ];
    for (outcomes, status, payout) in table {
        assert_eq!(pay(&chain, &outcomes), (status, payout), "{outcomes:?}");
    }
    let even = bet(BetType::Chain, &[dec!(2), dec!(2)], dec!(10), false, 2, &[]);
    assert_eq!(pay(&even, &[Won, Won]), (BetStatus::Won, dec!(30)));
}

#[test]
fn a_lost_leg_ends_a_chain_before_the_later_legs_are_known() {
    let chain = bet(
        BetType::Chain,
        &[dec!(2), dec!(3), dec!(4)],
        dec!(10),
        false,
        3,
        &[],
    );
    let s = settle(
        &chain,
        &results(&[Some(Won), Some(Lost), None]),
        CNY,
        ExpressBonus::None,
    );
    assert_eq!((s.status, s.payout), (BetStatus::Returned, dec!(10)));
    let s = settle(
        &chain,
        &results(&[None, Some(Lost), None]),
        CNY,
        ExpressBonus::None,
    );
    assert_eq!(s.status, BetStatus::Unsettled);
}

#[test]
fn an_express_with_a_lost_leg_settles_before_the_others_are_known() {
    let express = bet(
        BetType::Express,
        &[dec!(2), dec!(3)],
        dec!(10),
        false,
        2,
        &[],
    );
    let s = settle(
        &express,
        &results(&[None, Some(Lost)]),
        CNY,
        ExpressBonus::None,
    );
    assert_eq!((s.status, s.payout), (BetStatus::Lost, dec!(0)));
    let s = settle(
        &express,
        &results(&[None, Some(Won)]),
        CNY,
        ExpressBonus::None,
    );
    assert_eq!(s.status, BetStatus::Unsettled);
}

#[test]
fn a_system_pays_each_combination_as_an_express() {
    let system = bet(
        BetType::System,
        &[dec!(2), dec!(3), dec!(4)],
        dec!(1),
        false,
        2,
        &[],
    );
    assert_eq!(system.stake, dec!(3));
    assert_eq!(pay(&system, &[Won, Won, Won]), (BetStatus::Won, dec!(26)));
    assert_eq!(pay(&system, &[Won, Won, Lost]), (BetStatus::Won, dec!(6)));
    assert_eq!(
        pay(&system, &[Won, Lost, HalfLost]),
        (BetStatus::Lost, dec!(1))
    );
    assert_eq!(pay(&system, &[Lost, Lost, Won]), (BetStatus::Lost, dec!(0)));
}

#[test]
fn each_way_pays_the_place_part_on_place_odds() {
    let ew = bet(BetType::Single, &[dec!(5)], dec!(10), true, 1, &[]);
    assert_eq!(ew.stake, dec!(20));
    assert_eq!(ew.legs[0].place_price, Some(dec!(2)));
    assert_eq!(pay(&ew, &[Won]), (BetStatus::Won, dec!(70)));
    assert_eq!(pay(&ew, &[HalfWon]), (BetStatus::Won, dec!(45)));
    assert_eq!(pay(&ew, &[Returned]), (BetStatus::Returned, dec!(20)));
    assert_eq!(pay(&ew, &[Lost]), (BetStatus::Lost, dec!(0)));
}

/// Each-way single at 8.0, 1/4 odds for a place (2.75), 10 a way.
#[test]
fn an_each_way_single_pays_win_and_place_or_place_only() {
    let ew = bet(BetType::Single, &[dec!(8)], dec!(10), true, 1, &[]);
    assert_eq!(ew.stake, dec!(20));
    assert_eq!(ew.legs[0].place_price, Some(dec!(2.75)));
    let table = [
        // Won: 10 x 8 + 10 x 2.75.
        (Won, BetStatus::Won, dec!(107.5)),
        // Placed (2nd, 3rd ...): the win part lost, the place part 27.50.
        (Placed, BetStatus::Won, dec!(27.5)),
        (Lost, BetStatus::Lost, dec!(0)),
        (Returned, BetStatus::Returned, dec!(20)),
    ];
    for (outcome, status, payout) in table {
        assert_eq!(pay(&ew, &[outcome]), (status, payout), "{outcome:?}");
    }
    // A short price: placed pays back less than the 20 staked (3.0 -> 1.5).
    let short = bet(BetType::Single, &[dec!(3)], dec!(10), true, 1, &[]);
    assert_eq!(pay(&short, &[Placed]), (BetStatus::Lost, dec!(15)));
    // Without each-way a placed runner is a loser.
    let win_only = bet(BetType::Single, &[dec!(8)], dec!(10), false, 1, &[]);
    assert_eq!(pay(&win_only, &[Placed]), (BetStatus::Lost, dec!(0)));
}

/// Each-way express at 5.0 and 9.0: place odds 2 and 3 (1/4), 10 a way.
#[test]
fn an_each_way_express_pays_its_place_line_when_every_leg_places() {
    let ew = bet(
        BetType::Express,
        &[dec!(5), dec!(9)],
        dec!(10),
        true,
        2,
        &[],
    );
    assert_eq!(ew.stake, dec!(20));
    let table = [
        // Win line 10 x 5 x 9 = 450, place line 10 x 2 x 3 = 60.
        ([Won, Won], BetStatus::Won, dec!(510)),
        // One leg only placed: the win line is lost, the place line pays.
        ([Won, Placed], BetStatus::Won, dec!(60)),
        ([Placed, Won], BetStatus::Won, dec!(60)),
        ([Placed, Placed], BetStatus::Won, dec!(60)),
        // An unplaced leg loses both lines.
        ([Won, Lost], BetStatus::Lost, dec!(0)),
        ([Placed, Lost], BetStatus::Lost, dec!(0)),
        // A non-runner: 10 x 5 + 10 x 2.
        ([Won, Returned], BetStatus::Won, dec!(70)),
        ([Placed, Returned], BetStatus::Returned, dec!(20)),
    ];
    for (outcomes, status, payout) in table {
        assert_eq!(pay(&ew, &outcomes), (status, payout), "{outcomes:?}");
    }
}

/// SP singles: the starting price (6.5) comes with the result.
#[test]
fn sp_singles_settle_at_the_starting_price_win_and_each_way() {
    let at_sp = |outcome: SelectionOutcome| {
        let mut r = known(&[outcome]);
        r.sp_prices.insert(1, dec!(6.5));
        r
    };
    let sp = bet(BetType::Single, &[SP_PRICE], dec!(10), false, 1, &[]);
    let table = [
        (Won, BetStatus::Won, dec!(65)),
        (Placed, BetStatus::Lost, dec!(0)),
        (Lost, BetStatus::Lost, dec!(0)),
        (Returned, BetStatus::Returned, dec!(10)),
    ];
    for (outcome, status, payout) in table {
        let s = settle(&sp, &at_sp(outcome), CNY, ExpressBonus::None);
        assert_eq!((s.status, s.payout), (status, payout), "{outcome:?}");
    }
    // Each way at SP: place odds 1 + 5.5 / 4 = 2.375.
    let ew = bet(BetType::Single, &[SP_PRICE], dec!(10), true, 1, &[]);
    assert_eq!(ew.legs[0].place_price, None);
    let table = [
        (Won, BetStatus::Won, dec!(88.75)),
        (Placed, BetStatus::Won, dec!(23.75)),
        (Lost, BetStatus::Lost, dec!(0)),
    ];
    for (outcome, status, payout) in table {
        let s = settle(&ew, &at_sp(outcome), CNY, ExpressBonus::None);
        assert_eq!((s.status, s.payout), (status, payout), "{outcome:?}");
    }
    // Without its starting price a placed SP each-way leg returns its place part.
    assert_eq!(pay(&ew, &[Placed]), (BetStatus::Lost, dec!(10)));
}

#[test]
fn placed_runners_match_the_brute_force_oracle_on_every_outcome_combination() {
    let with_placed = [Won, HalfWon, Returned, HalfLost, Lost, Placed];
    let prices = [dec!(2.5), dec!(7.777), dec!(3.25)];
    let mut checked = 0;
    for n in 1..=3 {
        let prices = &prices[..n];
        for (bet_type, k, bankers) in shapes(n) {
            for each_way in [false, true] {
                let unit = dec!(3.33);
                let b = bet(bet_type, prices, unit, each_way, k, &bankers);
                for outcomes in every_outcome_of(&with_placed, n) {
                    let expected = oracle(bet_type, prices, unit, each_way, k, &bankers, &outcomes);
                    let (status, payout) = pay(&b, &outcomes);
                    let what = format!("{bet_type:?} k{k} b{bankers:?} ew{each_way} {outcomes:?}");
                    assert_eq!(payout, expected, "{what}");
                    assert_eq!(status, status_of(expected, b.stake), "{what}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 1_000, "{checked}");
}

#[test]
fn sp_legs_settle_at_the_starting_price_or_return() {
    let sp = bet(BetType::Single, &[SP_PRICE], dec!(10), false, 1, &[]);
    let mut with_price = known(&[Won]);
    with_price.sp_prices.insert(1, dec!(4));
    let s = settle(&sp, &with_price, CNY, ExpressBonus::None);
    assert_eq!((s.status, s.payout), (BetStatus::Won, dec!(40)));
    assert_eq!(pay(&sp, &[Won]), (BetStatus::Returned, dec!(10)));
    assert_eq!(pay(&sp, &[HalfWon]), (BetStatus::Returned, dec!(10)));
    assert_eq!(pay(&sp, &[HalfLost]), (BetStatus::Lost, dec!(5)));
    assert_eq!(pay(&sp, &[Lost]), (BetStatus::Lost, dec!(0)));
    let ew = bet(BetType::Single, &[SP_PRICE], dec!(10), true, 1, &[]);
    let s = settle(&ew, &with_price, CNY, ExpressBonus::None);
    assert_eq!(s.payout, dec!(40) + dec!(17.5));
}

#[test]
fn the_express_bonus_is_off_by_default_and_pays_a_percent_of_winnings() {
    let express = bet(
        BetType::Express,
        &[dec!(2), dec!(3)],
        dec!(10),
        false,
        2,
        &[],
    );
    let won = known(&[Won, Won]);
    assert_eq!(
        settle(&express, &won, CNY, ExpressBonus::default()).bonus,
        dec!(0)
    );
    let s = settle(&express, &won, CNY, ExpressBonus::PerSelection);
    assert_eq!(
        (s.payout, s.bonus, s.total()),
        (dec!(60), dec!(1), dec!(61))
    );
    let lost = known(&[Won, Lost]);
    assert_eq!(
        settle(&express, &lost, CNY, ExpressBonus::Ladder).bonus,
        dec!(0)
    );
    let ladder: Vec<Decimal> = (1..=12).map(|n| ExpressBonus::Ladder.percent(n)).collect();
    let expected = [1, 2, 3, 4, 5, 10, 15, 20, 25, 30, 30, 30].map(Decimal::from);
    assert_eq!(ladder, expected);
    let system = bet(
        BetType::System,
        &[dec!(2), dec!(3), dec!(4)],
        dec!(1),
        false,
        2,
        &[],
    );
    let all_won = known(&[Won, Won, Won]);
    assert_eq!(
        settle(&system, &all_won, CNY, ExpressBonus::PerSelection).bonus,
        dec!(0)
    );
}

#[test]
fn a_settlement_travels_with_status_numbers() {
    let s = BetSettlement {
        status: BetStatus::Won,
        payout: dec!(25.00),
        bonus: dec!(0.00),
    };
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(json["status"], 3);
    assert_eq!(json["payout"], "25.00");
    let codes: Vec<i8> = BetStatus::ALL.iter().map(|s| s.code()).collect();
    assert_eq!(codes, vec![-5, -4, 0, 1, 2, 3, 5]);
}

// ---- brute force ----------------------------------------------------------

/// A half outcome is two half stakes on whole outcomes: the oracle never
/// uses the (price + 1) / 2 rule, it enumerates the halves.
fn halves(o: SelectionOutcome) -> &'static [(u8, SelectionOutcome)] {
    match o {
        Won => &[(2, Won)],
        Returned => &[(2, Returned)],
        Lost => &[(2, Lost)],
        HalfWon => &[(1, Won), (1, Returned)],
        HalfLost => &[(1, Returned), (1, Lost)],
        // The oracle reads a placed runner per part first (see `oracle`).
        Placed => &[(2, Lost)],
    }
}

fn whole(o: SelectionOutcome, price: Decimal) -> Decimal {
    match o {
        Won => price,
        Returned => Decimal::ONE,
        _ => Decimal::ZERO,
    }
}

/// stake x every path through the halves, weighted.
fn oracle_express(stake: Decimal, prices: &[Decimal], outcomes: &[SelectionOutcome]) -> Decimal {
    let Some((&first, rest)) = outcomes.split_first() else {
        return stake;
    };
    halves(first)
        .iter()
        .map(|(weight, o)| {
            let share = stake * Decimal::from(*weight) / Decimal::TWO;
            oracle_express(share * whole(*o, prices[0]), &prices[1..], rest)
        })
        .sum()
}

fn oracle_chain(unit: Decimal, prices: &[Decimal], outcomes: &[SelectionOutcome]) -> Decimal {
    let (mut riding, mut banked) = (unit, Decimal::ZERO);
    for (p, o) in prices.iter().zip(outcomes) {
        let back = CNY.round(oracle_express(riding, &[*p], &[*o]));
        if back.is_zero() {
            return banked;
        }
        riding = back.min(unit);
        banked += back - riding;
    }
    banked + riding
}

fn oracle(
    bet_type: BetType,
    prices: &[Decimal],
    unit: Decimal,
    each_way: bool,
    k: usize,
    bankers: &[usize],
    outcomes: &[SelectionOutcome],
) -> Decimal {
    let n = prices.len();
    let place: Vec<Decimal> = prices.iter().map(|p| place_odds(*p, EW_COEFF)).collect();
    let mut parts = vec![prices.to_vec()];
    if each_way {
        parts.push(place);
    }
    let banker_mask: u32 = bankers.iter().map(|b| 1 << b).sum();
    let mut total = Decimal::ZERO;
    for (i, part) in parts.iter().enumerate() {
        // The place part (i = 1) wins on a placed runner, the win part loses.
        let outcomes: Vec<SelectionOutcome> = outcomes
            .iter()
            .map(|o| match o {
                Placed if i == 1 => Won,
                Placed => Lost,
                other => *other,
            })
            .collect();
        let outcomes = &outcomes[..];
        total += match bet_type {
            BetType::Single | BetType::Express => CNY.round(oracle_express(unit, part, outcomes)),
            BetType::Chain => oracle_chain(unit, part, outcomes),
            BetType::System => (0u32..1 << n)
                .filter(|m| m.count_ones() as usize == k && m & banker_mask == banker_mask)
                .map(|m| {
                    let idx: Vec<usize> = (0..n).filter(|i| m & (1 << i) != 0).collect();
                    let ps: Vec<Decimal> = idx.iter().map(|&i| part[i]).collect();
                    let os: Vec<SelectionOutcome> = idx.iter().map(|&i| outcomes[i]).collect();
                    CNY.round(oracle_express(unit, &ps, &os))
                })
                .sum(),
        };
    }
    total
}

/// Every bet shape on n legs: (type, k, bankers).
fn shapes(n: usize) -> Vec<(BetType, usize, Vec<usize>)> {
    let mut out = Vec::new();
    if n == 1 {
        out.push((BetType::Single, 1, vec![]));
    }
    if n >= 2 {
        out.push((BetType::Express, n, vec![]));
        out.push((BetType::Chain, n, vec![]));
    }
    for k in 2..n {
        for b in 0..k {
            out.push((BetType::System, k, (0..b).collect()));
        }
    }
    out
}

fn every_outcome(n: usize) -> Vec<Vec<SelectionOutcome>> {
    every_outcome_of(&ALL, n)
}

fn every_outcome_of(set: &[SelectionOutcome], n: usize) -> Vec<Vec<SelectionOutcome>> {
    let m = set.len();
    (0..m.pow(n as u32))
        .map(|mut code| {
            (0..n)
                .map(|_| {
                    let o = set[code % m];
                    code /= m;
                    o
                })
                .collect()
        })
        .collect()
}

#[test]
fn every_type_matches_the_brute_force_oracle_on_every_outcome_combination() {
    let price_sets = [
        vec![dec!(2.5), dec!(1.8), dec!(3.25), dec!(1.45)],
        vec![dec!(1.01), dec!(7.777), dec!(1.333), dec!(15)],
    ];
    let mut checked = 0;
    for all_prices in &price_sets {
        for n in 1..=4 {
            let prices = &all_prices[..n];
            for (bet_type, k, bankers) in shapes(n) {
                for each_way in [false, true] {
                    let unit = dec!(3.33);
                    let b = bet(bet_type, prices, unit, each_way, k, &bankers);
                    for outcomes in every_outcome(n) {
                        let expected =
                            oracle(bet_type, prices, unit, each_way, k, &bankers, &outcomes);
                        let (status, payout) = pay(&b, &outcomes);
                        let what =
                            format!("{bet_type:?} k{k} b{bankers:?} ew{each_way} {outcomes:?}");
                        assert_eq!(payout, expected, "{what}");
                        assert_eq!(status, status_of(expected, b.stake), "{what}");
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}

#[test]
fn a_bet_settles_early_exactly_when_no_missing_outcome_can_change_it() {
    let prices = [dec!(2.5), dec!(1.8), dec!(3.25)];
    for n in 1..=3 {
        for (bet_type, k, bankers) in shapes(n) {
            let b = bet(bet_type, &prices[..n], dec!(7), false, k, &bankers);
            // Each leg: 0..5 an outcome, 5 missing.
            for code in 0..6usize.pow(n as u32) {
                let partial: Vec<Option<SelectionOutcome>> = (0..n)
                    .map(|i| ALL.get(code / 6usize.pow(i as u32) % 6).copied())
                    .collect();
                let now = settle(&b, &results(&partial), CNY, ExpressBonus::None);
                let missing: Vec<usize> = (0..n).filter(|&i| partial[i].is_none()).collect();
                let completions: Vec<BetSettlement> = every_outcome(missing.len())
                    .into_iter()
                    .map(|fill| {
                        let mut full = partial.clone();
                        for (slot, o) in missing.iter().zip(fill) {
                            full[*slot] = Some(o);
                        }
                        settle(&b, &results(&full), CNY, ExpressBonus::None)
                    })
                    .collect();
                let fixed = completions.iter().all(|c| *c == completions[0]);
                let what = format!("{bet_type:?} k{k} {partial:?}");
                if now.status == BetStatus::Unsettled {
                    assert!(!fixed, "could have settled: {what}");
                } else {
                    assert!(fixed, "settled too early: {what}");
                    assert_eq!(now, completions[0], "{what}");
                }
            }
        }
    }
}

// ---- seeded properties ------------------------------------------------------

fn random_price(rng: &mut Rng) -> Decimal {
    Decimal::new(1010 + rng.below(14_000) as i64, 3)
}

fn random_bet(rng: &mut Rng) -> (ValidBet, Vec<Decimal>) {
    let bet_type = *rng.pick(BetType::ALL);
    let n = match bet_type {
        BetType::Single => 1,
        BetType::Express | BetType::Chain => 2 + rng.below(5) as usize,
        BetType::System => 3 + rng.below(4) as usize,
    };
    let prices: Vec<Decimal> = (0..n).map(|_| random_price(rng)).collect();
    let k = match bet_type {
        BetType::System => 2 + rng.below(n as u64 - 2) as usize,
        _ => n,
    };
    let bankers: Vec<usize> = match bet_type {
        BetType::System => (0..rng.below(k as u64) as usize).collect(),
        _ => vec![],
    };
    let unit = Decimal::new(1 + rng.below(50_000) as i64, 2);
    let each_way = rng.chance(30);
    (bet(bet_type, &prices, unit, each_way, k, &bankers), prices)
}

#[test]
fn a_payout_never_exceeds_the_stake_times_every_price_plus_the_bonus() {
    let mut rng = Rng::new(7);
    for _ in 0..3000 {
        let (b, prices) = random_bet(&mut rng);
        let outcomes: Vec<SelectionOutcome> = prices.iter().map(|_| *rng.pick(&ALL)).collect();
        let terms = *rng.pick(&[
            ExpressBonus::None,
            ExpressBonus::PerSelection,
            ExpressBonus::Ladder,
        ]);
        let s = settle(&b, &known(&outcomes), CNY, terms);
        let product: Decimal = prices.iter().product();
        let lines = Decimal::from(b.combinations.len() * b.parts() + b.legs.len());
        let bound = b.stake * product + lines * dec!(0.01);
        let percent = terms.percent(b.legs.len());
        assert!(s.payout <= bound, "{b:?} {outcomes:?} {s:?}");
        assert!(s.payout >= Decimal::ZERO);
        assert!(s.bonus <= CNY.round(bound * percent / dec!(100)) + dec!(0.01));
        assert!(s.status != BetStatus::Unsettled);
    }
}

#[test]
fn a_system_equals_the_sum_of_its_combinations_as_expresses() {
    let mut rng = Rng::new(11);
    let mut systems = 0;
    while systems < 500 {
        let (b, prices) = random_bet(&mut rng);
        if b.bet_type != BetType::System {
            continue;
        }
        systems += 1;
        let outcomes: Vec<SelectionOutcome> = prices.iter().map(|_| *rng.pick(&ALL)).collect();
        let whole = settle(&b, &known(&outcomes), CNY, ExpressBonus::None).payout;
        let parts: Decimal = b
            .combinations
            .iter()
            .map(|combo| {
                let ps: Vec<Decimal> = combo.iter().map(|&i| prices[i]).collect();
                let os: Vec<SelectionOutcome> = combo.iter().map(|&i| outcomes[i]).collect();
                let express = bet(
                    BetType::Express,
                    &ps,
                    b.unit_stake,
                    b.each_way,
                    ps.len(),
                    &[],
                );
                settle(&express, &known(&os), CNY, ExpressBonus::None).payout
            })
            .sum();
        assert_eq!(whole, parts, "{b:?} {outcomes:?}");
    }
}

#[test]
fn returned_everywhere_pays_back_the_stake() {
    let mut rng = Rng::new(13);
    for _ in 0..1000 {
        let (b, prices) = random_bet(&mut rng);
        let outcomes = vec![Returned; prices.len()];
        let s = settle(&b, &known(&outcomes), CNY, ExpressBonus::Ladder);
        assert_eq!(s.payout, b.stake, "{b:?}");
        assert_eq!(s.status, BetStatus::Returned);
        assert_eq!(s.bonus, dec!(0));
    }
}

#[test]
fn outcomes_of_other_events_do_not_matter() {
    let single = bet(BetType::Single, &[dec!(2)], dec!(10), false, 1, &[]);
    let mut r = known(&[Won]);
    r.outcomes.insert(99, Lost);
    let noise: BTreeMap<u64, Decimal> = [(98, dec!(5))].into();
    r.sp_prices = noise;
    assert_eq!(
        settle(&single, &r, CNY, ExpressBonus::None).payout,
        dec!(20)
    );
}

#[test]
fn an_express_of_long_starting_prices_settles_without_overflow() {
    // SP legs are left out of the odds limit at placement; their starting
    // prices could multiply past what a Decimal holds. The line's odds
    // saturate at `MAX_LINE_ODDS` instead of panicking.
    let n = 30;
    let b = bet(
        BetType::Express,
        &vec![SP_PRICE; n],
        dec!(10),
        false,
        n,
        &[],
    );
    let mut results = known(&vec![Won; n]);
    for i in 1..=n as u64 {
        results.sp_prices.insert(i, dec!(900));
    }
    let s = settle(&b, &results, CNY, ExpressBonus::None);
    assert_eq!(s.status, BetStatus::Won);
    assert_eq!(s.payout, CNY.round(dec!(10) * MAX_LINE_ODDS));
}

#[test]
fn a_half_won_leg_at_the_largest_starting_price_settles_without_overflow() {
    // Found by fuzzing (fuzz/fuzz_targets/do_bet.rs): a half-won leg's
    // factor (price + 1) / 2 overflowed on a starting price at the top of
    // the Decimal range before it was halved; the line saturates at
    // `MAX_LINE_ODDS` like any long price.
    assert_eq!(
        outcome_factor(HalfWon, Decimal::MAX),
        Decimal::MAX / dec!(2) + dec!(0.5)
    );
    let sp = bet(BetType::Single, &[SP_PRICE], dec!(12), false, 1, &[]);
    let mut r = known(&[HalfWon]);
    r.sp_prices.insert(1, Decimal::MAX);
    let s = settle(&sp, &r, CNY, ExpressBonus::None);
    assert_eq!(s.status, BetStatus::Won);
    assert_eq!(s.payout, CNY.round(dec!(12) * MAX_LINE_ODDS));
}

#[test]
fn a_chain_line_pays_at_most_its_stake_times_the_line_odds_maximum() {
    // Found by fuzzing (fuzz/fuzz_targets/do_bet.rs): a chain leg's return
    // (riding stake x factor) overflowed on a long starting price. Like an
    // express line, a chain line pays at most `MAX_LINE_ODDS` times its
    // stake.
    let mut chain = bet(BetType::Chain, &[dec!(2), dec!(2)], dec!(12), false, 2, &[]);
    chain.legs[0].price = SP_PRICE;
    chain.legs[0].requested_price = SP_PRICE;
    let mut r = known(&[Won, Won]);
    r.sp_prices.insert(1, Decimal::MAX);
    let s = settle(&chain, &r, CNY, ExpressBonus::None);
    assert_eq!(
        (s.status, s.payout),
        (BetStatus::Won, dec!(12) * MAX_LINE_ODDS)
    );
    // The first leg banks all but the riding stake: the second leg still
    // decides whether those 12 come back.
    let mut open = LegResults {
        sp_prices: r.sp_prices.clone(),
        ..results(&[Some(Won), None])
    };
    let unsettled = settle(&chain, &open, CNY, ExpressBonus::None);
    assert_eq!(unsettled, BetSettlement::unsettled());
    open.outcomes.insert(2, Lost);
    let s = settle(&chain, &open, CNY, ExpressBonus::None);
    assert_eq!(s.payout, dec!(12) * MAX_LINE_ODDS - dec!(12));
}

#[test]
fn a_free_bet_express_bonus_is_a_percent_of_its_winnings_never_negative() {
    // Found by fuzzing (fuzz/fuzz_targets/do_bet.rs): the bonus took the
    // stake off a free bet's payout a second time (the payout already is
    // its winnings), so it was too small, and negative below odds 2.
    let mut express = bet(
        BetType::Express,
        &[dec!(1.5), dec!(1.2)],
        dec!(10),
        false,
        2,
        &[],
    );
    express.bonus_id = Some("7".into());
    let s = settle(
        &express,
        &known(&[Won, Won]),
        CNY,
        ExpressBonus::PerSelection,
    );
    // 10 x 1.8 = 18: the winnings 8 are paid, and 2% of them.
    assert_eq!(
        (s.status, s.payout, s.bonus),
        (BetStatus::Won, dec!(8), dec!(0.16))
    );
    express.legs[1].price = dec!(4);
    let s = settle(
        &express,
        &known(&[Won, Won]),
        CNY,
        ExpressBonus::PerSelection,
    );
    assert_eq!((s.payout, s.bonus), (dec!(50), dec!(1)));
}
