//! `api bench swarm`: Swarm fan-out on one process. N WebSocket
//! subscribers (in a child process, `api bench swarm-clients`, so each side
//! has its own file-descriptor budget and CPU is measured for the server
//! alone) subscribe to the live games while prices change at a set rate;
//! push latency (feed change to client receipt) and server CPU are measured,
//! then the same pushes (same bytes, same times) are sent by a minimal
//! tokio-tungstenite broadcast server to the same number of sockets, and the
//! two are compared.

use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use commands::accounts::sessions::Sessions;
use commands::platform::clock::SystemClock;
use commands::sportsbook::feed::{Feed, Simulator, SimulatorSettings};
use commands::sportsbook::live::LiveCatalogue;
use domain::catalogue::{Catalogue, GameType};
use futures::{SinkExt, StreamExt};
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{broadcast, watch};
use tokio_tungstenite::tungstenite::Message;

use crate::swarm::hub::Hub;

/// `api bench swarm` options.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// WebSocket subscribers of the live games.
    #[arg(long, default_value_t = 10_000)]
    pub subscribers: usize,
    /// Price changes per second.
    #[arg(long = "changes", default_value_t = 1_000)]
    pub changes_per_second: usize,
    /// Batches the changes are published in, per second.
    #[arg(long = "batches", default_value_t = 10)]
    pub batches_per_second: usize,
    /// Seconds each side runs.
    #[arg(long, default_value_t = 10)]
    pub seconds: u64,
}

fn now_micros() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as u64)
        .unwrap_or_default()
}

/// User + system CPU seconds of this process so far.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

const MARKER_WIDTH: usize = 16;

fn marker(micros: u64) -> String {
    format!("{micros:0MARKER_WIDTH$}")
}

/// The subscription every client makes: live games with their prices.
fn subscription() -> Value {
    json!({"command": "get", "rid": 2, "params": {"source": "betting", "subscribe": true,
        "what": {"game": ["id", "team1_name", "team2_name", "info"], "event": ["id", "price"]},
        "where": {"game": {"type": 1}}}})
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    if args.batches_per_second == 0 || args.subscribers == 0 {
        bail!("--batches and --subscribers must be positive");
    }
    println!(
        "swarm fan-out benchmark: {} subscribers, {} price changes/s in {} batches/s, {} s",
        args.subscribers, args.changes_per_second, args.batches_per_second, args.seconds
    );
    let mut catalogue = Catalogue::new();
    let mut simulator = Simulator::new(SimulatorSettings::default());
    simulator.start(&mut catalogue, (now_micros() / 1_000_000) as i64);
    let live_events: Vec<u64> = catalogue
        .games()
        .values()
        .filter(|g| g.game_type == GameType::Live)
        .flat_map(|g| {
            catalogue
                .markets_of(g.id)
                .flat_map(|m| catalogue.events_of(m.id).map(|e| e.id))
                .collect::<Vec<_>>()
        })
        .collect();
    let marker_game = catalogue
        .games()
        .values()
        .find(|g| g.game_type == GameType::Live)
        .map(|g| g.id)
        .context("no live game")?;
    println!(
        "{} live selections, marker game {marker_game}",
        live_events.len()
    );

    // Our server: the real hub behind the real /swarm route.
    let db_path = std::env::temp_dir().join(format!("bench-swarm-{}.db", std::process::id()));
    let db = store::Db::connect(&store::DbUrl::Sqlite(db_path.clone())).await?;
    db.migrate().await?;
    let clock = Arc::new(SystemClock);
    let live = LiveCatalogue::new(catalogue);
    let sessions = Arc::new(Sessions::new(db.any.clone(), clock.clone(), 600_000));
    let hub = Hub::new(live.clone(), sessions, clock, db.any.clone());
    let (stop, stopped) = watch::channel(false);
    tokio::spawn(hub.clone().run(stopped.clone()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let router = crate::swarm::standalone(hub.clone());
    let mut until = stopped.clone();
    tokio::spawn(async move {
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                let _ = until.wait_for(|s| *s).await;
            })
            .await;
    });

    let ours = {
        let clients =
            Clients::spawn(&format!("ws://{addr}/swarm"), args.subscribers, marker_game).await?;
        hub.record_pushes();
        let cpu = cpu_seconds();
        let started = Instant::now();
        let batch = args.changes_per_second / args.batches_per_second;
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let mut ticker =
            tokio::time::interval(Duration::from_secs(1) / args.batches_per_second as u32);
        while started.elapsed() < Duration::from_secs(args.seconds) {
            ticker.tick().await;
            live.update(|c| {
                for _ in 0..batch {
                    let id = live_events[rng.random_range(0..live_events.len())];
                    let step = rust_decimal::Decimal::new(rng.random_range(-50..=50), 3);
                    let _ = c.update_event(id, |e| {
                        e.price = (e.price + step).max(rust_decimal::Decimal::new(101, 2));
                    });
                }
                let _ = c.update_game(marker_game, |g| g.team1_name = marker(now_micros()));
            });
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        let cpu = cpu_seconds() - cpu;
        let report = clients.finish().await?;
        Outcome {
            report,
            cpu,
            seconds: started.elapsed().as_secs_f64(),
        }
    };
    let pushes = hub.recorded_pushes();
    let _ = stop.send(true);
    db.close().await;
    let _ = std::fs::remove_file(&db_path);

    // The limit: a minimal tokio-tungstenite broadcast of the same bytes.
    let baseline = baseline(&args, &pushes, marker_game).await?;

    println!(
        "{:<34} {:>12} {:>10} {:>10} {:>10} {:>12}",
        "", "deliveries", "p50 ms", "p99 ms", "CPU s", "CPU %"
    );
    for (name, o) in [
        ("platform hub (/swarm)", &ours),
        ("minimal tokio-tungstenite broadcast", &baseline),
    ] {
        println!(
            "{:<34} {:>12} {:>10.2} {:>10.2} {:>10.2} {:>11.0}%",
            name,
            o.report.received,
            o.report.p50_ms,
            o.report.p99_ms,
            o.cpu,
            100.0 * o.cpu / o.seconds
        );
    }
    let delivered_ratio = ours.report.received as f64 / baseline.report.received.max(1) as f64;
    let cpu_ratio = baseline.cpu / ours.cpu.max(0.001);
    println!(
        "pushes produced: {} (each to {} subscribers)",
        pushes.len(),
        args.subscribers
    );
    println!("ratio (deliveries, ours / limit): {delivered_ratio:.2}");
    println!("ratio (CPU efficiency, limit CPU / ours): {cpu_ratio:.2}");
    println!(
        "ratio (p99 latency, limit / ours): {:.2}",
        baseline.report.p99_ms / ours.report.p99_ms.max(0.001)
    );
    Ok(())
}

struct Outcome {
    report: Report,
    cpu: f64,
    seconds: f64,
}

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Report {
    connected: usize,
    received: u64,
    p50_ms: f64,
    p99_ms: f64,
}

async fn baseline(
    args: &Args,
    pushes: &[(Instant, axum::extract::ws::Utf8Bytes)],
    marker_game: u64,
) -> anyhow::Result<Outcome> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let (tx, _) = broadcast::channel::<Arc<str>>(4_096);
    let sender = tx.clone();
    let server = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let mut rx = sender.subscribe();
            tokio::spawn(async move {
                let Ok(ws) = tokio_tungstenite::accept_async(stream).await else {
                    return;
                };
                let (mut write, mut read) = ws.split();
                // Answer the session and subscription requests, then stream.
                for answer in [
                    r#"{"code":0,"rid":1,"data":{"sid":"s"}}"#,
                    r#"{"code":0,"rid":2,"data":{"subid":"x","data":{}}}"#,
                ] {
                    if read.next().await.is_none()
                        || write.send(Message::Text(answer.into())).await.is_err()
                    {
                        return;
                    }
                }
                loop {
                    tokio::select! {
                        msg = rx.recv() => match msg {
                            Ok(text) => if write.send(Message::Text(text.as_ref().into())).await.is_err() { return },
                            Err(broadcast::error::RecvError::Lagged(_)) => continue,
                            Err(_) => return,
                        },
                        incoming = read.next() => if incoming.is_none() { return },
                    }
                }
            });
        }
    });
    let clients = Clients::spawn(&format!("ws://{addr}"), args.subscribers, marker_game).await?;
    let cpu = cpu_seconds();
    let started = Instant::now();
    let first = pushes.first().map(|(t, _)| *t);
    let needle = "\"team1_name\":\"";
    for (at, text) in pushes {
        if let Some(first) = first {
            let due = started + (*at - first);
            tokio::time::sleep_until(due.into()).await;
        }
        // Same bytes, with this send's time in the marker.
        let mut text = text.as_str().to_string();
        if let Some(i) = text.find(needle) {
            let start = i + needle.len();
            if text.len() >= start + MARKER_WIDTH {
                text.replace_range(start..start + MARKER_WIDTH, &marker(now_micros()));
            }
        }
        let _ = tx.send(Arc::from(text));
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let cpu = cpu_seconds() - cpu;
    let report = clients.finish().await?;
    server.abort();
    Ok(Outcome {
        report,
        cpu,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The child process holding the subscribers.
struct Clients {
    child: tokio::process::Child,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
}

impl Clients {
    async fn spawn(url: &str, subscribers: usize, marker_game: u64) -> anyhow::Result<Clients> {
        let mut child = tokio::process::Command::new(std::env::current_exe()?)
            .args([
                "bench",
                "swarm-clients",
                url,
                &subscribers.to_string(),
                &marker_game.to_string(),
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()?;
        let mut lines = BufReader::new(child.stdout.take().context("child stdout")?).lines();
        loop {
            let line = lines.next_line().await?.context("clients exited early")?;
            if line.starts_with("ready") {
                println!("  {line}");
                break;
            }
        }
        Ok(Clients { child, lines })
    }

    async fn finish(mut self) -> anyhow::Result<Report> {
        if let Some(mut stdin) = self.child.stdin.take() {
            stdin.write_all(b"stop\n").await?;
        }
        while let Some(line) = self.lines.next_line().await? {
            if let Some(json) = line.strip_prefix("report ") {
                let _ = self.child.wait().await;
                return Ok(serde_json::from_str(json)?);
            }
        }
        bail!("clients gave no report")
    }
}

/// `api bench swarm-clients URL N MARKER_GAME`: the subscriber side.
pub async fn clients(url: &str, n: usize) -> anyhow::Result<()> {
    let latencies = Arc::new(std::sync::Mutex::new(Vec::<u32>::with_capacity(1 << 20)));
    let received = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let connected = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let gate = Arc::new(tokio::sync::Semaphore::new(256));
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel::<()>(n.max(1));
    for _ in 0..n {
        let (url, latencies, received, connected, gate, ready) = (
            url.to_string(),
            latencies.clone(),
            received.clone(),
            connected.clone(),
            gate.clone(),
            ready_tx.clone(),
        );
        tokio::spawn(async move {
            let permit = gate.acquire_owned().await;
            let Ok((ws, _)) = tokio_tungstenite::connect_async(&url).await else {
                let _ = ready.send(()).await;
                return;
            };
            let (mut write, mut read) = ws.split();
            let session =
                json!({"command": "request_session", "rid": 1, "params": {"language": "eng"}});
            if write
                .send(Message::Text(session.to_string().into()))
                .await
                .is_err()
                || read.next().await.is_none()
            {
                let _ = ready.send(()).await;
                return;
            }
            if write
                .send(Message::Text(subscription().to_string().into()))
                .await
                .is_err()
                || read.next().await.is_none()
            {
                let _ = ready.send(()).await;
                return;
            }
            drop(permit);
            connected.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let _ = ready.send(()).await;
            let needle = "\"team1_name\":\"";
            while let Some(Ok(message)) = read.next().await {
                if let Message::Text(text) = message {
                    received.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if let Some(i) = text.find(needle) {
                        let start = i + needle.len();
                        if let Some(sent) = text
                            .get(start..start + MARKER_WIDTH)
                            .and_then(|m| m.parse::<u64>().ok())
                        {
                            let latency = now_micros().saturating_sub(sent) as u32;
                            latencies
                                .lock()
                                .unwrap_or_else(|p| p.into_inner())
                                .push(latency);
                        }
                    }
                }
            }
        });
    }
    drop(ready_tx);
    for _ in 0..n {
        if ready_rx.recv().await.is_none() {
            break;
        }
    }
    println!(
        "ready {} of {n} subscribed",
        connected.load(std::sync::atomic::Ordering::Relaxed)
    );
    let mut stdin = BufReader::new(tokio::io::stdin()).lines();
    while let Some(line) = stdin.next_line().await? {
        if line.trim() == "stop" {
            break;
        }
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut all = std::mem::take(&mut *latencies.lock().unwrap_or_else(|p| p.into_inner()));
    all.sort_unstable();
    let pick = |q: f64| {
        all.get(((all.len() as f64 * q) as usize).min(all.len().saturating_sub(1)))
            .map_or(0.0, |v| *v as f64 / 1000.0)
    };
    let report = Report {
        connected: connected.load(std::sync::atomic::Ordering::Relaxed),
        received: received.load(std::sync::atomic::Ordering::Relaxed),
        p50_ms: pick(0.5),
        p99_ms: pick(0.99),
    };
    println!("report {}", serde_json::to_string(&report)?);
    std::process::exit(0);
}
