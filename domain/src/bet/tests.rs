//! Bet aggregate rules, one test per rule, as given / when / then.

use std::collections::BTreeMap;

use cqrs_es::test::TestFramework;
use cqrs_es::{Aggregate, DomainEvent};
use rust_decimal::Decimal;
use rust_decimal_macros::dec;

use super::*;
use crate::catalogue::GameType;
use crate::result::SelectionOutcome::{self, *};
use crate::{Code, Currency};

type BetTest = TestFramework<Bet>;

const AT: i64 = 1_700_000_123_456;

fn quote(event_id: u64, price: Decimal) -> Quote {
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
        names: LegNames {
            team1: "Arsenal".into(),
            team2: Some("Chelsea".into()),
            market_name: "Match Result".into(),
            event_name: "W1".into(),
            ..LegNames::default()
        },
    }
}

/// An express of 10.00 on event 1 at 2 and event 2 at 3.
fn express(mode: AcceptMode) -> ValidBet {
    let request = BetRequest {
        bet_type: BetType::Express,
        mode,
        amount: dec!(10),
        each_way: false,
        sys_bet: None,
        bonus_id: None,
        is_offer: false,
        selections: [(1, dec!(2)), (2, dec!(3))]
            .map(|(event_id, price)| Pick {
                event_id,
                price,
                banker: false,
                base: None,
            })
            .to_vec(),
    };
    let quotes = [(1, quote(1, dec!(2))), (2, quote(2, dec!(3)))].into();
    let limits = BetLimits::new(Currency::Cny, dec!(1), dec!(1000));
    validate(&request, &quotes, &limits, dec!(100)).unwrap()
}

fn place_with(bet: ValidBet) -> BetCommand {
    BetCommand::Place {
        bet_id: "b1".into(),
        member_id: "m1".into(),
        currency: Currency::Cny,
        request_id: "r1".into(),
        bet,
        express_bonus: ExpressBonus::None,
        at_ms: AT,
    }
}

fn placed_with(bet: ValidBet, status: BetStatus) -> BetEvent {
    BetEvent::BetPlaced {
        bet_id: "b1".into(),
        member_id: "m1".into(),
        currency: Currency::Cny,
        request_id: "r1".into(),
        bet,
        express_bonus: ExpressBonus::None,
        status,
        date_time: 1_700_000_123,
        at_ms: AT,
        cash_out: Some(true),
    }
}

fn placed() -> BetEvent {
    placed_with(express(AcceptMode::NoChanges), BetStatus::Unsettled)
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
        currency: Currency::Cny,
        status,
        payout,
        bonus: dec!(0.00),
        result_version: version,
        outcomes: outcomes(list),
        sp_prices: BTreeMap::new(),
        at_ms: AT + 1000,
    }
}

fn resettled(
    version: u64,
    list: &[(u64, SelectionOutcome)],
    previous: Decimal,
    status: BetStatus,
    payout: Decimal,
) -> BetEvent {
    BetEvent::BetResettled {
        member_id: "m1".into(),
        currency: Currency::Cny,
        previous_payout: previous,
        status,
        payout,
        bonus: dec!(0.00),
        result_version: version,
        outcomes: outcomes(list),
        sp_prices: BTreeMap::new(),
        at_ms: AT + 1000,
    }
}

fn decline() -> BetCommand {
    BetCommand::Decline {
        reason_code: 1550,
        at_ms: AT + 5,
    }
}

fn declined() -> BetEvent {
    BetEvent::BetDeclined {
        member_id: "m1".into(),
        currency: Currency::Cny,
        stake: dec!(10.00),
        reason_code: 1550,
        at_ms: AT + 5,
        staff_id: None,
        reason: None,
        counter_offer: false,
    }
}

/// Accepted as asked (the legacy `Accept`): the held 10.00 is taken.
fn accepted(at_ms: i64) -> BetEvent {
    let bet = express(AcceptMode::SuperBet);
    BetEvent::BetAccepted {
        at_ms,
        staff_id: None,
        reason: None,
        counter_offer: false,
        terms: Some(AcceptedTerms {
            member_id: "m1".into(),
            currency: Currency::Cny,
            stake: dec!(10.00),
            unit_stake: dec!(10.00),
            price: None,
            odds: bet.odds,
            possible_win: bet.possible_win,
            stake_taken: dec!(10.00),
            stake_released: dec!(0.00),
        }),
    }
}

#[test]
fn placing_records_the_bet_unsettled_with_its_date_in_unix_seconds() {
    BetTest::with(())
        .given_no_previous_events()
        .when(place_with(express(AcceptMode::NoChanges)))
        .then_expect_events(vec![placed()]);
}

#[test]
fn the_placed_event_carries_what_the_bet_history_shows() {
    let BetEvent::BetPlaced { bet, .. } = placed() else {
        unreachable!()
    };
    assert_eq!(bet.bet_type, BetType::Express);
    assert_eq!(bet.stake, dec!(10.00));
    assert_eq!(bet.odds, Some(dec!(6)));
    assert_eq!(bet.possible_win, Some(dec!(60.00)));
    assert_eq!(bet.legs[0].names.team1, "Arsenal");
    let json = serde_json::to_value(placed()).unwrap();
    let body = &json["BetPlaced"];
    assert_eq!(body["bet"]["bet_type"], 2);
    assert_eq!(body["status"], 0);
    assert_eq!(body["date_time"], 1_700_000_123);
    assert_eq!(body["bet"]["legs"][1]["price"], "3");
    let back: BetEvent = serde_json::from_value(json).unwrap();
    assert_eq!(back, placed());
    assert_eq!(placed().event_type(), "BetPlaced");
}

#[test]
fn a_repeated_placement_changes_nothing_and_another_one_is_refused() {
    BetTest::with(())
        .given(vec![placed()])
        .when(place_with(express(AcceptMode::NoChanges)))
        .then_expect_events(vec![]);
    let BetCommand::Place { bet, .. } = place_with(express(AcceptMode::NoChanges)) else {
        unreachable!()
    };
    BetTest::with(())
        .given(vec![placed()])
        .when(BetCommand::Place {
            bet_id: "b1".into(),
            member_id: "m1".into(),
            currency: Currency::Cny,
            request_id: "r2".into(),
            bet,
            express_bonus: ExpressBonus::None,
            at_ms: AT,
        })
        .then_expect_error(BetError::AlreadyPlaced);
}

#[test]
fn a_super_bet_waits_on_hold_until_support_accepts_it() {
    let held = express(AcceptMode::SuperBet);
    assert!(held.super_bet);
    BetTest::with(())
        .given_no_previous_events()
        .when(place_with(held.clone()))
        .then_expect_events(vec![placed_with(held.clone(), BetStatus::OnHold)]);
    BetTest::with(())
        .given(vec![placed_with(held.clone(), BetStatus::OnHold)])
        .when(settle_cmd(1, &[(1, Won), (2, Won)]))
        .then_expect_error(BetError::NotOpen);
    BetTest::with(())
        .given(vec![placed_with(held.clone(), BetStatus::OnHold)])
        .when(BetCommand::Accept { at_ms: AT + 9 })
        .then_expect_events(vec![accepted(AT + 9)]);
    BetTest::with(())
        .given(vec![placed_with(held, BetStatus::OnHold), accepted(AT + 9)])
        .when(settle_cmd(1, &[(1, Won), (2, Won)]))
        .then_expect_events(vec![settled(
            1,
            &[(1, Won), (2, Won)],
            BetStatus::Won,
            dec!(60.00),
        )]);
}

#[test]
fn a_bet_settles_once_all_its_legs_have_outcomes() {
    BetTest::with(())
        .given(vec![placed()])
        .when(settle_cmd(1, &[(1, Won)]))
        .then_expect_events(vec![]);
    BetTest::with(())
        .given(vec![placed()])
        .when(settle_cmd(2, &[(1, Won), (2, HalfWon), (77, Lost)]))
        .then_expect_events(vec![settled(
            2,
            &[(1, Won), (2, HalfWon)],
            BetStatus::Won,
            dec!(40.00),
        )]);
}

#[test]
fn an_express_with_a_lost_leg_settles_before_the_other_legs_end() {
    BetTest::with(())
        .given(vec![placed()])
        .when(settle_cmd(1, &[(2, Lost)]))
        .then_expect_events(vec![settled(1, &[(2, Lost)], BetStatus::Lost, dec!(0.00))]);
}

#[test]
fn a_repeat_of_the_same_or_an_older_result_version_changes_nothing() {
    let history = vec![
        placed(),
        settled(5, &[(1, Won), (2, Won)], BetStatus::Won, dec!(60)),
    ];
    for version in [5, 4] {
        BetTest::with(())
            .given(history.clone())
            .when(settle_cmd(version, &[(1, Won), (2, Lost)]))
            .then_expect_events(vec![]);
    }
}

#[test]
fn a_newer_version_with_the_same_outcomes_changes_nothing() {
    BetTest::with(())
        .given(vec![
            placed(),
            settled(5, &[(1, Won), (2, Won)], BetStatus::Won, dec!(60)),
        ])
        .when(settle_cmd(6, &[(1, Won), (2, Won), (3, Lost)]))
        .then_expect_events(vec![]);
}

#[test]
fn a_corrected_result_resettles_with_the_difference() {
    let won = settled(5, &[(1, Won), (2, Won)], BetStatus::Won, dec!(60.00));
    let correction = resettled(
        6,
        &[(1, Won), (2, Lost)],
        dec!(60.00),
        BetStatus::Lost,
        dec!(0.00),
    );
    assert_eq!(correction.amount_due(), dec!(-60));
    BetTest::with(())
        .given(vec![placed(), won.clone()])
        .when(settle_cmd(6, &[(1, Won), (2, Lost)]))
        .then_expect_events(vec![correction.clone()]);
    // And back again: the difference is always new minus what was paid.
    let back = resettled(
        7,
        &[(1, Won), (2, HalfWon)],
        dec!(0.00),
        BetStatus::Won,
        dec!(40.00),
    );
    assert_eq!(back.amount_due(), dec!(40));
    BetTest::with(())
        .given(vec![placed(), won, correction])
        .when(settle_cmd(7, &[(1, Won), (2, HalfWon)]))
        .then_expect_events(vec![back]);
}

#[test]
fn a_withdrawn_outcome_unsettles_the_bet_and_takes_the_payout_back() {
    let unsettled = resettled(
        6,
        &[(1, Won)],
        dec!(60.00),
        BetStatus::Unsettled,
        dec!(0.00),
    );
    assert_eq!(unsettled.amount_due(), dec!(-60));
    BetTest::with(())
        .given(vec![
            placed(),
            settled(5, &[(1, Won), (2, Won)], BetStatus::Won, dec!(60.00)),
        ])
        .when(settle_cmd(6, &[(1, Won)]))
        .then_expect_events(vec![unsettled]);
}

#[test]
fn the_paid_amount_follows_every_settlement() {
    let mut bet = Bet::default();
    for event in [
        placed(),
        settled(5, &[(1, Won), (2, Won)], BetStatus::Won, dec!(60)),
        resettled(
            6,
            &[(1, Won), (2, HalfLost)],
            dec!(60),
            BetStatus::Won,
            dec!(10),
        ),
    ] {
        bet.apply(event);
    }
    assert_eq!(bet.paid, dec!(10));
    assert_eq!(bet.status, BetStatus::Won);
    assert_eq!(bet.result_version, Some(6));
}

#[test]
fn a_bet_is_declined_only_before_any_settlement() {
    BetTest::with(())
        .given(vec![placed()])
        .when(decline())
        .then_expect_events(vec![declined()]);
    BetTest::with(())
        .given(vec![placed(), declined()])
        .when(decline())
        .then_expect_events(vec![]);
    BetTest::with(())
        .given(vec![
            placed(),
            settled(1, &[(2, Lost)], BetStatus::Lost, dec!(0)),
        ])
        .when(decline())
        .then_expect_error(BetError::AlreadySettled);
}

#[test]
fn a_declined_bet_is_neither_settled_nor_accepted() {
    BetTest::with(())
        .given(vec![placed(), declined()])
        .when(settle_cmd(1, &[(1, Won), (2, Won)]))
        .then_expect_error(BetError::NotOpen);
    BetTest::with(())
        .given(vec![placed(), declined()])
        .when(BetCommand::Accept { at_ms: AT })
        .then_expect_error(BetError::NotOnHold);
}

#[test]
fn commands_for_a_bet_never_placed_are_refused() {
    for command in [
        decline(),
        settle_cmd(1, &[(1, Won)]),
        BetCommand::Accept { at_ms: AT },
    ] {
        BetTest::with(())
            .given_no_previous_events()
            .when(command)
            .then_expect_error(BetError::NotPlaced);
    }
    assert_eq!(BetError::NotPlaced.code(), Code(1911));
    assert_eq!(BetError::AlreadySettled.code(), Code(1910));
    assert_eq!(Code(1911).message(), "Unknown bet");
}
