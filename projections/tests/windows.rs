//! Window reads (`stream::read_window_of`): a reader that acts on a few
//! kinds of events (the process managers' passes) gets only those, read in
//! the database, and a window's end moves past the events it skipped, on
//! both stores.

use std::time::Duration;

use commands::WalletService;
use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletId};
use domain::Currency;
use rust_decimal_macros::dec;
use store::db::testing;
use store::stream::{self, Backend, Checkpoint, Only};
use store::{CommandMetrics, Db, RetryPolicy, StoreKind, StoreOptions};

store::on_both_stores!(a_window_gives_only_its_kinds_of_events_and_ends_past_the_others,);

fn backend(db: &Db) -> Backend {
    match db.kind() {
        StoreKind::Postgres => Backend::Postgres,
        StoreKind::Sqlite => Backend::Sqlite,
    }
}

async fn a_window_gives_only_its_kinds_of_events_and_ends_past_the_others(kind: StoreKind) {
    let db = testing::fresh(kind).await;
    let wallets = WalletService::new(
        &db,
        StoreOptions::default(),
        RetryPolicy::default(),
        CommandMetrics::default(),
    );
    let a = WalletId::new("a", Currency::Cny);
    let b = WalletId::new("b", Currency::Cny);
    let credit = WalletAction::Credit {
        amount: dec!(5.00),
        pot: Pot::Main,
        kind: MovementKind::Deposit,
    };
    wallets
        .execute(WalletCommand::new(b.clone(), "b-credit", credit.clone()))
        .await
        .unwrap();
    for i in 0..40 {
        wallets
            .execute(WalletCommand::new(
                a.clone(),
                format!("a-{i}"),
                credit.clone(),
            ))
            .await
            .unwrap();
        if i % 10 == 9 {
            let freeze = WalletAction::Freeze { amount: dec!(1.00) };
            wallets
                .execute(WalletCommand::new(b.clone(), format!("b-{i}"), freeze))
                .await
                .unwrap();
        }
    }
    let backend = backend(&db);
    let mut conn = db.any.acquire().await.unwrap();
    let start = Checkpoint::default();
    // Every event has committed; on Postgres other tests' transactions may
    // hold the horizon back for a moment.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let all = loop {
        let all = stream::read_after(&mut conn, backend, start, &[], 1_000)
            .await
            .unwrap();
        if all.len() == 47 || tokio::time::Instant::now() >= deadline {
            break all;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    // Opened for each wallet, 41 credits, 4 freezes.
    assert_eq!(all.len(), 47);
    let end = all.last().unwrap().checkpoint;
    let frozen: Vec<Checkpoint> = all
        .iter()
        .filter(|e| e.event_type == "FundsFrozen")
        .map(|e| e.checkpoint)
        .collect();
    assert_eq!(frozen.len(), 4);

    // Only the freezes, with their payloads; the window ends at the end.
    let window = stream::read_window_of(
        &mut conn,
        backend,
        start,
        Only::EventTypes(&["FundsFrozen"]),
        100,
    )
    .await
    .unwrap();
    let got: Vec<Checkpoint> = window.events.iter().map(|e| e.checkpoint).collect();
    assert_eq!(got, frozen);
    assert!(window
        .events
        .iter()
        .all(|e| e.payload.is_some() && e.aggregate_id == b.to_string()));
    assert_eq!(window.upto, end);

    // A full window ends at its last event; the next goes on from there.
    let first = stream::read_window_of(
        &mut conn,
        backend,
        start,
        Only::EventTypes(&["FundsFrozen"]),
        3,
    )
    .await
    .unwrap();
    assert_eq!(first.events.len(), 3);
    assert_eq!(first.upto, frozen[2]);
    let rest = stream::read_window_of(
        &mut conn,
        backend,
        first.upto,
        Only::EventTypes(&["FundsFrozen"]),
        3,
    )
    .await
    .unwrap();
    assert_eq!(
        rest.events.iter().map(|e| e.checkpoint).collect::<Vec<_>>(),
        vec![frozen[3]]
    );
    assert_eq!(rest.upto, end);

    // None of its kinds: no events, and the window still ends at the end.
    let none = stream::read_window_of(
        &mut conn,
        backend,
        start,
        Only::AggregateTypes(&["Deposit"]),
        100,
    )
    .await
    .unwrap();
    assert!(none.events.is_empty());
    assert_eq!(none.upto, end);
    let wallet = stream::read_window_of(
        &mut conn,
        backend,
        start,
        Only::AggregateTypes(&["Wallet"]),
        100,
    )
    .await
    .unwrap();
    assert_eq!(wallet.events.len(), 47);

    // Past the end: nothing, and the window stays where it was.
    let after = stream::read_window_of(
        &mut conn,
        backend,
        end,
        Only::EventTypes(&["FundsFrozen"]),
        100,
    )
    .await
    .unwrap();
    assert!(after.events.is_empty());
    assert_eq!(after.upto, end);
}
