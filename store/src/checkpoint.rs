//! Checkpoints: where a reader of the global stream stands (table
//! `projection_checkpoints`). Projections, the sealer and the process
//! managers that follow the stream keep theirs here, committed in the
//! transaction of the change they made.

use sqlx::{AnyConnection, Row};

use crate::stream::Checkpoint;

/// Locks the checkpoint row first, so the transaction holds its lock
/// before it reads anything, and returns where the projection stands. On
/// Postgres a row that exists is locked with `FOR UPDATE`, which writes
/// nothing (the runner's passes did an upsert each, a new row version a
/// pass per projection); a missing row, and SQLite (where the write takes
/// the database's write lock up front), go through the upsert.
pub async fn lock_checkpoint(
    conn: &mut AnyConnection,
    name: &str,
) -> Result<Checkpoint, sqlx::Error> {
    if conn.backend_name() == "PostgreSQL" {
        let row = sqlx::query(
            "SELECT tx_id, position FROM projection_checkpoints WHERE name = $1 FOR UPDATE",
        )
        .bind(name)
        .fetch_optional(&mut *conn)
        .await?;
        if let Some(row) = row {
            return Ok(Checkpoint {
                tx_id: row.try_get("tx_id")?,
                position: row.try_get("position")?,
            });
        }
    }
    sqlx::query(
        "INSERT INTO projection_checkpoints (name, tx_id, position, updated_at) VALUES ($1, 0, 0, '')
         ON CONFLICT (name) DO UPDATE SET updated_at = projection_checkpoints.updated_at",
    )
    .bind(name)
    .execute(&mut *conn)
    .await?;
    read_checkpoint(conn, name).await
}

/// The checkpoints of `names` in one read (a missing one is absent).
pub async fn read_checkpoints(
    conn: &mut AnyConnection,
    names: &[&str],
) -> Result<std::collections::HashMap<String, Checkpoint>, sqlx::Error> {
    let marks: Vec<String> = (1..=names.len()).map(|i| format!("${i}")).collect();
    let sql = format!(
        "SELECT name, tx_id, position FROM projection_checkpoints WHERE name IN ({})",
        marks.join(", ")
    );
    let mut query = sqlx::query(&sql);
    for name in names {
        query = query.bind(*name);
    }
    let rows = query.fetch_all(&mut *conn).await?;
    rows.iter()
        .map(|row| {
            Ok((
                row.try_get("name")?,
                Checkpoint {
                    tx_id: row.try_get("tx_id")?,
                    position: row.try_get("position")?,
                },
            ))
        })
        .collect()
}

pub async fn read_checkpoint(
    conn: &mut AnyConnection,
    name: &str,
) -> Result<Checkpoint, sqlx::Error> {
    let row = sqlx::query("SELECT tx_id, position FROM projection_checkpoints WHERE name = $1")
        .bind(name)
        .fetch_optional(&mut *conn)
        .await?;
    Ok(match row {
        Some(row) => Checkpoint {
            tx_id: row.try_get("tx_id")?,
            position: row.try_get("position")?,
        },
        None => Checkpoint::default(),
    })
}

pub async fn save_checkpoint(
    conn: &mut AnyConnection,
    name: &str,
    at: Checkpoint,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE projection_checkpoints SET tx_id = $2, position = $3, updated_at = $4 WHERE name = $1",
    )
    .bind(name)
    .bind(at.tx_id)
    .bind(at.position)
    .bind(now_text())
    .execute(&mut *conn)
    .await?;
    Ok(())
}

pub fn now_text() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    format!("{}.{:03}", now.as_secs(), now.subsec_millis())
}
