//! Group commit (DESIGN "Performance targets", issue 14 item 6): concurrent
//! appends share one transaction, each still answers its own outcome, and a
//! conflicting one fails alone; on both stores.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use commands::WalletService;
use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletId};
use domain::Currency;
use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use store::db::testing;
use store::events::{is_retryable, Appended, Claim, EventRow};
use store::{CommandMetrics, RetryPolicy, StoreKind, StoreOptions};

store::on_both_stores!(
    concurrent_appends_commit_in_groups_and_a_conflicting_one_fails_alone,
    a_request_id_is_claimed_once_within_a_group_and_across_groups,
    wallets_on_two_processes_conserve_money_through_grouped_commits,
);

fn row(aggregate_id: &str, sequence: usize) -> EventRow {
    EventRow {
        aggregate_id: aggregate_id.to_string(),
        sequence,
        aggregate_type: "GroupTest".to_string(),
        event_type: "Noted".to_string(),
        event_version: "1".to_string(),
        payload: serde_json::json!({"Noted": {"n": sequence}}).to_string(),
        metadata: "{}".to_string(),
    }
}

async fn count(db: &store::Db, aggregate_id_like: &str) -> i64 {
    sqlx::query_scalar::<_, i64>(
        "SELECT COUNT(*) FROM events WHERE aggregate_type = 'GroupTest' AND aggregate_id LIKE $1",
    )
    .bind(aggregate_id_like)
    .fetch_one(&db.any)
    .await
    .expect("count")
}

async fn concurrent_appends_commit_in_groups_and_a_conflicting_one_fails_alone(kind: StoreKind) {
    let db = testing::fresh(kind).await;
    let group = db.group.clone();
    // Sequence 1 of "taken" exists: an append deciding on a stale state.
    assert_eq!(
        group.append(vec![row("taken", 1)], None).await.unwrap(),
        Appended::Done
    );
    let mut tasks = tokio::task::JoinSet::new();
    for n in 0..60 {
        let group = group.clone();
        tasks.spawn(async move {
            let rows = if n == 30 {
                vec![row("taken", 1)]
            } else {
                vec![row(&format!("a{n}"), 1), row(&format!("a{n}"), 2)]
            };
            (n, group.append(rows, None).await)
        });
    }
    let mut conflicts = 0;
    while let Some(done) = tasks.join_next().await {
        let (n, outcome) = done.unwrap();
        if n == 30 {
            let error = outcome.expect_err("the stale append must not commit");
            assert!(is_retryable(&error), "a conflict is retryable: {error}");
            conflicts += 1;
        } else {
            assert_eq!(outcome.unwrap(), Appended::Done, "append {n}");
        }
    }
    assert_eq!(conflicts, 1);
    assert_eq!(
        count(&db, "a%").await,
        59 * 2,
        "every other append committed"
    );
    assert_eq!(count(&db, "taken").await, 1);
    let stats = group.stats();
    assert!(
        stats.groups.load(Relaxed) < stats.appends.load(Relaxed),
        "appends shared groups: {} groups for {} appends",
        stats.groups.load(Relaxed),
        stats.appends.load(Relaxed)
    );
    db.close().await;
}

async fn a_request_id_is_claimed_once_within_a_group_and_across_groups(kind: StoreKind) {
    let db = testing::fresh(kind).await;
    let group = db.group.clone();
    let claim = |id: &str| Claim {
        scope: "do_bet:m1".to_string(),
        request_id: id.to_string(),
        answer: format!("answer-{id}"),
    };
    // Claimed earlier: a later append with that id writes nothing.
    assert_eq!(
        group
            .append(vec![row("first", 1)], Some(claim("r0")))
            .await
            .unwrap(),
        Appended::Done
    );
    let mut tasks = tokio::task::JoinSet::new();
    for n in 0..40 {
        let group = group.clone();
        let id = if n % 2 == 0 { "r0" } else { "r1" };
        let claim = claim(id);
        tasks.spawn(async move {
            (
                id,
                group
                    .append(vec![row(&format!("c{n}"), 1)], Some(claim))
                    .await
                    .unwrap(),
            )
        });
    }
    let (mut r0_done, mut r1_done) = (0, 0);
    while let Some(done) = tasks.join_next().await {
        match done.unwrap() {
            ("r0", Appended::Done) => r0_done += 1,
            ("r1", Appended::Done) => r1_done += 1,
            (_, Appended::Claimed) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(r0_done, 0, "r0 was claimed before");
    assert_eq!(r1_done, 1, "r1 is claimed by exactly one append");
    assert_eq!(
        count(&db, "c%").await,
        1,
        "only the winner's rows are written"
    );
    let answer = store::events::claimed(&db.any, "do_bet:m1", "r1")
        .await
        .unwrap();
    assert_eq!(answer.as_deref(), Some("answer-r1"));
    db.close().await;
}

/// Two processes (two pools, two caches, two group committers) debit and
/// credit the same wallets at once: grouped commits collide with the other
/// process's, each colliding command is retried alone, and no money is made
/// or lost.
async fn wallets_on_two_processes_conserve_money_through_grouped_commits(kind: StoreKind) {
    let (first, second) = testing::fresh_pair(kind).await;
    let options = StoreOptions {
        trust_cache: true,
        ..StoreOptions::default()
    };
    let service = |db: &store::Db| {
        Arc::new(WalletService::new(
            db,
            options,
            RetryPolicy::default(),
            CommandMetrics::default(),
        ))
    };
    let (a, b) = (service(&first), service(&second));
    const WALLETS: usize = 4;
    let wallet = |n: usize| WalletId::new(format!("m{n}"), Currency::Thb);
    for n in 0..WALLETS {
        a.execute(WalletCommand::new(
            wallet(n),
            format!("open-{n}"),
            WalletAction::Credit {
                amount: dec!(1000),
                pot: Pot::Main,
                kind: MovementKind::Deposit,
            },
        ))
        .await
        .unwrap();
    }
    let mut tasks = tokio::task::JoinSet::new();
    for t in 0..32usize {
        let service = if t % 2 == 0 { a.clone() } else { b.clone() };
        tasks.spawn(async move {
            let mut moved = Decimal::ZERO;
            for i in 0..10usize {
                let n = (t + i) % WALLETS;
                let amount = Decimal::from((t + i) % 7 + 1);
                let action = if i % 3 == 0 {
                    WalletAction::Credit {
                        amount,
                        pot: Pot::Main,
                        kind: MovementKind::Deposit,
                    }
                } else {
                    WalletAction::Debit {
                        amount,
                        pot: Pot::Main,
                        kind: MovementKind::Withdrawal,
                    }
                };
                let signed = match &action {
                    WalletAction::Credit { amount, .. } => *amount,
                    _ => -amount,
                };
                let command = WalletCommand::new(wallet(n), format!("t{t}-{i}"), action);
                if service.execute(command).await.is_ok() {
                    moved += signed;
                }
            }
            moved
        });
    }
    let mut moved = Decimal::ZERO;
    while let Some(done) = tasks.join_next().await {
        moved += done.unwrap();
    }
    let mut total = Decimal::ZERO;
    for n in 0..WALLETS {
        let balance = b.replay(&wallet(n)).await.unwrap().balances().main;
        assert!(balance >= Decimal::ZERO, "wallet {n} overdrawn: {balance}");
        total += balance;
    }
    assert_eq!(total, Decimal::from(1000 * WALLETS as i64) + moved);
    first.close().await;
    second.close().await;
}
