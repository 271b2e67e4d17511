//! The wallet through the real event store, on both stores.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use commands::WalletService;
use domain::wallet::{
    Ledger, MovementKind, Pot, WalletAction, WalletCommand, WalletError, WalletEvent, WalletId,
};
use domain::Currency;
use rand::{Rng, SeedableRng};
use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use store::db::testing;
use store::{CommandError, CommandMetrics, RetryPolicy, StoreKind, StoreOptions};

store::on_both_stores!(
    ledger_is_conserved_under_concurrent_commands_with_repeated_references,
    loading_from_snapshot_and_later_events_equals_loading_from_all_events,
    a_repeated_reference_moves_nothing_across_restarts,
    concurrent_debits_never_overdraw,
    a_stale_cache_in_another_process_never_commits,
);

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

fn signed(action: &WalletAction) -> Decimal {
    match action {
        WalletAction::Credit { amount, .. } => *amount,
        WalletAction::Debit { amount, .. } => -*amount,
        _ => unreachable!("only credits and debits here"),
    }
}

async fn service(kind: StoreKind, options: StoreOptions) -> (store::Db, WalletService) {
    let db = testing::fresh(kind).await;
    let wallets = WalletService::new(
        &db,
        options,
        RetryPolicy::default(),
        CommandMetrics::default(),
    );
    (db, wallets)
}

async fn ledger_is_conserved_under_concurrent_commands_with_repeated_references(kind: StoreKind) {
    const TASKS: u64 = 32;
    const OPS: usize = 200;
    let (_db, wallets) = service(kind, StoreOptions::default()).await;
    let wallets = Arc::new(wallets);
    let ids: Vec<WalletId> = (0..4)
        .map(|i| WalletId::new(format!("member{i}"), Currency::Cny))
        .collect();
    for id in &ids {
        wallets
            .execute(WalletCommand::new(
                id.clone(),
                format!("seed-{id}"),
                credit(dec!(500.00)),
            ))
            .await
            .unwrap();
    }

    let mut tasks = Vec::new();
    for task in 0..TASKS {
        let wallets = wallets.clone();
        let ids = ids.clone();
        tasks.push(tokio::spawn(async move {
            let mut rng = rand::rngs::StdRng::seed_from_u64(task);
            let mut sent: Vec<(WalletId, String, WalletAction, bool)> = Vec::new();
            let mut accepted: Vec<(WalletId, Decimal)> = Vec::new();
            for op in 0..OPS {
                let repeat = !sent.is_empty() && rng.random_bool(0.15);
                let (id, reference, action) = if repeat {
                    let (id, r, a, _) = sent[rng.random_range(0..sent.len())].clone();
                    (id, r, a)
                } else {
                    let id = ids[rng.random_range(0..ids.len())].clone();
                    let amount = Decimal::new(rng.random_range(1..=10_000), 2);
                    let action = if rng.random_bool(0.5) {
                        credit(amount)
                    } else {
                        debit(amount)
                    };
                    (id, format!("task{task}-op{op}"), action)
                };
                let result = wallets
                    .execute(WalletCommand::new(
                        id.clone(),
                        reference.clone(),
                        action.clone(),
                    ))
                    .await;
                match result {
                    Ok(receipt) => {
                        assert!(receipt.balances.main >= Decimal::ZERO, "negative balance");
                        if repeat {
                            let first_ok = sent.iter().any(|(_, r, _, ok)| *r == reference && *ok);
                            assert!(
                                receipt.duplicate && first_ok,
                                "repeat {reference} moved money"
                            );
                        } else {
                            assert!(!receipt.duplicate);
                            accepted.push((id.clone(), signed(&action)));
                            sent.push((id, reference, action, true));
                        }
                    }
                    Err(CommandError::Rejected(WalletError::InsufficientBalance)) => {
                        assert!(matches!(action, WalletAction::Debit { .. }));
                        if repeat {
                            let first_ok = sent.iter().any(|(_, r, _, ok)| *r == reference && *ok);
                            assert!(!first_ok, "an accepted reference answered a refusal");
                        } else {
                            sent.push((id, reference, action, false));
                        }
                    }
                    Err(other) => panic!("command failed spuriously: {other}"),
                }
            }
            accepted
        }));
    }
    let mut expected: HashMap<WalletId, Decimal> =
        ids.iter().map(|id| (id.clone(), dec!(500.00))).collect();
    for task in tasks {
        for (id, amount) in task.await.unwrap() {
            *expected.get_mut(&id).unwrap() += amount;
        }
    }

    wallets.clear_cache();
    for id in &ids {
        let replayed = wallets.replay(id).await.unwrap();
        assert_eq!(replayed.balances().main, expected[id], "balance of {id}");
        assert_eq!(
            wallets.load(id).await.unwrap(),
            replayed,
            "snapshot load of {id}"
        );
        assert_no_overdraft_and_no_double_application(&wallets, id).await;
    }
}

/// Walks a wallet's events in order: the balance never dips below zero and
/// no reference moves money twice.
async fn assert_no_overdraft_and_no_double_application(wallets: &WalletService, id: &WalletId) {
    let events = wallets.replay_events(id).await;
    let mut ledger = Ledger::default();
    let mut seen = HashSet::new();
    for event in &events {
        if let Some(reference) = event.reference() {
            assert!(
                seen.insert(reference.to_string()),
                "reference {reference} recorded twice"
            );
        }
        ledger.apply(event);
        assert!(
            ledger.balances.main >= Decimal::ZERO,
            "overdraft at {event:?}"
        );
    }
}

trait ReplayEvents {
    async fn replay_events(&self, id: &WalletId) -> Vec<WalletEvent>;
}

impl ReplayEvents for WalletService {
    async fn replay_events(&self, id: &WalletId) -> Vec<WalletEvent> {
        self.events(id).await.unwrap()
    }
}

async fn loading_from_snapshot_and_later_events_equals_loading_from_all_events(kind: StoreKind) {
    let options = StoreOptions {
        snapshot_every: Some(10),
        cache_capacity: 0,
        trust_cache: false,
    };
    let (db, wallets) = service(kind, options).await;
    let id = WalletId::new("snap", Currency::Usd);
    // 2001 events: Opened + 2000 movements, so the last snapshot is followed
    // by events the load must apply on top of it.
    for i in 0..2000u32 {
        let action = if i % 3 == 2 {
            debit(dec!(0.50))
        } else {
            credit(dec!(1.25))
        };
        wallets
            .execute(WalletCommand::new(id.clone(), format!("r{i}"), action))
            .await
            .unwrap();
    }
    let from_snapshot = wallets.load(&id).await.unwrap();
    let from_events = wallets.replay(&id).await.unwrap();
    assert_eq!(from_snapshot, from_events);
    assert_eq!(
        from_events.balances().main,
        dec!(1334) * dec!(1.25) * dec!(1) - dec!(666) * dec!(0.50) + dec!(0.00)
    );
    let last: i64 =
        sqlx::query_scalar("SELECT last_sequence FROM snapshots WHERE aggregate_id = $1")
            .bind(id.to_string())
            .fetch_one(&db.any)
            .await
            .unwrap();
    assert!(last >= 1990, "snapshot at {last}, expected near 2001");

    // And a fresh process (fresh service, same store) agrees.
    let other = WalletService::new(
        &db,
        options,
        RetryPolicy::default(),
        CommandMetrics::default(),
    );
    assert_eq!(other.load(&id).await.unwrap(), from_events);
}

async fn a_repeated_reference_moves_nothing_across_restarts(kind: StoreKind) {
    let (db, wallets) = service(kind, StoreOptions::default()).await;
    let id = WalletId::new("m", Currency::Thb);
    let first = wallets
        .execute(WalletCommand::new(id.clone(), "dep-1", credit(dec!(10))))
        .await
        .unwrap();
    assert!(!first.duplicate);
    let restarted = WalletService::new(
        &db,
        StoreOptions::default(),
        RetryPolicy::default(),
        CommandMetrics::default(),
    );
    let again = restarted
        .execute(WalletCommand::new(id.clone(), "dep-1", credit(dec!(10))))
        .await
        .unwrap();
    assert!(again.duplicate);
    assert_eq!(again.balances.main, dec!(10));
    let refused = restarted
        .execute(WalletCommand::new(id.clone(), "wd-1", debit(dec!(11))))
        .await
        .unwrap_err();
    assert!(matches!(
        refused,
        CommandError::Rejected(WalletError::InsufficientBalance)
    ));
    assert_eq!(refused.to_string(), "Insufficient balance.");
}

async fn concurrent_debits_never_overdraw(kind: StoreKind) {
    let (db, wallets) = service(kind, StoreOptions::default()).await;
    // A second service on the same store stands for a second `api` process:
    // the two only meet in the store, as optimistic-lock conflicts.
    let metrics = CommandMetrics::default();
    let other = WalletService::new(
        &db,
        StoreOptions::default(),
        RetryPolicy::default(),
        metrics.clone(),
    );
    let services = [Arc::new(wallets), Arc::new(other)];
    let id = WalletId::new("race", Currency::Cny);
    services[0]
        .execute(WalletCommand::new(id.clone(), "seed", credit(dec!(10.00))))
        .await
        .unwrap();
    // 40 debits of 1.00 race for 10.00: exactly 10 succeed.
    let handles: Vec<_> = (0..40)
        .map(|i| {
            let (wallets, id) = (services[i % 2].clone(), id.clone());
            tokio::spawn(async move {
                wallets
                    .execute(WalletCommand::new(id, format!("d{i}"), debit(dec!(1.00))))
                    .await
            })
        })
        .collect();
    let mut ok = 0;
    for h in handles {
        match h.await.unwrap() {
            Ok(_) => ok += 1,
            Err(CommandError::Rejected(WalletError::InsufficientBalance)) => {}
            Err(e) => panic!("spurious failure: {e}"),
        }
    }
    assert_eq!(ok, 10);
    assert_eq!(
        services[0].replay(&id).await.unwrap().balances().main,
        dec!(0.00)
    );
    assert_eq!(metrics.count("Wallet", "error"), 0);
}

async fn a_stale_cache_in_another_process_never_commits(kind: StoreKind) {
    let (db, a) = service(kind, StoreOptions::default()).await;
    let metrics = CommandMetrics::default();
    let b = WalletService::new(
        &db,
        StoreOptions::default(),
        RetryPolicy::default(),
        metrics,
    );
    let id = WalletId::new("stale", Currency::Cny);
    a.execute(WalletCommand::new(id.clone(), "dep", credit(dec!(10))))
        .await
        .unwrap();
    // `a` caches a balance of 10; `b` (another process) empties the wallet.
    b.execute(WalletCommand::new(id.clone(), "wd-b", debit(dec!(10))))
        .await
        .unwrap();
    // `a` decides from its stale cache, collides on the sequence, reloads.
    let refused = a
        .execute(WalletCommand::new(id.clone(), "wd-a", debit(dec!(5))))
        .await
        .unwrap_err();
    assert!(matches!(
        refused,
        CommandError::Rejected(WalletError::InsufficientBalance)
    ));
    assert_eq!(a.replay(&id).await.unwrap().balances().main, dec!(0));
    assert_eq!(a.load(&id).await.unwrap().balances().main, dec!(0));
}
