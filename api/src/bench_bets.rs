//! `api bench bets`: sustained single-bet placement over HTTP (`do_bet`
//! POSTed to `/swarm`: validated against live prices, stake taken, bet
//! recorded, projections running) at N concurrent clients, next to the
//! `pgbench` rate for a two-row-insert transaction on the same database in
//! the same run. `--store sqlite` runs the same placement on SQLite.

use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use domain::catalogue::GameType;
use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletId};
use domain::Currency;
use rand::{Rng, SeedableRng};
use rust_decimal::Decimal;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

use crate::bench::pgbench;

/// `api bench bets` options.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Concurrent clients (and pgbench clients).
    #[arg(long, default_value_t = 16, value_parser = crate::bench::clients)]
    pub clients: usize,
    /// Seconds each side runs.
    #[arg(long, default_value_t = 10)]
    pub seconds: u64,
    /// The store the server runs on.
    #[arg(long, default_value = "postgres", value_parser = ["postgres", "sqlite"])]
    pub store: String,
}

/// A keep-alive HTTP/1.1 connection posting JSON to /swarm.
struct Conn {
    reader: BufReader<tokio::net::tcp::OwnedReadHalf>,
    writer: tokio::net::tcp::OwnedWriteHalf,
}

impl Conn {
    async fn open(addr: std::net::SocketAddr) -> anyhow::Result<Conn> {
        let stream = tokio::net::TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        let (read, writer) = stream.into_split();
        Ok(Conn {
            reader: BufReader::new(read),
            writer,
        })
    }

    async fn post(&mut self, sid: Option<&str>, body: &Value) -> anyhow::Result<Value> {
        let body = body.to_string();
        let session = sid
            .map(|s| format!("swarm-session: {s}\r\n"))
            .unwrap_or_default();
        let head = format!(
            "POST /swarm HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n{session}Content-Length: {}\r\n\r\n",
            body.len()
        );
        // One write: a request split over two segments waits for the
        // server's delayed ACK.
        self.writer
            .write_all(format!("{head}{body}").as_bytes())
            .await?;
        let mut length = 0usize;
        loop {
            let mut line = String::new();
            if self.reader.read_line(&mut line).await? == 0 {
                bail!("connection closed");
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse()?;
            }
        }
        let mut buf = vec![0; length];
        self.reader.read_exact(&mut buf).await?;
        Ok(serde_json::from_slice(&buf)?)
    }
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    let Args {
        clients,
        seconds,
        store,
    } = args;
    let url = std::env::var("DATABASE_URL").unwrap_or_else(|_| store::db::testing::postgres_url());
    let sqlite_file = (store == "sqlite")
        .then(|| std::env::temp_dir().join(format!("bench-bets-{}.db", std::process::id())));
    let (db, schema) = if let Some(path) = &sqlite_file {
        let _ = std::fs::remove_file(path);
        (
            store::Db::connect(&store::DbUrl::Sqlite(path.clone())).await?,
            None,
        )
    } else {
        let admin = sqlx::PgPool::connect(&url).await?;
        let schema = crate::bench::fresh_schema(&admin, "bench_bets").await?;
        (
            store::Db::open_postgres(&url, Some(&schema)).await?,
            Some((admin, schema)),
        )
    };
    db.migrate().await?;
    let mut config = crate::config::Config::load()?;
    config.demo_mode = false;
    config.feed.tick_ms = 3_600_000; // prices hold still: every bet is at the live price
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let running = crate::app::start(config, db, listener).await?;
    let state = running.state.clone();
    let addr = running.addr;
    println!("bet placement benchmark ({store}): {clients} clients, {seconds} s");

    let pgbench_rate = match &schema {
        Some((_, schema)) => {
            let rate = pgbench(&url, schema, &crate::bench::Args { clients, seconds }).await?;
            println!("pgbench (2 event-row inserts per transaction): {rate:.0} tx/s");
            Some(rate)
        }
        None => None,
    };

    // The feed's leader publishes its catalogue after the start: wait until
    // it holds games and has stopped changing.
    let mut last = (0usize, 0u64);
    for _ in 0..30 {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let now = state.live.read(|c| {
            (
                c.games().len(),
                c.events().keys().copied().max().unwrap_or(0),
            )
        });
        if now.0 > 0 && now == last {
            break;
        }
        last = now;
    }
    let picks: Vec<(u64, Decimal)> = state.live.read(|c| {
        c.games()
            .values()
            // Open selections of games that start after the run.
            .filter(|g| {
                g.game_type == GameType::Prematch
                    && !g.is_blocked
                    && g.start_ts > unix_now_s() + 3_600
            })
            .flat_map(|g| {
                c.markets_of(g.id)
                    .filter(|m| !m.is_suspended)
                    .flat_map(|m| {
                        c.events_of(m.id)
                            .filter(|e| !e.is_suspended && e.price > Decimal::ONE)
                            .map(|e| (e.id, e.price))
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    });
    let mut tasks = Vec::new();
    for client in 0..clients {
        let member = state
            .accounts
            .ensure_member(&format!("bench{client}"), "bench1234", Currency::Cny)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let deposit = WalletAction::Credit {
            amount: Decimal::from(10_000_000),
            pot: Pot::Main,
            kind: MovementKind::Deposit,
        };
        state
            .wallets
            .execute(WalletCommand::new(
                WalletId::new(member.clone(), Currency::Cny),
                "deposit",
                deposit,
            ))
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let session = state
            .accounts
            .sessions
            .open(&member, "bench", None)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let picks = picks.clone();
        tasks.push(tokio::spawn(async move {
            let mut conn = Conn::open(addr).await?;
            let sid = conn.post(None, &json!({"command": "request_session", "rid": 1, "params": {}})).await?["data"]["sid"]
                .as_str()
                .context("sid")?
                .to_string();
            let restored = conn
                .post(Some(&sid), &json!({"command": "restore_login", "rid": 2, "params": {"user_id": member, "auth_token": session.auth_token}}))
                .await?;
            if restored["code"] != 0 {
                bail!("restore_login: {restored}");
            }
            let rng = rand::rngs::StdRng::seed_from_u64(client as u64);
            Ok::<_, anyhow::Error>(Driver { conn, sid, picks, rng, dropped: 0 })
        }));
    }
    let mut drivers = Vec::new();
    for task in tasks {
        drivers.push(task.await??);
    }
    // Peak: every client sends its next bet as soon as the last is answered.
    let started = Instant::now();
    let cpu = crate::bench::Cpu::now();
    let (drivers, all) = phase(drivers, started + Duration::from_secs(seconds), None).await?;
    let peak_cpu = crate::bench::Cpu::since(cpu);
    let peak = report("peak", &all, started.elapsed().as_secs_f64());
    let placed = all.len() as f64;
    if let Some(limit) = pgbench_rate {
        println!("ratio: {:.2} of the pgbench limit", peak / limit);
    }
    // Then half that rate, paced, for the latency target, in a steady
    // state: the projections first catch up on what the peak left behind
    // (the runner trails a peak of bets, most on SQLite), and how far
    // behind they were and how long they took is reported.
    let behind = max_lag(&state).await?;
    let catching_up = Instant::now();
    while max_lag(&state).await? > 0 && catching_up.elapsed() < Duration::from_secs(300) {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    println!(
        "projections after the peak: {behind} events behind, caught up in {:.1} s",
        catching_up.elapsed().as_secs_f64()
    );
    println!(
        "peak: {}; with the projections' catch-up: {}",
        peak_cpu.per(placed, "bet", "api"),
        crate::bench::Cpu::since(cpu).per(placed, "bet", "api")
    );
    let interval = Duration::from_secs_f64(clients as f64 / (peak / 2.0));
    let started = Instant::now();
    let (_, all) = phase(
        drivers,
        started + Duration::from_secs(seconds),
        Some(interval),
    )
    .await?;
    report("half the peak rate", &all, started.elapsed().as_secs_f64());
    running.stop().await?;
    if let Some((admin, schema)) = schema {
        sqlx::raw_sql(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"))
            .execute(&admin)
            .await?;
    }
    // The SQLite store (a few hundred MB with its WAL after a run).
    if let Some(path) = sqlite_file {
        for suffix in ["", "-wal", "-shm"] {
            let mut name = path.clone().into_os_string();
            name.push(suffix);
            let _ = std::fs::remove_file(name);
        }
    }
    Ok(())
}

/// The most events any projection has still to apply.
async fn max_lag(state: &crate::app::AppState) -> anyhow::Result<i64> {
    let mut most = 0;
    for name in state.runner.names() {
        most = most.max(state.runner.lag(name).await?);
    }
    Ok(most)
}

/// One benchmark client: its connection, Swarm session and picks.
struct Driver {
    conn: Conn,
    sid: String,
    picks: Vec<(u64, Decimal)>,
    rng: rand::rngs::StdRng,
    /// Selections refused as no longer available (dropped from `picks`).
    dropped: u32,
}

impl Driver {
    /// Places bets until `deadline`, one every `interval` (or back to back).
    async fn drive(
        mut self,
        deadline: Instant,
        interval: Option<Duration>,
    ) -> anyhow::Result<(Driver, Vec<Duration>)> {
        let mut latencies = Vec::new();
        // Paced clients start at random points of their interval, so their
        // sends spread out instead of arriving in bursts.
        let mut next = Instant::now()
            + interval
                .map(|i| i.mul_f64(self.rng.random_range(0.0..1.0)))
                .unwrap_or_default();
        while Instant::now() < deadline {
            if let Some(interval) = interval {
                tokio::time::sleep_until(next.into()).await;
                next += interval;
            }
            if self.picks.is_empty() {
                bail!("no open selection left to bet on");
            }
            let pick = self.rng.random_range(0..self.picks.len());
            let (event_id, price) = self.picks[pick];
            let bet = json!({"command": "do_bet", "rid": 3, "params": {"type": 1, "mode": 2, "amount": "1.00",
                "bets": [{"event_id": event_id, "price": price.to_string()}]}});
            let t = Instant::now();
            let answer = self.conn.post(Some(&self.sid), &bet).await?;
            if answer["data"]["result"] != "OK" {
                // A selection the feed took away meanwhile: bet on others
                // (not counted); any other refusal is a failure.
                if answer["data"]["result"] == 1902 && self.dropped < 100 {
                    self.picks.swap_remove(pick);
                    self.dropped += 1;
                    continue;
                }
                bail!("bet refused: {answer}");
            }
            latencies.push(t.elapsed());
        }
        Ok((self, latencies))
    }
}

async fn phase(
    drivers: Vec<Driver>,
    deadline: Instant,
    interval: Option<Duration>,
) -> anyhow::Result<(Vec<Driver>, Vec<Duration>)> {
    let tasks: Vec<_> = drivers
        .into_iter()
        .map(|d| tokio::spawn(d.drive(deadline, interval)))
        .collect();
    let mut drivers = Vec::new();
    let mut all = Vec::new();
    for task in tasks {
        let (driver, latencies) = task.await??;
        drivers.push(driver);
        all.extend(latencies);
    }
    Ok((drivers, all))
}

/// Prints a phase's rate and latencies; returns the rate.
fn report(name: &str, all: &[Duration], elapsed: f64) -> f64 {
    let mut all = all.to_vec();
    all.sort();
    let pick = |q: f64| {
        all.get(((all.len() as f64 * q) as usize).min(all.len().saturating_sub(1)))
            .map(|d| d.as_secs_f64() * 1e3)
            .unwrap_or_default()
    };
    let rate = all.len() as f64 / elapsed;
    println!(
        "bets placed over HTTP ({name}): {} in {elapsed:.1} s = {rate:.0} bets/s (p50 {:.2} ms, p99 {:.2} ms)",
        all.len(),
        pick(0.5),
        pick(0.99)
    );
    rate
}

fn unix_now_s() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}
