//! The store's connection pools: a connection in steady use is handed out
//! without a round trip to check it (see `store::db::PING_WHEN_IDLE`;
//! BENCHMARKS.md measures what that saves); one that sat idle is checked first.

use std::time::Duration;

use store::db::{testing, StorePool, PING_WHEN_IDLE};

async fn backend_pid(conn: &mut sqlx::AnyConnection) -> i32 {
    sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(&mut *conn)
        .await
        .unwrap()
}

/// A pooled connection whose server process went away while it sat idle
/// (a Postgres restart, an idle timeout, an operator's kill) is found dead
/// before it is handed out, and the statement runs on a fresh one: the
/// caller never sees the dead connection.
#[tokio::test]
async fn a_connection_that_died_while_idle_is_replaced_before_it_is_used() {
    let db = testing::fresh_postgres().await;
    let StorePool::Postgres(pg) = &db.pool else {
        unreachable!("a Postgres store")
    };
    for round in 0..2 {
        // The Any pool (requests, projections) and the Postgres pool (the
        // event store) alike, each down to one idle connection.
        let mut conn = db.any.acquire().await.unwrap();
        let pid = backend_pid(&mut conn).await;
        drop(conn);
        let store_pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
            .fetch_one(pg)
            .await
            .unwrap();
        let killer = sqlx::PgPool::connect(&testing::postgres_url())
            .await
            .unwrap();
        for victim in [pid, store_pid] {
            let killed: bool = sqlx::query_scalar("SELECT pg_terminate_backend($1)")
                .bind(victim)
                .fetch_one(&killer)
                .await
                .unwrap();
            assert!(killed, "round {round}: backend {victim} terminated");
        }
        tokio::time::sleep(PING_WHEN_IDLE + Duration::from_millis(300)).await;
        let mut conn = db.any.acquire().await.unwrap();
        let fresh = backend_pid(&mut conn).await;
        assert_ne!(
            fresh, pid,
            "round {round}: a new connection, not the dead one"
        );
        drop(conn);
        let one: i32 = sqlx::query_scalar("SELECT 1").fetch_one(pg).await.unwrap();
        assert_eq!(one, 1);
    }
}

/// `Hot` keeps a connection between the statements of a hot path: the
/// next acquire gets the same one; at most `keep` are kept; one dropped
/// without `keep()` (an error, a cancelled request) is not kept; one kept
/// past `PING_WHEN_IDLE` is not used again unchecked (here it died
/// meanwhile, and the statement still runs).
#[tokio::test]
async fn a_hot_connection_is_kept_for_the_next_statement_and_checked_once_stale() {
    use store::db::Hot;
    let db = testing::fresh_postgres().await;
    let hot = Hot::new(db.any.clone(), 2);
    let mut conn = hot.acquire().await.unwrap();
    let pid = backend_pid(&mut conn).await;
    conn.keep();
    assert_eq!(hot.kept(), 1);
    for _ in 0..5 {
        let mut conn = hot.acquire().await.unwrap();
        assert_eq!(backend_pid(&mut conn).await, pid, "the kept connection");
        conn.keep();
    }
    // Three at once, all kept: two stay.
    let (mut a, mut b, mut c) = (
        hot.acquire().await.unwrap(),
        hot.acquire().await.unwrap(),
        hot.acquire().await.unwrap(),
    );
    for conn in [&mut a, &mut b, &mut c] {
        backend_pid(conn).await;
    }
    a.keep();
    b.keep();
    c.keep();
    assert_eq!(hot.kept(), 2);
    // Dropped without keep(): back to the pool, not kept.
    let taken = hot.acquire().await.unwrap();
    assert_eq!(hot.kept(), 1);
    drop(taken);
    assert_eq!(hot.kept(), 1);
    // The kept one dies and goes stale.
    let mut conn = hot.acquire().await.unwrap();
    let pid = backend_pid(&mut conn).await;
    conn.keep();
    let killer = sqlx::PgPool::connect(&testing::postgres_url())
        .await
        .unwrap();
    sqlx::query("SELECT pg_terminate_backend($1)")
        .bind(pid)
        .execute(&killer)
        .await
        .unwrap();
    tokio::time::sleep(PING_WHEN_IDLE + Duration::from_millis(300)).await;
    let mut conn = hot.acquire().await.unwrap();
    assert_ne!(backend_pid(&mut conn).await, pid);
    conn.keep();
}

/// One PRAGMA's value on `conn` (of either pool).
async fn pragma<'c, E, T>(conn: E, name: &str) -> T
where
    E: sqlx::Executor<'c>,
    T: Send + Unpin,
    (T,): for<'r> sqlx::FromRow<'r, <E::Database as sqlx::Database>::Row>,
    for<'q> <E::Database as sqlx::Database>::Arguments<'q>: sqlx::IntoArguments<'q, E::Database>,
{
    sqlx::query_scalar(&format!("PRAGMA {name}"))
        .fetch_one(conn)
        .await
        .unwrap()
}

/// Every SQLite connection, of either pool, keeps statement journals in
/// memory, a 32 MiB page cache and a memory map of the database file, and
/// syncs fully in WAL mode (a committed movement survives a power cut).
#[tokio::test]
async fn every_sqlite_connection_has_the_store_settings() {
    let db = testing::fresh_sqlite().await;
    let StorePool::Sqlite(typed) = &db.pool else {
        unreachable!("a SQLite store")
    };
    let mut conns = Vec::new();
    for _ in 0..3 {
        let mut conn = db.any.acquire().await.unwrap();
        let settings: (i64, i64, i64, i64, String) = (
            pragma(&mut *conn, "temp_store").await,
            pragma(&mut *conn, "cache_size").await,
            pragma(&mut *conn, "mmap_size").await,
            pragma(&mut *conn, "synchronous").await,
            pragma(&mut *conn, "journal_mode").await,
        );
        assert_eq!(settings, (2, -32768, 268435456, 2, "wal".to_string()));
        conns.push(conn);
    }
    let mut conn = typed.acquire().await.unwrap();
    let settings: (i64, i64, i64) = (
        pragma(&mut *conn, "temp_store").await,
        pragma(&mut *conn, "cache_size").await,
        pragma(&mut *conn, "mmap_size").await,
    );
    assert_eq!(settings, (2, -32768, 268435456));
}
