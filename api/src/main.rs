//! The platform's one binary.
//!
//! ```text
//! api [serve]                      run the server (PORT, BIND, DATABASE_URL, DEMO)
//! api migrate                      apply the store's migrations
//! api projections rebuild [NAME]   rebuild one projection (or all) from zero
//! api projections status           position, lag, parked events, rebuilds under way
//! api projections parked [STATUS]  poison events (open, applied, skipped)
//! api projections retry|skip ID    an operator's decision on a parked event
//! api audit verify [--keep FILE]   re-read the store against its hash chain
//! api audit checkpoints [--now]    the signed chain heads, to keep elsewhere
//! api audit replay [NAME]          read models rebuilt in scratch + money invariants
//! api bench rebuild [--events N] [--store sqlite]
//!                                  projection rebuild and verify vs the raw read
//! api audit bets                  replay every bet, compare with the read model
//! api staff create NAME ROLE       a back-office account (password on stdin)
//! api bench wallet [--clients N] [--seconds S]
//!                                  wallet commands/s on Postgres vs pgbench
//! api bench casino [--clients N] [--seconds S] [--rounds R]
//!                                  seamless-wallet bet + win rounds/s vs pgbench
//! ```
//!
//! The library (`api::app`, `api::routes` ...) holds everything but this
//! command line.

use std::process::ExitCode;

use anyhow::{bail, Context};
use api::app::{self, AppState};
use api::bench;
use api::config::Config;
use indicatif::{ProgressBar, ProgressStyle};

fn main() -> ExitCode {
    init_logging();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", one_line(&e));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes on one line, without the repeats that arise when
/// an error's message already quotes its source.
fn one_line(error: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if !line.ends_with(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
    }
    line
}

fn init_logging() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,tower_http=warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if std::env::var("LOG_FORMAT").is_ok_and(|f| f == "json") {
        builder.json().init();
    } else {
        builder.init();
    }
}

async fn run(args: Vec<String>) -> anyhow::Result<()> {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        [] | ["serve"] => serve(Config::load()?).await,
        ["migrate"] => {
            let config = Config::load()?;
            let db = app::open_store(&config).await?;
            println!("migrations applied ({})", db.kind().name());
            Ok(())
        }
        ["projections", "rebuild", rest @ ..] => rebuild(Config::load()?, rest).await,
        ["projections", "status"] => status(Config::load()?).await,
        ["projections", "parked", rest @ ..] => api::audit_cli::parked(Config::load()?, rest).await,
        ["projections", "retry", id] => api::audit_cli::resolve(Config::load()?, id, true).await,
        ["projections", "skip", id] => api::audit_cli::resolve(Config::load()?, id, false).await,
        ["audit", "verify", rest @ ..] => api::audit_cli::verify(Config::load()?, rest).await,
        ["audit", "checkpoints", rest @ ..] => {
            api::audit_cli::checkpoints(Config::load()?, rest).await
        }
        ["audit", "replay", rest @ ..] => api::audit_cli::replay(Config::load()?, rest).await,
        ["audit", "bets"] => audit_bets(Config::load()?).await,
        ["staff", "create", name, role] => create_staff(Config::load()?, name, role).await,
        ["bench", "wallet", rest @ ..] => bench::wallet(rest).await,
        ["bench", "swarm", rest @ ..] => api::bench_swarm::run(rest).await,
        ["bench", "bets", rest @ ..] => api::bench_bets::run(rest).await,
        ["bench", "rebuild", rest @ ..] => api::bench_rebuild::run(rest).await,
        ["bench", "casino", rest @ ..] => api::bench_casino::run(rest).await,
        ["bench", "swarm-clients", rest @ ..] => api::bench_swarm::clients(rest).await,
        ["help" | "--help" | "-h"] => {
            println!("{}", USAGE);
            Ok(())
        }
        _ => bail!("unknown command '{}'\n{USAGE}", words.join(" ")),
    }
}

const USAGE: &str = "usage: api [serve] | api migrate | api projections rebuild [NAME] | api projections status | api projections parked [open|applied|skipped] | api projections retry|skip ID | api audit verify [--keep FILE] | api audit checkpoints [--now] | api audit replay [NAME] | api audit bets | api bench rebuild [--events N] [--store sqlite] | api bench casino [--clients N] [--seconds S] [--rounds N] | api staff create NAME support|auditor|trader|admin|finance | api bench wallet [--clients N] [--seconds S] | api bench swarm [--subscribers N] [--changes N] [--batches N] [--seconds S]";

async fn serve(config: Config) -> anyhow::Result<()> {
    let port = config.server.port;
    let ip = config.listen_ip();
    if let Some(warning) = config.demo_warning() {
        // On stderr as well as in the log: nobody should miss it.
        eprintln!("WARNING: {warning}");
        tracing::warn!("{warning}");
    }
    let db = app::open_store(&config).await?;
    let listener = tokio::net::TcpListener::bind((ip, port))
        .await
        .with_context(|| format!("cannot listen on {ip} port {port}"))?;
    let running = app::start(config, db, listener).await?;
    let state = &running.state;
    tracing::info!(
        %ip,
        port,
        store = state.db.kind().name(),
        demo = state.config.demo_mode,
        "serving"
    );
    shutdown_signal().await;
    running.stop().await
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
    tracing::info!("shutting down");
}

/// Replays every bet from the store against the bet history read model;
/// fails (exit 1) when they differ.
async fn audit_bets(config: Config) -> anyhow::Result<()> {
    let db = app::open_store(&config).await?;
    let state = AppState::new(config, db).await?;
    state.runner.catch_up_all().await?;
    let report = api::audit::replay_bets(&state)
        .await
        .map_err(|e| anyhow::anyhow!(e))?;
    for d in &report.differences {
        println!(
            "bet {}: {} store={} read_model={}",
            d.bet_id, d.field, d.store, d.read_model
        );
    }
    println!(
        "{} bets replayed, {} differences",
        report.checked,
        report.differences.len()
    );
    if !report.differences.is_empty() {
        bail!("the bet history read model differs from the store");
    }
    Ok(())
}

/// Creates a staff account; the password is read from the first line of
/// standard input (never from the command line).
async fn create_staff(config: Config, name: &str, role: &str) -> anyhow::Result<()> {
    let role = domain::staff::Role::parse(role)
        .with_context(|| format!("unknown role '{role}' (support, auditor, trader or admin)"))?;
    let mut password = String::new();
    std::io::stdin()
        .read_line(&mut password)
        .context("reading the password from stdin")?;
    let db = app::open_store(&config).await?;
    let state = AppState::new(config, db).await?;
    let staff = state
        .staff
        .create(name, password.trim_end_matches(['\r', '\n']), role)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    println!("staff {} ({}) created", staff.username, staff.role.name());
    Ok(())
}

async fn rebuild(config: Config, names: &[&str]) -> anyhow::Result<()> {
    let db = app::open_store(&config).await?;
    let state = AppState::new(config, db).await?;
    let names: Vec<&str> = if names.is_empty() {
        state.runner.names()
    } else {
        names.to_vec()
    };
    for name in names {
        let bar = ProgressBar::new(0).with_message(name.to_string());
        bar.set_style(
            ProgressStyle::with_template(
                "{msg:>12} [{bar:40}] {pos}/{len} events ({per_sec}, eta {eta})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        let applied = state
            .runner
            .rebuild(name, &|done, total| {
                bar.set_length(total.max(done));
                bar.set_position(done);
            })
            .await?;
        bar.finish();
        println!("{name}: rebuilt from {applied} events");
    }
    Ok(())
}

async fn status(config: Config) -> anyhow::Result<()> {
    let db = app::open_store(&config).await?;
    let state = AppState::new(config, db).await?;
    for s in state.runner.status().await? {
        let mut line = format!(
            "{:>14}: position {}, {} events behind, {} parked",
            s.name, s.position, s.lag, s.parked
        );
        if let Some((done, left)) = s.rebuild {
            let total = (done + left).max(1);
            line.push_str(&format!(
                "; rebuild under way: {done}/{total} events ({:.0}%)",
                done as f64 * 100.0 / total as f64
            ));
        }
        if !s.updated_at.is_empty() {
            line.push_str(&format!(", last batch at {}", s.updated_at));
        }
        println!("{line}");
    }
    Ok(())
}
