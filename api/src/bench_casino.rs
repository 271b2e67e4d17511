//! `api bench casino`: seamless-wallet rounds (a bet, then a win that
//! closes the round) over HTTP on Postgres, signed as the demo provider,
//! at N concurrent clients (each its own member and launch token), next to
//! the `pgbench` rate of a two-event-row transaction on the same database
//! in the same run. Then the same at half the peak rate, paced, for p99.
//!
//! Requests are signed before the clock starts (the provider's signing is
//! the provider's CPU, not the platform's); the platform verifies every
//! request's signature and signs every answer inside the measurement.

use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletId};
use domain::Currency;
use rust_decimal::Decimal;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

use crate::bench::pgbench;
use crate::casino::signing::{Signer256, HEADER};

/// `api bench casino` options.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Concurrent provider clients (and pgbench clients).
    #[arg(long, default_value_t = 32, value_parser = crate::bench::clients)]
    pub clients: usize,
    /// Seconds each side runs.
    #[arg(long, default_value_t = 10)]
    pub seconds: u64,
    /// Signed rounds prepared per client before the clock starts.
    #[arg(long, default_value_t = 400)]
    pub rounds: usize,
}

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

    async fn post(&mut self, path: &str, body: &str, signature: &str) -> anyhow::Result<Value> {
        let head = format!(
            "POST /api/wallet/demo/{path} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n{HEADER}: {signature}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
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

/// One round's two signed requests.
struct Round {
    bet: (String, String),
    win: (String, String),
}

fn rounds(
    signer: &Signer256,
    user: &str,
    token: &str,
    client: usize,
    count: usize,
    tag: &str,
) -> Vec<Round> {
    (0..count)
        .map(|i| {
            let round = format!("{tag}-{client}-{i}");
            let bet = json!({"user": user, "token": token, "request_uuid": format!("rq-{round}-b"),
                "game_code": "demo_slot", "currency": "CNY", "transaction_uuid": format!("b-{round}"),
                "supplier_transaction_id": format!("s-{round}"), "round": round, "round_closed": false, "amount": 100_000})
            .to_string();
            let win = json!({"user": user, "token": token, "request_uuid": format!("rq-{round}-w"),
                "game_code": "demo_slot", "currency": "CNY", "transaction_uuid": format!("w-{round}"),
                "reference_transaction_uuid": format!("b-{round}"),
                "supplier_transaction_id": format!("s-{round}-w"), "round": round, "round_closed": true, "amount": 50_000})
            .to_string();
            Round {
                bet: (signer.sign(bet.as_bytes()), bet),
                win: (signer.sign(win.as_bytes()), win),
            }
        })
        .collect()
}

/// Every client's signed rounds for the peak and for the half-peak phase,
/// signed on every core (set-up before the clock, not measured).
fn sign_ahead(
    signer: &Signer256,
    players: &[(String, String)],
    budget: usize,
) -> (Vec<Vec<Round>>, Vec<Vec<Round>>) {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(players.len().max(1));
    let per_thread = players.len().div_ceil(threads).max(1);
    let signed: Vec<(Vec<Round>, Vec<Round>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = players
            .chunks(per_thread)
            .enumerate()
            .map(|(chunk, group)| {
                scope.spawn(move || {
                    group
                        .iter()
                        .enumerate()
                        .map(|(i, (member, token))| {
                            let client = chunk * per_thread + i;
                            (
                                rounds(signer, member, token, client, budget, "peak"),
                                rounds(signer, member, token, client, budget / 2 + 1, "half"),
                            )
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            // A signer thread that panicked ends the bench (its clients'
            // work must not silently go missing).
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    signed.into_iter().unzip()
}

/// Runs every client's rounds until `until` (or they run out); `pace`:
/// one round per client per interval. Returns request latencies (ms) and
/// rounds done.
async fn phase(
    addr: std::net::SocketAddr,
    work: Vec<Vec<Round>>,
    until: Instant,
    pace: Option<Duration>,
) -> anyhow::Result<(Vec<f64>, usize)> {
    let mut tasks = Vec::new();
    let clients = work.len().max(1) as u32;
    for (client, rounds) in work.into_iter().enumerate() {
        tasks.push(tokio::spawn(async move {
            let mut conn = Conn::open(addr).await?;
            let mut latencies = Vec::new();
            let mut done = 0;
            // Paced clients start at evenly spread points of their interval,
            // so their rounds do not arrive in bursts.
            let mut next = Instant::now()
                + pace
                    .map(|i| i * client as u32 / clients)
                    .unwrap_or_default();
            for round in rounds {
                if Instant::now() >= until {
                    break;
                }
                if let Some(interval) = pace {
                    tokio::time::sleep_until(next.into()).await;
                    next += interval;
                }
                for (path, (signature, body)) in [
                    ("transaction/bet", &round.bet),
                    ("transaction/win", &round.win),
                ] {
                    let t = Instant::now();
                    let answer = conn.post(path, body, signature).await?;
                    latencies.push(t.elapsed().as_secs_f64() * 1000.0);
                    if answer["status"] != "RS_OK" {
                        bail!("{path}: {answer}");
                    }
                }
                done += 1;
            }
            Ok::<_, anyhow::Error>((latencies, done))
        }));
    }
    let mut all = Vec::new();
    let mut rounds = 0;
    for task in tasks {
        let (latencies, done) = task.await??;
        all.extend(latencies);
        rounds += done;
    }
    Ok((all, rounds))
}

/// RSA-2048 signatures a second with every core signing, nothing else:
/// the ceiling that signing every answer puts on the seamless wallet.
fn signing_limit(signer: &Signer256, seconds: u64) -> f64 {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let until = Instant::now() + Duration::from_secs(seconds);
    let body = br#"{"user":"casino0","status":"RS_OK","request_uuid":"0f5c0c9e-4c1b-4b8e-9d0e-000000000000","currency":"CNY","balance":1000000000}"#;
    let started = Instant::now();
    let signed: usize = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut n = 0usize;
                    while Instant::now() < until {
                        std::hint::black_box(signer.sign(body));
                        n += 1;
                    }
                    n
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or(0)).sum()
    });
    signed as f64 / started.elapsed().as_secs_f64()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    let Args {
        clients,
        seconds,
        rounds: budget,
    } = args;
    let url = std::env::var("DATABASE_URL").unwrap_or_else(|_| store::db::testing::postgres_url());
    if !url.starts_with("postgres") {
        bail!("the casino benchmark runs on Postgres (DATABASE_URL={url})");
    }
    let admin = sqlx::PgPool::connect(&url).await?;
    let schema = crate::bench::fresh_schema(&admin, "bench_casino").await?;
    let result = measure(&url, &schema, clients, seconds, budget).await;
    sqlx::query(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"))
        .execute(&admin)
        .await?;
    result
}

async fn measure(
    url: &str,
    schema: &str,
    clients: usize,
    seconds: u64,
    budget: usize,
) -> anyhow::Result<()> {
    let db = store::Db::open_postgres(url, Some(schema)).await?;
    db.migrate().await?;
    let mut config = crate::config::Config::load()?;
    config.demo_mode = false;
    config.feed.tick_ms = 3_600_000;
    let signer = Signer256::from_pem(
        &config
            .casino
            .providers
            .get("demo")
            .context("[casino.providers.demo]")?
            .private_key,
    )?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let running = crate::app::start(config, db, listener).await?;
    let state = running.state.clone();
    let addr = running.addr;
    println!(
        "seamless wallet benchmark (postgres): {clients} clients, {seconds} s, bet + win per round"
    );
    let limit = pgbench(url, schema, &crate::bench::Args { clients, seconds }).await?;
    println!("pgbench (2 event-row inserts per transaction): {limit:.0} tx/s");
    let signing = signing_limit(&signer, seconds.clamp(1, 3));
    println!(
        "signing limit (RSA-2048 signatures on every core, two signed answers a round): {:.0} signatures/s = {:.0} rounds/s",
        signing,
        signing / 2.0
    );

    let mut players = Vec::with_capacity(clients);
    for client in 0..clients {
        let member = state
            .accounts
            .ensure_member(&format!("casino{client}"), "bench1234", Currency::Cny)
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
        let (token, _) = state
            .casino
            .tokens
            .issue(&member, 1001, "demo", Currency::Cny, "real")
            .await?;
        players.push((member, token));
    }
    let (peak_work, half_work) = sign_ahead(&signer, &players, budget);
    println!(
        "signed {} requests ahead",
        clients * (budget + budget / 2 + 1) * 2
    );

    let started = Instant::now();
    let cpu = crate::bench::Cpu::now();
    let (mut latencies, done) = phase(
        addr,
        peak_work,
        started + Duration::from_secs(seconds),
        None,
    )
    .await?;
    let peak_cpu = crate::bench::Cpu::since(cpu);
    let elapsed = started.elapsed().as_secs_f64();
    let peak = done as f64 / elapsed;
    latencies.sort_by(|a, b| a.total_cmp(b));
    println!(
        "peak: {done} rounds in {elapsed:.1} s = {peak:.0} rounds/s ({:.0} requests/s); p50 {:.2} ms, p99 {:.2} ms",
        peak * 2.0,
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99)
    );
    println!(
        "ratio: {:.2} of the pgbench limit (rounds/s over tx/s); {:.2} of the lesser of it and the signing limit",
        peak / limit,
        peak / limit.min(signing / 2.0)
    );
    println!("peak: {}", peak_cpu.per(done as f64, "round", "api"));
    if done >= clients * budget {
        println!("note: every client ran out of signed rounds; raise --rounds for a longer peak");
    }
    let interval = Duration::from_secs_f64(clients as f64 / (peak / 2.0));
    let started = Instant::now();
    let (mut latencies, done) = phase(
        addr,
        half_work,
        started + Duration::from_secs(seconds),
        Some(interval),
    )
    .await?;
    let elapsed = started.elapsed().as_secs_f64();
    latencies.sort_by(|a, b| a.total_cmp(b));
    println!(
        "half the peak: {:.0} rounds/s; p50 {:.2} ms, p99 {:.2} ms",
        done as f64 / elapsed,
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99)
    );
    running.stop().await?;
    Ok(())
}
