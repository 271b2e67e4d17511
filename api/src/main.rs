//! The platform's one binary: `api [serve]`, `api migrate`, `api projections
//! rebuild|status|parked|retry|skip`, `api audit verify|checkpoints|replay|bets`,
//! `api staff create`, `api bench wallet|swarm|bets|rebuild|casino`. The command
//! line is described with clap: `api --help`, `api <command> --help`.
//!
//! The library (`api::app`, `api::routes` ...) holds everything but this
//! command line.

use std::process::ExitCode;

use anyhow::{bail, Context};
use api::app::{self, AppState};
use api::bench;
use api::config::Config;
use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

/// mimalloc: the platform allocates many short-lived small blocks (JSON
/// values, rows, requests); BENCHMARKS.md has the figures against glibc's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // --help, --version and bad arguments answer before anything starts.
    let cli = Cli::parse();
    init_logging();
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
    match runtime.block_on(run(cli)) {
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

/// The platform's one binary: the server and the operators' tools.
#[derive(Debug, Parser)]
#[command(name = "api", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the server (PORT, BIND, DATABASE_URL, DEMO; the default command)
    Serve,
    /// Apply the store's migrations and exit
    Migrate,
    /// Read models: rebuild, status, parked (poison) events
    #[command(subcommand)]
    Projections(ProjectionsCommand),
    /// The sealed event log and independent replays
    #[command(subcommand)]
    Audit(AuditCommand),
    /// Back-office staff accounts
    #[command(subcommand)]
    Staff(StaffCommand),
    /// Benchmarks of docs/BENCHMARKS.md (each against its limit, same run)
    #[command(subcommand)]
    Bench(BenchCommand),
}

#[derive(Debug, Subcommand)]
enum ProjectionsCommand {
    /// Rebuild one projection (or all) from zero, readers seeing the old copy until the swap
    Rebuild {
        /// Projection names (default: all)
        names: Vec<String>,
    },
    /// Position, lag, parked events and rebuilds under way, per projection
    Status,
    /// Events a projection could not apply
    Parked {
        /// Only these
        #[arg(value_parser = ["open", "applied", "skipped"])]
        status: Option<String>,
    },
    /// Apply a parked event again (after a fix)
    Retry {
        /// The parked event's id
        id: String,
    },
    /// Skip a parked event for good
    Skip {
        /// The parked event's id
        id: String,
    },
}

#[derive(Debug, Subcommand)]
enum AuditCommand {
    /// Seal what is not sealed, then re-read the store against its hash chain
    Verify {
        /// Checkpoints kept elsewhere (`api audit checkpoints` lines) to check too
        #[arg(long, value_name = "FILE")]
        keep: Option<std::path::PathBuf>,
    },
    /// The signed chain heads, one per line, for an auditor to keep
    Checkpoints {
        /// Seal and sign the current head first
        #[arg(long)]
        now: bool,
    },
    /// Read models rebuilt in scratch and compared, plus the money invariants
    Replay {
        /// One read model, or `money`
        name: Option<String>,
    },
    /// Replay every bet and compare it with the bet history read model
    Bets,
}

#[derive(Debug, Subcommand)]
enum StaffCommand {
    /// Create a back-office account (the password is read from stdin)
    Create {
        name: String,
        #[arg(value_parser = ["support", "auditor", "trader", "admin", "finance", "marketing"])]
        role: String,
    },
}

#[derive(Debug, Subcommand)]
enum BenchCommand {
    /// Wallet commands/s through the CQRS framework on Postgres vs pgbench
    Wallet(bench::Args),
    /// Swarm fan-out: subscribers and price changes vs a minimal broadcast
    Swarm(api::bench_swarm::Args),
    /// Bet placement over HTTP vs pgbench
    Bets(api::bench_bets::Args),
    /// Projection rebuild and audit verify vs the raw ordered read
    Rebuild(api::bench_rebuild::Options),
    /// Seamless-wallet bet + win rounds/s vs pgbench
    Casino(api::bench_casino::Args),
    /// The subscriber side of `bench swarm` (run by it in a child process)
    #[command(hide = true)]
    SwarmClients {
        url: String,
        n: usize,
        marker: String,
    },
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => serve(Config::load()?).await,
        Command::Migrate => {
            let config = Config::load()?;
            let db = app::open_store(&config).await?;
            println!("migrations applied ({})", db.kind().name());
            Ok(())
        }
        Command::Projections(p) => match p {
            ProjectionsCommand::Rebuild { names } => {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                rebuild(Config::load()?, &names).await
            }
            ProjectionsCommand::Status => status(Config::load()?).await,
            ProjectionsCommand::Parked { status } => {
                api::audit_cli::parked(Config::load()?, status.as_deref()).await
            }
            ProjectionsCommand::Retry { id } => {
                api::audit_cli::resolve(Config::load()?, &id, true).await
            }
            ProjectionsCommand::Skip { id } => {
                api::audit_cli::resolve(Config::load()?, &id, false).await
            }
        },
        Command::Audit(a) => match a {
            AuditCommand::Verify { keep } => {
                api::audit_cli::verify(Config::load()?, keep.as_deref()).await
            }
            AuditCommand::Checkpoints { now } => {
                api::audit_cli::checkpoints(Config::load()?, now).await
            }
            AuditCommand::Replay { name } => {
                api::audit_cli::replay(Config::load()?, name.as_deref()).await
            }
            AuditCommand::Bets => audit_bets(Config::load()?).await,
        },
        Command::Staff(StaffCommand::Create { name, role }) => {
            create_staff(Config::load()?, &name, &role).await
        }
        Command::Bench(b) => match b {
            BenchCommand::Wallet(args) => bench::wallet(args).await,
            BenchCommand::Swarm(args) => api::bench_swarm::run(args).await,
            BenchCommand::Bets(args) => api::bench_bets::run(args).await,
            BenchCommand::Rebuild(options) => api::bench_rebuild::run(options).await,
            BenchCommand::Casino(args) => api::bench_casino::run(args).await,
            BenchCommand::SwarmClients { url, n, .. } => api::bench_swarm::clients(&url, n).await,
        },
    }
}

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
    let role = domain::staff::Role::parse(role).with_context(|| {
        format!("unknown role '{role}' (support, auditor, trader, admin, finance or marketing)")
    })?;
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
