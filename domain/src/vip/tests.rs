use rust_decimal::Decimal;
use rust_decimal_macros::dec;

use super::*;
use crate::account::Market;
use crate::Currency;

/// The `[vip]` section of the shipped configuration.
fn shipped() -> VipTables {
    #[derive(serde::Deserialize)]
    struct File {
        vip: VipTables,
    }
    let text = include_str!("../../../config/default.toml");
    let file: File = toml::from_str(text).expect("config/default.toml [vip] parses");
    file.vip.check().expect("shipped tables are valid");
    file.vip
}

fn d(list: &[&str]) -> Vec<Decimal> {
    list.iter().map(|s| s.parse().unwrap()).collect()
}

// Spec 001 section 9.1, typed from the spec (levels 2 to 10).
const ZHH_FIRST: [&str; 9] = [
    "18", "38", "88", "258", "588", "888", "1888", "3888", "8888",
];
const ENG_FIRST: [&str; 9] = [
    "100", "150", "400", "1000", "2500", "4000", "8000", "25000", "40000",
];
const ZHH_MONEY: [&str; 9] = [
    "38", "58", "88", "128", "388", "588", "1888", "3888", "11888",
];
const ZHH_BETS: [&str; 9] = [
    "3000", "5000", "10000", "20000", "75000", "180000", "750000", "2000000", "7500000",
];
const ENG_MONEY: [&str; 9] = [
    "150", "250", "500", "800", "1500", "2800", "8000", "18000", "50000",
];
const ENG_BETS: [&str; 9] = [
    "15000", "25000", "50000", "100000", "350000", "850000", "3500000", "10000000", "35000000",
];
const ZHH_THIRD: [&str; 9] = [
    "38", "88", "188", "388", "888", "1888", "3888", "8888", "18888",
];
const ENG_THIRD: [&str; 9] = [
    "150", "400", "800", "1800", "4000", "8000", "18000", "40000", "80000",
];

#[test]
fn the_shipped_tables_are_spec_9_1_in_the_default_reading() {
    let t = shipped();
    let names = [
        "Unranked",
        "Reserve player",
        "Lotto players",
        "Professional player",
        "Strong players",
        "Relatively reputable",
        "All star",
        "Super star",
        "Legendary superstar",
        "Epic superstar",
    ];
    for (market, first, money, bets, third) in [
        ("zhh", ZHH_FIRST, ZHH_MONEY, ZHH_BETS, ZHH_THIRD),
        ("eng", ENG_FIRST, ENG_MONEY, ENG_BETS, ENG_THIRD),
        ("tha", ENG_FIRST, ENG_MONEY, ENG_BETS, ENG_THIRD),
    ] {
        let m = &t.markets[market];
        assert_eq!(m.names, names.map(String::from).to_vec(), "{market} names");
        assert_eq!(
            m.growgift[1..],
            d(&first)[..],
            "{market} first table = gift"
        );
        assert_eq!(m.money[1..], d(&money)[..], "{market} money");
        assert_eq!(m.bets[1..], d(&bets)[..], "{market} bets");
        assert_eq!(
            m.monthsalary[1..],
            d(&third)[..],
            "{market} third table = salary"
        );
        assert_eq!(m.growgift[0], Decimal::ZERO);
        assert_eq!(m.money[0], Decimal::ZERO);
    }
}

#[test]
fn the_shipped_rebate_rates_are_spec_9_2() {
    let t = shipped();
    let zhh = "0.30/0.50/0.50, 0.30/0.50/0.60, 0.38/0.60/0.60, 0.38/0.70/0.70, 0.38/0.70/0.70, 0.48/0.80/0.80, 0.48/0.80/0.90, 0.58/0.90/1.00, 0.68/0.90/1.00, 0.70/1.00/1.20";
    let eng = "0.20/0.30/0.50, 0.25/0.35/0.55, 0.30/0.40/0.60, 0.35/0.45/0.65, 0.40/0.50/0.70, 0.45/0.60/0.75, 0.50/0.70/0.85, 0.55/0.80/0.95, 0.60/0.90/1.00, 0.70/1.00/1.50";
    let tha = eng.replace("0.70/1.00/1.50", "0.70/1.00/1.10");
    for (market, text) in [
        ("zhh", zhh.to_string()),
        ("eng", eng.to_string()),
        ("tha", tha),
    ] {
        let m = &t.markets[market];
        for (i, triple) in text.split(", ").enumerate() {
            let level = i as u8 + 1;
            let parts: Vec<Decimal> = triple.split('/').map(|s| s.parse().unwrap()).collect();
            assert_eq!(
                m.rate(level, Product::Sport),
                parts[0],
                "{market} L{level} sport"
            );
            assert_eq!(m.rate(level, Product::Ag), parts[1], "{market} L{level} ag");
            assert_eq!(m.rate(level, Product::Pg), parts[2], "{market} L{level} pg");
        }
    }
}

#[test]
fn level_rises_exactly_at_both_thresholds_in_both_markets() {
    let t = shipped();
    for (market, money, bets) in [
        (Market::Zhh, ZHH_MONEY, ZHH_BETS),
        (Market::Eng, ENG_MONEY, ENG_BETS),
    ] {
        let m = t.market(market);
        for i in 0..9 {
            let level = i as u8 + 2;
            let need_m: Decimal = money[i].parse().unwrap();
            let need_b: Decimal = bets[i].parse().unwrap();
            assert_eq!(
                m.level_for(1, need_m, need_b),
                level,
                "{market:?} exactly at L{level}"
            );
            let cent = dec!(0.01);
            assert_eq!(
                m.level_for(1, need_m - cent, need_b),
                level - 1,
                "{market:?} money short of L{level}"
            );
            assert_eq!(
                m.level_for(1, need_m, need_b - cent),
                level - 1,
                "{market:?} bets short of L{level}"
            );
        }
        // One requirement alone never lifts the level.
        assert_eq!(m.level_for(1, dec!(1000000000), Decimal::ZERO), 1);
        assert_eq!(m.level_for(1, Decimal::ZERO, dec!(1000000000)), 1);
    }
}

#[test]
fn the_level_never_falls_by_values_alone() {
    let t = shipped();
    assert_eq!(
        t.market(Market::Zhh)
            .level_for(5, Decimal::ZERO, Decimal::ZERO),
        5
    );
}

#[test]
fn progress_is_capped_at_100() {
    let t = shipped();
    let m = t.market(Market::Zhh);
    // Level 1 -> 2 needs 38 / 3000.
    assert_eq!(m.progress(1, dec!(19), dec!(750)), (dec!(50), dec!(25)));
    assert_eq!(m.progress(1, dec!(380), dec!(750)), (dec!(100), dec!(25)));
    assert_eq!(m.progress(10, dec!(0), dec!(0)), (dec!(100), dec!(100)));
}

#[test]
fn valid_turnover_of_won_lost_returned_and_low_odds_bets() {
    let r = TurnoverRules::default();
    let k = Some(dec!(2.00));
    // Won at 2.00: payout 200 on 100 -> |200-100| = 100, capped at 100.
    assert_eq!(r.settled(dec!(100), dec!(200), false, k), dec!(100));
    // Won at 1.60: payout 160 -> 60.
    assert_eq!(
        r.settled(dec!(100), dec!(160), false, Some(dec!(1.60))),
        dec!(60)
    );
    // Won at 5.00: 400 win capped at the stake.
    assert_eq!(
        r.settled(dec!(100), dec!(500), false, Some(dec!(5))),
        dec!(100)
    );
    // Lost: |0 - 100| = 100.
    assert_eq!(r.settled(dec!(100), dec!(0), false, k), dec!(100));
    // Returned (void): nothing.
    assert_eq!(r.settled(dec!(100), dec!(100), true, k), dec!(0));
    // Below 1.50: nothing; exactly 1.50 counts.
    assert_eq!(
        r.settled(dec!(100), dec!(0), false, Some(dec!(1.49))),
        dec!(0)
    );
    assert_eq!(
        r.settled(dec!(100), dec!(150), false, Some(dec!(1.50))),
        dec!(50)
    );
}

#[test]
fn cash_outs_count_on_the_stake_given_up() {
    let r = TurnoverRules::default();
    assert_eq!(r.cashed_out(dec!(40), dec!(70), Some(dec!(3))), dec!(30));
    assert_eq!(r.cashed_out(dec!(40), dec!(10), Some(dec!(3))), dec!(30));
    assert_eq!(r.cashed_out(dec!(40), dec!(200), Some(dec!(3))), dec!(40));
    assert_eq!(r.cashed_out(dec!(40), dec!(70), Some(dec!(1.2))), dec!(0));
    let stake = TurnoverRules {
        cashout: CashoutRule::Stake,
        ..TurnoverRules::default()
    };
    assert_eq!(
        stake.cashed_out(dec!(40), dec!(70), Some(dec!(3))),
        dec!(40)
    );
}

#[test]
fn rebate_arithmetic_per_product_and_level_matches_a_table_computed_by_hand() {
    let t = shipped();
    // turnover 12,345.67 per product; amounts computed by hand:
    // zhh L1 sport 0.30% = 37.03701 -> 37.04; ag 0.50% = 61.72835 -> 61.73; pg 0.50% -> 61.73
    // zhh L10 sport 0.70% = 86.41969 -> 86.42; ag 1.00% = 123.4567 -> 123.46; pg 1.20% = 148.14804 -> 148.15
    // eng L2 sport 0.25% = 30.864175 -> 30.86; ag 0.35% = 43.209845 -> 43.21; pg 0.55% = 67.901185 -> 67.90
    // tha L10 pg 1.10% = 135.80237 -> 135.80; eng L10 pg 1.50% = 185.18505 -> 185.19
    let turnover = dec!(12345.67);
    let cases = [
        (Market::Zhh, 1, Product::Sport, dec!(37.04)),
        (Market::Zhh, 1, Product::Ag, dec!(61.73)),
        (Market::Zhh, 1, Product::Pg, dec!(61.73)),
        (Market::Zhh, 10, Product::Sport, dec!(86.42)),
        (Market::Zhh, 10, Product::Ag, dec!(123.46)),
        (Market::Zhh, 10, Product::Pg, dec!(148.15)),
        (Market::Eng, 2, Product::Sport, dec!(30.86)),
        (Market::Eng, 2, Product::Ag, dec!(43.21)),
        (Market::Eng, 2, Product::Pg, dec!(67.90)),
        (Market::Tha, 10, Product::Pg, dec!(135.80)),
        (Market::Eng, 10, Product::Pg, dec!(185.19)),
    ];
    for (market, level, product, want) in cases {
        let rate = t.market(market).rate(level, product);
        assert_eq!(
            rebate(turnover, rate, Currency::Cny),
            want,
            "{market:?} L{level} {product:?}"
        );
    }
    assert_eq!(rebate(dec!(-5), dec!(1), Currency::Cny), Decimal::ZERO);
}

fn run(vip: &mut Vip, action: VipAction) -> Result<VipReceipt, VipError> {
    let (events, receipt) = vip.decide(&action)?;
    for e in events {
        cqrs_es::Aggregate::apply(vip, e);
    }
    Ok(receipt)
}

fn reach(level: u8) -> VipAction {
    VipAction::Reach {
        level,
        market: Market::Zhh,
        currency: Currency::Cny,
        at_ms: 1,
    }
}

fn gift(level: u8, amount: Decimal) -> VipAction {
    VipAction::Grant(Grant {
        kind: RewardKind::Gift,
        key: level.to_string(),
        reference: reward_reference("m1", RewardKind::Gift, &level.to_string()),
        level,
        currency: Currency::Cny,
        amount,
        basis: Decimal::ZERO,
        rate: Decimal::ZERO,
        turnover_required: amount,
        at_ms: 2,
    })
}

#[test]
fn reaching_a_level_records_every_level_passed_once() {
    let mut vip = Vip::default();
    let (events, _) = vip.decide(&reach(4)).unwrap();
    assert_eq!(events.len(), 3);
    run(&mut vip, reach(4)).unwrap();
    assert!(vip.decide(&reach(4)).unwrap().0.is_empty());
    assert!(vip.decide(&reach(3)).unwrap().0.is_empty());
    assert_eq!(
        vip.reached.iter().copied().collect::<Vec<_>>(),
        vec![2, 3, 4]
    );
}

#[test]
fn an_upgrade_gift_is_granted_once_and_only_for_a_reached_level() {
    let mut vip = Vip::default();
    assert_eq!(run(&mut vip, gift(2, dec!(18))), Err(VipError::NotReached));
    run(&mut vip, reach(2)).unwrap();
    match run(&mut vip, gift(2, dec!(18))).unwrap() {
        VipReceipt::Granted { duplicate, grant } => {
            assert!(!duplicate);
            assert_eq!(grant.amount, dec!(18));
        }
        other => panic!("{other:?}"),
    }
    // A repeat answers the first outcome (even with another amount).
    match run(&mut vip, gift(2, dec!(99))).unwrap() {
        VipReceipt::Granted { duplicate, grant } => {
            assert!(duplicate);
            assert_eq!(grant.amount, dec!(18));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(vip.grants.len(), 1);
}

#[test]
fn decay_goes_one_level_down_once_per_season() {
    let mut vip = Vip::default();
    run(&mut vip, reach(5)).unwrap();
    let decay = VipAction::Decay {
        period: "2027-04-30".into(),
        money: dec!(88),
        bets: dec!(10000),
        at_ms: 3,
    };
    assert_eq!(
        run(&mut vip, decay.clone()).unwrap(),
        VipReceipt::Decayed { level: 4 }
    );
    assert_eq!(vip.level(), 4);
    assert!(vip.decide(&decay).unwrap().0.is_empty());
    // Gifts of levels reached before stay reached (no second gift).
    assert!(vip.reached.contains(&5));
}

#[test]
fn points_cannot_be_overspent_and_a_spend_is_recorded_once() {
    let mut vip = Vip::default();
    let spend = |r: &str, a: Decimal| VipAction::SpendPoints {
        reference: r.into(),
        amount: a,
        earned: dec!(10),
        at_ms: 1,
    };
    run(&mut vip, spend("o1", dec!(6))).unwrap();
    assert_eq!(
        run(&mut vip, spend("o2", dec!(5))),
        Err(VipError::NotEnoughPoints)
    );
    assert!(matches!(
        run(&mut vip, spend("o1", dec!(6))).unwrap(),
        VipReceipt::Spent {
            duplicate: true,
            ..
        }
    ));
    assert_eq!(vip.spent_total, dec!(6));
}
