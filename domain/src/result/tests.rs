use cqrs_es::test::TestFramework;
use cqrs_es::Aggregate;
use rust_decimal::Decimal;
use rust_decimal_macros::dec;

use super::*;
use SelectionOutcome::*;

fn score(team1: u32, team2: u32) -> FinalScore {
    FinalScore {
        team1,
        team2,
        first_half: Some((0, 1)),
        corners: Some(9),
    }
}

#[test]
fn match_result_markets_pay_the_result() {
    assert_eq!(settle("P1XP2", "P1", None, &score(2, 1)), Some(Won));
    assert_eq!(settle("P1XP2", "X", None, &score(2, 1)), Some(Lost));
    assert_eq!(settle("P1XP2", "X", None, &score(1, 1)), Some(Won));
    assert_eq!(
        settle("FirstHalfP1XP2", "P2", None, &score(2, 1)),
        Some(Won)
    );
    assert_eq!(settle("P1P2", "P1", None, &score(1, 1)), Some(Returned));
    assert_eq!(settle("DoubleChance", "1X", None, &score(1, 1)), Some(Won));
    assert_eq!(settle("DoubleChance", "12", None, &score(1, 1)), Some(Lost));
}

#[test]
fn asian_handicap_quarter_lines_settle_in_halves() {
    // Home -0.25 (0 / -0.5): a draw loses half, a win wins all.
    assert_eq!(
        settle("AsianHandicap", "Home", Some(dec!(-0.25)), &score(1, 1)),
        Some(HalfLost)
    );
    assert_eq!(
        settle("AsianHandicap", "Home", Some(dec!(-0.25)), &score(2, 1)),
        Some(Won)
    );
    // Away +0.25 on a draw wins half.
    assert_eq!(
        settle("AsianHandicap", "Away", Some(dec!(0.25)), &score(1, 1)),
        Some(HalfWon)
    );
    // Home -1 on a one-goal win is a push; -0.75 wins half.
    assert_eq!(
        settle("AsianHandicap", "Home", Some(dec!(-1)), &score(2, 1)),
        Some(Returned)
    );
    assert_eq!(
        settle("AsianHandicap", "Home", Some(dec!(-0.75)), &score(2, 1)),
        Some(HalfWon)
    );
    assert_eq!(
        settle("AsianHandicap", "Home", Some(dec!(-1.5)), &score(2, 1)),
        Some(Lost)
    );
}

#[test]
fn totals_compare_with_the_line_and_quarter_lines_split() {
    assert_eq!(
        settle("OverUnder", "Over", Some(dec!(2.5)), &score(2, 1)),
        Some(Won)
    );
    assert_eq!(
        settle("OverUnder", "Under", Some(dec!(2.5)), &score(2, 1)),
        Some(Lost)
    );
    assert_eq!(
        settle("OverUnder", "Over", Some(dec!(3)), &score(2, 1)),
        Some(Returned)
    );
    // Total 3 against 2.75 (2.5 / 3): the 2.5 half wins Over, the 3 half pushes.
    assert_eq!(
        settle("AsianTotal", "Over", Some(dec!(2.75)), &score(2, 1)),
        Some(HalfWon)
    );
    assert_eq!(
        settle("AsianTotal", "Under", Some(dec!(2.75)), &score(2, 1)),
        Some(HalfLost)
    );
    assert_eq!(
        settle("AsianTotal", "Under", Some(dec!(2.25)), &score(2, 1)),
        Some(Lost)
    );
    assert_eq!(
        settle("CornerOverUnder", "Over", Some(dec!(8.5)), &score(0, 0)),
        Some(Won)
    );
}

#[test]
fn both_teams_to_score_needs_a_goal_each() {
    assert_eq!(
        settle("BothTeamsToScore", "Yes", None, &score(1, 1)),
        Some(Won)
    );
    assert_eq!(
        settle("BothTeamsToScore", "No", None, &score(1, 0)),
        Some(Won)
    );
}

#[test]
fn unknown_markets_and_missing_scores_do_not_settle() {
    assert_eq!(settle("CorrectScore", "1:0", None, &score(1, 0)), None);
    let no_half = FinalScore {
        first_half: None,
        ..score(1, 0)
    };
    assert_eq!(settle("FirstHalfP1XP2", "P1", None, &no_half), None);
}

fn selections(outcome: SelectionOutcome) -> Vec<SelectionResult> {
    vec![SelectionResult {
        event_id: 7,
        market_id: 3,
        outcome,
        sp_price: None,
    }]
}

#[test]
fn a_game_is_resulted_once() {
    let resulted = ResultEvent::GameResulted {
        game_id: 1,
        score: score(1, 0),
        selections: selections(Won),
        at_ms: 5,
    };
    TestFramework::<GameResult>::with(())
        .given(vec![resulted])
        .when(ResultCommand::Record {
            game_id: 1,
            score: score(1, 0),
            selections: selections(Won),
            at_ms: 6,
        })
        .then_expect_error(ResultError::AlreadyResulted);
}

#[test]
fn a_correction_must_change_something_and_needs_a_result() {
    let resulted = ResultEvent::GameResulted {
        game_id: 1,
        score: score(1, 0),
        selections: selections(Won),
        at_ms: 5,
    };
    TestFramework::<GameResult>::with(())
        .given(vec![resulted.clone()])
        .when(ResultCommand::Correct {
            score: score(1, 0),
            selections: selections(Won),
            at_ms: 6,
        })
        .then_expect_error(ResultError::NothingToCorrect);
    TestFramework::<GameResult>::with(())
        .given(vec![resulted])
        .when(ResultCommand::Correct {
            score: score(0, 1),
            selections: selections(Lost),
            at_ms: 6,
        })
        .then_expect_events(vec![ResultEvent::ResultCorrected {
            game_id: 1,
            score: score(0, 1),
            selections: selections(Lost),
            at_ms: 6,
        }]);
    TestFramework::<GameResult>::with(())
        .given_no_previous_events()
        .when(ResultCommand::Correct {
            score: score(0, 1),
            selections: selections(Lost),
            at_ms: 6,
        })
        .then_expect_error(ResultError::NotResulted);
}

#[test]
fn a_racing_result_carries_places_and_starting_prices_and_reads_without_them() {
    let old = r#"{"event_id": 7, "market_id": 3, "outcome": "won"}"#;
    let read: SelectionResult = serde_json::from_str(old).unwrap();
    assert_eq!(read, selections(Won)[0]);
    assert!(serde_json::to_value(&read)
        .unwrap()
        .get("sp_price")
        .is_none());
    let placed = SelectionResult {
        outcome: Placed,
        sp_price: Some(dec!(6.5)),
        ..read
    };
    let json = serde_json::to_value(&placed).unwrap();
    assert_eq!(json["outcome"], "placed");
    assert_eq!(json["sp_price"], "6.5");
    assert_eq!(
        serde_json::from_value::<SelectionResult>(json).unwrap(),
        placed
    );
}

#[test]
fn a_correction_of_a_starting_price_alone_is_a_correction() {
    let with_sp = |sp: Decimal| {
        vec![SelectionResult {
            sp_price: Some(sp),
            ..selections(Won)[0].clone()
        }]
    };
    let resulted = ResultEvent::GameResulted {
        game_id: 1,
        score: score(1, 0),
        selections: with_sp(dec!(4)),
        at_ms: 5,
    };
    let mut state = GameResult::default();
    state.apply(resulted.clone());
    assert_eq!(state.sp_prices, [(7, dec!(4))].into());
    TestFramework::<GameResult>::with(())
        .given(vec![resulted.clone()])
        .when(ResultCommand::Correct {
            score: score(1, 0),
            selections: with_sp(dec!(4)),
            at_ms: 6,
        })
        .then_expect_error(ResultError::NothingToCorrect);
    TestFramework::<GameResult>::with(())
        .given(vec![resulted])
        .when(ResultCommand::Correct {
            score: score(1, 0),
            selections: with_sp(dec!(4.5)),
            at_ms: 6,
        })
        .then_expect_events(vec![ResultEvent::ResultCorrected {
            game_id: 1,
            score: score(1, 0),
            selections: with_sp(dec!(4.5)),
            at_ms: 6,
        }]);
}

fn two(first: SelectionOutcome, second: SelectionOutcome) -> Vec<SelectionResult> {
    vec![
        SelectionResult {
            event_id: 7,
            market_id: 3,
            outcome: first,
            sp_price: None,
        },
        SelectionResult {
            event_id: 8,
            market_id: 4,
            outcome: second,
            sp_price: None,
        },
    ]
}

#[test]
fn a_voided_market_stays_returned_whatever_a_later_result_says() {
    let voided = ResultEvent::SelectionsVoided {
        game_id: 1,
        market_id: Some(3),
        selections: selections(Returned),
        at_ms: 5,
    };
    // The feed's result comes after the void: the market stays void.
    TestFramework::<GameResult>::with(())
        .given(vec![voided.clone()])
        .when(ResultCommand::Record {
            game_id: 1,
            score: score(1, 0),
            selections: two(Won, Lost),
            at_ms: 6,
        })
        .then_expect_events(vec![ResultEvent::GameResulted {
            game_id: 1,
            score: score(1, 0),
            selections: two(Returned, Lost),
            at_ms: 6,
        }]);
    // A void of the same market again changes nothing.
    TestFramework::<GameResult>::with(())
        .given(vec![voided])
        .when(ResultCommand::VoidSelections {
            game_id: 1,
            market_id: Some(3),
            selections: vec![(7, 3)],
            at_ms: 6,
        })
        .then_expect_events(vec![]);
}

#[test]
fn a_market_voided_after_the_result_returns_its_selections() {
    let resulted = ResultEvent::GameResulted {
        game_id: 1,
        score: score(1, 0),
        selections: two(Won, Lost),
        at_ms: 5,
    };
    TestFramework::<GameResult>::with(())
        .given(vec![resulted])
        .when(ResultCommand::VoidSelections {
            game_id: 1,
            market_id: Some(4),
            selections: vec![(8, 4)],
            at_ms: 6,
        })
        .then_expect_events(vec![ResultEvent::SelectionsVoided {
            game_id: 1,
            market_id: Some(4),
            selections: vec![SelectionResult {
                event_id: 8,
                market_id: 4,
                outcome: Returned,
                sp_price: None,
            }],
            at_ms: 6,
        }]);
}

#[test]
fn a_void_game_returns_every_selection_counts_as_its_result_and_can_be_corrected() {
    let resulted = ResultEvent::GameResulted {
        game_id: 1,
        score: score(1, 0),
        selections: two(Won, Lost),
        at_ms: 5,
    };
    // The selections of the earlier result are returned too.
    TestFramework::<GameResult>::with(())
        .given(vec![resulted])
        .when(ResultCommand::VoidGame {
            game_id: 1,
            selections: vec![(8, 4)],
            at_ms: 6,
        })
        .then_expect_events(vec![ResultEvent::GameVoided {
            game_id: 1,
            selections: two(Returned, Returned),
            at_ms: 6,
        }]);
    let void = ResultEvent::GameVoided {
        game_id: 1,
        selections: two(Returned, Returned),
        at_ms: 6,
    };
    TestFramework::<GameResult>::with(())
        .given(vec![void.clone()])
        .when(ResultCommand::Record {
            game_id: 1,
            score: score(1, 0),
            selections: two(Won, Lost),
            at_ms: 7,
        })
        .then_expect_error(ResultError::AlreadyResulted);
    TestFramework::<GameResult>::with(())
        .given(vec![void.clone()])
        .when(ResultCommand::VoidGame {
            game_id: 1,
            selections: vec![(7, 3)],
            at_ms: 7,
        })
        .then_expect_events(vec![]);
    TestFramework::<GameResult>::with(())
        .given(vec![void])
        .when(ResultCommand::Correct {
            score: score(0, 1),
            selections: two(Lost, Won),
            at_ms: 7,
        })
        .then_expect_events(vec![ResultEvent::ResultCorrected {
            game_id: 1,
            score: score(0, 1),
            selections: two(Lost, Won),
            at_ms: 7,
        }]);
}

#[test]
fn selections_voided_before_a_result_leave_the_game_open_for_its_result() {
    let mut game = GameResult::default();
    game.apply(ResultEvent::SelectionsVoided {
        game_id: 1,
        market_id: None,
        selections: selections(Returned),
        at_ms: 5,
    });
    assert!(!game.is_resulted());
    assert_eq!(game.outcomes.get(&7), Some(&Returned));
    assert_eq!(
        game.decide(ResultCommand::Correct {
            score: score(1, 0),
            selections: selections(Won),
            at_ms: 6,
        }),
        Err(ResultError::NotResulted)
    );
}
