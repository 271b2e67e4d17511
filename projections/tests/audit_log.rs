//! The tamper-evident log and poison events, on both stores: the database
//! refuses UPDATE and DELETE on events; `verify` finds an edited payload, a
//! deleted event, two swapped events and an inserted event (the tests
//! lift the refusal first, as an intruder with the owner's rights would);
//! a parked poison event lets the other events through, and an operator
//! retries or skips it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use commands::WalletService;
use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletId};
use domain::Currency;
use futures::future::BoxFuture;
use projections::balances::{self, BalanceProjection};
use projections::seal::{Sealer, SignedCheckpoint};
use projections::verify::{verify, DifferenceKind, VerifyReport};
use projections::{Backend, Projection, ProjectionError, Runner, StoredEvent};
use rust_decimal::Decimal;
use sqlx::AnyConnection;
use store::db::testing;
use store::{CommandMetrics, Db, RetryPolicy, StoreKind, StoreOptions};

const KEY: &[u8] = b"test-key";
const PATIENCE: Duration = Duration::from_secs(20);

fn backend(db: &Db) -> Backend {
    match db.kind() {
        StoreKind::Postgres => Backend::Postgres,
        StoreKind::Sqlite => Backend::Sqlite,
    }
}

fn wallets(db: &Db) -> WalletService {
    WalletService::new(
        db,
        StoreOptions::default(),
        RetryPolicy::default(),
        CommandMetrics::default(),
    )
}

/// `count` deposits spread over five wallets, each its own transaction.
async fn history(db: &Db, count: usize) {
    let wallets = wallets(db);
    for i in 0..count {
        let id = WalletId::new(format!("m{}", i % 5), Currency::Cny);
        let action = WalletAction::Credit {
            amount: Decimal::new(100 + i as i64, 2),
            pot: Pot::Main,
            kind: MovementKind::Deposit,
        };
        wallets
            .execute(WalletCommand::new(id, format!("d{i}"), action))
            .await
            .unwrap();
    }
}

/// A store with `count` deposits, all sealed (checkpoint every 7 events).
async fn sealed_store(kind: StoreKind, count: usize) -> (Db, Sealer) {
    let db = testing::fresh(kind).await;
    history(&db, count).await;
    let sealer = Sealer::new(backend(&db), KEY, 7).with_batch_size(13);
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        sealer.seal_all(&db.any).await.unwrap();
        let sealed: i64 = sqlx::query_scalar("SELECT count(*) FROM event_seals")
            .fetch_one(&db.any)
            .await
            .unwrap();
        let events: i64 = sqlx::query_scalar("SELECT count(*) FROM events")
            .fetch_one(&db.any)
            .await
            .unwrap();
        assert!(events as usize > count, "each wallet opened, then credited");
        if sealed >= events || tokio::time::Instant::now() > deadline {
            assert_eq!(sealed, events, "every event sealed");
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    (db, sealer)
}

async fn check(db: &Db) -> VerifyReport {
    verify(&db.any, backend(db), Some(KEY), &[], &|_, _| {})
        .await
        .unwrap()
}

/// Lifts the append-only refusal, as someone with the owner's rights can.
async fn lift_refusal(db: &Db) {
    match db.kind() {
        StoreKind::Postgres => {
            sqlx::raw_sql("ALTER TABLE events DISABLE TRIGGER events_append_only")
                .execute(&db.any)
                .await
                .unwrap();
        }
        StoreKind::Sqlite => {
            sqlx::raw_sql("DROP TRIGGER events_no_update; DROP TRIGGER events_no_delete")
                .execute(&db.any)
                .await
                .unwrap();
        }
    }
}

/// The position of the `n`-th event in the chain.
async fn sealed_position(db: &Db, n: i64) -> i64 {
    sqlx::query_scalar("SELECT position FROM event_seals WHERE chain_index = $1")
        .bind(n)
        .fetch_one(&db.any)
        .await
        .unwrap()
}

store::on_both_stores!(
    the_database_refuses_to_update_or_delete_events,
    an_untouched_log_verifies_with_its_signed_checkpoints,
    an_edited_payload_is_detected,
    a_deleted_event_is_detected,
    two_swapped_events_are_detected,
    an_inserted_event_is_detected,
    a_kept_checkpoint_that_no_longer_matches_is_detected,
    a_parked_poison_event_lets_the_other_events_through,
    the_live_pass_seals_from_its_shared_read_and_a_sealer_behind_catches_up_alone,
);

async fn the_database_refuses_to_update_or_delete_events(kind: StoreKind) {
    let (db, _) = sealed_store(kind, 10).await;
    for sql in [
        "UPDATE events SET payload = payload",
        "DELETE FROM events",
        "UPDATE event_seals SET hash = hash",
        "DELETE FROM event_seals",
        "DELETE FROM audit_checkpoints",
    ] {
        let refused = sqlx::query(sql).execute(&db.any).await;
        let text = refused.expect_err(sql).to_string();
        assert!(text.contains("append-only"), "{sql}: {text}");
    }
    if kind == StoreKind::Postgres {
        let refused = sqlx::query("TRUNCATE events").execute(&db.any).await;
        assert!(refused.is_err(), "TRUNCATE refused");
    }
    let count: i64 = sqlx::query_scalar("SELECT count(*) FROM events")
        .fetch_one(&db.any)
        .await
        .unwrap();
    assert_eq!(count, 15);
}

async fn an_untouched_log_verifies_with_its_signed_checkpoints(kind: StoreKind) {
    let (db, sealer) = sealed_store(kind, 30).await;
    let report = check(&db).await;
    assert!(report.first_difference.is_none(), "{report:?}");
    assert_eq!(report.checked, 35, "30 deposits, 5 wallets opened");
    assert_eq!(
        report.checkpoints_checked, 5,
        "checkpoints at 7, 14, 21, 28, 35"
    );
    // More events: sealed on the next pass, the chain goes on.
    history(&db, 4).await;
    let head = sealer.checkpoint_now(&db.any).await.unwrap().unwrap();
    assert!(head.chain_index >= 30);
    let kept = projections::seal::checkpoints(&db.any).await.unwrap();
    let report = verify(&db.any, backend(&db), Some(KEY), &kept, &|_, _| {})
        .await
        .unwrap();
    assert!(report.first_difference.is_none(), "{report:?}");
    // A wrong key fails the stored signatures.
    let report = verify(&db.any, backend(&db), Some(b"other"), &[], &|_, _| {})
        .await
        .unwrap();
    assert_eq!(
        report.first_difference.map(|d| d.kind),
        Some(DifferenceKind::Checkpoint)
    );
}

async fn an_edited_payload_is_detected(kind: StoreKind) {
    let (db, _) = sealed_store(kind, 20).await;
    // The first deposit from chain index 9 on goes to another pot.
    let (index, position): (i64, i64) = sqlx::query_as(
        "SELECT s.chain_index, s.position FROM event_seals s JOIN events e ON e.position = s.position
         WHERE s.chain_index >= 9 AND e.event_type = 'WalletCredited' ORDER BY s.chain_index LIMIT 1",
    )
    .fetch_one(&db.any)
    .await
    .unwrap();
    lift_refusal(&db).await;
    let sql = match kind {
        StoreKind::Postgres => {
            "UPDATE events SET payload = replace(payload::text, '\"main\"', '\"bonus\"')::json WHERE position = $1"
        }
        StoreKind::Sqlite => {
            "UPDATE events SET payload = replace(payload, '\"main\"', '\"bonus\"') WHERE position = $1"
        }
    };
    let changed = sqlx::query(sql)
        .bind(position)
        .execute(&db.any)
        .await
        .unwrap();
    assert_eq!(changed.rows_affected(), 1);
    let difference = check(&db).await.first_difference.expect("detected");
    assert_eq!(difference.kind, DifferenceKind::Edited);
    assert_eq!(
        (difference.chain_index, difference.position),
        (index, position)
    );
}

async fn a_deleted_event_is_detected(kind: StoreKind) {
    let (db, _) = sealed_store(kind, 20).await;
    let position = sealed_position(&db, 12).await;
    lift_refusal(&db).await;
    sqlx::query("DELETE FROM events WHERE position = $1")
        .bind(position)
        .execute(&db.any)
        .await
        .unwrap();
    let difference = check(&db).await.first_difference.expect("detected");
    assert_eq!(difference.kind, DifferenceKind::Deleted);
    assert_eq!(difference.chain_index, 12);
    // The last one too (nothing after it to stumble on).
    let (db, _) = sealed_store(kind, 20).await;
    let position = sealed_position(&db, 20).await;
    lift_refusal(&db).await;
    sqlx::query("DELETE FROM events WHERE position = $1")
        .bind(position)
        .execute(&db.any)
        .await
        .unwrap();
    let difference = check(&db).await.first_difference.expect("detected");
    assert_eq!(difference.kind, DifferenceKind::Deleted);
    assert_eq!(difference.chain_index, 20);
}

async fn two_swapped_events_are_detected(kind: StoreKind) {
    let (db, _) = sealed_store(kind, 20).await;
    let (a, b) = (
        sealed_position(&db, 5).await,
        sealed_position(&db, 11).await,
    );
    lift_refusal(&db).await;
    match kind {
        StoreKind::Postgres => {
            // Their commit order swapped, their content untouched.
            sqlx::query(
                "UPDATE events SET tx_id = CASE WHEN position = $1 THEN (SELECT tx_id FROM events WHERE position = $2)
                                              ELSE (SELECT tx_id FROM events WHERE position = $1) END
                 WHERE position IN ($1, $2)",
            )
            .bind(a)
            .bind(b)
            .execute(&db.any)
            .await
            .unwrap();
        }
        StoreKind::Sqlite => {
            for (from, to) in [(a, -1), (b, a), (-1, b)] {
                sqlx::query("UPDATE events SET position = $2 WHERE position = $1")
                    .bind(from)
                    .bind(to)
                    .execute(&db.any)
                    .await
                    .unwrap();
            }
        }
    }
    let difference = check(&db).await.first_difference.expect("detected");
    assert_eq!(difference.chain_index, 5, "{difference:?}");
    let expected = match kind {
        StoreKind::Postgres => DifferenceKind::Reordered,
        StoreKind::Sqlite => DifferenceKind::Edited,
    };
    assert_eq!(difference.kind, expected, "{difference:?}");
}

async fn an_inserted_event_is_detected(kind: StoreKind) {
    let (db, _) = sealed_store(kind, 20).await;
    let (before, after) = (sealed_position(&db, 6).await, sealed_position(&db, 7).await);
    let payload =
        r#"{"Credited":{"reference":"forged","pot":"main","amount":"500.00","kind":"deposit"}}"#;
    match kind {
        StoreKind::Postgres => {
            // Slipped in between chain 6 and 7: the commit order of 6.
            sqlx::query(
                "INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata, tx_id)
                 VALUES ('Wallet', 'm9:CNY', 1, 'Credited', '1.0', $1::json, '{}', (SELECT tx_id FROM events WHERE position = $2))",
            )
            .bind(payload)
            .bind(before)
            .execute(&db.any)
            .await
            .unwrap();
        }
        StoreKind::Sqlite => {
            // Room made between 6 and 7, then the forged event put there.
            let _ = after;
            lift_refusal(&db).await;
            let last: i64 = sqlx::query_scalar("SELECT max(position) FROM events")
                .fetch_one(&db.any)
                .await
                .unwrap();
            let mut p = last;
            while p > before {
                sqlx::query("UPDATE events SET position = $2 WHERE position = $1")
                    .bind(p)
                    .bind(p + 1)
                    .execute(&db.any)
                    .await
                    .unwrap();
                p -= 1;
            }
            sqlx::query(
                "INSERT INTO events (position, aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata)
                 VALUES ($1, 'Wallet', 'm9:CNY', 1, 'Credited', '1.0', $2, '{}')",
            )
            .bind(before + 1)
            .bind(payload)
            .execute(&db.any)
            .await
            .unwrap();
        }
    }
    let difference = check(&db).await.first_difference.expect("detected");
    assert_eq!(difference.chain_index, 7, "{difference:?}");
    assert!(
        matches!(
            difference.kind,
            DifferenceKind::Inserted | DifferenceKind::Edited
        ),
        "{difference:?}"
    );
    if kind == StoreKind::Postgres {
        assert_eq!(difference.kind, DifferenceKind::Inserted);
    }
}

async fn a_kept_checkpoint_that_no_longer_matches_is_detected(kind: StoreKind) {
    let (db, _) = sealed_store(kind, 10).await;
    let mut kept = projections::seal::checkpoints(&db.any).await.unwrap();
    assert_eq!(kept.len(), 2, "at 7 and 14 of 15 events");
    // What the auditor kept says another hash: the chain was rewritten.
    kept[0].hash = "00".repeat(32);
    let report = verify(&db.any, backend(&db), Some(KEY), &kept, &|_, _| {})
        .await
        .unwrap();
    let difference = report.first_difference.expect("detected");
    assert_eq!(difference.kind, DifferenceKind::Checkpoint);
    assert_eq!(difference.chain_index, 7);
    // A kept checkpoint past the chain's end: seals were removed.
    let beyond = SignedCheckpoint {
        chain_index: 50,
        position: 50,
        hash: "11".repeat(32),
        signature: String::new(),
    };
    let report = verify(&db.any, backend(&db), Some(KEY), &[beyond], &|_, _| {})
        .await
        .unwrap();
    assert_eq!(
        report.first_difference.map(|d| d.kind),
        Some(DifferenceKind::Checkpoint)
    );
}

/// The balances projection, failing on wallet `m2` while `broken` holds
/// (a bug fixed later).
struct Fragile {
    broken: Arc<AtomicBool>,
}

impl Projection for Fragile {
    fn name(&self) -> &'static str {
        balances::NAME
    }
    fn aggregate_types(&self) -> &'static [&'static str] {
        BalanceProjection.aggregate_types()
    }
    fn apply<'a>(
        &'a self,
        conn: &'a mut AnyConnection,
        events: &'a [StoredEvent],
    ) -> BoxFuture<'a, Result<(), ProjectionError>> {
        Box::pin(async move {
            if self.broken.load(Ordering::SeqCst) {
                if let Some(bad) = events.iter().find(|e| e.aggregate_id == "m2:CNY") {
                    return Err(ProjectionError::bad_event(bad, "cannot apply (bug)"));
                }
            }
            BalanceProjection.apply(conn, events).await
        })
    }
    fn reset<'a>(
        &'a self,
        conn: &'a mut AnyConnection,
    ) -> BoxFuture<'a, Result<(), ProjectionError>> {
        BalanceProjection.reset(conn)
    }
    fn tables(&self) -> &'static [&'static str] {
        BalanceProjection.tables()
    }
}

async fn a_parked_poison_event_lets_the_other_events_through(kind: StoreKind) {
    let db = testing::fresh(kind).await;
    history(&db, 25).await;
    // An event no projection can read, from code we do not see.
    sqlx::query(
        "INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata)
         VALUES ('Wallet', 'm7:CNY', 1, 'Mystery', '9.0', '{\"Mystery\":{}}', '{}')",
    )
    .execute(&db.any)
    .await
    .unwrap();
    history(&db, 5).await;
    let broken = Arc::new(AtomicBool::new(true));
    let projections: Vec<Arc<dyn Projection>> = vec![Arc::new(Fragile {
        broken: broken.clone(),
    })];
    let runner = Runner::new(db.any.clone(), backend(&db), projections).with_batch_size(8);
    runner.settle("balances", PATIENCE).await.unwrap();
    assert_eq!(
        runner.lag("balances").await.unwrap(),
        0,
        "the projection went on"
    );
    let parked = runner.parked(Some("open"), 100).await.unwrap();
    // m2's events (opened, its deposits) and the mystery event.
    let m2: i64 = sqlx::query_scalar("SELECT count(*) FROM events WHERE aggregate_id = 'm2:CNY'")
        .fetch_one(&db.any)
        .await
        .unwrap();
    assert!(m2 > 3);
    assert_eq!(parked.len() as i64, m2 + 1, "{parked:?}");
    assert!(parked
        .iter()
        .any(|p| p.event_type == "Mystery" && p.aggregate_id == "m7:CNY"));
    assert!(parked.iter().all(|p| !p.error.is_empty()));
    // Every other wallet is whole.
    let service = wallets(&db);
    for m in [0, 1, 3, 4] {
        let id = WalletId::new(format!("m{m}"), Currency::Cny);
        let row = balances::get(&db.any, &format!("m{m}"), "CNY")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            row.ledger,
            service.replay(&id).await.unwrap().ledger,
            "m{m}"
        );
    }
    assert!(balances::get(&db.any, "m2", "CNY").await.unwrap().is_none());
    let status = runner.status().await.unwrap();
    assert_eq!(status[0].parked, m2 + 1);
    // The mystery event still fails on retry, and is skipped.
    let mystery = parked.iter().find(|p| p.event_type == "Mystery").unwrap();
    assert!(runner.retry_parked(mystery.id, "admin").await.is_err());
    let skipped = runner.skip_parked(mystery.id, "admin").await.unwrap();
    assert_eq!(skipped.status, "skipped");
    assert!(
        runner.skip_parked(mystery.id, "admin").await.is_err(),
        "once"
    );
    // The bug fixed: retried in their order, m2's deposits apply.
    broken.store(false, Ordering::SeqCst);
    let mut m2: Vec<_> = parked
        .iter()
        .filter(|p| p.aggregate_id == "m2:CNY")
        .collect();
    m2.sort_by_key(|p| p.sequence);
    for p in m2 {
        assert_eq!(
            runner.retry_parked(p.id, "admin").await.unwrap().status,
            "applied"
        );
    }
    let id = WalletId::new("m2", Currency::Cny);
    let row = balances::get(&db.any, "m2", "CNY").await.unwrap().unwrap();
    assert_eq!(row.ledger, service.replay(&id).await.unwrap().ledger);
    assert!(runner.parked(Some("open"), 100).await.unwrap().is_empty());
}

/// The live runner seals the log from the read its projections share (one
/// read of the stream a pass, not two); a chain behind that read (here:
/// the projections caught up before any sealer ran) is sealed by the
/// sealer's own reads first. Either way every event is sealed once, in the
/// stream's order, and the log verifies with its signed checkpoints.
async fn the_live_pass_seals_from_its_shared_read_and_a_sealer_behind_catches_up_alone(
    kind: StoreKind,
) {
    let db = testing::fresh(kind).await;
    history(&db, 30).await;
    let projections = || -> Vec<Arc<dyn Projection>> { vec![Arc::new(BalanceProjection)] };
    let turns = || match kind {
        StoreKind::Sqlite => Some(store::writer::WriterTurns::new()),
        StoreKind::Postgres => None,
    };
    // The projection first, alone: the chain starts behind it.
    Runner::new(db.any.clone(), backend(&db), projections())
        .settle("balances", PATIENCE)
        .await
        .unwrap();
    let live = Arc::new(
        Runner::new(db.any.clone(), backend(&db), projections())
            .with_batch_size(9)
            .with_writer_lock(turns())
            .with_sealer(Sealer::new(backend(&db), KEY, 7).with_batch_size(5)),
    );
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let running = tokio::spawn(live.clone().run(
        Duration::from_millis(30),
        Duration::from_millis(5),
        stopped,
    ));
    let count = |sql: &'static str| {
        let any = db.any.clone();
        async move {
            sqlx::query_scalar::<_, i64>(sql)
                .fetch_one(&any)
                .await
                .unwrap()
        }
    };
    let settled = || async {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let events = count("SELECT count(*) FROM events").await;
            let sealed = count("SELECT count(*) FROM event_seals").await;
            if sealed == events && live.lag("balances").await.unwrap() == 0 {
                return events;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{sealed} of {events} events sealed"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    let before = settled().await;
    let sealer = live.sealer().unwrap();
    // Caught up: later commits are sealed from the shared read.
    let shared_before = sealer.sealed_from_shared_reads();
    history(&db, 40).await;
    let events = settled().await;
    assert!(
        sealer.sealed_from_shared_reads() - shared_before == (events - before) as u64,
        "every later event was sealed from the shared read, none read again"
    );
    stop.send(true).unwrap();
    running.await.unwrap();
    let order = match kind {
        StoreKind::Postgres => "SELECT position FROM events ORDER BY tx_id, position",
        StoreKind::Sqlite => "SELECT position FROM events ORDER BY position",
    };
    let stream: Vec<i64> = sqlx::query_scalar(order).fetch_all(&db.any).await.unwrap();
    let chain: Vec<(i64, i64)> =
        sqlx::query_as("SELECT chain_index, position FROM event_seals ORDER BY chain_index")
            .fetch_all(&db.any)
            .await
            .unwrap();
    assert_eq!(
        chain,
        (1..).zip(stream).collect::<Vec<_>>(),
        "each event once, in the stream's order"
    );
    let report = check(&db).await;
    assert!(report.first_difference.is_none(), "{report:?}");
    assert_eq!(report.checked as i64, events);
    assert_eq!(report.checkpoints_checked as i64, events / 7);
    // The balances match the wallets.
    let service = wallets(&db);
    for m in 0..5 {
        let id = WalletId::new(format!("m{m}"), Currency::Cny);
        let row = balances::get(&db.any, &format!("m{m}"), "CNY")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(row.ledger, service.replay(&id).await.unwrap().ledger);
    }
}
