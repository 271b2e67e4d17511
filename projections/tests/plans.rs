//! Statements that run on every pass of the runner keep their cost to a
//! few index probes whatever the tables hold, with or without fresh
//! statistics (a new deployment, or a table that grew since autovacuum last
//! analysed it). Checked on Postgres's plans: a sequential scan there grows
//! with the table and is paid on every pass.

use sqlx::AnyPool;
use store::db::testing;

/// The plan's text, with `$1...` bound to `keys`.
async fn plan(pool: &AnyPool, sql: &str, keys: &[String]) -> String {
    let text = format!("EXPLAIN (FORMAT TEXT) {sql}");
    let mut query = sqlx::query_scalar::<_, String>(&text);
    for key in keys {
        query = query.bind(key.clone());
    }
    query.fetch_all(pool).await.unwrap().join("\n")
}

async fn fill_events(pool: &AnyPool, batch: &str, count: i64) {
    sqlx::query(
        "INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata)
         SELECT 'Plan', $1 || i, 1, 'Filled', '1', '{}', '{}' FROM generate_series(1, $2) AS i",
    )
    .bind(batch)
    .bind(count)
    .execute(pool)
    .await
    .unwrap();
}

/// `held_back` asks whether any event is past the horizon; it reads the
/// newest entry of the global-order index, never the table; so does the
/// first step of a pass's window read (the end of what is visible).
#[tokio::test]
async fn the_horizon_probe_reads_one_index_entry_whatever_the_events_table_holds() {
    let db = testing::fresh_postgres().await;
    // Statistics taken while the table was nearly empty, then growth.
    fill_events(&db.any, "a", 10).await;
    sqlx::query("ANALYZE events")
        .execute(&db.any)
        .await
        .unwrap();
    fill_events(&db.any, "b", 20_000).await;
    for analysed in [false, true] {
        if analysed {
            sqlx::query("ANALYZE events")
                .execute(&db.any)
                .await
                .unwrap();
        }
        // The horizon probe, and the end of a pass's window.
        for sql in [store::stream::HELD_BACK_SQL, store::stream::WINDOW_END_SQL] {
            let plan = plan(&db.any, sql, &[]).await;
            assert!(!plan.contains("Seq Scan"), "analysed {analysed}:\n{plan}");
            assert!(plan.contains("Backward"), "analysed {analysed}:\n{plan}");
        }
    }
    // And it answers: nothing is held back with no transaction open.
    let mut conn = db.any.acquire().await.unwrap();
    let held = store::stream::held_back(&mut conn, store::Backend::Postgres)
        .await
        .unwrap();
    assert!(!held);
}

/// The wallet-movements projection reads each wallet's newest movement at
/// or past its head with one backward probe of the key a wallet, however
/// many movements the wallets hold (a hash join over the whole table is
/// what the planner chose for a plain join, even with fresh statistics).
#[tokio::test]
async fn a_batch_reads_each_wallet_head_by_key_whatever_the_movements_table_holds() {
    let db = testing::fresh_postgres().await;
    sqlx::query(
        "INSERT INTO wallet_movements (wallet_id, sequence, member_id, currency, reference, event_type,
                                       kind, amount, balance_after, frozen_after, at_ms)
         SELECT 'm' || (i % 64) || ':CNY', i, 'm' || (i % 64), 'CNY', 'r' || i, 'Credited',
                'deposit', '1', '1', '0', 0
         FROM generate_series(1, 30000) AS i",
    )
    .execute(&db.any)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO wallet_heads (wallet_id, sequence, balance_after, frozen_after)
         SELECT wallet_id, max(sequence), '1', '0' FROM wallet_movements GROUP BY wallet_id",
    )
    .execute(&db.any)
    .await
    .unwrap();
    let keys: Vec<String> = (0..20).map(|i| format!("m{i}:CNY")).collect();
    let list: Vec<String> = (1..=keys.len()).map(|i| format!("${i}")).collect();
    let sql = projections::payments::HEADS_SQL_POSTGRES.replace("{}", &list.join(", "));
    for analysed in [false, true] {
        if analysed {
            sqlx::query("ANALYZE wallet_movements, wallet_heads")
                .execute(&db.any)
                .await
                .unwrap();
        }
        let plan = plan(&db.any, &sql, &keys).await;
        assert!(
            !plan.contains("Seq Scan on wallet_movements"),
            "analysed {analysed}:\n{plan}"
        );
        assert!(plan.contains("Backward"), "analysed {analysed}:\n{plan}");
    }
    // One row a wallet: its newest movement.
    let newest_sql = sql.replace(
        "SELECT w.wallet_id, w.sequence, w.balance_after, w.frozen_after",
        "SELECT w.wallet_id, w.sequence",
    );
    let mut query = sqlx::query_as::<_, (String, i64)>(&newest_sql);
    for key in &keys {
        query = query.bind(key.clone());
    }
    let mut rows = query.fetch_all(&db.any).await.unwrap();
    rows.sort();
    assert_eq!(rows.len(), 20);
    for (wallet, sequence) in rows {
        let n: i64 = wallet[1..wallet.len() - 4].parse().unwrap();
        let newest = (1..=30000i64).filter(|i| i % 64 == n).max().unwrap();
        assert_eq!(sequence, newest, "{wallet}");
    }
}
