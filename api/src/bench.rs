//! `api bench wallet`: wallet debit commands per second through the CQRS
//! framework on Postgres, next to what `pgbench` reaches on the same
//! database for a transaction inserting two event rows, in the same run.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use commands::WalletService;
use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletId};
use domain::Currency;
use rust_decimal::Decimal;
use store::db::testing::postgres_url;
use store::{CommandMetrics, Db, RetryPolicy, StoreOptions};

/// `api bench wallet` options.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Concurrent clients (and pgbench clients).
    #[arg(long, default_value_t = 16, value_parser = clients)]
    pub clients: usize,
    /// Seconds each side runs.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub seconds: u64,
}

/// 1 to 1024 clients.
pub fn clients(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=1024).contains(&n) => Ok(n),
        _ => Err("a number from 1 to 1024".into()),
    }
}

pub async fn wallet(args: Args) -> anyhow::Result<()> {
    let url = std::env::var("DATABASE_URL").unwrap_or_else(|_| postgres_url());
    if !url.starts_with("postgres") {
        bail!("the wallet benchmark runs on Postgres (DATABASE_URL={url})");
    }
    let admin = sqlx::PgPool::connect(&url).await.context("connect")?;
    let schema = fresh_schema(&admin, "bench").await?;
    let result = run(&url, &schema, &args).await;
    sqlx::query(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"))
        .execute(&admin)
        .await?;
    result
}

async fn run(url: &str, schema: &str, args: &Args) -> anyhow::Result<()> {
    let db = Db::open_postgres(url, Some(schema)).await?;
    db.migrate().await?;
    println!(
        "wallet benchmark: {} clients, {} s each, Postgres schema {schema}",
        args.clients, args.seconds
    );
    let pgbench = pgbench(url, schema, args).await?;
    println!("pgbench (2 event-row inserts per transaction): {pgbench:.0} tx/s");
    let (rate, p50, p99) = debits(&db, args).await?;
    println!("wallet debit commands through CqrsFramework: {rate:.0} commands/s (p50 {p50:.2} ms, p99 {p99:.2} ms)");
    println!("ratio: {:.2} of the pgbench limit", rate / pgbench);
    load_times(&db).await?;
    db.close().await;
    Ok(())
}

/// How long a wallet with thousands of events takes to load without the
/// in-process cache: from its snapshot plus later events, and from all events.
async fn load_times(db: &Db) -> anyhow::Result<()> {
    let service = WalletService::new(
        db,
        StoreOptions::default(),
        RetryPolicy::default(),
        CommandMetrics::default(),
    );
    let wallet = WalletId::new("bench0", Currency::Cny);
    let events = service
        .events(&wallet)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .len();
    let timed = |started: Instant| started.elapsed().as_secs_f64() * 1e3;
    let started = Instant::now();
    let from_snapshot = service
        .load(&wallet)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let snapshot_ms = timed(started);
    let started = Instant::now();
    let replayed = service
        .replay(&wallet)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let replay_ms = timed(started);
    if from_snapshot != replayed {
        bail!("snapshot load differs from replay");
    }
    println!(
        "loading a wallet of {events} events without cache: {snapshot_ms:.1} ms from snapshot + later events, {replay_ms:.1} ms from all events"
    );
    Ok(())
}

async fn debits(db: &Db, args: &Args) -> anyhow::Result<(f64, f64, f64)> {
    let service = Arc::new(WalletService::new(
        db,
        StoreOptions::default(),
        RetryPolicy::default(),
        CommandMetrics::default(),
    ));
    let debit = WalletAction::Debit {
        amount: Decimal::new(1, 2),
        pot: Pot::Main,
        kind: MovementKind::GameDebit,
    };
    for client in 0..args.clients {
        let wallet = WalletId::new(format!("bench{client}"), Currency::Cny);
        let seed = WalletAction::Credit {
            amount: Decimal::new(100_000_000, 2),
            pot: Pot::Main,
            kind: MovementKind::Deposit,
        };
        service
            .execute(WalletCommand::new(wallet, "seed", seed))
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for client in 0..args.clients {
        let (service, stop, debit) = (service.clone(), stop.clone(), debit.clone());
        tasks.push(tokio::spawn(async move {
            let wallet = WalletId::new(format!("bench{client}"), Currency::Cny);
            let mut latencies = Vec::new();
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let t = Instant::now();
                let command = WalletCommand::new(wallet.clone(), format!("d{n}"), debit.clone());
                service.execute(command).await.map_err(|e| e.to_string())?;
                latencies.push(t.elapsed());
                n += 1;
            }
            Ok::<_, String>(latencies)
        }));
    }
    tokio::time::sleep(Duration::from_secs(args.seconds)).await;
    stop.store(true, Ordering::Relaxed);
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await?.map_err(|e| anyhow::anyhow!(e))?);
    }
    let elapsed = started.elapsed().as_secs_f64();
    all.sort();
    let pick =
        |q: f64| all[((all.len() as f64 * q) as usize).min(all.len() - 1)].as_secs_f64() * 1e3;
    Ok((all.len() as f64 / elapsed, pick(0.5), pick(0.99)))
}

/// A fresh schema `{prefix}_{pid}` for a benchmark run, after dropping
/// the schemas runs that were killed midway left behind (a `bench_*`
/// schema whose process is gone).
pub(crate) async fn fresh_schema(admin: &sqlx::PgPool, prefix: &str) -> anyhow::Result<String> {
    let names: Vec<String> =
        sqlx::query_scalar("SELECT nspname::text FROM pg_namespace WHERE nspname LIKE 'bench%'")
            .fetch_all(admin)
            .await?;
    for name in names {
        let pid = name
            .trim_end_matches("_pgbench")
            .rsplit('_')
            .next()
            .and_then(|p| p.parse::<u32>().ok());
        let abandoned = pid.is_some_and(|pid| {
            pid != std::process::id() && !std::path::Path::new(&format!("/proc/{pid}")).exists()
        });
        if abandoned {
            sqlx::raw_sql(&format!("DROP SCHEMA IF EXISTS \"{name}\" CASCADE"))
                .execute(admin)
                .await?;
        }
    }
    let schema = format!("{prefix}_{}", std::process::id());
    sqlx::raw_sql(&format!(
        "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"
    ))
    .execute(admin)
    .await?;
    Ok(schema)
}

/// Waits (up to 15 s) until Postgres has room for `clients` more
/// connections: a benchmark started right after another finds the last
/// one's connections still closing, and pgbench would fail with "too many
/// clients already".
async fn room_for(admin: &sqlx::PgPool, clients: usize) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        // Client connections only: Postgres's own processes (checkpointer,
        // autovacuum, WAL writer) are listed too but take no slot; the
        // slots reserved for superusers are not pgbench's to take.
        let (max, used): (i64, i64) = sqlx::query_as(
            "SELECT current_setting('max_connections')::bigint
                      - current_setting('superuser_reserved_connections')::bigint,
                    (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::bigint",
        )
        .fetch_one(admin)
        .await?;
        // Room for pgbench's clients beside the server's pools, which
        // are already open.
        let free = max - used;
        if free >= clients as i64 + 2 {
            return Ok(());
        }
        if Instant::now() >= deadline {
            bail!(
                "Postgres has {free} free connections of max_connections = {max}; pgbench needs {}: \
                 close other sessions or lower --clients",
                clients + 2
            );
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// The pgbench rate of a transaction inserting two event rows into a copy
/// of `schema`'s events table (same columns, defaults and indexes; the
/// table has no insert trigger) in a schema of its own, so that the server
/// under test, already running on `schema`, neither seals nor reads
/// pgbench's rows, during pgbench or after it.
pub(crate) async fn pgbench(url: &str, schema: &str, args: &Args) -> anyhow::Result<f64> {
    let copy = format!("{schema}_pgbench");
    let admin = sqlx::PgPool::connect(url).await?;
    sqlx::raw_sql(&format!(
        "DROP SCHEMA IF EXISTS {copy} CASCADE; CREATE SCHEMA {copy};
         CREATE TABLE {copy}.events (LIKE {schema}.events INCLUDING ALL)"
    ))
    .execute(&admin)
    .await?;
    room_for(&admin, args.clients).await?;
    let rate = pgbench_into(url, &copy, args).await;
    sqlx::raw_sql(&format!("DROP SCHEMA IF EXISTS {copy} CASCADE"))
        .execute(&admin)
        .await?;
    admin.close().await;
    rate
}

async fn pgbench_into(url: &str, schema: &str, args: &Args) -> anyhow::Result<f64> {
    let script = std::env::temp_dir().join(format!("{schema}.sql"));
    let payload =
        r#"{"Debited":{"reference":"d1","pot":"main","amount":"0.01","kind":"game_debit"}}"#;
    std::fs::write(
        &script,
        format!(
            "\\set id random(1, 1000000000)\n\
             BEGIN;\n\
             INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata) \
             VALUES ('PgBench', 'pgb:' || :client_id || ':' || :id || ':' || random(), 1, 'WalletDebited', '1.0', '{payload}', '{{}}');\n\
             INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata) \
             VALUES ('PgBench', 'pgb:' || :client_id || ':' || :id || ':' || random(), 1, 'WalletDebited', '1.0', '{payload}', '{{}}');\n\
             END;\n"
        ),
    )?;
    let opts = url_parts(url)?;
    let cpu = Cpu::now();
    let output = tokio::process::Command::new("pgbench")
        .args([
            "-n",
            "-T",
            &args.seconds.to_string(),
            "-c",
            &args.clients.to_string(),
        ])
        .args(["-j", "2", "-f"])
        .arg(&script)
        .args([
            "-h",
            opts.host,
            "-p",
            &opts.port.to_string(),
            "-U",
            opts.user,
            opts.database,
        ])
        .env("PGOPTIONS", format!("-csearch_path={schema}"))
        // The same transport as the server's own pool: the URL's sslmode,
        // else libpq's default `prefer`, which is sqlx's default too (both
        // take TLS where the server offers it).
        .env("PGSSLMODE", opts.sslmode.unwrap_or("prefer"))
        .output()
        .await
        .context("running pgbench (apt-get install postgresql-client)")?;
    let _ = std::fs::remove_file(&script);
    let text = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!(
            "pgbench failed: {}{}",
            text,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let cpu = Cpu::since(cpu);
    let rate = text
        .lines()
        .find_map(|line| {
            let rest = line.strip_prefix("tps = ")?;
            rest.split_whitespace().next()?.parse::<f64>().ok()
        })
        .with_context(|| format!("no tps in pgbench output: {text}"))?;
    let done = text
        .lines()
        .find_map(|line| {
            let rest = line.strip_prefix("number of transactions actually processed: ")?;
            rest.split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse::<f64>()
                .ok()
        })
        .unwrap_or(rate * args.seconds as f64);
    println!("pgbench: {}", cpu.per(done, "transaction", "pgbench"));
    Ok(rate)
}

/// CPU time used so far, in seconds: this process (the server under test
/// and its benchmark clients), the children it waited for (pgbench), and
/// every process named `postgres` (live backends and, through the
/// postmaster's children's times, the ones that ended). Linux `/proc`;
/// zero elsewhere. Deltas over a phase, divided by what the phase did,
/// give the CPU each bet or transaction costs: a steadier comparison on a
/// shared machine than the rates, which move with the neighbours' load.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Cpu {
    pub(crate) own: f64,
    pub(crate) children: f64,
    pub(crate) postgres: f64,
}

/// Clock ticks of `/proc/*/stat` (USER_HZ, 100 on Linux).
const TICKS: f64 = 100.0;

/// utime + stime and cutime + cstime of one `/proc/PID/stat`, with its
/// command name.
fn proc_times(stat: &str) -> Option<(&str, f64, f64)> {
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let comm = &stat[open + 1..close];
    let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
    let tick = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
    let own = tick(11)? + tick(12)?;
    let children = tick(13)? + tick(14)?;
    Some((comm, own / TICKS, children / TICKS))
}

impl Cpu {
    pub(crate) fn now() -> Cpu {
        let mut cpu = Cpu::default();
        if let Some((_, own, children)) = std::fs::read_to_string("/proc/self/stat")
            .ok()
            .as_deref()
            .and_then(proc_times)
        {
            cpu.own = own;
            cpu.children = children;
        }
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return cpu;
        };
        for entry in dir.flatten() {
            if !entry
                .file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
            {
                continue;
            }
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            if let Some(("postgres", own, children)) = proc_times(&stat) {
                cpu.postgres += own + children;
            }
        }
        cpu
    }

    /// What was used since `before`.
    pub(crate) fn since(before: Cpu) -> Cpu {
        let now = Cpu::now();
        Cpu {
            own: now.own - before.own,
            children: now.children - before.children,
            postgres: now.postgres - before.postgres,
        }
    }

    /// "N µs a <what> (this process A, Postgres B)", per `count` units.
    pub(crate) fn per(&self, count: f64, what: &str, own_name: &str) -> String {
        let us = |s: f64| s * 1e6 / count.max(1.0);
        let own = if own_name == "pgbench" {
            self.children
        } else {
            self.own
        };
        format!(
            "{:.0} µs of CPU a {what} ({own_name} {:.0}, Postgres {:.0})",
            us(own + self.postgres),
            us(own),
            us(self.postgres)
        )
    }
}

/// The parts of a Postgres URL that pgbench takes as flags.
pub(crate) struct UrlParts<'a> {
    pub(crate) host: &'a str,
    pub(crate) port: u16,
    pub(crate) user: &'a str,
    pub(crate) database: &'a str,
    /// `sslmode` from the URL's query, if given.
    pub(crate) sslmode: Option<&'a str>,
}

pub(crate) fn url_parts(url: &str) -> anyhow::Result<UrlParts<'_>> {
    let rest = url.split_once("://").map(|(_, r)| r).context("not a URL")?;
    let (auth, rest) = rest.rsplit_once('@').unwrap_or(("postgres", rest));
    let user = auth.split(':').next().unwrap_or("postgres");
    let (hostport, database) = rest.split_once('/').unwrap_or((rest, "postgres"));
    let (database, query) = database.split_once('?').unwrap_or((database, ""));
    let sslmode = query
        .split('&')
        .find_map(|pair| pair.strip_prefix("sslmode="))
        .filter(|mode| !mode.is_empty());
    let (host, port) = match hostport.rsplit_once(':') {
        Some((h, p)) => (h, p.parse().context("port")?),
        None => (hostport, 5432),
    };
    Ok(UrlParts {
        host,
        port,
        user,
        database,
        sslmode,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proc_stat_line_gives_its_name_and_cpu_seconds() {
        // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt
        // majflt cmajflt utime stime cutime cstime ...
        let line = "4242 (postgres) S 1 1 1 0 -1 4194560 10 0 0 0 250 50 700 100 20 0 1 0";
        let (comm, own, children) = super::proc_times(line).unwrap();
        assert_eq!(comm, "postgres");
        assert!((own - 3.0).abs() < 1e-9);
        assert!((children - 8.0).abs() < 1e-9);
        // A name with spaces and parentheses.
        let line = "7 (tokio (rt) x) R 1 1 1 0 -1 0 0 0 0 0 1 2 3 4 20 0";
        assert_eq!(super::proc_times(line).unwrap().0, "tokio (rt) x");
    }

    #[test]
    fn pgbench_gets_host_port_user_and_database_from_the_url() {
        let p = url_parts("postgres://postgres@127.0.0.1:5432/test").unwrap();
        assert_eq!(
            (p.host, p.port, p.user, p.database),
            ("127.0.0.1", 5432, "postgres", "test")
        );
        assert_eq!(p.sslmode, None);
        let p = url_parts("postgresql://u:pw@db/x?sslmode=disable").unwrap();
        assert_eq!((p.host, p.port, p.user, p.database), ("db", 5432, "u", "x"));
        assert_eq!(p.sslmode, Some("disable"));
    }
}
