//! The balance read model, fed by the runner from the real event store.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use commands::WalletService;
use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletEvent, WalletId};
use domain::Currency;
use projections::balances::{self, BalanceProjection};
use projections::{Backend, Projection, Runner};
use rand::{Rng, SeedableRng};
use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use store::db::testing;
use store::{CommandMetrics, Db, RetryPolicy, StoreKind, StoreOptions};

/// Other tests' transactions in the same Postgres hold back the horizon for
/// a moment; `Runner::settle` waits them out, up to this long.
const PATIENCE: Duration = Duration::from_secs(20);

fn runner(db: &Db) -> Runner {
    let backend = match db.kind() {
        StoreKind::Postgres => Backend::Postgres,
        StoreKind::Sqlite => Backend::Sqlite,
    };
    let projections: Vec<Arc<dyn Projection>> = vec![Arc::new(BalanceProjection)];
    Runner::new(db.any.clone(), backend, projections).with_batch_size(97)
}

fn wallets(db: &Db) -> WalletService {
    WalletService::new(
        db,
        StoreOptions::default(),
        RetryPolicy::default(),
        CommandMetrics::default(),
    )
}

fn credit(amount: Decimal) -> WalletAction {
    WalletAction::Credit {
        amount,
        pot: Pot::Main,
        kind: MovementKind::Deposit,
    }
}

/// A mixed history over several wallets: credits, debits, stakes, freezes.
async fn write_history(wallets: &WalletService, seed: u64, count: usize) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for i in 0..count {
        let id = WalletId::new(format!("m{}", rng.random_range(0..7)), Currency::ALL[i % 3]);
        let amount = Decimal::new(rng.random_range(1..5_000), 2);
        let reference = format!("s{seed}-{i}");
        let action = match rng.random_range(0..6) {
            0 | 1 => credit(amount),
            2 => WalletAction::Debit {
                amount,
                pot: Pot::Main,
                kind: MovementKind::Withdrawal,
            },
            3 => WalletAction::ReserveStake {
                amount,
                pot: Pot::Main,
            },
            4 => WalletAction::Freeze { amount },
            _ => WalletAction::PayOut {
                amount,
                pot: Pot::BonusWin,
            },
        };
        let _ = wallets
            .execute(WalletCommand::new(id.clone(), reference.clone(), action))
            .await;
        if rng.random_bool(0.3) {
            let take = if rng.random_bool(0.5) {
                WalletAction::TakeStake {
                    reservation: reference.clone(),
                }
            } else {
                WalletAction::ReleaseStake {
                    reservation: reference.clone(),
                }
            };
            let _ = wallets
                .execute(WalletCommand::new(id, format!("{reference}:settle"), take))
                .await;
        }
    }
}

/// Every row of the read model equals the wallet folded from its events.
async fn assert_read_model_matches_the_store(db: &Db, wallets: &WalletService) {
    let rows = balances::all(&db.any).await.unwrap();
    assert!(!rows.is_empty());
    for row in rows {
        let id = WalletId::new(row.member_id.clone(), row.currency.parse().unwrap());
        let wallet = wallets.replay(&id).await.unwrap();
        assert_eq!(row.ledger, wallet.ledger, "read model of {id}");
    }
}

store::on_both_stores!(
    the_balance_view_equals_the_wallets_folded_from_their_events,
    a_projection_rebuilt_from_zero_equals_the_live_one,
    a_batch_applied_twice_by_two_runners_counts_once,
    two_processes_runners_reading_before_their_writer_turns_count_each_batch_once,
    a_member_reads_their_own_writes_before_any_runner_applies_them,
    one_read_a_pass_serves_every_projection_its_own_types_and_one_far_behind_catches_up_alone,
);

async fn the_balance_view_equals_the_wallets_folded_from_their_events(kind: StoreKind) {
    let db = testing::fresh(kind).await;
    let wallets = wallets(&db);
    write_history(&wallets, 1, 300).await;
    let runner = runner(&db);
    assert!(runner.settle("balances", PATIENCE).await.unwrap() > 300);
    assert_read_model_matches_the_store(&db, &wallets).await;
    assert_eq!(runner.lag("balances").await.unwrap(), 0);
}

async fn a_projection_rebuilt_from_zero_equals_the_live_one(kind: StoreKind) {
    let db = testing::fresh(kind).await;
    let wallets = wallets(&db);
    let runner = runner(&db);
    // The live model is built incrementally, interleaved with writes.
    for round in 0..4 {
        write_history(&wallets, 10 + round, 80).await;
        runner.settle("balances", PATIENCE).await.unwrap();
    }
    let live = balances::all(&db.any).await.unwrap();
    let seen = std::sync::Mutex::new(Vec::new());
    let applied = runner
        .rebuild("balances", &|done, total| {
            seen.lock().unwrap().push((done, total))
        })
        .await
        .unwrap();
    let rebuilt = balances::all(&db.any).await.unwrap();
    assert_eq!(rebuilt, live);
    let progress = seen.into_inner().unwrap();
    let (done, total) = *progress.last().unwrap();
    assert_eq!(
        (done, total),
        (applied, applied),
        "progress reaches the total"
    );
    assert!(progress.len() > 1, "progress reported per batch");
    assert!(runner.rebuild("nope", &|_, _| {}).await.is_err());
}

async fn a_batch_applied_twice_by_two_runners_counts_once(kind: StoreKind) {
    let db = testing::fresh(kind).await;
    let wallets = wallets(&db);
    write_history(&wallets, 3, 200).await;
    // Two processes' runners on one store take turns on the checkpoint.
    settle_each_event_once(&db, &wallets, runner(&db), runner(&db)).await;
}

/// Two runners settle the balances at once: together they apply each
/// event once, and the read model matches the store.
async fn settle_each_event_once(db: &Db, wallets: &WalletService, a: Runner, b: Runner) {
    let (x, y) = tokio::join!(
        a.settle("balances", PATIENCE),
        b.settle("balances", PATIENCE)
    );
    let total = x.unwrap() + y.unwrap();
    let events: i64 = sqlx::query_scalar("SELECT count(*) FROM events")
        .fetch_one(&db.any)
        .await
        .unwrap();
    assert_eq!(total as i64, events);
    assert_read_model_matches_the_store(db, wallets).await;
}

/// Two processes on one SQLite file, each runner with its own writer turn
/// (as each process has one): both read a batch before their turn, one
/// applies it, the other finds the checkpoint moved and reads again; no
/// batch counts twice. (On Postgres there is no turn: the batch is read
/// under the checkpoint's row lock.)
async fn two_processes_runners_reading_before_their_writer_turns_count_each_batch_once(
    kind: StoreKind,
) {
    let db = testing::fresh(kind).await;
    let wallets = wallets(&db);
    write_history(&wallets, 3, 200).await;
    let own_turn = || match kind {
        StoreKind::Sqlite => Some(store::writer::WriterTurns::new()),
        StoreKind::Postgres => None,
    };
    let a = runner(&db).with_writer_lock(own_turn());
    let b = runner(&db).with_writer_lock(own_turn());
    settle_each_event_once(&db, &wallets, a, b).await;
}

/// Inserts wallet events straight into Postgres in transactions held open
/// for a while, so that later positions commit before them: a reader
/// following positions alone would skip these.
async fn slow_writer(db: &Db, id: &WalletId, count: usize) -> Decimal {
    let store::db::StorePool::Postgres(pool) = &db.pool else {
        unreachable!()
    };
    let mut total = Decimal::ZERO;
    let mut sequence = 0i64;
    for i in 0..count {
        let mut tx = pool.begin().await.unwrap();
        let mut events = Vec::new();
        if sequence == 0 {
            events.push(WalletEvent::Opened {
                member_id: id.member_id.clone(),
                currency: id.currency,
            });
        }
        events.push(WalletEvent::Credited {
            reference: format!("slow-{i}"),
            pot: Pot::Main,
            amount: dec!(1.00),
            kind: MovementKind::Deposit,
        });
        for event in events {
            sequence += 1;
            sqlx::query(
                "INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata)
                 VALUES ('Wallet', $1, $2, 'x', '1.0', $3::json, '{}')",
            )
            .bind(id.to_string())
            .bind(sequence)
            .bind(serde_json::to_string(&event).unwrap())
            .execute(&mut *tx)
            .await
            .unwrap();
        }
        tokio::time::sleep(Duration::from_millis(40)).await;
        tx.commit().await.unwrap();
        total += dec!(1.00);
    }
    total
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn with_concurrent_writers_the_read_model_misses_no_event_and_catches_up_after_restart() {
    let db = testing::fresh_postgres().await;
    let service = Arc::new(wallets(&db));
    let live = Arc::new(runner(&db));
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let running = tokio::spawn(
        live.clone()
            .run(Duration::from_millis(2), Duration::ZERO, stopped),
    );

    let expected = Arc::new(std::sync::Mutex::new(HashMap::<WalletId, Decimal>::new()));
    let mut writers = Vec::new();
    for w in 0..8u64 {
        let (service, expected) = (service.clone(), expected.clone());
        writers.push(tokio::spawn(async move {
            let mut rng = rand::rngs::StdRng::seed_from_u64(w);
            for i in 0..120 {
                let id = WalletId::new(format!("w{}", rng.random_range(0..12)), Currency::Cny);
                let amount = Decimal::new(rng.random_range(1..10_000), 2);
                service
                    .execute(WalletCommand::new(
                        id.clone(),
                        format!("w{w}-{i}"),
                        credit(amount),
                    ))
                    .await
                    .unwrap();
                *expected.lock().unwrap().entry(id).or_default() += amount;
            }
        }));
    }
    let slow_id = WalletId::new("slow", Currency::Cny);
    let slow = slow_writer(&db, &slow_id, 12).await;
    for w in writers {
        w.await.unwrap();
    }
    expected.lock().unwrap().insert(slow_id.clone(), slow);

    // Let the live runner finish, then stop it.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while live.lag("balances").await.unwrap() > 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "runner never caught up"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    stop.send(true).unwrap();
    running.await.unwrap();
    let check = |expected: &HashMap<WalletId, Decimal>, rows: &[balances::BalanceRow]| {
        assert_eq!(rows.len(), expected.len());
        for row in rows {
            let id = WalletId::new(row.member_id.clone(), row.currency.parse().unwrap());
            assert_eq!(row.ledger.balances.main, expected[&id], "balance of {id}");
        }
    };
    let want = expected.lock().unwrap().clone();
    check(&want, &balances::all(&db.any).await.unwrap());

    // Stopped: more writes land; a new runner (a restart) catches up exactly.
    for i in 0..50 {
        let id = WalletId::new(format!("w{}", i % 12), Currency::Cny);
        service
            .execute(WalletCommand::new(
                id.clone(),
                format!("after-{i}"),
                credit(dec!(2.00)),
            ))
            .await
            .unwrap();
        *expected.lock().unwrap().entry(id).or_default() += dec!(2.00);
    }
    let before: Vec<_> = balances::all(&db.any).await.unwrap();
    check_untouched(&before, &balances::all(&db.any).await.unwrap());
    let restarted = runner(&db);
    assert_eq!(restarted.settle("balances", PATIENCE).await.unwrap(), 50);
    let want = expected.lock().unwrap().clone();
    check(&want, &balances::all(&db.any).await.unwrap());
    assert_eq!(restarted.catch_up("balances").await.unwrap(), 0);
}

/// A live runner with a poll far longer than a test (only wakes and its
/// own retries start its passes) and a gather of 20 ms, beside a wallet
/// service whose commits wake it.
struct Live {
    service: Arc<WalletService>,
    stop: tokio::sync::watch::Sender<bool>,
    running: tokio::task::JoinHandle<()>,
}

impl Live {
    fn start(db: &Db) -> Live {
        Self::start_with(db, runner(db))
    }

    fn start_with(db: &Db, runner: Runner) -> Live {
        let live = Arc::new(runner);
        let service = Arc::new(WalletService::notifying(
            db,
            StoreOptions::default(),
            RetryPolicy::default(),
            CommandMetrics::default(),
            live.waker(),
        ));
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let running =
            tokio::spawn(live.run(Duration::from_secs(600), Duration::from_millis(20), stopped));
        Live {
            service,
            stop,
            running,
        }
    }

    async fn stop(self) {
        self.stop.send(true).unwrap();
        self.running.await.unwrap();
    }
}

/// The live runner woken by every commit gathers what arrives within its
/// gather interval into one pass; no commit's wake is lost on the way (the
/// poll here is far longer than the test).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn woken_by_every_commit_the_runner_gathers_them_and_misses_none() {
    let db = testing::fresh_postgres().await;
    let live = Live::start(&db);
    let mut writers = Vec::new();
    for w in 0..4u64 {
        let service = live.service.clone();
        writers.push(tokio::spawn(async move {
            for i in 0..60 {
                let id = WalletId::new(format!("g{}", (w + i) % 5), Currency::Cny);
                service
                    .execute(WalletCommand::new(
                        id,
                        format!("g{w}-{i}"),
                        credit(dec!(1.00)),
                    ))
                    .await
                    .unwrap();
            }
        }));
    }
    for w in writers {
        w.await.unwrap();
    }
    // The last commits woke it: applied within moments, not at the poll.
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let rows = balances::all(&db.any).await.unwrap();
        let total: Decimal = rows.iter().map(|r| r.ledger.balances.main).sum();
        if total == dec!(240.00) {
            assert_eq!(rows.len(), 5);
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the runner missed a wake: {total} of 240.00 applied"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    live.stop().await;
}

/// Commits that a transaction older than them holds behind the horizon
/// wake a pass that cannot apply them yet; when that transaction ends (no
/// commit of its own, so no wake) the runner still applies them within
/// moments, not at its poll (far longer than the test here).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn commits_held_behind_an_older_transaction_are_applied_when_it_ends_without_a_wake() {
    let db = testing::fresh_postgres().await;
    let live = Live::start(&db);
    // An older transaction with an id of its own, running on.
    let mut older = db.any.begin().await.unwrap();
    sqlx::query("SELECT pg_current_xact_id()::text")
        .fetch_one(&mut *older)
        .await
        .unwrap();
    for i in 0..3 {
        live.service
            .execute(WalletCommand::new(
                WalletId::new("held", Currency::Cny),
                format!("held-{i}"),
                credit(dec!(1.00)),
            ))
            .await
            .unwrap();
    }
    // Woken by each commit, the runner can apply none of them yet.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(balances::get(&db.any, "held", "CNY")
        .await
        .unwrap()
        .is_none_or(|row| row.ledger.balances.main == Decimal::ZERO));
    older.rollback().await.unwrap();
    main_becomes(
        &db,
        "held",
        dec!(3.00),
        "the held commits were never applied",
    )
    .await;
    live.stop().await;
}

/// Waits (up to `PATIENCE`) until the member's CNY main balance is `want`.
async fn main_becomes(db: &Db, member: &str, want: Decimal, failure: &str) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let main = balances::get(&db.any, member, "CNY")
            .await
            .unwrap()
            .map(|row| row.ledger.balances.main);
        if main == Some(want) {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{failure}: {main:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The balance projection with a gate in its first batch: the test acts
/// while the pass holds what it read and before it looks at the horizon.
struct Gated {
    entered: std::sync::Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
    release: tokio::sync::Mutex<Option<tokio::sync::oneshot::Receiver<()>>>,
}

impl Projection for Gated {
    fn name(&self) -> &'static str {
        BalanceProjection.name()
    }
    fn aggregate_types(&self) -> &'static [&'static str] {
        BalanceProjection.aggregate_types()
    }
    fn apply<'a>(
        &'a self,
        conn: &'a mut sqlx::AnyConnection,
        events: &'a [store::StoredEvent],
    ) -> futures::future::BoxFuture<'a, Result<(), projections::ProjectionError>> {
        Box::pin(async move {
            let first = self.entered.lock().unwrap().take();
            if let Some(entered) = first {
                let _ = entered.send(());
                if let Some(release) = self.release.lock().await.take() {
                    let _ = release.await;
                }
            }
            BalanceProjection.apply(conn, events).await
        })
    }
    fn reset<'a>(
        &'a self,
        conn: &'a mut sqlx::AnyConnection,
    ) -> futures::future::BoxFuture<'a, Result<(), projections::ProjectionError>> {
        BalanceProjection.reset(conn)
    }
}

/// A pass reads behind an older transaction; that transaction ends while
/// the pass still applies what it read (no commit, so no wake). The pass
/// must still know that it left commits behind and look again soon: the
/// horizon is judged no later than the pass's read, not after it (where
/// the ended transaction no longer holds it back).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_older_transaction_ending_during_a_pass_leaves_nothing_behind() {
    let db = testing::fresh_postgres().await;
    let wallets = wallets(&db);
    let id = WalletId::new("during", Currency::Cny);
    let credit_once = |reference: &'static str| {
        wallets.execute(WalletCommand::new(
            id.clone(),
            reference.to_string(),
            credit(dec!(1.00)),
        ))
    };
    credit_once("before").await.unwrap();
    let mut older = db.any.begin().await.unwrap();
    sqlx::query("SELECT pg_current_xact_id()::text")
        .fetch_one(&mut *older)
        .await
        .unwrap();
    credit_once("behind").await.unwrap();
    let (entered_tx, entered) = tokio::sync::oneshot::channel();
    let (release, release_rx) = tokio::sync::oneshot::channel();
    let gated = Gated {
        entered: std::sync::Mutex::new(Some(entered_tx)),
        release: tokio::sync::Mutex::new(Some(release_rx)),
    };
    let projections: Vec<Arc<dyn Projection>> = vec![Arc::new(gated)];
    // Started after both commits: no wake of theirs reaches it.
    let live = Live::start_with(
        &db,
        Runner::new(db.any.clone(), Backend::Postgres, projections),
    );
    // The first pass read the first credit only and applies it now.
    entered.await.unwrap();
    older.rollback().await.unwrap();
    release.send(()).unwrap();
    main_becomes(
        &db,
        "during",
        dec!(2.00),
        "the commit behind the ended transaction was left to the poll",
    )
    .await;
    live.stop().await;
}

fn check_untouched(a: &[balances::BalanceRow], b: &[balances::BalanceRow]) {
    assert_eq!(a, b, "nothing applies while the runner is stopped");
}

/// `getbalance` right after a bet placed through another node: that node's
/// runner has not applied the stake yet, the answer already shows it.
async fn a_member_reads_their_own_writes_before_any_runner_applies_them(kind: StoreKind) {
    let db = testing::fresh(kind).await;
    let wallets = wallets(&db);
    let id = WalletId::new("reader", Currency::Cny);
    let run = |reference: &str, action| {
        wallets.execute(WalletCommand::new(
            id.clone(),
            reference.to_string(),
            action,
        ))
    };
    // Nothing written yet: no row either way.
    assert!(balances::get_current(&db.any, "reader", "CNY")
        .await
        .unwrap()
        .is_none());
    run("d1", credit(dec!(100.00))).await.unwrap();
    let current = balances::get_current(&db.any, "reader", "CNY")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        current.ledger.balances.main,
        dec!(100.00),
        "no row yet, folded from the stream"
    );
    let runner = runner(&db);
    runner.settle("balances", PATIENCE).await.unwrap();
    // The runner stopped here: a stake and a withdrawal land after it.
    run(
        "s1",
        WalletAction::ReserveStake {
            amount: dec!(20.00),
            pot: Pot::Main,
        },
    )
    .await
    .unwrap();
    run(
        "s1-take",
        WalletAction::TakeStake {
            reservation: "s1".into(),
        },
    )
    .await
    .unwrap();
    let stale = balances::get(&db.any, "reader", "CNY")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        stale.ledger.balances.main,
        dec!(100.00),
        "the read model lags"
    );
    let current = balances::get_current(&db.any, "reader", "CNY")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(current.ledger.balances.main, dec!(80.00));
    assert_eq!(current.ledger, wallets.replay(&id).await.unwrap().ledger);
    // Once applied, both reads agree.
    runner.settle("balances", PATIENCE).await.unwrap();
    assert_eq!(
        balances::get(&db.any, "reader", "CNY").await.unwrap(),
        balances::get_current(&db.any, "reader", "CNY")
            .await
            .unwrap()
    );
}

/// What a projection was given, event by event: position, aggregate type,
/// whether the payload came with it.
type Seen = Arc<std::sync::Mutex<Vec<(i64, String, bool)>>>;

struct Recorder {
    name: &'static str,
    types: &'static [&'static str],
    seen: Seen,
}

impl Projection for Recorder {
    fn name(&self) -> &'static str {
        self.name
    }
    fn aggregate_types(&self) -> &'static [&'static str] {
        self.types
    }
    fn apply<'a>(
        &'a self,
        _conn: &'a mut sqlx::AnyConnection,
        events: &'a [store::StoredEvent],
    ) -> futures::future::BoxFuture<'a, Result<(), projections::ProjectionError>> {
        let mut seen = self.seen.lock().unwrap();
        for e in events {
            seen.push((
                e.checkpoint.position,
                e.aggregate_type.clone(),
                e.payload.is_some(),
            ));
        }
        Box::pin(async { Ok(()) })
    }
    fn reset<'a>(
        &'a self,
        _conn: &'a mut sqlx::AnyConnection,
    ) -> futures::future::BoxFuture<'a, Result<(), projections::ProjectionError>> {
        Box::pin(async { Ok(()) })
    }
}

/// The live runner reads the stream once a pass for every projection (on
/// SQLite beside the writer, each projection's batch then in its writer
/// turn): each still gets every event exactly once, in order, with the
/// payloads of its own types only; a projection far behind the others
/// (new here) catches up alone while the others keep up with new commits.
async fn one_read_a_pass_serves_every_projection_its_own_types_and_one_far_behind_catches_up_alone(
    kind: StoreKind,
) {
    let db = testing::fresh(kind).await;
    let service = wallets(&db);
    let write = |from: usize, to: usize| {
        let service = &service;
        async move {
            for i in from..to {
                service
                    .execute(WalletCommand::new(
                        WalletId::new(format!("s{}", i % 4), Currency::Cny),
                        format!("shared-{i}"),
                        credit(dec!(1.00)),
                    ))
                    .await
                    .unwrap();
            }
        }
    };
    let positions = |db: &Db| {
        let any = db.any.clone();
        async move {
            let order = match kind {
                StoreKind::Postgres => "SELECT position FROM events ORDER BY tx_id, position",
                StoreKind::Sqlite => "SELECT position FROM events ORDER BY position",
            };
            sqlx::query_scalar::<_, i64>(order)
                .fetch_all(&any)
                .await
                .unwrap()
        }
    };
    let wallet_seen = Seen::default();
    let bet_seen = Seen::default();
    let late_seen = Seen::default();
    let recorder = |name, types, seen: &Seen| -> Arc<dyn Projection> {
        Arc::new(Recorder {
            name,
            types,
            seen: seen.clone(),
        })
    };
    let start = |projections: Vec<Arc<dyn Projection>>| {
        let (backend, turns) = match kind {
            StoreKind::Postgres => (Backend::Postgres, None),
            StoreKind::Sqlite => (Backend::Sqlite, Some(store::writer::WriterTurns::new())),
        };
        let live = Arc::new(
            Runner::new(db.any.clone(), backend, projections)
                .with_batch_size(7)
                .with_writer_lock(turns),
        );
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let running = tokio::spawn(live.clone().run(
            Duration::from_millis(30),
            Duration::from_millis(5),
            stopped,
        ));
        (live, stop, running)
    };
    let settled = |live: Arc<Runner>, names: Vec<&'static str>| async move {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let mut behind = 0;
            for name in &names {
                behind += live.lag(name).await.unwrap();
            }
            if behind == 0 {
                return;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{behind} events never applied"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    write(0, 40).await;
    let (live, stop, running) = start(vec![
        recorder("rec_wallet", &["Wallet"], &wallet_seen),
        recorder("rec_bet", &["Bet"], &bet_seen),
    ]);
    settled(live.clone(), vec!["rec_wallet", "rec_bet"]).await;
    stop.send(true).unwrap();
    running.await.unwrap();
    write(40, 60).await;
    // A third projection, new: its checkpoint is at the start.
    let (live, stop, running) = start(vec![
        recorder("rec_wallet", &["Wallet"], &wallet_seen),
        recorder("rec_late", &["Wallet"], &late_seen),
        recorder("rec_bet", &["Bet"], &bet_seen),
    ]);
    write(60, 90).await;
    settled(live.clone(), vec!["rec_wallet", "rec_bet", "rec_late"]).await;
    stop.send(true).unwrap();
    running.await.unwrap();
    let all = positions(&db).await;
    assert!(all.len() >= 90, "a credit is at least one event");
    for (seen, payloads) in [(&wallet_seen, true), (&bet_seen, false), (&late_seen, true)] {
        let seen = seen.lock().unwrap();
        let order: Vec<i64> = seen.iter().map(|(p, _, _)| *p).collect();
        assert_eq!(order, all, "every event once, in the stream's order");
        assert!(seen.iter().all(|(_, t, p)| t == "Wallet" && *p == payloads));
    }
}
