//! Shadow copies of a projection's tables for a rebuild without a gap.
//!
//! Postgres: a schema `<live schema>__rb_<name>` holds `CREATE TABLE ...
//! (LIKE live INCLUDING ALL)` copies; the rebuild's transactions run with
//! `SET LOCAL search_path` naming the shadow schema first, so the
//! projection's unqualified SQL writes the copies (and still finds shared
//! tables such as `projection_checkpoints` in the live schema). The swap
//! drops each live table and moves its copy in (`ALTER TABLE ... SET
//! SCHEMA`), in the transaction that hands over the checkpoint: readers see
//! the old table, then the new one, never a partial one.
//!
//! SQLite: TEMP tables of the same names on the rebuild's own connection
//! (SQLite resolves an unqualified name in `temp` before `main`); the swap
//! replaces the live rows with the copy's in one write transaction, which
//! readers (WAL) see all at once at commit.

use sqlx::{AnyConnection, Executor, Row};

use crate::runner::{Projection, ProjectionError};
use store::stream::Backend;

pub struct Shadow {
    backend: Backend,
    tables: Vec<String>,
    /// Postgres: the live schema, the shadow schema, the original path.
    live_schema: String,
    shadow_schema: String,
    original_path: String,
}

fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', ""))
}

impl Shadow {
    pub async fn create(
        conn: &mut AnyConnection,
        backend: Backend,
        projection: &dyn Projection,
    ) -> Result<Shadow, ProjectionError> {
        Self::create_as(conn, backend, projection, "rb").await
    }

    /// As `create`; `purpose` tells copies apart (`rb` a rebuild, `au` an
    /// audit's scratch replay), so both can run at once (Postgres; on
    /// SQLite each lives on its own connection anyway).
    pub async fn create_as(
        conn: &mut AnyConnection,
        backend: Backend,
        projection: &dyn Projection,
        purpose: &str,
    ) -> Result<Shadow, ProjectionError> {
        let tables: Vec<String> = projection.tables().iter().map(|t| t.to_string()).collect();
        match backend {
            Backend::Postgres => {
                let live: String = sqlx::query_scalar("SELECT current_schema()::text")
                    .fetch_one(&mut *conn)
                    .await?;
                let path: String = sqlx::query_scalar("SELECT current_setting('search_path')")
                    .fetch_one(&mut *conn)
                    .await?;
                let suffix = format!("__{purpose}_{}", projection.name());
                let keep = 63usize.saturating_sub(suffix.len()).min(live.len());
                let shadow = format!("{}{suffix}", &live[..keep]);
                conn.execute(
                    format!(
                        "DROP SCHEMA IF EXISTS {s} CASCADE; CREATE SCHEMA {s}",
                        s = ident(&shadow)
                    )
                    .as_str(),
                )
                .await?;
                for table in &tables {
                    conn.execute(
                        format!(
                            "CREATE TABLE {s}.{t} (LIKE {l}.{t} INCLUDING ALL)",
                            s = ident(&shadow),
                            l = ident(&live),
                            t = ident(table)
                        )
                        .as_str(),
                    )
                    .await?;
                    name_indexes_like(conn, &live, &shadow, table).await?;
                }
                Ok(Shadow {
                    backend,
                    tables,
                    live_schema: live,
                    shadow_schema: shadow,
                    original_path: path,
                })
            }
            Backend::Sqlite => {
                for table in &tables {
                    conn.execute(format!("DROP TABLE IF EXISTS temp.{}", ident(table)).as_str())
                        .await?;
                    let sql: Option<String> = sqlx::query_scalar(
                        "SELECT sql FROM main.sqlite_master WHERE type = 'table' AND name = $1",
                    )
                    .bind(table)
                    .fetch_optional(&mut *conn)
                    .await?;
                    let Some(sql) = sql else {
                        return Err(ProjectionError::Sql(sqlx::Error::Protocol(format!(
                            "no table {table} to rebuild"
                        ))));
                    };
                    conn.execute(temp_table(&sql).as_str()).await?;
                    let indexes = sqlx::query(
                        "SELECT sql FROM main.sqlite_master WHERE type = 'index' AND tbl_name = $1 AND sql IS NOT NULL",
                    )
                    .bind(table)
                    .fetch_all(&mut *conn)
                    .await?;
                    for row in indexes {
                        let sql: String = row.try_get("sql")?;
                        conn.execute(temp_index(&sql).as_str()).await?;
                    }
                }
                Ok(Shadow {
                    backend,
                    tables,
                    live_schema: String::new(),
                    shadow_schema: String::new(),
                    original_path: String::new(),
                })
            }
        }
    }

    /// What `SET LOCAL search_path` takes to find the copies first
    /// (Postgres); SQLite's TEMP tables need nothing.
    pub fn search_path(&self) -> Option<String> {
        match self.backend {
            Backend::Postgres => Some(format!(
                "{}, {}",
                ident(&self.shadow_schema),
                self.original_path
            )),
            Backend::Sqlite => None,
        }
    }

    /// Rows of the copy missing from the live table (`copy_only`) or the
    /// other way round: how many, and up to `sample` of them as JSON text.
    /// Inside the caller's transaction.
    pub async fn compare(
        &self,
        conn: &mut AnyConnection,
        table: &str,
        copy_only: bool,
        sample: i64,
    ) -> Result<(i64, Vec<String>), ProjectionError> {
        let (copy, live) = match self.backend {
            Backend::Postgres => (
                format!("{}.{}", ident(&self.shadow_schema), ident(table)),
                format!("{}.{}", ident(&self.live_schema), ident(table)),
            ),
            Backend::Sqlite => (
                format!("temp.{}", ident(table)),
                format!("main.{}", ident(table)),
            ),
        };
        let (a, b) = if copy_only {
            (copy, live)
        } else {
            (live, copy)
        };
        let except = format!("SELECT * FROM {a} EXCEPT SELECT * FROM {b}");
        let count: i64 = sqlx::query_scalar(&format!("SELECT count(*) FROM ({except}) x"))
            .fetch_one(&mut *conn)
            .await?;
        let as_json = match self.backend {
            Backend::Postgres => "row_to_json(x)::text".to_string(),
            Backend::Sqlite => {
                let columns = sqlx::query(&format!("PRAGMA main.table_info({})", ident(table)))
                    .fetch_all(&mut *conn)
                    .await?;
                let mut pairs = Vec::new();
                for c in &columns {
                    let name: String = c.try_get("name")?;
                    pairs.push(format!("'{}', x.{}", name.replace('\'', ""), ident(&name)));
                }
                format!("json_object({})", pairs.join(", "))
            }
        };
        let rows = sqlx::query(&format!(
            "SELECT {as_json} AS r FROM ({except}) x LIMIT {}",
            sample.clamp(0, 1000)
        ))
        .fetch_all(&mut *conn)
        .await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            out.push(row.try_get::<String, _>("r")?);
        }
        Ok((count, out))
    }

    pub fn tables(&self) -> &[String] {
        &self.tables
    }

    /// Puts the copies in place of the live tables, inside the caller's
    /// transaction.
    pub async fn swap(&self, conn: &mut AnyConnection) -> Result<(), ProjectionError> {
        for table in &self.tables {
            let sql = match self.backend {
                Backend::Postgres => format!(
                    "DROP TABLE {l}.{t}; ALTER TABLE {s}.{t} SET SCHEMA {l}",
                    l = ident(&self.live_schema),
                    s = ident(&self.shadow_schema),
                    t = ident(table)
                ),
                Backend::Sqlite => format!(
                    "DELETE FROM main.{t}; INSERT INTO main.{t} SELECT * FROM temp.{t}",
                    t = ident(table)
                ),
            };
            conn.execute(sql.as_str()).await?;
        }
        Ok(())
    }

    /// Removes what is left of the copies.
    pub async fn drop(&self, conn: &mut AnyConnection) -> Result<(), ProjectionError> {
        match self.backend {
            Backend::Postgres => {
                conn.execute(
                    format!(
                        "DROP SCHEMA IF EXISTS {} CASCADE",
                        ident(&self.shadow_schema)
                    )
                    .as_str(),
                )
                .await?;
            }
            Backend::Sqlite => {
                for table in &self.tables {
                    conn.execute(format!("DROP TABLE IF EXISTS temp.{}", ident(table)).as_str())
                        .await?;
                }
            }
        }
        Ok(())
    }
}

/// Gives the copy's indexes (named by Postgres after `LIKE ... INCLUDING
/// ALL`) the live indexes' names, so the swapped-in table keeps the names
/// migrations know.
async fn name_indexes_like(
    conn: &mut AnyConnection,
    live: &str,
    shadow: &str,
    table: &str,
) -> Result<(), ProjectionError> {
    let list = |schema: &str| {
        sqlx::query(
            "SELECT indexname::text AS name, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2",
        )
        .bind(schema.to_string())
        .bind(table.to_string())
    };
    let key = |def: &str| -> String {
        let unique = def.starts_with("CREATE UNIQUE");
        let body = def.split_once(" USING ").map(|(_, b)| b).unwrap_or(def);
        format!("{unique}:{body}")
    };
    let mut live_names = std::collections::HashMap::new();
    for row in list(live).fetch_all(&mut *conn).await? {
        let name: String = row.try_get("name")?;
        let def: String = row.try_get("indexdef")?;
        live_names.insert(key(&def), name);
    }
    for row in list(shadow).fetch_all(&mut *conn).await? {
        let name: String = row.try_get("name")?;
        let def: String = row.try_get("indexdef")?;
        if let Some(wanted) = live_names.get(&key(&def)) {
            if *wanted != name {
                conn.execute(
                    format!(
                        "ALTER INDEX {s}.{n} RENAME TO {w}",
                        s = ident(shadow),
                        n = ident(&name),
                        w = ident(wanted)
                    )
                    .as_str(),
                )
                .await?;
            }
        }
    }
    Ok(())
}

/// `CREATE TABLE x (...)` as `CREATE TEMP TABLE x (...)`.
fn temp_table(sql: &str) -> String {
    let trimmed = sql.trim_start();
    let upper = trimmed.to_ascii_uppercase();
    let rest = if upper.starts_with("CREATE TABLE") {
        &trimmed["CREATE TABLE".len()..]
    } else {
        trimmed
    };
    let rest = rest.trim_start();
    let rest = if rest.to_ascii_uppercase().starts_with("IF NOT EXISTS") {
        &rest["IF NOT EXISTS".len()..]
    } else {
        rest
    };
    format!("CREATE TEMP TABLE {}", rest.trim_start())
}

/// `CREATE [UNIQUE] INDEX [IF NOT EXISTS] i ON t (...)` as the same index
/// in `temp` (the table name then resolves in `temp` too).
fn temp_index(sql: &str) -> String {
    let upper = sql.to_ascii_uppercase();
    let Some(at) = upper.find("INDEX") else {
        return sql.to_string();
    };
    let mut cut = at + "INDEX".len();
    let after = &upper[cut..];
    let ws = after.len() - after.trim_start().len();
    cut += ws;
    if upper[cut..].starts_with("IF NOT EXISTS") {
        cut += "IF NOT EXISTS".len();
        let after = &upper[cut..];
        cut += after.len() - after.trim_start().len();
    }
    format!("{}temp.{}", &sql[..cut], &sql[cut..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_copies_are_temp_tables_and_indexes() {
        assert_eq!(
            temp_table("CREATE TABLE balances\n(a text)"),
            "CREATE TEMP TABLE balances\n(a text)"
        );
        assert_eq!(
            temp_table("CREATE TABLE IF NOT EXISTS bets (a)"),
            "CREATE TEMP TABLE bets (a)"
        );
        assert_eq!(
            temp_index("CREATE INDEX bets_member_time ON bets (member_id, date_time)"),
            "CREATE INDEX temp.bets_member_time ON bets (member_id, date_time)"
        );
        assert_eq!(
            temp_index("CREATE UNIQUE INDEX IF NOT EXISTS x ON t (a)"),
            "CREATE UNIQUE INDEX IF NOT EXISTS temp.x ON t (a)"
        );
    }
}
