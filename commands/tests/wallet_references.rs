//! A wallet remembers only its newest references; the store's reference
//! book (`wallet_references`, written with the events) answers the older
//! ones, so a repeat still moves nothing however long the wallet's history,
//! in this process or another, on both stores.

use std::collections::HashMap;

use cqrs_es::persist::SerializedEvent;
use cqrs_es::EventEnvelope;
use commands::db::testing;
use commands::store::{append_rows_alone, Claim};
use commands::{CommandError, CommandMetrics, Db, RetryPolicy, StoreKind, StoreOptions, WalletService};
use domain::wallet::{
    MovementKind, Pot, Wallet, WalletAction, WalletCommand, WalletError, WalletEvent, WalletId,
    REFERENCES_KEPT,
};
use domain::Currency;
use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use sqlx::Row;

commands::on_both_stores!(
    a_repeat_of_a_reference_the_wallet_forgot_answers_its_first_outcome_and_moves_nothing,
    every_append_records_its_wallet_references_in_its_own_transaction,
);

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

fn row(sequence: usize, event: WalletEvent) -> SerializedEvent {
    let envelope = EventEnvelope::<Wallet> {
        aggregate_id: wallet().to_string(),
        sequence,
        payload: event,
        metadata: HashMap::new(),
    };
    SerializedEvent::try_from(&envelope).unwrap()
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
        append_rows_alone(&db.pool, chunk, None).await.unwrap();
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
    let n = 3 * REFERENCES_KEPT;
    long_history(&db, n).await;
    let balance = Decimal::from(n - 1);
    let wallets = service(&db);
    let loaded = wallets.load(&wallet()).await.unwrap();
    assert!(loaded.forgot_refs, "the wallet no longer remembers its first references");
    assert!(loaded.references_held() < 2 * REFERENCES_KEPT);
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
        assert_eq!(other.reference_outcome(&wallet(), "never").await.unwrap(), None);
    }

    // A new reference moves money once, also when two processes race it.
    let a = service(&db);
    let b = service(&db);
    let command = || WalletCommand::new(wallet(), "fresh", credit(dec!(2)));
    let (first, second) = tokio::join!(a.execute(command()), b.execute(command()));
    let (first, second) = (first.unwrap(), second.unwrap());
    assert_eq!(
        [first.duplicate, second.duplicate].iter().filter(|d| !**d).count(),
        1,
        "exactly one of the two moved money"
    );
    let now = a.load(&wallet()).await.unwrap();
    assert_eq!(now.balances().main, balance + dec!(2));
    assert_eq!(event_count(&db).await, events + 1);
    // Replayed from every event, the wallet is what the store loads.
    assert_eq!(a.replay(&wallet()).await.unwrap(), now);
}

async fn every_append_records_its_wallet_references_in_its_own_transaction(kind: StoreKind) {
    let db = testing::fresh(kind).await;
    let wallets = service(&db);
    // Concurrent commands on many wallets go through the group commit.
    let mut tasks = Vec::new();
    for member in 0..24 {
        let wallets = &wallets;
        tasks.push(async move {
            let id = WalletId::new(format!("m{member}"), Currency::Cny);
            wallets
                .execute(WalletCommand::new(id.clone(), format!("in-{member}"), credit(dec!(3))))
                .await
                .unwrap();
            // A refusal is recorded with its code; a freeze and its payout
            // share one reference.
            let refused = wallets
                .execute(WalletCommand::new(
                    id.clone(),
                    format!("big-{member}"),
                    WalletAction::Freeze { amount: dec!(100) },
                ))
                .await;
            assert!(refused.is_err());
            wallets
                .execute(WalletCommand::new(
                    id.clone(),
                    format!("fr-{member}"),
                    WalletAction::Freeze { amount: dec!(1) },
                ))
                .await
                .unwrap();
            wallets
                .execute(WalletCommand::new(
                    id,
                    format!("pay-{member}"),
                    WalletAction::PayFrozen { amount: dec!(1) },
                ))
                .await
                .unwrap();
        });
    }
    futures::future::join_all(tasks).await;
    let rows = sqlx::query("SELECT wallet_id, reference, outcome FROM wallet_references")
        .fetch_all(&db.any)
        .await
        .unwrap();
    let book: HashMap<(String, String), i32> = rows
        .iter()
        .map(|r| ((r.get("wallet_id"), r.get("reference")), r.get("outcome")))
        .collect();
    assert_eq!(book.len(), 24 * 4);
    for member in 0..24 {
        let wallet = format!("m{member}:CNY");
        let at = |reference: &str| book.get(&(wallet.clone(), reference.to_string())).copied();
        assert_eq!(at(&format!("in-{member}")), Some(0));
        assert_eq!(at(&format!("big-{member}")), Some(2400));
        assert_eq!(at(&format!("fr-{member}")), Some(0));
        assert_eq!(at(&format!("pay-{member}")), Some(0));
    }

    // An append whose request id was claimed before writes nothing, its
    // references neither.
    let claim = Claim {
        scope: "test".into(),
        request_id: "r1".into(),
        answer: "first".into(),
    };
    let first = vec![row(
        1,
        WalletEvent::Opened {
            member_id: "long".into(),
            currency: Currency::Cny,
        },
    )];
    append_rows_alone(&db.pool, &first, Some(&claim)).await.unwrap();
    let lost = vec![row(
        2,
        WalletEvent::Credited {
            reference: "lost".into(),
            pot: Pot::Main,
            amount: dec!(1),
            kind: MovementKind::Deposit,
        },
    )];
    let outcome = db.group.append(lost, Some(claim)).await.unwrap();
    assert_eq!(outcome, commands::store::Appended::Claimed);
    let lost: i64 =
        sqlx::query_scalar("SELECT count(*) FROM wallet_references WHERE reference = 'lost'")
            .fetch_one(&db.any)
            .await
            .unwrap();
    assert_eq!(lost, 0);
}
