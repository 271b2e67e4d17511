//! The store's connection pools: a connection in steady use is handed out
//! without a round trip to check it (see `commands::db::PING_WHEN_IDLE`;
//! BENCHMARKS.md measures what that saves); one that sat idle is checked first.

use std::time::Duration;

use commands::db::{testing, StorePool, PING_WHEN_IDLE};

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
        let killer = sqlx::PgPool::connect(&testing::postgres_url()).await.unwrap();
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
        assert_ne!(fresh, pid, "round {round}: a new connection, not the dead one");
        drop(conn);
        let one: i32 = sqlx::query_scalar("SELECT 1").fetch_one(pg).await.unwrap();
        assert_eq!(one, 1);
    }
}
