//! Wallet rules, one test per rule, as given / when / then.

use cqrs_es::test::TestFramework;
use rust_decimal::Decimal;
use rust_decimal_macros::dec;

use super::*;
use crate::Currency;
use cqrs_es::Aggregate;

type WalletTest = TestFramework<Wallet>;

fn id() -> WalletId {
    WalletId::new("m1", Currency::Cny)
}

fn cmd(reference: &str, action: WalletAction) -> WalletCommand {
    WalletCommand::new(id(), reference, action)
}

fn opened() -> WalletEvent {
    WalletEvent::Opened {
        member_id: "m1".into(),
        currency: Currency::Cny,
    }
}

fn deposited(reference: &str, amount: Decimal) -> WalletEvent {
    WalletEvent::Credited {
        reference: reference.into(),
        pot: Pot::Main,
        amount,
        kind: MovementKind::Deposit,
    }
}

fn credit(amount: Decimal) -> WalletAction {
    WalletAction::Credit {
        amount,
        pot: Pot::Main,
        kind: MovementKind::Deposit,
    }
}

fn debit(amount: Decimal) -> WalletAction {
    WalletAction::Debit {
        amount,
        pot: Pot::Main,
        kind: MovementKind::Withdrawal,
    }
}

#[test]
fn the_first_command_opens_the_wallet_in_its_currency() {
    WalletTest::with(WalletServices::default())
        .given_no_previous_events()
        .when(cmd("t1", credit(dec!(10.00))))
        .then_expect_events(vec![opened(), deposited("t1", dec!(10.00))]);
}

#[test]
fn a_credit_adds_to_the_chosen_pot() {
    let command = cmd(
        "t2",
        WalletAction::Credit {
            amount: dec!(5),
            pot: Pot::Bonus,
            kind: MovementKind::Bonus,
        },
    );
    let reply = command.reply.clone();
    WalletTest::with(WalletServices::default())
        .given(vec![opened(), deposited("t1", dec!(10))])
        .when(command)
        .then_expect_events(vec![WalletEvent::Credited {
            reference: "t2".into(),
            pot: Pot::Bonus,
            amount: dec!(5.00),
            kind: MovementKind::Bonus,
        }]);
    let receipt = reply.take().unwrap().unwrap();
    assert_eq!(receipt.balances.main, dec!(10));
    assert_eq!(receipt.balances.bonus, dec!(5));
    assert!(!receipt.duplicate);
}

#[test]
fn a_debit_beyond_the_balance_is_rejected_with_2400() {
    let command = cmd("t2", debit(dec!(10.01)));
    let reply = command.reply.clone();
    WalletTest::with(WalletServices::default())
        .given(vec![opened(), deposited("t1", dec!(10))])
        .when(command)
        .then_expect_events(vec![WalletEvent::Rejected {
            reference: "t2".into(),
            code: 2400,
        }]);
    let error = reply.take().unwrap().unwrap_err();
    assert_eq!(error, WalletError::InsufficientBalance);
    assert_eq!(error.code().0, 2400);
    assert_eq!(error.code().message(), "Insufficient balance.");
}

#[test]
fn a_debit_of_the_whole_balance_is_accepted() {
    WalletTest::with(WalletServices::default())
        .given(vec![opened(), deposited("t1", dec!(10))])
        .when(cmd("t2", debit(dec!(10))))
        .then_expect_events(vec![WalletEvent::Debited {
            reference: "t2".into(),
            pot: Pot::Main,
            amount: dec!(10.00),
            kind: MovementKind::Withdrawal,
        }]);
}

#[test]
fn a_repeated_reference_moves_no_money_and_answers_the_first_outcome() {
    let command = cmd("t1", credit(dec!(99)));
    let reply = command.reply.clone();
    WalletTest::with(WalletServices::default())
        .given(vec![opened(), deposited("t1", dec!(10))])
        .when(command)
        .then_expect_events(vec![]);
    let receipt = reply.take().unwrap().unwrap();
    assert!(receipt.duplicate);
    assert_eq!(receipt.balances.main, dec!(10));
}

#[test]
fn a_repeated_rejected_reference_answers_the_same_refusal_even_after_a_deposit() {
    let command = cmd("t2", debit(dec!(50)));
    let reply = command.reply.clone();
    WalletTest::with(WalletServices::default())
        .given(vec![
            opened(),
            deposited("t1", dec!(10)),
            WalletEvent::Rejected {
                reference: "t2".into(),
                code: 2400,
            },
            deposited("t3", dec!(100)),
        ])
        .when(command)
        .then_expect_events(vec![]);
    assert_eq!(reply.take().unwrap(), Err(WalletError::InsufficientBalance));
}

#[test]
fn amounts_must_be_positive() {
    for amount in [dec!(0), dec!(-5)] {
        WalletTest::with(WalletServices::default())
            .given(vec![opened()])
            .when(cmd("t1", credit(amount)))
            .then_expect_error(WalletError::WrongAmount);
    }
}

#[test]
fn amounts_finer_than_the_currency_are_refused_not_rounded() {
    WalletTest::with(WalletServices::default())
        .given(vec![opened()])
        .when(cmd("t1", credit(dec!(1.005))))
        .then_expect_error(WalletError::WrongAmount);
}

#[test]
fn every_command_needs_a_reference() {
    WalletTest::with(WalletServices::default())
        .given(vec![opened()])
        .when(cmd("  ", credit(dec!(1))))
        .then_expect_error(WalletError::MissingReference);
}

#[test]
fn a_command_in_another_currency_is_refused() {
    let command = WalletCommand::new(WalletId::new("m1", Currency::Usd), "t1", credit(dec!(1)));
    WalletTest::with(WalletServices::default())
        .given(vec![opened()])
        .when(command)
        .then_expect_error(WalletError::CurrencyMismatch);
}

#[test]
fn reserving_a_stake_holds_it_out_of_the_pot() {
    WalletTest::with(WalletServices::default())
        .given(vec![opened(), deposited("t1", dec!(10))])
        .when(cmd(
            "bet-1",
            WalletAction::ReserveStake {
                amount: dec!(4),
                pot: Pot::Main,
            },
        ))
        .then_expect_events(vec![WalletEvent::StakeReserved {
            reference: "bet-1".into(),
            pot: Pot::Main,
            amount: dec!(4.00),
        }]);
}

#[test]
fn a_stake_beyond_the_balance_is_rejected_with_2400() {
    WalletTest::with(WalletServices::default())
        .given(vec![opened(), deposited("t1", dec!(3))])
        .when(cmd(
            "bet-1",
            WalletAction::ReserveStake {
                amount: dec!(4),
                pot: Pot::Main,
            },
        ))
        .then_expect_events(vec![WalletEvent::Rejected {
            reference: "bet-1".into(),
            code: 2400,
        }]);
}

fn reserve_and_take(amount: Decimal) -> WalletAction {
    WalletAction::ReserveAndTakeStake {
        amount,
        pot: Pot::Main,
        take: "bet-1:take".into(),
    }
}

fn reserved_and_taken() -> WalletEvent {
    WalletEvent::StakeReservedAndTaken {
        reference: "bet-1".into(),
        taken_as: "bet-1:take".into(),
        pot: Pot::Main,
        amount: dec!(4.00),
    }
}

#[test]
fn a_stake_held_and_taken_at_once_is_one_event() {
    WalletTest::with(WalletServices::default())
        .given(vec![opened(), deposited("t1", dec!(10))])
        .when(cmd("bet-1", reserve_and_take(dec!(4))))
        .then_expect_events(vec![reserved_and_taken()]);
}

#[test]
fn a_stake_held_and_taken_at_once_leaves_the_pot_and_holds_nothing() {
    let mut wallet = Wallet::default();
    for event in [opened(), deposited("t1", dec!(10)), reserved_and_taken()] {
        wallet.apply(event);
    }
    // The same money as a reservation then its take.
    let mut two_steps = Wallet::default();
    for event in [
        opened(),
        deposited("t1", dec!(10)),
        WalletEvent::StakeReserved {
            reference: "bet-1".into(),
            pot: Pot::Main,
            amount: dec!(4.00),
        },
        WalletEvent::StakeTaken {
            reference: "bet-1:take".into(),
            reservation: "bet-1".into(),
            amount: dec!(4.00),
        },
    ] {
        two_steps.apply(event);
    }
    assert_eq!(wallet.ledger, two_steps.ledger);
    assert_eq!(wallet.balances().main, dec!(6));
    assert_eq!(wallet.ledger.reserved, dec!(0));
    assert!(wallet.reservations.is_empty());
    // Both references are used.
    assert_eq!(wallet.remembered("bet-1"), Some(Outcome::Accepted));
    assert_eq!(wallet.remembered("bet-1:take"), Some(Outcome::Accepted));
}

#[test]
fn a_stake_held_and_taken_at_once_beyond_the_balance_is_rejected_with_2400() {
    WalletTest::with(WalletServices::default())
        .given(vec![opened(), deposited("t1", dec!(3))])
        .when(cmd("bet-1", reserve_and_take(dec!(4))))
        .then_expect_events(vec![WalletEvent::Rejected {
            reference: "bet-1".into(),
            code: 2400,
        }]);
}

#[test]
fn a_held_and_taken_stake_is_not_taken_again_under_either_reference() {
    let staked = || {
        WalletTest::with(WalletServices::default()).given(vec![
            opened(),
            deposited("t1", dec!(10)),
            reserved_and_taken(),
        ])
    };
    // The held reference used before (a free bet staked once).
    staked()
        .when(cmd("bet-1", reserve_and_take(dec!(4))))
        .then_expect_events(vec![]);
    // The take made before under its own reference.
    staked()
        .when(cmd("bet-2", reserve_and_take(dec!(4))))
        .then_expect_events(vec![]);
    // Taking the held stake again: there is no reservation left.
    staked()
        .when(cmd(
            "bet-1:take-again",
            WalletAction::TakeStake {
                reservation: "bet-1".into(),
            },
        ))
        .then_expect_events(vec![WalletEvent::Rejected {
            reference: "bet-1:take-again".into(),
            code: WalletError::UnknownReservation.code().0,
        }]);
}

#[test]
fn a_held_and_taken_stake_needs_a_take_reference_of_its_own() {
    for take in ["", "  ", "bet-1"] {
        WalletTest::with(WalletServices::default())
            .given(vec![opened(), deposited("t1", dec!(10))])
            .when(cmd(
                "bet-1",
                WalletAction::ReserveAndTakeStake {
                    amount: dec!(4),
                    pot: Pot::Main,
                    take: take.into(),
                },
            ))
            .then_expect_error(WalletError::MissingReference);
    }
}

fn reserved() -> WalletEvent {
    WalletEvent::StakeReserved {
        reference: "bet-1".into(),
        pot: Pot::Bonus,
        amount: dec!(4),
    }
}

#[test]
fn releasing_a_stake_returns_it_to_its_pot() {
    WalletTest::with(WalletServices::default())
        .given(vec![opened(), reserved()])
        .when(cmd(
            "bet-1:release",
            WalletAction::ReleaseStake {
                reservation: "bet-1".into(),
            },
        ))
        .then_expect_events(vec![WalletEvent::StakeReleased {
            reference: "bet-1:release".into(),
            reservation: "bet-1".into(),
            pot: Pot::Bonus,
            amount: dec!(4),
        }]);
}

#[test]
fn taking_a_stake_removes_it_from_the_wallet() {
    WalletTest::with(WalletServices::default())
        .given(vec![opened(), reserved()])
        .when(cmd(
            "bet-1:take",
            WalletAction::TakeStake {
                reservation: "bet-1".into(),
            },
        ))
        .then_expect_events(vec![WalletEvent::StakeTaken {
            reference: "bet-1:take".into(),
            reservation: "bet-1".into(),
            amount: dec!(4),
        }]);
}

#[test]
fn a_stake_can_be_taken_only_once() {
    let taken = WalletEvent::StakeTaken {
        reference: "bet-1:take".into(),
        reservation: "bet-1".into(),
        amount: dec!(4),
    };
    WalletTest::with(WalletServices::default())
        .given(vec![opened(), reserved(), taken])
        .when(cmd(
            "bet-1:take-again",
            WalletAction::TakeStake {
                reservation: "bet-1".into(),
            },
        ))
        .then_expect_events(vec![WalletEvent::Rejected {
            reference: "bet-1:take-again".into(),
            code: 2401,
        }]);
}

#[test]
fn a_payout_credits_the_chosen_pot() {
    WalletTest::with(WalletServices::default())
        .given(vec![opened()])
        .when(cmd(
            "bet-1:payout",
            WalletAction::PayOut {
                amount: dec!(7.50),
                pot: Pot::BonusWin,
            },
        ))
        .then_expect_events(vec![WalletEvent::PaidOut {
            reference: "bet-1:payout".into(),
            pot: Pot::BonusWin,
            amount: dec!(7.50),
        }]);
}

#[test]
fn freezing_moves_main_to_frozen_and_is_limited_by_main() {
    WalletTest::with(WalletServices::default())
        .given(vec![opened(), deposited("t1", dec!(10))])
        .when(cmd("f1", WalletAction::Freeze { amount: dec!(11) }))
        .then_expect_events(vec![WalletEvent::Rejected {
            reference: "f1".into(),
            code: 2400,
        }]);
    WalletTest::with(WalletServices::default())
        .given(vec![opened(), deposited("t1", dec!(10))])
        .when(cmd("f1", WalletAction::Freeze { amount: dec!(6) }))
        .then_expect_events(vec![WalletEvent::Frozen {
            reference: "f1".into(),
            amount: dec!(6.00),
        }]);
}

#[test]
fn unfreezing_is_limited_by_the_frozen_balance() {
    let frozen = WalletEvent::Frozen {
        reference: "f1".into(),
        amount: dec!(6),
    };
    WalletTest::with(WalletServices::default())
        .given(vec![opened(), deposited("t1", dec!(10)), frozen.clone()])
        .when(cmd("u1", WalletAction::Unfreeze { amount: dec!(7) }))
        .then_expect_events(vec![WalletEvent::Rejected {
            reference: "u1".into(),
            code: 2400,
        }]);
    WalletTest::with(WalletServices::default())
        .given(vec![opened(), deposited("t1", dec!(10)), frozen])
        .when(cmd("u1", WalletAction::Unfreeze { amount: dec!(6) }))
        .then_expect_events(vec![WalletEvent::Unfrozen {
            reference: "u1".into(),
            amount: dec!(6.00),
        }]);
}

#[test]
fn the_ledger_total_is_conserved_by_internal_moves() {
    let mut wallet = Wallet::default();
    for event in [
        opened(),
        deposited("t1", dec!(10)),
        WalletEvent::Frozen {
            reference: "f".into(),
            amount: dec!(3),
        },
        WalletEvent::StakeReserved {
            reference: "b".into(),
            pot: Pot::Main,
            amount: dec!(2),
        },
    ] {
        cqrs_es::Aggregate::apply(&mut wallet, event);
    }
    assert_eq!(wallet.ledger.total(), dec!(10));
    assert_eq!(wallet.balances().main, dec!(5));
    assert_eq!(wallet.reservations.len(), 1);
}

#[test]
fn a_wallet_round_trips_through_its_snapshot_form() {
    let mut wallet = Wallet::default();
    for i in 0..50 {
        cqrs_es::Aggregate::apply(&mut wallet, deposited(&format!("t{i}"), dec!(1.25)));
    }
    let json = serde_json::to_value(&wallet).unwrap();
    let back: Wallet = serde_json::from_value(json).unwrap();
    assert_eq!(back, wallet);
}

#[test]
fn wallet_ids_read_member_and_currency() {
    let id: WalletId = "member:7:THB".parse().unwrap();
    assert_eq!(id, WalletId::new("member:7", Currency::Thb));
    assert_eq!(id.to_string(), "member:7:THB");
    assert!("nope".parse::<WalletId>().is_err());
}

#[test]
fn a_voided_reference_is_recorded_as_refused_and_never_moves_money_later() {
    WalletTest::with(WalletServices::default())
        .given(vec![opened(), deposited("t1", dec!(10))])
        .when(cmd("transfer:T1:out", WalletAction::Void))
        .then_expect_events(vec![WalletEvent::Rejected {
            reference: "transfer:T1:out".into(),
            code: crate::errors::Code::REFERENCE_VOIDED.0,
        }]);
    // The debit that was in flight commits afterwards: nothing moves.
    let voided = WalletEvent::Rejected {
        reference: "transfer:T1:out".into(),
        code: crate::errors::Code::REFERENCE_VOIDED.0,
    };
    WalletTest::with(WalletServices::default())
        .given(vec![opened(), deposited("t1", dec!(10)), voided])
        .when(cmd("transfer:T1:out", debit(dec!(5))))
        .then_expect_events(vec![]);
    // A reference already used is not voided: the repeat answers it.
    WalletTest::with(WalletServices::default())
        .given(vec![opened(), deposited("t1", dec!(10))])
        .when(cmd("t1", WalletAction::Void))
        .then_expect_events(vec![]);
    assert_eq!(WalletError::from_code(2405), Some(WalletError::Voided));
}

/// A book that knows one reference (and counts the look-ups).
struct OneReference {
    reference: &'static str,
    outcome: Outcome,
    asked: std::sync::atomic::AtomicUsize,
}

impl ReferenceBook for OneReference {
    fn outcome<'a>(&'a self, wallet_id: &'a str, reference: &'a str) -> BookAnswer<'a> {
        self.asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let known = wallet_id == "m1:CNY" && reference == self.reference;
        let outcome = self.outcome;
        Box::pin(async move { Ok(known.then_some(outcome)) })
    }
}

fn book(reference: &'static str, outcome: Outcome) -> std::sync::Arc<OneReference> {
    std::sync::Arc::new(OneReference {
        reference,
        outcome,
        asked: Default::default(),
    })
}

/// The wallet after `n` deposits of 1.00 (`d0`, `d1`, ...), the first
/// refused as `code` when given.
fn long_history(n: usize, first_refused: Option<i32>) -> Vec<WalletEvent> {
    let mut events = vec![opened()];
    for i in 0..n {
        events.push(match (i, first_refused) {
            (0, Some(code)) => WalletEvent::Rejected {
                reference: "d0".into(),
                code,
            },
            _ => deposited(&format!("d{i}"), dec!(1)),
        });
    }
    events
}

/// The wallet as a snapshot keeps it (without the generation it dropped
/// last in memory).
fn stored(wallet: Wallet) -> Wallet {
    serde_json::from_str(&serde_json::to_string(&wallet).unwrap()).unwrap()
}

fn folded(events: Vec<WalletEvent>) -> Wallet {
    let mut wallet = Wallet::default();
    for event in events {
        cqrs_es::Aggregate::apply(&mut wallet, event);
    }
    wallet
}

const G: usize = REFERENCE_GENERATION as usize;

#[test]
fn a_wallet_remembers_two_generations_of_references_and_knows_when_it_forgot_some() {
    // Opened is event 1, deposit `d{i}` event i + 2.
    let young = folded(long_history(2 * G - 1, None));
    assert!(
        !young.forgot_refs(),
        "two generations hold every reference so far"
    );
    assert_eq!(young.references_held(), 2 * G - 1);
    assert!(young.remembered("d0").is_some());
    let old = stored(folded(long_history(5 * G + 7, None)));
    assert_eq!(old.applied, (5 * G + 8) as u64);
    assert!(old.forgot_refs());
    // Generation 5 (events 5G+1 ..) and generation 4 in full.
    assert_eq!(old.references_held(), G + 8);
    assert_eq!(old.remembered("d0"), None);
    assert_eq!(old.remembered(&format!("d{}", 4 * G - 2)), None);
    assert!(old.remembered(&format!("d{}", 4 * G - 1)).is_some());
    assert_eq!(
        old.remembered(&format!("d{}", 5 * G + 6)),
        Some(Outcome::Accepted)
    );
    assert!(old.must_look_up("d0"));
    assert!(!old.must_look_up(&format!("d{}", 5 * G + 6)));
    assert!(
        !young.must_look_up("never-used"),
        "nothing forgotten: nothing to look up"
    );
    // Its snapshot holds the remembered references only, and reads back.
    let snapshot = serde_json::to_string(&old).unwrap();
    assert!(snapshot.len() < 2 * G * 40, "{} bytes", snapshot.len());
    let back: Wallet = serde_json::from_str(&snapshot).unwrap();
    assert_eq!(back, old);
}

#[test]
fn every_reference_a_wallet_forgot_was_archived_by_an_event_it_applied() {
    let events = long_history(4 * G + 3, Some(2400));
    let references: Vec<(u64, String)> = events
        .iter()
        .zip(1u64..)
        .filter_map(|(e, seq)| e.reference().map(|r| (seq, r.to_string())))
        .collect();
    let wallet = stored(folded(events));
    let archived: Vec<(u64, u64)> = (1..=wallet.applied).filter_map(archived_by).collect();
    let g = G as u64;
    assert_eq!(archived, vec![(1, g), (g + 1, 2 * g), (2 * g + 1, 3 * g)]);
    for (seq, reference) in references {
        let in_book = archived
            .iter()
            .any(|(from, to)| (*from..=*to).contains(&seq));
        assert!(
            in_book != wallet.remembered(&reference).is_some(),
            "event {seq} ({reference}): either remembered or archived, not both"
        );
    }
}

#[test]
fn an_old_snapshot_that_held_every_reference_is_not_read() {
    let old_shape = r#"{"member_id":"m1","currency":"CNY","ledger":{"balances":{"main":"1","bonus":"0","bonus_win":"0","frozen":"0"},"reserved":"0"},"reservations":{},"refs":{"t1":"Accepted"}}"#;
    assert!(serde_json::from_str::<Wallet>(old_shape).is_err());
}

#[test]
fn a_repeat_of_a_forgotten_reference_answers_its_first_outcome_from_the_book_and_moves_nothing() {
    let history = long_history(3 * G, None);
    let book = book("d0", Outcome::Accepted);
    let command = cmd("d0", credit(dec!(1)));
    let reply = command.reply.clone();
    WalletTest::with(WalletServices::with_book(book.clone()))
        .given(history)
        .when(command)
        .then_expect_events(vec![]);
    let receipt = reply.take().unwrap().unwrap();
    assert!(receipt.duplicate);
    assert_eq!(receipt.balances.main, Decimal::from(3 * G));
    assert_eq!(book.asked.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[test]
fn a_repeat_of_a_forgotten_refused_reference_is_refused_again_from_the_book() {
    let history = long_history(3 * G, Some(2400));
    let command = cmd("d0", credit(dec!(1)));
    let reply = command.reply.clone();
    WalletTest::with(WalletServices::with_book(book(
        "d0",
        Outcome::Rejected(2400),
    )))
    .given(history)
    .when(command)
    .then_expect_events(vec![]);
    assert_eq!(reply.take(), Some(Err(WalletError::InsufficientBalance)));
}

#[test]
fn a_new_reference_on_a_wallet_that_forgot_some_is_looked_up_then_moves_money() {
    let book = book("d0", Outcome::Accepted);
    WalletTest::with(WalletServices::with_book(book.clone()))
        .given(long_history(3 * G, None))
        .when(cmd("fresh", credit(dec!(2))))
        .then_expect_events(vec![deposited("fresh", dec!(2))]);
    assert_eq!(book.asked.load(std::sync::atomic::Ordering::SeqCst), 1);
    // A reference it remembers needs no look-up.
    let book = self::book("d0", Outcome::Accepted);
    let last = format!("d{}", 3 * G - 1);
    WalletTest::with(WalletServices::with_book(book.clone()))
        .given(long_history(3 * G, None))
        .when(cmd(&last, credit(dec!(2))))
        .then_expect_events(vec![]);
    assert_eq!(book.asked.load(std::sync::atomic::Ordering::SeqCst), 0);
}

#[test]
fn without_its_book_a_wallet_that_forgot_references_refuses_one_it_does_not_remember() {
    let command = cmd("fresh", credit(dec!(2)));
    let reply = command.reply.clone();
    WalletTest::with(WalletServices::default())
        .given(long_history(3 * G, None))
        .when(command)
        .then_expect_error(WalletError::Unavailable(
            "the wallet has no reference book".into(),
        ));
    assert!(matches!(
        reply.take(),
        Some(Err(WalletError::Unavailable(_)))
    ));
}

/// The shape the archive's SQL reads (`commands::store::archive_sql`, the
/// migration's backfill): `{"<Variant>": {"reference": .., ..}}`, a
/// refusal with its `code`, no reference on `Opened`.
#[test]
fn a_stored_wallet_event_names_its_reference_and_outcome() {
    let body = |event: &WalletEvent| {
        let value = serde_json::to_value(event).unwrap();
        let object = value.as_object().unwrap().clone();
        assert_eq!(object.len(), 1, "one variant key");
        object.into_iter().next().unwrap().1
    };
    let credited = body(&deposited("t1", dec!(1)));
    assert_eq!(credited["reference"], "t1");
    assert!(credited.get("code").is_none());
    let rejected = body(&WalletEvent::Rejected {
        reference: "t2".into(),
        code: 2400,
    });
    assert_eq!(rejected["reference"], "t2");
    assert_eq!(rejected["code"], 2400);
    assert!(body(&opened()).get("reference").is_none());
}

#[test]
fn a_later_command_of_the_transaction_that_drops_a_generation_still_knows_its_references() {
    // 4,000 events: the next one drops generation 0 (events 1 ..= G),
    // which its own append archives: until that append commits, the book
    // does not hold it, so the wallet must.
    let mut wallet = folded(long_history(2 * G - 1, None));
    assert!(!wallet.forgot_refs());
    let first = cmd("new-one", credit(dec!(1)));
    let events = wallet.decide(&first).unwrap();
    for event in events {
        cqrs_es::Aggregate::apply(&mut wallet, event);
    }
    assert!(wallet.forgot_refs());
    assert!(
        !wallet.must_look_up("d10"),
        "dropped in this transaction: still in memory"
    );
    assert_eq!(wallet.decide(&cmd("d10", credit(dec!(1)))).unwrap(), vec![]);
    // Not in what a snapshot keeps, and not what makes states differ.
    assert!(!serde_json::to_string(&wallet).unwrap().contains("\"d10\""));
    let replayed: Wallet = serde_json::from_str(&serde_json::to_string(&wallet).unwrap()).unwrap();
    assert_eq!(replayed, wallet);
    assert!(
        replayed.must_look_up("d10"),
        "a wallet loaded from its snapshot asks the book"
    );
}
