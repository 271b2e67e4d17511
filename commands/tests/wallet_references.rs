//! A wallet remembers only the references of its last two generations of
//! events; the store's reference book (`wallet_references`, filled in the
//! transaction that makes the wallet forget a generation) answers the older
//! ones, so a repeat still moves nothing however long the wallet's history,
//! in this process or another, on both stores.

use std::collections::HashMap;

use commands::WalletService;
use cqrs_es::EventEnvelope;
use domain::wallet::{
    MovementKind, Pot, Receipt, Wallet, WalletAction, WalletCommand, WalletError, WalletEvent,
    WalletId, REFERENCE_GENERATION,
};
use domain::Currency;
use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use sqlx::Row;
use store::db::testing;
use store::events::EventRow;
use store::events::{append_rows_alone, Claim};
use store::unit::{Failed, UnitError};
use store::{CommandError, CommandMetrics, Db, RetryPolicy, StoreKind, StoreOptions, UnitOfWork};

store::on_both_stores!(
    a_repeat_of_a_reference_the_wallet_forgot_answers_its_first_outcome_and_moves_nothing,
    the_append_that_starts_a_generation_archives_the_forgotten_one_in_its_transaction,
    a_long_history_wallets_snapshot_holds_two_generations_not_its_history,
    a_transaction_that_drops_a_generation_still_refuses_its_references_in_later_moves,
    a_book_that_cannot_be_read_is_a_store_failure_not_a_refusal,
    a_stake_held_and_taken_at_once_is_in_the_book_under_both_references,
);

const G: usize = REFERENCE_GENERATION as usize;

fn wallet() -> WalletId {
    WalletId::new("long", Currency::Cny)
}

fn credit(amount: Decimal) -> WalletAction {
    WalletAction::Credit {
        amount,
        pot: Pot::Main,
        kind: MovementKind::Deposit,
    }
}

fn service(db: &Db) -> WalletService {
    WalletService::new(
        db,
        StoreOptions::default(),
        RetryPolicy::default(),
        CommandMetrics::default(),
    )
}

fn row(sequence: usize, event: WalletEvent) -> EventRow {
    let envelope = EventEnvelope::<Wallet> {
        aggregate_id: wallet().to_string(),
        sequence,
        payload: event,
        metadata: HashMap::new(),
    };
    EventRow::try_from(&envelope).unwrap()
}

/// `n` deposits of 1.00 (`d0`, `d1`, ...; `d1` refused with 2400) appended
/// through the store's own append, a few thousand rows a statement.
async fn long_history(db: &Db, n: usize) {
    let mut rows = vec![row(
        1,
        WalletEvent::Opened {
            member_id: "long".into(),
            currency: Currency::Cny,
        },
    )];
    for i in 0..n {
        let event = match i {
            1 => WalletEvent::Rejected {
                reference: "d1".into(),
                code: 2400,
            },
            _ => WalletEvent::Credited {
                reference: format!("d{i}"),
                pot: Pot::Main,
                amount: dec!(1),
                kind: MovementKind::Deposit,
            },
        };
        rows.push(row(i + 2, event));
    }
    for chunk in rows.chunks(3_000) {
        append_rows_alone(&db.pool, chunk, None, &[]).await.unwrap();
    }
}

async fn event_count(db: &Db) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM events WHERE aggregate_type = 'Wallet'")
        .fetch_one(&db.any)
        .await
        .unwrap()
}

async fn a_repeat_of_a_reference_the_wallet_forgot_answers_its_first_outcome_and_moves_nothing(
    kind: StoreKind,
) {
    let db = testing::fresh(kind).await;
    let n = 3 * G;
    long_history(&db, n).await;
    let balance = Decimal::from(n - 1);
    let wallets = service(&db);
    let loaded = wallets.load(&wallet()).await.unwrap();
    assert!(
        loaded.forgot_refs(),
        "the wallet no longer remembers its first references"
    );
    assert!(loaded.references_held() <= 2 * G);
    assert_eq!(loaded.remembered("d0"), None);
    let events = event_count(&db).await;

    // A repeat of an accepted reference: the first outcome, no money.
    let repeat = wallets
        .execute(WalletCommand::new(wallet(), "d0", credit(dec!(5))))
        .await
        .unwrap();
    assert!(repeat.duplicate);
    assert_eq!(repeat.balances.main, balance);
    // A repeat of a refused one: the same refusal, even though it would
    // pass now.
    let refused = wallets
        .execute(WalletCommand::new(wallet(), "d1", credit(dec!(5))))
        .await;
    assert!(matches!(
        refused,
        Err(CommandError::Rejected(WalletError::InsufficientBalance))
    ));
    assert_eq!(event_count(&db).await, events, "nothing was recorded");

    // Another process (its own cache, its own book reader) and a fresh
    // load in this one answer the same.
    for other in [service(&db), wallets] {
        other.clear_cache();
        let again = other
            .execute(WalletCommand::new(wallet(), "d0", credit(dec!(5))))
            .await
            .unwrap();
        assert!(again.duplicate);
        assert_eq!(again.balances.main, balance);
        assert_eq!(
            other.reference_outcome(&wallet(), "d0").await.unwrap(),
            Some(domain::wallet::Outcome::Accepted)
        );
        assert_eq!(
            other.reference_outcome(&wallet(), "never").await.unwrap(),
            None
        );
    }

    // A new reference moves money once, also when two processes race it.
    let a = service(&db);
    let b = service(&db);
    let command = || WalletCommand::new(wallet(), "fresh", credit(dec!(2)));
    let (first, second) = tokio::join!(a.execute(command()), b.execute(command()));
    let (first, second) = (first.unwrap(), second.unwrap());
    assert_eq!(
        [first.duplicate, second.duplicate]
            .iter()
            .filter(|d| !**d)
            .count(),
        1,
        "exactly one of the two moved money"
    );
    let now = a.load(&wallet()).await.unwrap();
    assert_eq!(now.balances().main, balance + dec!(2));
    assert_eq!(event_count(&db).await, events + 1);
    // Replayed from every event, the wallet is what the store loads.
    assert_eq!(a.replay(&wallet()).await.unwrap(), now);
}

async fn book(db: &Db) -> HashMap<String, i32> {
    sqlx::query("SELECT reference, outcome FROM wallet_references")
        .fetch_all(&db.any)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get("reference"), r.get("outcome")))
        .collect()
}

fn deposit(sequence: usize, reference: &str) -> EventRow {
    row(
        sequence,
        WalletEvent::Credited {
            reference: reference.into(),
            pot: Pot::Main,
            amount: dec!(1),
            kind: MovementKind::Deposit,
        },
    )
}

async fn the_append_that_starts_a_generation_archives_the_forgotten_one_in_its_transaction(
    kind: StoreKind,
) {
    let db = testing::fresh(kind).await;
    // Events 1 ..= 2G: the wallet remembers every reference; none is in
    // the book.
    long_history(&db, 2 * G - 1).await;
    assert!(book(&db).await.is_empty());

    // Event 2G + 1 starts generation 2 and makes the wallet forget
    // generation 0 (events 1 ..= G). Appended with a request id claimed
    // before, it writes nothing: no event, no archive.
    let claim = Claim {
        scope: "test".into(),
        request_id: "r1".into(),
        answer: "first".into(),
    };
    append_rows_alone(&db.pool, &[], Some(&claim), &[])
        .await
        .unwrap();
    let next = 2 * G + 1;
    let outcome = db
        .group
        .append(vec![deposit(next, "lost")], Some(claim))
        .await
        .unwrap();
    assert_eq!(outcome, store::events::Appended::Claimed);
    assert!(book(&db).await.is_empty());

    // Through the service (the group commit, with other wallets' commands
    // in the same groups): the command's append copies generation 0's
    // references, with their outcomes, and no other.
    let wallets = service(&db);
    let others = (0..8).map(|i| {
        wallets.execute(WalletCommand::new(
            WalletId::new(format!("other{i}"), Currency::Cny),
            format!("o{i}"),
            credit(dec!(1)),
        ))
    });
    let (mine, others) = tokio::join!(
        wallets.execute(WalletCommand::new(
            wallet(),
            "starts-gen-2",
            credit(dec!(1))
        )),
        futures::future::join_all(others)
    );
    mine.unwrap();
    assert!(others.iter().all(|o| o.is_ok()));
    let archived = book(&db).await;
    // Event 2 is `d0` .. event G is `d{G-2}`; `d1` was refused.
    assert_eq!(archived.len(), G - 1);
    assert_eq!(archived.get("d0"), Some(&0));
    assert_eq!(archived.get("d1"), Some(&2400));
    assert_eq!(archived.get(&format!("d{}", G - 2)), Some(&0));
    assert_eq!(archived.get(&format!("d{}", G - 1)), None);
    assert_eq!(archived.get("starts-gen-2"), None);
    // Loaded afresh (this process's cache still holds the generation it
    // dropped last), the wallet asks the book.
    wallets.clear_cache();
    let loaded = wallets.load(&wallet()).await.unwrap();
    assert!(loaded.forgot_refs());
    assert_eq!(loaded.remembered("d0"), None);
    let again = wallets
        .execute(WalletCommand::new(wallet(), "d0", credit(dec!(1))))
        .await
        .unwrap();
    assert!(
        again.duplicate,
        "a forgotten reference is answered from the book"
    );

    // A lone append (SQLite's group of one, a regrouped append) archives
    // the same way: event 3G + 1 forgets generation 1.
    let mut rows = Vec::new();
    for seq in next + 1..=3 * G {
        rows.push(deposit(seq, &format!("g2-{seq}")));
    }
    append_rows_alone(&db.pool, &rows, None, &[]).await.unwrap();
    append_rows_alone(&db.pool, &[deposit(3 * G + 1, "starts-gen-3")], None, &[])
        .await
        .unwrap();
    let archived = book(&db).await;
    assert_eq!(archived.len(), 2 * G - 1);
    assert_eq!(archived.get(&format!("d{}", G - 1)), Some(&0));
    assert_eq!(archived.get(&format!("d{}", 2 * G - 2)), Some(&0));
    assert_eq!(archived.get("starts-gen-2"), None);
}

async fn a_long_history_wallets_snapshot_holds_two_generations_not_its_history(kind: StoreKind) {
    let db = testing::fresh(kind).await;
    // 20,000 references: every one of them in each snapshot before.
    let n = 10 * G;
    long_history(&db, n).await;
    let wallets = service(&db);
    wallets
        .execute(WalletCommand::new(wallet(), "after", credit(dec!(1))))
        .await
        .unwrap();
    let size: i64 = sqlx::query_scalar(
        "SELECT length(CAST(payload AS TEXT)) FROM snapshots WHERE aggregate_type = 'Wallet' AND aggregate_id = $1",
    )
    .bind(wallet().to_string())
    .fetch_one(&db.any)
    .await
    .unwrap();
    // Generation 10 (events 20,001 ..= 20,002) and generation 9 (18,001
    // ..= 20,000): about 2,000 of the history's 20,001 references (40 KB
    // here; the whole history, as before, ten times as much).
    assert!(size < 2 * G as i64 * 50, "snapshot of {size} bytes");
    let loaded = wallets.load(&wallet()).await.unwrap();
    assert!(loaded.references_held() <= 2 * G);
    assert!(loaded.remembered(&format!("d{}", n - 1)).is_some());
    assert_eq!(loaded.remembered("d5"), None);
    println!(
        "snapshot after {n} references: {size} bytes, {} references held",
        loaded.references_held()
    );
}

async fn a_transaction_that_drops_a_generation_still_refuses_its_references_in_later_moves(
    kind: StoreKind,
) {
    let db = testing::fresh(kind).await;
    // Events 1 ..= 2G: the next event drops generation 0, which only its
    // own append puts in the book.
    long_history(&db, 2 * G - 1).await;
    let wallets = service(&db);
    let before = event_count(&db).await;
    // One unit of work: a new credit (its event drops generation 0), then
    // a repeat of d10, which is in the dropped generation.
    let uow = UnitOfWork::new(RetryPolicy::default());
    let repeat: Result<Receipt, UnitError<WalletError>> = store::unit_of_work!(uow, |unit| {
        wallets
            .move_in(unit, &wallet(), "new-one".into(), credit(dec!(1)))
            .await?
            .map_err(Failed::Refused)?;
        let repeat = wallets
            .move_in(unit, &wallet(), "d10".into(), credit(dec!(1)))
            .await?
            .map_err(Failed::Refused)?;
        Ok(repeat)
    });
    assert_eq!(
        event_count(&db).await - before,
        1,
        "d10 (event 12) moves nothing again"
    );
    assert!(repeat.unwrap().duplicate);
    let now = wallets.load(&wallet()).await.unwrap();
    assert_eq!(now.balances().main, Decimal::from(2 * G - 2) + dec!(1));
}

async fn a_book_that_cannot_be_read_is_a_store_failure_not_a_refusal(kind: StoreKind) {
    let db = testing::fresh(kind).await;
    long_history(&db, 3 * G).await;
    let wallets = service(&db);
    let events = event_count(&db).await;
    sqlx::query("ALTER TABLE wallet_references RENAME TO wallet_references_away")
        .execute(&db.any)
        .await
        .unwrap();
    // A void (the transfer sweeper's fence) must not read as "refused":
    // nothing was decided, and nothing recorded.
    let fence = || {
        wallets.execute(WalletCommand::new(
            wallet(),
            "transfer:t1:out",
            WalletAction::Void,
        ))
    };
    let void = fence().await;
    assert!(matches!(void, Err(CommandError::Store(_))), "{void:?}");
    assert_eq!(event_count(&db).await, events);
    sqlx::query("ALTER TABLE wallet_references_away RENAME TO wallet_references")
        .execute(&db.any)
        .await
        .unwrap();
    let void = fence().await;
    assert!(
        matches!(void, Err(CommandError::Rejected(WalletError::Voided))),
        "{void:?}"
    );
    assert_eq!(event_count(&db).await, events + 1);
}

/// A stake held and taken at once (`StakeReservedAndTaken`) uses two
/// references; once its generation is forgotten the book answers both, so
/// neither can move the stake again (through the group commit's archive on
/// Postgres, the store's archive statement on SQLite).
async fn a_stake_held_and_taken_at_once_is_in_the_book_under_both_references(kind: StoreKind) {
    let db = testing::fresh(kind).await;
    // Events 1 ..= 2G, the stake among generation 0's.
    let mut rows = vec![row(
        1,
        WalletEvent::Opened {
            member_id: "long".into(),
            currency: Currency::Cny,
        },
    )];
    rows.push(deposit(2, "d0"));
    rows.push(row(
        3,
        WalletEvent::StakeReservedAndTaken {
            reference: "bet:7".into(),
            taken_as: "bet:7:take".into(),
            pot: Pot::Main,
            amount: dec!(1),
        },
    ));
    for seq in 4..=2 * G {
        rows.push(deposit(seq, &format!("d{seq}")));
    }
    for chunk in rows.chunks(3_000) {
        append_rows_alone(&db.pool, chunk, None, &[]).await.unwrap();
    }
    assert!(book(&db).await.is_empty());
    let wallets = service(&db);
    wallets
        .execute(WalletCommand::new(
            wallet(),
            "starts-gen-2",
            credit(dec!(1)),
        ))
        .await
        .unwrap();
    let archived = book(&db).await;
    assert_eq!(archived.get("bet:7"), Some(&0));
    assert_eq!(archived.get("bet:7:take"), Some(&0));

    // A process that loads the wallet afresh no longer remembers them: the
    // book answers, and nothing moves.
    let other = service(&db);
    let loaded = other.load(&wallet()).await.unwrap();
    assert_eq!(loaded.remembered("bet:7"), None);
    let balance = loaded.balances().main;
    let events = event_count(&db).await;
    let again = |reference: &str, take: &str| {
        WalletCommand::new(
            wallet(),
            reference,
            WalletAction::ReserveAndTakeStake {
                amount: dec!(1),
                pot: Pot::Main,
                take: take.into(),
            },
        )
    };
    let repeat = other.execute(again("bet:7", "bet:7:take")).await.unwrap();
    assert!(repeat.duplicate);
    assert_eq!(repeat.balances.main, balance);
    let take_again = other
        .execute(WalletCommand::new(
            wallet(),
            "bet:7:take",
            WalletAction::Debit {
                amount: dec!(1),
                pot: Pot::Main,
                kind: MovementKind::Adjustment,
            },
        ))
        .await
        .unwrap();
    assert!(take_again.duplicate, "the take's reference is used");
    assert_eq!(event_count(&db).await, events, "nothing was recorded");
}
