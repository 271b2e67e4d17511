//! Cash-out, auto cash-out and counter offers: the formula as a table of
//! hand-computed values, the Bet aggregate's rules one test per rule (given
//! / when / then), and a seeded property over random cash-outs and
//! settlements.

use std::collections::BTreeMap;

use cqrs_es::test::TestFramework;
use cqrs_es::{Aggregate, DomainEvent};
use rust_decimal::Decimal;
use rust_decimal_macros::dec;

use super::*;
use crate::catalogue::testgen::Rng;
use crate::result::SelectionOutcome::{self, *};
use crate::{Code, Currency};

type BetTest = TestFramework<Bet>;

const AT: i64 = 1_700_000_123_456;
const CNY: Currency = Currency::Cny;

/// A bet of `amount` on events 1, 2, ... at `prices` (a single for one
/// price, an express for more).
fn valid(mode: AcceptMode, amount: Decimal, prices: &[Decimal]) -> ValidBet {
    fixtures::straight_bet(mode, amount, 1, prices)
}

/// The express of the aggregate tests: 10.00 at 2 x 3 (k 6, possible win
/// 60).
fn express() -> ValidBet {
    valid(AcceptMode::NoChanges, dec!(10), &[dec!(2), dec!(3)])
}

fn placed_with(bet: ValidBet) -> BetEvent {
    let status = if bet.super_bet {
        BetStatus::OnHold
    } else {
        BetStatus::Unsettled
    };
    BetEvent::BetPlaced {
        bet_id: "b1".into(),
        member_id: "m1".into(),
        currency: CNY,
        request_id: "r1".into(),
        cash_out: Some(cash_out_offered(&bet)),
        bet,
        express_bonus: ExpressBonus::None,
        status,
        date_time: 1_700_000_123,
        at_ms: AT,
    }
}

fn placed() -> BetEvent {
    placed_with(express())
}

fn placement(bet: ValidBet) -> Placement {
    Placement {
        bet_id: "b1".into(),
        member_id: "m1".into(),
        currency: CNY,
        request_id: "r1".into(),
        cash_out: cash_out_offered(&bet),
        bet,
        express_bonus: ExpressBonus::None,
        at_ms: AT,
    }
}

fn state(history: &[BetEvent]) -> Bet {
    let mut bet = Bet::default();
    for event in history {
        bet.apply(event.clone());
    }
    bet
}

fn decide(history: &[BetEvent], command: BetCommand) -> Result<Vec<BetEvent>, BetError> {
    state(history).decide(command)
}

/// A cash-out quoted on the whole stake of the express (10.00).
fn cash_out(request_id: &str, current: Decimal, partial: Option<Decimal>) -> BetCommand {
    cash_out_on(request_id, dec!(10.00), current, partial)
}

/// A cash-out of `current`, quoted on a remaining stake of `stake`.
fn cash_out_on(
    request_id: &str,
    stake: Decimal,
    current: Decimal,
    partial: Option<Decimal>,
) -> BetCommand {
    BetCommand::CashOut {
        request_id: request_id.into(),
        quoted_stake: stake,
        current_amount: current,
        client_price: current,
        partial,
        by_rule: false,
        at_ms: AT + 50,
    }
}

#[allow(clippy::too_many_arguments)]
fn cashed(
    request_id: &str,
    number: u32,
    amount: Decimal,
    stake_part: Decimal,
    remaining: Decimal,
    possible_win: Decimal,
    full: bool,
    by_rule: bool,
) -> BetEvent {
    BetEvent::BetCashedOut {
        member_id: "m1".into(),
        currency: CNY,
        request_id: request_id.into(),
        number,
        amount,
        stake_part,
        remaining_stake: remaining,
        possible_win: Some(possible_win),
        full,
        by_rule,
        at_ms: AT + 50,
    }
}

fn outcomes(list: &[(u64, SelectionOutcome)]) -> BTreeMap<u64, SelectionOutcome> {
    list.iter().copied().collect()
}

fn settle_cmd(version: u64, list: &[(u64, SelectionOutcome)]) -> BetCommand {
    BetCommand::Settle {
        result_version: version,
        outcomes: outcomes(list),
        sp_prices: BTreeMap::new(),
        at_ms: AT + 1000,
    }
}

fn settled(
    version: u64,
    list: &[(u64, SelectionOutcome)],
    status: BetStatus,
    payout: Decimal,
) -> BetEvent {
    BetEvent::BetSettled {
        member_id: "m1".into(),
        currency: CNY,
        status,
        payout,
        bonus: dec!(0.00),
        result_version: version,
        outcomes: outcomes(list),
        sp_prices: BTreeMap::new(),
        at_ms: AT + 1000,
    }
}

fn live(list: &[(u64, Option<Decimal>)]) -> BTreeMap<u64, Option<Decimal>> {
    list.iter().copied().collect()
}

// ---- the formula ------------------------------------------------------------

/// What, bet, remaining stake, k, live prices, outcomes, amount.
type Row = (
    &'static str,
    Placement,
    Decimal,
    Decimal,
    Vec<(u64, Option<Decimal>)>,
    Vec<(u64, SelectionOutcome)>,
    Option<Decimal>,
);

#[test]
fn the_cashout_formula_matches_hand_computed_values() {
    let single = |price: Decimal| placement(valid(AcceptMode::NoChanges, dec!(10), &[price]));
    let express3 = placement(valid(
        AcceptMode::NoChanges,
        dec!(10),
        &[dec!(2), dec!(1.5), dec!(1.8)],
    ));
    let p = |x: Decimal| Some(x);
    #[rustfmt::skip]
    let table: Vec<Row> = vec![
        // what, bet, remaining stake, k, live prices, outcomes, amount
        ("single, price unchanged: 2/2 x 10 x 0.9", single(dec!(2)), dec!(10), dec!(2), vec![(1, p(dec!(2)))], vec![], Some(dec!(9.0))),
        ("single, price shortened: 2.5/1.8 x 10 x 0.9 = 12.5", single(dec!(2.5)), dec!(10), dec!(2.5), vec![(1, p(dec!(1.8)))], vec![], Some(dec!(12.5))),
        ("single, price drifted: 3/4 x 9 = 6.75, half away from zero", single(dec!(3)), dec!(10), dec!(3), vec![(1, p(dec!(4)))], vec![], Some(dec!(6.8))),
        ("midpoint: 2.45/1.8 x 9 = 12.25 -> 12.3", single(dec!(2.45)), dec!(10), dec!(2.45), vec![(1, p(dec!(1.8)))], vec![], Some(dec!(12.3))),
        ("below the midpoint: 2/3.2 x 9 = 5.625 -> 5.6", single(dec!(2)), dec!(10), dec!(2), vec![(1, p(dec!(3.2)))], vec![], Some(dec!(5.6))),
        ("remaining stake after a partial: 2/1.5 x 4.5 x 0.9 = 5.4", single(dec!(2)), dec!(4.5), dec!(2), vec![(1, p(dec!(1.5)))], vec![], Some(dec!(5.4))),
        ("express, prices unchanged: 6/6 x 10 x 0.81", placement(express()), dec!(10), dec!(6), vec![(1, p(dec!(2))), (2, p(dec!(3)))], vec![], Some(dec!(8.1))),
        ("express, leg 1 won: 6/2.5 x 10 x 0.9", placement(express()), dec!(10), dec!(6), vec![(2, p(dec!(2.5)))], vec![(1, Won)], Some(dec!(21.6))),
        ("express, leg 1 returned: k 6/2 = 3; 3/2.5 x 9", placement(express()), dec!(10), dec!(6), vec![(2, p(dec!(2.5)))], vec![(1, Returned)], Some(dec!(10.8))),
        ("express, leg 1 half won: k 6/2 x 1.5 = 4.5; 4.5/2.5 x 9", placement(express()), dec!(10), dec!(6), vec![(2, p(dec!(2.5)))], vec![(1, HalfWon)], Some(dec!(16.2))),
        ("express, leg 1 half lost: k 6/2 x 0.5 = 1.5; 1.5/2.5 x 9", placement(express()), dec!(10), dec!(6), vec![(2, p(dec!(2.5)))], vec![(1, HalfLost)], Some(dec!(5.4))),
        ("express of 3: 5.4/(1.9 x 1.4 x 2) x 10 x 0.729 = 7.3996", express3, dec!(10), dec!(5.4), vec![(1, p(dec!(1.9))), (2, p(dec!(1.4))), (3, p(dec!(2)))], vec![], Some(dec!(7.4))),
        ("a lost selection: not cashable", placement(express()), dec!(10), dec!(6), vec![(1, p(dec!(2))), (2, p(dec!(3)))], vec![(1, Lost)], None),
        ("an open selection without a price: suspended", placement(express()), dec!(10), dec!(6), vec![(1, p(dec!(2))), (2, None)], vec![], None),
        ("an open selection missing from the prices: suspended", placement(express()), dec!(10), dec!(6), vec![(1, p(dec!(2)))], vec![], None),
        ("an open selection at price 1: suspended", placement(express()), dec!(10), dec!(6), vec![(1, p(dec!(2))), (2, p(dec!(1)))], vec![], None),
        ("a settled selection needs no price", placement(express()), dec!(10), dec!(6), vec![(1, None), (2, p(dec!(3)))], vec![(1, Won)], Some(dec!(18.0))),
        ("nothing open: the settlement pays", placement(express()), dec!(10), dec!(6), vec![], vec![(1, Won), (2, Won)], None),
        ("no stake left", single(dec!(2)), dec!(0), dec!(2), vec![(1, p(dec!(2)))], vec![], None),
        ("rounds to 0.0: nothing to pay", single(dec!(1.05)), dec!(0.05), dec!(1.05), vec![(1, p(dec!(1.01)))], vec![], None),
        ("capped at what the stake pays if it wins: 0.1 x 1.9 -> 0.1, not 0.2", single(dec!(1.9)), dec!(0.1), dec!(1.9), vec![(1, p(dec!(1.01)))], vec![], Some(dec!(0.1))),
    ];
    for (what, placement, remaining, k, prices, known, expected) in table {
        let amount = cashout_amount(&placement, remaining, k, &live(&prices), &outcomes(&known));
        assert_eq!(amount, expected, "{what}");
        if let Some(a) = amount {
            assert_eq!(a.scale(), 1, "{what}: one decimal place");
        }
    }
}

#[test]
fn a_cash_out_never_pays_more_than_the_settlement_could_on_a_long_price() {
    // Found by fuzzing (fuzz/fuzz_targets/do_bet.rs): settlement pays a
    // line at most `MAX_LINE_ODDS` times its stake, but the cash-out cap
    // used the price as it is, so a single on a feed price past 10^9
    // could be cashed out for more than it could ever win.
    let price = dec!(420902070555757.904);
    let single = placement(valid(AcceptMode::NoChanges, dec!(101), &[price]));
    let win = single.bet.possible_win.unwrap();
    assert_eq!(win, dec!(101) * MAX_LINE_ODDS);
    let amount = cashout_amount(
        &single,
        dec!(101),
        price,
        &live(&[(1, Some(dec!(27.5)))]),
        &BTreeMap::new(),
    );
    assert_eq!(amount, Some(dec!(101000000000.0)));
    // A partial cash-out left 50.5 running: the cap follows the stake.
    let amount = cashout_amount(
        &single,
        dec!(50.5),
        price,
        &live(&[(1, Some(dec!(27.5)))]),
        &BTreeMap::new(),
    );
    assert_eq!(amount, Some(dec!(50500000000.0)));
}

#[test]
fn the_cash_out_flag_is_on_for_singles_and_expresses_on_fixed_prices_only() {
    assert!(cash_out_offered(&express()));
    assert!(cash_out_offered(&valid(
        AcceptMode::NoChanges,
        dec!(10),
        &[dec!(2)]
    )));
    let mut each_way = express();
    each_way.each_way = true;
    assert!(!cash_out_offered(&each_way));
    let mut sp = express();
    sp.legs[0].price = SP_PRICE;
    sp.odds = None;
    assert!(!cash_out_offered(&sp));
    for bet_type in [BetType::System, BetType::Chain] {
        let mut other = express();
        other.bet_type = bet_type;
        assert!(!cash_out_offered(&other), "{bet_type:?}");
    }
    // A bet without the flag is never cashable, whatever the prices.
    let mut off = placement(express());
    off.cash_out = false;
    let prices = live(&[(1, Some(dec!(2))), (2, Some(dec!(3)))]);
    assert_eq!(
        cashout_amount(&off, dec!(10), dec!(6), &prices, &BTreeMap::new()),
        None
    );
}

#[test]
fn placing_records_the_cash_out_flag_and_old_events_derive_it() {
    BetTest::with(())
        .given_no_previous_events()
        .when(BetCommand::Place {
            bet_id: "b1".into(),
            member_id: "m1".into(),
            currency: CNY,
            request_id: "r1".into(),
            bet: express(),
            express_bonus: ExpressBonus::None,
            at_ms: AT,
        })
        .then_expect_events(vec![placed()]);
    let mut json = serde_json::to_value(placed()).unwrap();
    assert_eq!(json["BetPlaced"]["cash_out"], true);
    json["BetPlaced"]
        .as_object_mut()
        .unwrap()
        .remove("cash_out");
    let old: BetEvent = serde_json::from_value(json).unwrap();
    assert!(state(&[old]).placement.unwrap().cash_out);
}

#[test]
fn the_bet_answers_its_cashout_amount_only_while_it_is_cashable() {
    let prices = live(&[(1, Some(dec!(2))), (2, Some(dec!(3)))]);
    let none = BTreeMap::new();
    assert_eq!(
        state(&[placed()]).cashout_amount(&prices, &none),
        Some(dec!(8.1))
    );
    let after_partial = state(&[
        placed(),
        cashed(
            "c1",
            1,
            dec!(4.05),
            dec!(5.00),
            dec!(5.00),
            dec!(30.00),
            false,
            false,
        ),
    ]);
    assert_eq!(after_partial.remaining_stake(), dec!(5.00));
    assert_eq!(after_partial.possible_win(), Some(dec!(30.00)));
    assert_eq!(
        after_partial.cashout_amount(&prices, &none),
        Some(dec!(4.1))
    );
    let settled = state(&[
        placed(),
        settled(1, &[(2, Lost)], BetStatus::Lost, dec!(0.00)),
    ]);
    assert_eq!(settled.cashout_amount(&prices, &none), None);
    let held = state(&[placed_with(valid(
        AcceptMode::SuperBet,
        dec!(10),
        &[dec!(2), dec!(3)],
    ))]);
    assert_eq!(held.cashout_amount(&prices, &none), None);
}

// ---- cash-out ---------------------------------------------------------------

#[test]
fn a_full_cash_out_pays_the_current_amount_and_the_bet_is_cashed_out() {
    let event = cashed(
        "c1",
        1,
        dec!(8.10),
        dec!(10.00),
        dec!(0.00),
        dec!(0.00),
        true,
        false,
    );
    BetTest::with(())
        .given(vec![placed()])
        .when(cash_out("c1", dec!(8.1), None))
        .then_expect_events(vec![event.clone()]);
    assert_eq!(event.amount_due(), dec!(8.10));
    assert_eq!(event.event_type(), "BetCashedOut");
    let bet = state(&[placed(), event]);
    assert_eq!(bet.status, BetStatus::CashedOut);
    assert_eq!(bet.status.code(), 5);
    assert_eq!(bet.payout, dec!(8.10));
    assert_eq!(bet.cashed_out, dec!(8.10));
    assert_eq!(bet.paid, dec!(0));
    assert_eq!(bet.remaining_stake(), dec!(0.00));
}

#[test]
fn a_partial_cash_out_scales_the_stake_and_the_settlement_pays_on_the_rest() {
    // Half of 8.1 gives up half of the stake.
    let half = cashed(
        "c1",
        1,
        dec!(4.05),
        dec!(5.00),
        dec!(5.00),
        dec!(30.00),
        false,
        false,
    );
    BetTest::with(())
        .given(vec![placed()])
        .when(cash_out("c1", dec!(8.1), Some(dec!(4.05))))
        .then_expect_events(vec![half.clone()]);
    let bet = state(&[placed(), half.clone()]);
    assert_eq!(bet.status, BetStatus::Unsettled);
    assert_eq!(bet.remaining_stake(), dec!(5.00));
    assert_eq!(bet.cashed_out, dec!(4.05));
    // The settlement pays on the 5.00 still running: 5 x 6.
    BetTest::with(())
        .given(vec![placed(), half.clone()])
        .when(settle_cmd(1, &[(1, Won), (2, Won)]))
        .then_expect_events(vec![settled(
            1,
            &[(1, Won), (2, Won)],
            BetStatus::Won,
            dec!(30.00),
        )]);
    // 3.00 of 8.1: 10 x 3 / 8.1 = 3.7037 gives up 3.71 (rounded up).
    BetTest::with(())
        .given(vec![placed()])
        .when(cash_out("c1", dec!(8.1), Some(dec!(3.00))))
        .then_expect_events(vec![cashed(
            "c1",
            1,
            dec!(3.00),
            dec!(3.71),
            dec!(6.29),
            dec!(37.74),
            false,
            false,
        )]);
    // A second partial cash-out works on the remaining stake: 2.00 of 4.1
    // gives up 5 x 2 / 4.1 = 2.439 -> 2.44.
    BetTest::with(())
        .given(vec![placed(), half.clone()])
        .when(cash_out_on("c2", dec!(5.00), dec!(4.1), Some(dec!(2.00))))
        .then_expect_events(vec![cashed(
            "c2",
            2,
            dec!(2.00),
            dec!(2.44),
            dec!(2.56),
            dec!(15.36),
            false,
            false,
        )]);
    // A lost bet after a partial cash-out: the cash-out stays paid.
    let lost = state(&[
        placed(),
        half,
        settled(2, &[(2, Lost)], BetStatus::Lost, dec!(0.00)),
    ]);
    assert_eq!(lost.cashed_out + lost.paid, dec!(4.05));
}

#[test]
fn a_partial_cash_out_of_the_whole_amount_or_leaving_less_than_a_cent_is_full() {
    let full = cashed(
        "c1",
        1,
        dec!(8.10),
        dec!(10.00),
        dec!(0.00),
        dec!(0.00),
        true,
        false,
    );
    assert_eq!(
        decide(&[placed()], cash_out("c1", dec!(8.1), Some(dec!(8.10)))),
        Ok(vec![full])
    );
    // A tiny partial always gives up some stake: 1 x 0.01 / 500 = 0.00002
    // gives up 0.01.
    let one = placed_with(valid(AcceptMode::NoChanges, dec!(1), &[dec!(600)]));
    let events = decide(
        &[one],
        cash_out_on("c1", dec!(1.00), dec!(500), Some(dec!(0.01))),
    )
    .unwrap();
    let BetEvent::BetCashedOut {
        stake_part, full, ..
    } = &events[0]
    else {
        panic!("{events:?}")
    };
    assert_eq!((*stake_part, *full), (dec!(0.01), false));
    // 10 x 999.99 / 1000 = 9.9999 gives up 10.00: all of it.
    let events = decide(&[placed()], cash_out("c1", dec!(1000), Some(dec!(999.99)))).unwrap();
    let BetEvent::BetCashedOut {
        amount,
        full,
        remaining_stake,
        ..
    } = &events[0]
    else {
        panic!("{events:?}")
    };
    assert_eq!(
        (*amount, *full, *remaining_stake),
        (dec!(1000.00), true, dec!(0.00))
    );
}

#[test]
fn a_cash_out_quoted_on_a_stake_the_bet_no_longer_has_is_refused() {
    // Two partial cash-outs quoted at once on the whole stake (10.00,
    // current 8.1); the first commits and leaves 5.00 running.
    let first = cashed(
        "c1",
        1,
        dec!(4.05),
        dec!(5.00),
        dec!(5.00),
        dec!(30.00),
        false,
        false,
    );
    BetTest::with(())
        .given(vec![placed()])
        .when(cash_out("c1", dec!(8.1), Some(dec!(4.05))))
        .then_expect_events(vec![first.clone()]);
    // The second, still quoted on 10.00, would be paid 4.05 for 2.50 of
    // stake (5.00 x 4.05 / 8.1): refused, to be quoted again.
    BetTest::with(())
        .given(vec![placed(), first.clone()])
        .when(cash_out("c2", dec!(8.1), Some(dec!(4.05))))
        .then_expect_error(BetError::StaleQuote);
    // A full one too.
    BetTest::with(())
        .given(vec![placed(), first.clone()])
        .when(cash_out("c2", dec!(8.1), None))
        .then_expect_error(BetError::StaleQuote);
    // Quoted again on the 5.00 left, it goes through.
    assert!(decide(
        &[placed(), first.clone()],
        cash_out_on("c2", dec!(5.00), dec!(4.1), Some(dec!(2.00)))
    )
    .is_ok());
    // An auto cash-out rule fired on the amount of the whole stake is
    // refused the same way once a partial cash-out committed.
    let rule = rule_set(dec!(8), None);
    let due = auto_cashout_due(&state(&[placed(), rule.clone()]), dec!(8.1), AT + 60).unwrap();
    assert_eq!(
        decide(&[placed(), rule, first], due),
        Err(BetError::StaleQuote)
    );
    assert_eq!(BetError::StaleQuote.code(), Code::ODDS_CHANGED);
}

#[test]
fn a_repeated_cash_out_request_changes_nothing() {
    let partial = cashed(
        "c1",
        1,
        dec!(4.05),
        dec!(5.00),
        dec!(5.00),
        dec!(30.00),
        false,
        false,
    );
    BetTest::with(())
        .given(vec![placed(), partial.clone()])
        .when(cash_out("c1", dec!(4.1), Some(dec!(2))))
        .then_expect_events(vec![]);
    let full = cashed(
        "c2",
        2,
        dec!(4.10),
        dec!(5.00),
        dec!(0.00),
        dec!(0.00),
        true,
        false,
    );
    BetTest::with(())
        .given(vec![placed(), partial.clone(), full.clone()])
        .when(cash_out("c2", dec!(4.1), None))
        .then_expect_events(vec![]);
    // A new request on a fully cashed-out bet is refused.
    BetTest::with(())
        .given(vec![placed(), partial, full])
        .when(cash_out("c3", dec!(4.1), None))
        .then_expect_error(BetError::NotAvailable);
}

#[test]
fn a_cash_out_at_a_price_the_client_did_not_see_is_refused_with_the_new_price() {
    let moved = BetCommand::CashOut {
        request_id: "c1".into(),
        quoted_stake: dec!(10.00),
        current_amount: dec!(8.1),
        client_price: dec!(8.2),
        partial: None,
        by_rule: false,
        at_ms: AT,
    };
    assert_eq!(
        decide(&[placed()], moved),
        Err(BetError::PriceChanged {
            new_price: dec!(8.1)
        })
    );
    // The same at one decimal place is the same price.
    let same = BetCommand::CashOut {
        request_id: "c1".into(),
        quoted_stake: dec!(10.00),
        current_amount: dec!(8.1),
        client_price: dec!(8.14),
        partial: None,
        by_rule: false,
        at_ms: AT,
    };
    assert!(decide(&[placed()], same).is_ok());
    assert_eq!(
        decide(&[placed()], cash_out("c1", dec!(8.1), Some(dec!(8.11)))),
        Err(BetError::PriceChanged {
            new_price: dec!(8.1)
        })
    );
    assert_eq!(
        BetError::PriceChanged {
            new_price: dec!(8.1)
        }
        .code(),
        Code::ODDS_CHANGED
    );
}

#[test]
fn a_partial_amount_must_be_positive_and_in_cents() {
    for partial in [dec!(0), dec!(-1), dec!(1.234)] {
        assert_eq!(
            decide(&[placed()], cash_out("c1", dec!(8.1), Some(partial))),
            Err(BetError::WrongAmount),
            "{partial}"
        );
    }
    assert_eq!(BetError::WrongAmount.code(), Code(1109));
}

#[test]
fn a_bet_that_is_not_open_or_has_no_cash_out_flag_cannot_be_cashed_out() {
    let held = placed_with(valid(AcceptMode::SuperBet, dec!(10), &[dec!(2), dec!(3)]));
    let declined = BetEvent::BetDeclined {
        member_id: "m1".into(),
        currency: CNY,
        stake: dec!(10.00),
        reason_code: 2400,
        at_ms: AT + 5,
        staff_id: None,
        reason: None,
        counter_offer: false,
    };
    let mut system = express();
    system.bet_type = BetType::System;
    let mut each_way = express();
    each_way.each_way = true;
    let cases: Vec<(&str, Vec<BetEvent>, Decimal)> = vec![
        ("on hold", vec![held], dec!(8.1)),
        ("declined", vec![placed(), declined], dec!(8.1)),
        ("type 3", vec![placed_with(system)], dec!(8.1)),
        ("each way", vec![placed_with(each_way)], dec!(8.1)),
        ("no amount now", vec![placed()], dec!(0)),
    ];
    for (what, history, current) in cases {
        assert_eq!(
            decide(&history, cash_out("c1", current, None)),
            Err(BetError::NotAvailable),
            "{what}"
        );
    }
    assert_eq!(
        decide(&[], cash_out("c1", dec!(8.1), None)),
        Err(BetError::NotPlaced)
    );
    assert_eq!(BetError::NotAvailable.code(), Code::BET_STATE);
}

#[test]
fn the_race_settlement_first_refuses_the_cash_out() {
    for history in [
        vec![
            placed(),
            settled(1, &[(2, Lost)], BetStatus::Lost, dec!(0.00)),
        ],
        vec![
            placed(),
            settled(1, &[(1, Won), (2, Won)], BetStatus::Won, dec!(60.00)),
        ],
        // Even when a correction took the settlement back.
        vec![
            placed(),
            settled(1, &[(1, Won), (2, Won)], BetStatus::Won, dec!(60.00)),
            BetEvent::BetResettled {
                member_id: "m1".into(),
                currency: CNY,
                previous_payout: dec!(60.00),
                status: BetStatus::Unsettled,
                payout: dec!(0.00),
                bonus: dec!(0.00),
                result_version: 2,
                outcomes: outcomes(&[(1, Won)]),
                sp_prices: BTreeMap::new(),
                at_ms: AT + 2000,
            },
        ],
    ] {
        BetTest::with(())
            .given(history)
            .when(cash_out("c1", dec!(8.1), None))
            .then_expect_error(BetError::NotAvailable);
    }
}

#[test]
fn the_race_cash_out_first_leaves_nothing_to_settle() {
    let full = cashed(
        "c1",
        1,
        dec!(8.10),
        dec!(10.00),
        dec!(0.00),
        dec!(0.00),
        true,
        false,
    );
    for result in [
        settle_cmd(1, &[(1, Won), (2, Won)]),
        settle_cmd(1, &[(2, Lost)]),
    ] {
        BetTest::with(())
            .given(vec![placed(), full.clone()])
            .when(result)
            .then_expect_events(vec![]);
    }
    // Nor can it be declined any more (nothing is held).
    assert_eq!(
        decide(
            &[placed(), full],
            BetCommand::Decline {
                reason_code: 2400,
                at_ms: AT
            }
        ),
        Err(BetError::NotOpen)
    );
}

// ---- auto cash-out ----------------------------------------------------------

fn set_rule(min: Decimal, partial: Option<Decimal>) -> BetCommand {
    BetCommand::SetAutoCashout {
        min_amount: min,
        partial_amount: partial,
        current_amount: dec!(5.0),
        possible_win: dec!(20.00),
        at_ms: AT + 20,
    }
}

fn rule_set(min: Decimal, partial: Option<Decimal>) -> BetEvent {
    BetEvent::AutoCashoutSet {
        min_amount: min,
        partial_amount: partial,
        at_ms: AT + 20,
    }
}

#[test]
fn the_auto_cashout_bounds_are_one_percent_inside_current_and_possible_win() {
    assert_eq!(
        auto_cashout_bounds(dec!(5.0), dec!(20.00), CNY),
        (dec!(5.05), dec!(19.80))
    );
    // Lower bound rounded up, upper bound rounded down.
    assert_eq!(
        auto_cashout_bounds(dec!(5.01), dec!(19.99), CNY),
        (dec!(5.07), dec!(19.79))
    );
}

#[test]
fn an_auto_cashout_rule_must_lie_within_its_bounds() {
    let wrong = BetError::WrongAutoCashout {
        min: dec!(5.05),
        max: dec!(19.80),
    };
    for (min, partial) in [
        (dec!(5.04), None),
        (dec!(19.81), None),
        (dec!(5.055), None),
        (dec!(10), Some(dec!(0))),
        (dec!(10), Some(dec!(-1))),
        (dec!(10), Some(dec!(10.01))),
        (dec!(10), Some(dec!(1.001))),
    ] {
        assert_eq!(
            decide(&[placed()], set_rule(min, partial)),
            Err(wrong.clone()),
            "{min} {partial:?}"
        );
    }
    for (min, partial) in [
        (dec!(5.05), None),
        (dec!(19.80), None),
        (dec!(10), Some(dec!(10))),
        (dec!(10), Some(dec!(0.01))),
    ] {
        assert_eq!(
            decide(&[placed()], set_rule(min, partial)),
            Ok(vec![rule_set(min, partial)]),
            "{min} {partial:?}"
        );
    }
    assert_eq!(wrong.code(), Code(1109));
    // When the bounds cross, nothing fits.
    let crossed = BetCommand::SetAutoCashout {
        min_amount: dec!(10),
        partial_amount: None,
        current_amount: dec!(10),
        possible_win: dec!(10.05),
        at_ms: AT,
    };
    assert_eq!(
        decide(&[placed()], crossed),
        Err(BetError::WrongAutoCashout {
            min: dec!(10.10),
            max: dec!(9.94)
        })
    );
}

#[test]
fn an_auto_cashout_rule_needs_a_cashable_bet() {
    let held = placed_with(valid(AcceptMode::SuperBet, dec!(10), &[dec!(2), dec!(3)]));
    assert_eq!(
        decide(&[held], set_rule(dec!(10), None)),
        Err(BetError::NotAvailable)
    );
    assert_eq!(
        decide(
            &[
                placed(),
                settled(1, &[(2, Lost)], BetStatus::Lost, dec!(0.00))
            ],
            set_rule(dec!(10), None)
        ),
        Err(BetError::NotAvailable)
    );
}

#[test]
fn setting_a_rule_again_replaces_it_and_cancelling_drops_it() {
    let first = rule_set(dec!(10), None);
    let bet = state(&[placed(), first.clone()]);
    assert_eq!(
        bet.auto_cashout,
        Some(AutoCashout {
            min_amount: dec!(10),
            partial_amount: None,
            number: 1,
            at_ms: AT + 20
        })
    );
    // The same rule again: nothing; another one: replaces it.
    assert_eq!(
        decide(&[placed(), first.clone()], set_rule(dec!(10), None)),
        Ok(vec![])
    );
    let second = rule_set(dec!(12), Some(dec!(6)));
    let bet = state(&[placed(), first.clone(), second.clone()]);
    let rule = bet.auto_cashout.unwrap();
    assert_eq!(
        (rule.min_amount, rule.partial_amount, rule.number),
        (dec!(12), Some(dec!(6)), 2)
    );
    let cancel = BetCommand::CancelAutoCashout { at_ms: AT + 30 };
    let cancelled = BetEvent::AutoCashoutCancelled { at_ms: AT + 30 };
    assert_eq!(
        decide(&[placed(), first.clone()], cancel.clone()),
        Ok(vec![cancelled.clone()])
    );
    assert_eq!(state(&[placed(), first, cancelled]).auto_cashout, None);
    assert_eq!(decide(&[placed()], cancel.clone()), Ok(vec![]));
    assert_eq!(decide(&[], cancel), Err(BetError::NotPlaced));
}

#[test]
fn an_auto_cashout_rule_fires_when_the_current_amount_reaches_its_trigger() {
    let bet = state(&[placed(), rule_set(dec!(10), None)]);
    assert_eq!(auto_cashout_due(&bet, dec!(9.9), AT), None);
    let due = auto_cashout_due(&bet, dec!(10.0), AT + 60);
    assert_eq!(
        due,
        Some(BetCommand::CashOut {
            request_id: "auto:1".into(),
            quoted_stake: dec!(10.00),
            current_amount: dec!(10.0),
            client_price: dec!(10.0),
            partial: None,
            by_rule: true,
            at_ms: AT + 60,
        })
    );
    // Fired: a full cash-out by the rule.
    let events = bet.decide(due.unwrap()).unwrap();
    let BetEvent::BetCashedOut {
        amount,
        full,
        by_rule,
        request_id,
        ..
    } = &events[0]
    else {
        panic!("{events:?}")
    };
    assert_eq!(
        (*amount, *full, *by_rule, request_id.as_str()),
        (dec!(10.00), true, true, "auto:1")
    );
    // A partial rule cashes out its partial amount and is spent.
    let history = vec![placed(), rule_set(dec!(10), Some(dec!(4)))];
    let bet = state(&history);
    let due = auto_cashout_due(&bet, dec!(10.5), AT + 60).unwrap();
    let BetCommand::CashOut { partial, .. } = &due else {
        panic!("{due:?}")
    };
    assert_eq!(*partial, Some(dec!(4)));
    let events = bet.decide(due.clone()).unwrap();
    let mut after = history.clone();
    after.extend(events.clone());
    let bet = state(&after);
    assert_eq!(bet.auto_cashout, None);
    assert_eq!(bet.status, BetStatus::Unsettled);
    assert_eq!(auto_cashout_due(&bet, dec!(20), AT), None);
    // Fired twice (two workers): the second changes nothing.
    assert_eq!(bet.decide(due), Ok(vec![]));
}

#[test]
fn a_partial_rule_at_or_above_the_current_amount_fires_a_full_cash_out() {
    let bet = state(&[placed(), rule_set(dec!(10), Some(dec!(10)))]);
    let due = auto_cashout_due(&bet, dec!(10.0), AT).unwrap();
    let BetCommand::CashOut { partial, .. } = due else {
        panic!()
    };
    assert_eq!(partial, None);
}

#[test]
fn a_cash_out_by_a_rule_the_bet_no_longer_has_is_refused() {
    let history = vec![
        placed(),
        rule_set(dec!(10), None),
        BetEvent::AutoCashoutCancelled { at_ms: AT + 30 },
    ];
    let fire = BetCommand::CashOut {
        request_id: "auto:1".into(),
        quoted_stake: dec!(10.00),
        current_amount: dec!(10.0),
        client_price: dec!(10.0),
        partial: None,
        by_rule: true,
        at_ms: AT + 60,
    };
    assert_eq!(decide(&history, fire.clone()), Err(BetError::NotAvailable));
    // Nor below its trigger.
    let below = BetCommand::CashOut {
        request_id: "auto:1".into(),
        quoted_stake: dec!(10.00),
        current_amount: dec!(9.9),
        client_price: dec!(9.9),
        partial: None,
        by_rule: true,
        at_ms: AT + 60,
    };
    assert_eq!(
        decide(&[placed(), rule_set(dec!(10), None)], below),
        Err(BetError::NotAvailable)
    );
}

#[test]
fn the_rule_is_dropped_on_settlement_and_on_a_full_cash_out_but_kept_on_a_partial_one() {
    let rule = rule_set(dec!(10), None);
    let on_settle = state(&[
        placed(),
        rule.clone(),
        settled(1, &[(2, Lost)], BetStatus::Lost, dec!(0.00)),
    ]);
    assert_eq!(on_settle.auto_cashout, None);
    assert_eq!(auto_cashout_due(&on_settle, dec!(50), AT), None);
    let full = cashed(
        "c1",
        1,
        dec!(8.10),
        dec!(10.00),
        dec!(0.00),
        dec!(0.00),
        true,
        false,
    );
    assert_eq!(state(&[placed(), rule.clone(), full]).auto_cashout, None);
    let partial = cashed(
        "c1",
        1,
        dec!(4.05),
        dec!(5.00),
        dec!(5.00),
        dec!(30.00),
        false,
        false,
    );
    assert!(state(&[placed(), rule, partial]).auto_cashout.is_some());
}

// ---- super bets and counter offers -------------------------------------------

/// A held super single: 100.00 at 2.
fn held_single() -> BetEvent {
    placed_with(valid(AcceptMode::SuperBet, dec!(100), &[dec!(2)]))
}

/// A held super express: 100.00 at 2 x 3.
fn held_express() -> BetEvent {
    placed_with(valid(AcceptMode::SuperBet, dec!(100), &[dec!(2), dec!(3)]))
}

fn offer(amount: Option<Decimal>, price: Option<Decimal>) -> BetCommand {
    BetCommand::OfferCounter {
        staff_id: "s1".into(),
        amount,
        price,
        reason: "over the limit".into(),
        at_ms: AT + 100,
    }
}

fn offered(amount: Decimal, price: Option<Decimal>) -> BetEvent {
    BetEvent::CounterOffered {
        staff_id: "s1".into(),
        amount,
        price,
        reason: "over the limit".into(),
        at_ms: AT + 100,
    }
}

fn answer(accept: bool) -> BetCommand {
    BetCommand::AnswerCounter {
        accept,
        at_ms: AT + 200,
    }
}

fn support_accept() -> BetCommand {
    BetCommand::SupportAccept {
        staff_id: "s1".into(),
        reason: None,
        at_ms: AT + 150,
    }
}

fn support_decline() -> BetCommand {
    BetCommand::SupportDecline {
        staff_id: "s1".into(),
        reason: "too risky".into(),
        at_ms: AT + 150,
    }
}

#[allow(clippy::too_many_arguments)]
fn accepted(
    staff: Option<&str>,
    counter: bool,
    stake: Decimal,
    price: Option<Decimal>,
    odds: Decimal,
    possible_win: Decimal,
    released: Decimal,
    at_ms: i64,
) -> BetEvent {
    BetEvent::BetAccepted {
        at_ms,
        staff_id: staff.map(str::to_string),
        reason: None,
        counter_offer: counter,
        terms: Some(AcceptedTerms {
            member_id: "m1".into(),
            currency: CNY,
            stake,
            unit_stake: stake,
            price,
            odds: Some(odds),
            possible_win: Some(possible_win),
            stake_taken: stake,
            stake_released: released,
        }),
    }
}

fn declined(staff: Option<&str>, reason: Option<&str>, counter: bool, at_ms: i64) -> BetEvent {
    BetEvent::BetDeclined {
        member_id: "m1".into(),
        currency: CNY,
        stake: dec!(100.00),
        reason_code: 0,
        at_ms,
        staff_id: staff.map(str::to_string),
        reason: reason.map(str::to_string),
        counter_offer: counter,
    }
}

#[test]
fn a_super_bet_is_held_pending_with_its_stake_asked() {
    let bet = state(&[held_single()]);
    assert_eq!(bet.status, BetStatus::OnHold);
    assert_eq!(bet.super_bet_status, Some(0));
    assert_eq!(bet.counter_offer, None);
    assert_eq!(state(&[placed()]).super_bet_status, None);
}

#[test]
fn support_offers_a_stake_a_price_or_both_on_a_held_bet() {
    let cases = [
        (Some(dec!(50)), None, offered(dec!(50.00), Some(dec!(2)))),
        (
            None,
            Some(dec!(2.1)),
            offered(dec!(100.00), Some(dec!(2.1))),
        ),
        (
            Some(dec!(40)),
            Some(dec!(1.85)),
            offered(dec!(40.00), Some(dec!(1.85))),
        ),
    ];
    for (amount, price, event) in cases {
        BetTest::with(())
            .given(vec![held_single()])
            .when(offer(amount, price))
            .then_expect_events(vec![event]);
    }
    // An express takes a stake offer; its k stays.
    BetTest::with(())
        .given(vec![held_express()])
        .when(offer(Some(dec!(40)), None))
        .then_expect_events(vec![offered(dec!(40.00), Some(dec!(6)))]);
    let bet = state(&[held_single(), offered(dec!(50.00), Some(dec!(2)))]);
    assert!(bet.counter_offer_pending());
    assert_eq!(bet.status, BetStatus::OnHold);
    assert_eq!(bet.super_bet_status, Some(0));
}

#[test]
fn a_counter_offer_with_a_wrong_amount_or_price_is_refused() {
    let cases: Vec<(BetEvent, Option<Decimal>, Option<Decimal>, BetError)> = vec![
        (held_single(), None, None, BetError::WrongAmount),
        (held_single(), Some(dec!(0)), None, BetError::WrongAmount),
        (held_single(), Some(dec!(-5)), None, BetError::WrongAmount),
        (
            held_single(),
            Some(dec!(100.01)),
            None,
            BetError::WrongAmount,
        ),
        (
            held_single(),
            Some(dec!(50.001)),
            None,
            BetError::WrongAmount,
        ),
        (
            held_single(),
            None,
            Some(dec!(1)),
            BetError::WrongCoefficient,
        ),
        (
            held_single(),
            None,
            Some(dec!(0.5)),
            BetError::WrongCoefficient,
        ),
        (
            held_single(),
            None,
            Some(dec!(2.1234)),
            BetError::WrongCoefficient,
        ),
        (
            held_express(),
            None,
            Some(dec!(7)),
            BetError::WrongCoefficient,
        ),
    ];
    for (history, amount, price, error) in cases {
        assert_eq!(
            decide(&[history], offer(amount, price)),
            Err(error.clone()),
            "{amount:?} {price:?}"
        );
    }
    assert_eq!(BetError::WrongCoefficient.code(), Code(1108));
}

#[test]
fn counter_offer_transitions_from_hold_without_an_offer() {
    let given = vec![held_single()];
    assert_eq!(
        decide(&given, support_accept()),
        Ok(vec![accepted(
            Some("s1"),
            false,
            dec!(100.00),
            None,
            dec!(2),
            dec!(200.00),
            dec!(0.00),
            AT + 150
        )])
    );
    assert_eq!(
        decide(&given, support_decline()),
        Ok(vec![declined(
            Some("s1"),
            Some("too risky"),
            false,
            AT + 150
        )])
    );
    assert_eq!(decide(&given, answer(true)), Err(BetError::NoCounterOffer));
    assert_eq!(decide(&given, answer(false)), Err(BetError::NoCounterOffer));
    // The legacy commands still work.
    assert_eq!(
        decide(&given, BetCommand::Accept { at_ms: AT + 150 }),
        Ok(vec![accepted(
            None,
            false,
            dec!(100.00),
            None,
            dec!(2),
            dec!(200.00),
            dec!(0.00),
            AT + 150
        )])
    );
    assert_eq!(
        decide(
            &given,
            BetCommand::Decline {
                reason_code: 1510,
                at_ms: AT
            }
        )
        .map(|e| e.len()),
        Ok(1)
    );
}

#[test]
fn a_support_decline_needs_a_reason() {
    let blank = BetCommand::SupportDecline {
        staff_id: "s1".into(),
        reason: "  ".into(),
        at_ms: AT,
    };
    assert_eq!(
        decide(&[held_single()], blank),
        Err(BetError::ReasonRequired)
    );
    assert_eq!(BetError::ReasonRequired.code(), Code(-70009));
}

#[test]
fn counter_offer_transitions_while_an_offer_is_pending() {
    let given = vec![held_single(), offered(dec!(50.00), Some(dec!(2.1)))];
    assert_eq!(
        decide(&given, offer(Some(dec!(40)), None)),
        Err(BetError::CounterOfferPending)
    );
    assert_eq!(
        decide(&given, support_accept()),
        Err(BetError::CounterOfferPending)
    );
    assert_eq!(
        decide(&given, BetCommand::Accept { at_ms: AT }),
        Err(BetError::CounterOfferPending)
    );
    // Support may still decline: the offer lapses.
    assert_eq!(
        decide(&given, support_decline()),
        Ok(vec![declined(
            Some("s1"),
            Some("too risky"),
            false,
            AT + 150
        )])
    );
    // The member accepts: 50.00 is taken, 50.00 released, the price is 2.1.
    let accept = accepted(
        None,
        true,
        dec!(50.00),
        Some(dec!(2.1)),
        dec!(2.1),
        dec!(105.00),
        dec!(50.00),
        AT + 200,
    );
    assert_eq!(decide(&given, answer(true)), Ok(vec![accept.clone()]));
    // The member declines: the whole held stake is released.
    assert_eq!(
        decide(&given, answer(false)),
        Ok(vec![declined(None, None, true, AT + 200)])
    );
    assert_eq!(BetError::CounterOfferPending.code(), Code(1027));
}

#[test]
fn an_accepted_counter_offer_changes_the_bet_it_settles_and_cashes_out_on() {
    let history = vec![
        held_single(),
        offered(dec!(50.00), Some(dec!(2.1))),
        accepted(
            None,
            true,
            dec!(50.00),
            Some(dec!(2.1)),
            dec!(2.1),
            dec!(105.00),
            dec!(50.00),
            AT + 200,
        ),
    ];
    let bet = state(&history);
    assert_eq!(bet.status, BetStatus::Unsettled);
    assert_eq!(bet.super_bet_status, Some(1));
    let placed = bet.placement.clone().unwrap();
    assert_eq!(placed.bet.stake, dec!(50.00));
    assert_eq!(placed.bet.unit_stake, dec!(50.00));
    assert_eq!(placed.bet.legs[0].price, dec!(2.1));
    assert_eq!(placed.bet.legs[0].requested_price, dec!(2));
    assert_eq!(placed.bet.odds, Some(dec!(2.1)));
    assert_eq!(placed.bet.possible_win, Some(dec!(105.00)));
    assert_eq!(
        bet.counter_offer.as_ref().map(|o| o.amount),
        Some(dec!(50.00))
    );
    assert_eq!(
        decide(&history, settle_cmd(1, &[(1, Won)])),
        Ok(vec![settled(1, &[(1, Won)], BetStatus::Won, dec!(105.00))])
    );
    // 2.1 / 2.1 x 50 x 0.9 = 45.
    assert_eq!(
        bet.cashout_amount(&live(&[(1, Some(dec!(2.1)))]), &BTreeMap::new()),
        Some(dec!(45.0))
    );
    // An express accepted on a lower stake keeps its legs' prices.
    let express = state(&[
        held_express(),
        offered(dec!(40.00), Some(dec!(6))),
        accepted(
            None,
            true,
            dec!(40.00),
            None,
            dec!(6),
            dec!(240.00),
            dec!(60.00),
            AT + 200,
        ),
    ]);
    let bet = express.placement.unwrap().bet;
    assert_eq!(
        (bet.stake, bet.possible_win),
        (dec!(40.00), Some(dec!(240.00)))
    );
    assert_eq!(bet.legs[0].price, dec!(2));
}

#[test]
fn counter_offer_transitions_after_the_answer() {
    let offer_made = offered(dec!(50.00), Some(dec!(2.1)));
    let accept = accepted(
        None,
        true,
        dec!(50.00),
        Some(dec!(2.1)),
        dec!(2.1),
        dec!(105.00),
        dec!(50.00),
        AT + 200,
    );
    let after_accept = vec![held_single(), offer_made.clone(), accept];
    assert_eq!(decide(&after_accept, answer(true)), Ok(vec![]));
    assert_eq!(
        decide(&after_accept, answer(false)),
        Err(BetError::NoCounterOffer)
    );
    assert_eq!(
        decide(&after_accept, offer(Some(dec!(10)), None)),
        Err(BetError::NotOnHold)
    );
    assert_eq!(
        decide(&after_accept, support_accept()),
        Err(BetError::NotOnHold)
    );
    assert_eq!(
        decide(&after_accept, support_decline()),
        Err(BetError::NotOnHold)
    );

    let after_decline = vec![
        held_single(),
        offer_made,
        declined(None, None, true, AT + 200),
    ];
    let bet = state(&after_decline);
    assert_eq!(bet.status, BetStatus::Declined);
    assert_eq!(bet.super_bet_status, Some(-1));
    assert_eq!(decide(&after_decline, answer(false)), Ok(vec![]));
    assert_eq!(
        decide(&after_decline, answer(true)),
        Err(BetError::NoCounterOffer)
    );
    assert_eq!(
        decide(&after_decline, offer(Some(dec!(10)), None)),
        Err(BetError::NotOnHold)
    );
    assert_eq!(
        decide(&after_decline, support_accept()),
        Err(BetError::NotOnHold)
    );
    assert_eq!(decide(&after_decline, support_decline()), Ok(vec![]));
}

#[test]
fn counter_offer_transitions_after_a_support_decision() {
    let accepted_by_support = vec![
        held_single(),
        accepted(
            Some("s1"),
            false,
            dec!(100.00),
            None,
            dec!(2),
            dec!(200.00),
            dec!(0.00),
            AT + 150,
        ),
    ];
    let bet = state(&accepted_by_support);
    assert_eq!(
        (bet.status, bet.super_bet_status),
        (BetStatus::Unsettled, Some(1))
    );
    assert_eq!(decide(&accepted_by_support, support_accept()), Ok(vec![]));
    assert_eq!(
        decide(&accepted_by_support, answer(true)),
        Err(BetError::NoCounterOffer)
    );
    assert_eq!(
        decide(&accepted_by_support, offer(Some(dec!(10)), None)),
        Err(BetError::NotOnHold)
    );
    let declined_by_support = vec![
        held_single(),
        declined(Some("s1"), Some("too risky"), false, AT + 150),
    ];
    assert_eq!(
        decide(&declined_by_support, answer(false)),
        Err(BetError::NoCounterOffer)
    );
    assert_eq!(
        decide(&declined_by_support, support_accept()),
        Err(BetError::NotOnHold)
    );
}

#[test]
fn counter_offer_commands_on_an_ordinary_bet_are_refused() {
    assert_eq!(
        decide(&[placed()], offer(Some(dec!(5)), None)),
        Err(BetError::NotOnHold)
    );
    assert_eq!(
        decide(&[placed()], support_accept()),
        Err(BetError::NotOnHold)
    );
    assert_eq!(
        decide(&[placed()], support_decline()),
        Err(BetError::NotOnHold)
    );
    assert_eq!(
        decide(&[placed()], answer(true)),
        Err(BetError::NoCounterOffer)
    );
    for command in [offer(Some(dec!(5)), None), support_accept(), answer(true)] {
        assert_eq!(decide(&[], command), Err(BetError::NotPlaced));
    }
    assert_eq!(BetError::NoCounterOffer.code(), Code(1027));
    assert_eq!(Code(1027).message(), "No counter offer to answer");
    assert_eq!(BetError::NotOnHold.code(), Code(1027));
}

// ---- wire shapes --------------------------------------------------------------

#[test]
fn new_events_round_trip_and_old_events_still_load() {
    let events = vec![
        cashed(
            "c1",
            1,
            dec!(4.05),
            dec!(5.00),
            dec!(5.00),
            dec!(30.00),
            false,
            false,
        ),
        rule_set(dec!(10), Some(dec!(4))),
        BetEvent::AutoCashoutCancelled { at_ms: AT },
        offered(dec!(50.00), Some(dec!(2.1))),
        accepted(
            None,
            true,
            dec!(50.00),
            Some(dec!(2.1)),
            dec!(2.1),
            dec!(105.00),
            dec!(50.00),
            AT,
        ),
        declined(Some("s1"), Some("no"), false, AT),
    ];
    for event in events {
        let json = serde_json::to_string(&event).unwrap();
        let back: BetEvent = serde_json::from_str(&json).unwrap();
        assert_eq!(back, event, "{json}");
    }
    let old_accept: BetEvent = serde_json::from_str(r#"{"BetAccepted":{"at_ms":5}}"#).unwrap();
    assert_eq!(
        old_accept,
        BetEvent::BetAccepted {
            at_ms: 5,
            staff_id: None,
            reason: None,
            counter_offer: false,
            terms: None
        }
    );
    let old_decline = r#"{"BetDeclined":{"member_id":"m1","currency":"CNY","stake":"10.00","reason_code":2400,"at_ms":5}}"#;
    let event: BetEvent = serde_json::from_str(old_decline).unwrap();
    // A decline without the new fields serializes as before.
    assert_eq!(serde_json::to_string(&event).unwrap(), old_decline);
    // An old acceptance keeps the bet as placed.
    let bet = state(&[held_single(), old_accept]);
    assert_eq!(bet.placement.unwrap().bet.stake, dec!(100.00));
    assert_eq!(bet.super_bet_status, Some(1));
}

// ---- seeded property ----------------------------------------------------------

const SETTLED: [SelectionOutcome; 5] = [Won, HalfWon, Returned, HalfLost, Lost];

/// Mostly 1.01 to 5, sometimes up to 50.
fn random_price(rng: &mut Rng) -> Decimal {
    let top = if rng.chance(10) { 5000 } else { 500 };
    Decimal::new(101 + rng.below(top - 100) as i64, 2)
}

/// Stakes from 0.01 to 5000, every magnitude as likely.
fn random_stake(rng: &mut Rng) -> Decimal {
    let magnitude = [10, 100, 1_000, 10_000, 100_000, 500_000];
    let top = *rng.pick(&magnitude);
    Decimal::new(1 + rng.below(top) as i64, 2)
}

#[test]
fn cash_outs_plus_the_settlement_never_pay_more_than_the_possible_win() {
    let mut rng = Rng::new(2024);
    let (mut cashouts, mut full) = (0, 0);
    for _ in 0..6000 {
        let n = 1 + rng.below(4) as usize;
        let prices: Vec<Decimal> = (0..n).map(|_| random_price(&mut rng)).collect();
        let stake = random_stake(&mut rng);
        let bet = valid(AcceptMode::NoChanges, stake, &prices);
        let possible_win = bet.possible_win.unwrap();
        let mut history = vec![placed_with(bet)];
        let mut known: BTreeMap<u64, SelectionOutcome> = BTreeMap::new();
        for step in 0..1 + rng.below(4) {
            // Sometimes a selection ends (not lost: the bet stays cashable).
            let id = 1 + rng.below(n as u64);
            if rng.chance(25) && !known.contains_key(&id) {
                known.insert(id, *rng.pick(&SETTLED[..4]));
            }
            let now: BTreeMap<u64, Option<Decimal>> = (1..=n as u64)
                .map(|id| (id, Some(random_price(&mut rng))))
                .collect();
            let bet = state(&history);
            let Some(current) = bet.cashout_amount(&now, &known) else {
                continue;
            };
            let partial = if rng.chance(30) {
                None
            } else {
                let cents = (current * dec!(100)).trunc();
                let p = Decimal::new(1 + rng.below(cents.try_into().unwrap()) as i64, 2);
                Some(p)
            };
            let quoted = bet.remaining_stake();
            let events = bet
                .decide(cash_out_on(&format!("c{step}"), quoted, current, partial))
                .unwrap();
            cashouts += 1;
            history.extend(events);
        }
        let mut results = known.clone();
        for id in 1..=n as u64 {
            results.entry(id).or_insert_with(|| *rng.pick(&SETTLED));
        }
        let bet = state(&history);
        let settled = bet.decide(BetCommand::Settle {
            result_version: 1,
            outcomes: results.clone(),
            sp_prices: BTreeMap::new(),
            at_ms: AT,
        });
        history.extend(settled.unwrap());
        let bet = state(&history);
        if bet.status == BetStatus::CashedOut {
            full += 1;
            assert_eq!(bet.result_version, None);
        }
        let stake = bet.placement.as_ref().unwrap().bet.stake;
        assert_eq!(bet.stake_cashed + bet.remaining_stake(), stake);
        assert!(bet.remaining_stake() >= Decimal::ZERO);
        let total = bet.cashed_out + bet.paid;
        assert!(
            total <= possible_win,
            "paid {total} > possible win {possible_win}: {history:?} {results:?}"
        );
    }
    assert!(cashouts > 1000 && full > 100, "{cashouts} {full}");
}
