//! `api bench rebuild --events N [--store sqlite] [--batch B]`: builds a
//! fresh store of N wallet events (N/10 wallets x 10: opened, a deposit,
//! three stakes reserved and taken, a payout, a withdrawal) plus the bets
//! they pay for (three per wallet, each placed and settled: 6 bet events
//! per wallet), then in the same run measures
//!
//! - the raw ordered read of the events table to this client (Postgres:
//!   `COPY (SELECT * FROM events ORDER BY tx_id, position) TO STDOUT`;
//!   SQLite: `SELECT * FROM events ORDER BY position` read row by row),
//! - sealing the log (hash chain), `audit verify`,
//! - each projection's rebuild (shadow copy, swap),
//!
//! and prints events/s and the ratio to the raw read. Each wallet's events
//! are appended together (a member's session), wallet after wallet.

use std::time::Instant;

use anyhow::{bail, Context};
use cqrs_es::DomainEvent;
use domain::bet::{AcceptMode, BetEvent, BetStatus, ExpressBonus};
use domain::result::SelectionOutcome;
use domain::wallet::{MovementKind, Pot, WalletEvent, WalletId};
use domain::Currency;
use futures::TryStreamExt;
use projections::{Backend, Runner};
use rust_decimal::Decimal;
use store::db::testing::postgres_url;
use store::Db;

struct Args {
    /// Postgres: the URL and schema for the psql read.
    psql: Option<(String, String)>,
    events: u64,
    sqlite: bool,
    batch: i64,
    only: Vec<String>,
}

/// `api bench rebuild` options.
#[derive(Debug, Clone, clap::Args)]
pub struct Options {
    /// Events to write before measuring.
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(10..=20_000_000))]
    pub events: u64,
    /// The store to measure.
    #[arg(long, default_value = "postgres", value_parser = ["postgres", "sqlite"])]
    pub store: String,
    /// Events per projection batch.
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(i64).range(1..=1_000_000))]
    pub batch: i64,
    /// Only these projections (comma-separated names).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
}

fn parse(options: Options) -> Args {
    Args {
        psql: None,
        events: options.events,
        sqlite: options.store == "sqlite",
        batch: options.batch,
        only: options.only,
    }
}

/// One row of the events table.
struct Row {
    aggregate_type: &'static str,
    aggregate_id: String,
    sequence: i64,
    event_type: String,
    payload: String,
}

fn wallet_row(id: &str, sequence: i64, event: WalletEvent) -> Row {
    Row {
        aggregate_type: "Wallet",
        aggregate_id: id.to_string(),
        sequence,
        event_type: event.event_type(),
        payload: serde_json::to_string(&event).expect("json"),
    }
}

/// The events of wallet `w` and its bets, in append order.
fn member_rows(w: u64, bet_template: &domain::bet::ValidBet) -> Vec<Row> {
    let member = format!("m{w}");
    let wallet = WalletId::new(&member, Currency::Cny).to_string();
    let stake = Decimal::new(1000, 2);
    let mut rows = Vec::with_capacity(16);
    let mut seq = 0;
    let mut next = |rows: &mut Vec<Row>, event: WalletEvent| {
        seq += 1;
        rows.push(wallet_row(&wallet, seq, event));
    };
    next(
        &mut rows,
        WalletEvent::Opened {
            member_id: member.clone(),
            currency: Currency::Cny,
        },
    );
    next(
        &mut rows,
        WalletEvent::Credited {
            reference: format!("dep:{w}"),
            pot: Pot::Main,
            amount: Decimal::new(100_000, 2),
            kind: MovementKind::Deposit,
        },
    );
    for b in 0..3u64 {
        let bet_id = (w * 3 + b + 1_000_001).to_string();
        let reference = format!("bet:{bet_id}");
        next(
            &mut rows,
            WalletEvent::StakeReserved {
                reference: format!("{reference}:reserve"),
                pot: Pot::Main,
                amount: stake,
            },
        );
        let mut bet = bet_template.clone();
        bet.stake = stake;
        let placed = BetEvent::BetPlaced {
            bet_id: bet_id.clone(),
            member_id: member.clone(),
            currency: Currency::Cny,
            request_id: format!("r{bet_id}"),
            bet,
            express_bonus: ExpressBonus::None,
            status: BetStatus::Unsettled,
            date_time: 1_700_000_000 + w as i64,
            at_ms: 1_700_000_000_000 + w as i64,
            cash_out: Some(true),
        };
        rows.push(Row {
            aggregate_type: "Bet",
            aggregate_id: bet_id.clone(),
            sequence: 1,
            event_type: placed.event_type(),
            payload: serde_json::to_string(&placed).expect("json"),
        });
        next(
            &mut rows,
            WalletEvent::StakeTaken {
                reference: format!("{reference}:take"),
                reservation: format!("{reference}:reserve"),
                amount: stake,
            },
        );
        let won = b == 0;
        let settled = BetEvent::BetSettled {
            member_id: member.clone(),
            currency: Currency::Cny,
            status: if won { BetStatus::Won } else { BetStatus::Lost },
            payout: if won {
                stake * Decimal::from(2)
            } else {
                Decimal::ZERO
            },
            bonus: Decimal::ZERO,
            result_version: 1,
            outcomes: [(
                1u64,
                if won {
                    SelectionOutcome::Won
                } else {
                    SelectionOutcome::Lost
                },
            )]
            .into(),
            sp_prices: Default::default(),
            at_ms: 1_700_000_100_000 + w as i64,
        };
        rows.push(Row {
            aggregate_type: "Bet",
            aggregate_id: bet_id.clone(),
            sequence: 2,
            event_type: settled.event_type(),
            payload: serde_json::to_string(&settled).expect("json"),
        });
        if won {
            next(
                &mut rows,
                WalletEvent::PaidOut {
                    reference: format!("{reference}:settle:1"),
                    pot: Pot::Main,
                    amount: stake * Decimal::from(2),
                },
            );
        }
    }
    next(
        &mut rows,
        WalletEvent::Debited {
            reference: format!("wd:{w}"),
            pot: Pot::Main,
            amount: Decimal::new(10_000, 2),
            kind: MovementKind::Withdrawal,
        },
    );
    rows
}

/// COPY text format: backslash, tab, newline and carriage return escaped.
fn copy_text(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

async fn fill(db: &Db, wallets: u64) -> anyhow::Result<u64> {
    let template = domain::bet::fixtures::straight_bet(
        AcceptMode::NoChanges,
        Decimal::new(1000, 2),
        1,
        &[Decimal::from(2)],
    );
    let mut total = 0u64;
    const CHUNK: u64 = 5_000;
    let mut w = 0;
    while w < wallets {
        let end = (w + CHUNK).min(wallets);
        let rows: Vec<Row> = (w..end).flat_map(|w| member_rows(w, &template)).collect();
        total += rows.len() as u64;
        match &db.pool {
            store::db::StorePool::Postgres(pool) => {
                let mut buffer = String::with_capacity(rows.len() * 400);
                for r in &rows {
                    buffer.push_str(r.aggregate_type);
                    buffer.push('\t');
                    copy_text(&mut buffer, &r.aggregate_id);
                    buffer.push('\t');
                    buffer.push_str(&r.sequence.to_string());
                    buffer.push('\t');
                    copy_text(&mut buffer, &r.event_type);
                    buffer.push_str("\t1.0\t");
                    copy_text(&mut buffer, &r.payload);
                    buffer.push_str("\t{}\n");
                }
                let mut conn = pool.acquire().await?;
                let mut copy = conn
                    .copy_in_raw(
                        "COPY events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata) FROM STDIN",
                    )
                    .await?;
                copy.send(buffer.into_bytes()).await?;
                copy.finish().await?;
            }
            store::db::StorePool::Sqlite(pool) => {
                let mut tx = pool.begin().await?;
                for chunk in rows.chunks(1000) {
                    let values: Vec<String> = (0..chunk.len())
                        .map(|i| {
                            let b = i * 5;
                            format!(
                                "(${}, ${}, ${}, ${}, '1.0', ${}, '{{}}')",
                                b + 1,
                                b + 2,
                                b + 3,
                                b + 4,
                                b + 5
                            )
                        })
                        .collect();
                    let sql = format!(
                        "INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata) VALUES {}",
                        values.join(", ")
                    );
                    let mut query = sqlx::query(&sql);
                    for r in chunk {
                        query = query
                            .bind(r.aggregate_type)
                            .bind(&r.aggregate_id)
                            .bind(r.sequence)
                            .bind(&r.event_type)
                            .bind(&r.payload);
                    }
                    query.execute(&mut *tx).await?;
                }
                tx.commit().await?;
            }
        }
        w = end;
    }
    Ok(total)
}

/// The raw ordered read of the events table to this client; returns
/// (rows, bytes).
async fn raw_read(db: &Db) -> anyhow::Result<(u64, u64)> {
    match &db.pool {
        store::db::StorePool::Postgres(pool) => {
            let mut conn = pool.acquire().await?;
            let mut stream = conn
                .copy_out_raw("COPY (SELECT * FROM events ORDER BY tx_id, position) TO STDOUT")
                .await?;
            let (mut bytes, mut rows) = (0u64, 0u64);
            while let Some(chunk) = stream.try_next().await? {
                bytes += chunk.len() as u64;
                rows += chunk.iter().filter(|b| **b == b'\n').count() as u64;
            }
            Ok((rows, bytes))
        }
        store::db::StorePool::Sqlite(pool) => {
            use sqlx::Row as _;
            let mut stream = sqlx::query("SELECT * FROM events ORDER BY position").fetch(pool);
            let (mut bytes, mut rows) = (0u64, 0u64);
            while let Some(row) = stream.try_next().await? {
                let payload: &str = row.try_get("payload")?;
                let metadata: &str = row.try_get("metadata")?;
                let id: &str = row.try_get("aggregate_id")?;
                bytes += (payload.len() + metadata.len() + id.len()) as u64;
                rows += 1;
            }
            Ok((rows, bytes))
        }
    }
}

pub async fn run(options: Options) -> anyhow::Result<()> {
    let mut args = parse(options);
    if args.sqlite {
        let path = std::env::temp_dir().join(format!("bench-rebuild-{}.db", std::process::id()));
        let db = Db::connect(&store::db::DbUrl::Sqlite(path.clone())).await?;
        let result = bench(&db, &args, Backend::Sqlite).await;
        db.close().await;
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        return result;
    }
    let url = std::env::var("DATABASE_URL").unwrap_or_else(|_| postgres_url());
    if !url.starts_with("postgres") {
        bail!("the rebuild benchmark runs on Postgres (DATABASE_URL={url}) or with --store sqlite");
    }
    let admin = sqlx::PgPool::connect(&url).await.context("connect")?;
    let schema = crate::bench::fresh_schema(&admin, "bench_rb").await?;
    let db = Db::open_postgres(&url, Some(&schema)).await?;
    args.psql = Some((url.clone(), schema.clone()));
    let result = bench(&db, &args, Backend::Postgres).await;
    db.close().await;
    sqlx::raw_sql(&format!(
        "DROP SCHEMA IF EXISTS {schema} CASCADE; DROP SCHEMA IF EXISTS {schema}__rb_balances CASCADE; DROP SCHEMA IF EXISTS {schema}__rb_bets CASCADE; DROP SCHEMA IF EXISTS {schema}__rb_settlement CASCADE; DROP SCHEMA IF EXISTS {schema}__rb_auto_cashout CASCADE"
    ))
    .execute(&admin)
    .await?;
    result
}

/// The same ordered read through `psql` (its COPY to its stdout, thrown
/// away): the limit without this program's client in the way.
async fn psql_read(url: &str, schema: &str) -> anyhow::Result<f64> {
    let parts = crate::bench::url_parts(url)?;
    let started = Instant::now();
    let status = tokio::process::Command::new("psql")
        .args([
            "-X",
            "-q",
            "-h",
            parts.host,
            "-p",
            &parts.port.to_string(),
            "-U",
            parts.user,
            "-d",
            parts.database,
        ])
        .args([
            "-c",
            "COPY (SELECT * FROM events ORDER BY tx_id, position) TO STDOUT",
        ])
        .env("PGOPTIONS", format!("-csearch_path={schema}"))
        .stdout(std::process::Stdio::null())
        .status()
        .await
        .context("running psql (apt-get install postgresql-client)")?;
    if !status.success() {
        bail!("psql COPY failed");
    }
    Ok(started.elapsed().as_secs_f64())
}

async fn bench(db: &Db, args: &Args, backend: Backend) -> anyhow::Result<()> {
    db.migrate().await?;
    let wallets = args.events / 10;
    let started = Instant::now();
    let total = fill(db, wallets).await?;
    if let store::db::StorePool::Postgres(pool) = &db.pool {
        sqlx::query("ANALYZE events").execute(pool).await?;
    }
    println!(
        "store: {} ({} wallets x 10 wallet events + {} bet events = {total} events), written in {:.1} s",
        if args.sqlite { "sqlite" } else { "postgres" },
        wallets,
        wallets * 6,
        started.elapsed().as_secs_f64()
    );
    let started = Instant::now();
    let (rows, bytes) = raw_read(db).await?;
    let mut raw_s = started.elapsed().as_secs_f64();
    println!(
        "raw ordered read (COPY TO this client): {rows} events, {:.0} MB in {raw_s:.2} s = {:.0} events/s",
        bytes as f64 / 1e6,
        rows as f64 / raw_s
    );
    if let Some((url, schema)) = &args.psql {
        let psql_s = psql_read(url, schema).await?;
        println!(
            "raw ordered read (COPY TO psql): {rows} events in {psql_s:.2} s = {:.0} events/s",
            rows as f64 / psql_s
        );
        raw_s = raw_s.min(psql_s);
    }
    let raw_rate = rows as f64 / raw_s;
    println!("limit: the faster raw read, {raw_rate:.0} events/s");
    let line = |what: &str, seconds: f64| {
        let rate = total as f64 / seconds;
        println!(
            "{what:>24}: {seconds:7.2} s = {rate:9.0} events/s, ratio {:.2} of the raw read",
            rate / raw_rate
        );
    };
    let sealer = projections::seal::Sealer::new(backend, b"bench".to_vec(), 10_000)
        .with_batch_size(args.batch);
    let wants = |name: &str| args.only.is_empty() || args.only.iter().any(|o| o == name);
    if wants("seal") || wants("verify") {
        let started = Instant::now();
        sealer.seal_all(&db.any).await?;
        line("seal (hash chain)", started.elapsed().as_secs_f64());
        let started = Instant::now();
        let report =
            projections::verify::verify(&db.any, backend, Some(b"bench"), &[], &|_, _| {}).await?;
        line("audit verify", started.elapsed().as_secs_f64());
        if let Some(d) = report.first_difference {
            bail!("verify found a difference in a fresh store: {d:?}");
        }
    }
    let runner = Runner::new(db.any.clone(), backend, crate::app::projections())
        .with_rebuild_batch_size(args.batch);
    for name in runner.names() {
        if !wants(name) {
            continue;
        }
        let started = Instant::now();
        runner.rebuild(name, &|_, _| {}).await?;
        line(&format!("rebuild {name}"), started.elapsed().as_secs_f64());
    }
    let balances: i64 = sqlx::query_scalar("SELECT count(*) FROM balances")
        .fetch_one(&db.any)
        .await?;
    let bets: i64 = sqlx::query_scalar("SELECT count(*) FROM bets")
        .fetch_one(&db.any)
        .await?;
    println!("read models: {balances} balances, {bets} bets");
    Ok(())
}
