//! The operator's and auditor's commands on the log and the projections:
//! `api audit verify`, `api audit checkpoints`, `api projections parked`,
//! `api projections retry|skip` (docs/audit.md, docs/projections.md).

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressStyle};
use projections::seal::SignedCheckpoint;

use crate::app::{self, AppState};
use crate::config::Config;

pub fn bar(message: &str, unit: &str) -> ProgressBar {
    let bar = ProgressBar::new(0).with_message(message.to_string());
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{msg:>12}} [{{bar:40}}] {{pos}}/{{len}} {unit} ({{per_sec}}, eta {{eta}})"
        ))
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar
}

async fn open(config: Config) -> anyhow::Result<AppState> {
    let db = app::open_store(&config).await?;
    AppState::new(config, db).await
}

/// `api audit verify [--keep FILE]`: seals what is not sealed yet, then
/// re-reads the whole store against the chain (and the kept checkpoints).
/// Exit 1 on the first difference.
pub async fn verify(config: Config, keep: Option<&std::path::Path>) -> anyhow::Result<()> {
    let mut kept = Vec::new();
    if let Some(file) = keep {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("reading kept checkpoints from {}", file.display()))?;
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            kept.push(SignedCheckpoint::parse(line).with_context(|| {
                format!(
                    "{}:{}: not 'chain_index position hash signature'",
                    file.display(),
                    n + 1
                )
            })?);
        }
    }
    let key = config.audit.checkpoint_key.clone();
    let state = open(config).await?;
    if let Some(sealer) = state.runner.sealer() {
        sealer.seal_all(&state.db.any).await?;
    }
    let bar = bar("verify", "events");
    let report = projections::verify::verify(
        &state.db.any,
        state.runner.backend(),
        Some(key.as_bytes()),
        &kept,
        &|done, total| {
            bar.set_length(total.max(done));
            bar.set_position(done);
        },
    )
    .await?;
    bar.finish();
    println!(
        "{} events checked against the chain, {} checkpoints checked ({} kept outside), {} not sealed yet",
        report.checked,
        report.checkpoints_checked,
        kept.len(),
        report.unsealed
    );
    if let Some((index, hash)) = &report.head {
        println!("chain head: {index} {hash}");
    }
    if let Some(d) = report.first_difference {
        println!(
            "FIRST DIFFERENCE ({:?}) at chain index {}, position {}: {}",
            d.kind, d.chain_index, d.position, d.detail
        );
        bail!("the event log does not match its seals");
    }
    println!("the event log matches its seals");
    Ok(())
}

/// `api audit checkpoints [--now]`: the signed chain heads, one per line
/// (`chain_index position hash signature`), for an auditor to keep.
/// `--now` seals and signs the current head first.
pub async fn checkpoints(config: Config, now: bool) -> anyhow::Result<()> {
    let state = open(config).await?;
    if now {
        if let Some(sealer) = state.runner.sealer() {
            sealer.checkpoint_now(&state.db.any).await?;
        }
    }
    println!("# chain_index position hash hmac-sha256");
    for c in projections::seal::checkpoints(&state.db.any).await? {
        println!("{}", c.line());
    }
    Ok(())
}

/// `api projections parked [open|applied|skipped]`.
pub async fn parked(config: Config, status: Option<&str>) -> anyhow::Result<()> {
    let state = open(config).await?;
    let list = state.runner.parked(status, 1000).await?;
    for p in &list {
        println!(
            "#{} {} {} {}/{}#{} ({}) at position {}, parked {}: {}",
            p.id,
            p.status,
            p.projection,
            p.aggregate_type,
            p.aggregate_id,
            p.sequence,
            p.event_type,
            p.position,
            p.parked_at,
            p.error
        );
    }
    println!("{} parked events", list.len());
    Ok(())
}

/// `api projections retry ID` / `api projections skip ID`.
pub async fn resolve(config: Config, id: &str, retry: bool) -> anyhow::Result<()> {
    let id: i64 = id.parse().context("the parked event's id is a number")?;
    let state = open(config).await?;
    let who = std::env::var("USER").unwrap_or_else(|_| "operator".into());
    let by = format!("cli:{who}");
    let done = if retry {
        state.runner.retry_parked(id, &by).await?
    } else {
        state.runner.skip_parked(id, &by).await?
    };
    println!("#{} {}", done.id, done.status);
    Ok(())
}

/// `api audit replay [NAME|money]`: each read model (or NAME) rebuilt into
/// a scratch copy and compared with the live one, then the money
/// invariants checked by the audit's own fold. Exit 1 on any difference.
pub async fn replay(config: Config, name: Option<&str>) -> anyhow::Result<()> {
    let state = open(config).await?;
    state.runner.catch_up_all().await?;
    let names: Vec<String> = match name {
        None => {
            let mut all: Vec<String> = state.runner.names().iter().map(|n| n.to_string()).collect();
            all.push("money".into());
            all
        }
        Some(name) => vec![name.to_string()],
    };
    let mut differences = 0usize;
    for name in names {
        let bar = bar(&name, "events");
        let progress = |done: u64, total: u64| {
            bar.set_length(total.max(done));
            bar.set_position(done);
        };
        if name == "money" {
            let report =
                projections::replay::money(&state.db.any, state.runner.backend(), &progress)
                    .await?;
            bar.finish();
            println!(
                "money: {} events, {} wallets, {} bets; credits {} debits {} stakes {} payouts {}; balances total {}",
                report.events,
                report.wallets,
                report.bets,
                report.deposits,
                report.withdrawals,
                report.stakes,
                report.payouts,
                report.balances_total
            );
            for d in &report.differences {
                println!(
                    "  DIFFERENCE {}: {} expected {} found {}",
                    d.rule, d.subject, d.expected, d.found
                );
                for e in &d.events {
                    println!("    {e}");
                }
            }
            differences += report.differences.len();
            continue;
        }
        let report = state.runner.replay_scratch(&name, &progress).await?;
        bar.finish();
        println!(
            "{}: replayed {} events in scratch, compared at position {}: {} tables differ",
            report.projection,
            report.events,
            report.position,
            report.differences.len()
        );
        for d in &report.differences {
            println!(
                "  DIFFERENCE {}: {} rows only in the replay, {} only in the live read model",
                d.table, d.only_in_replay, d.only_in_live
            );
            for r in &d.replay_rows {
                println!("    replay: {r}");
            }
            for r in &d.live_rows {
                println!("    live:   {r}");
            }
        }
        differences += report.differences.len();
    }
    if differences > 0 {
        bail!("{differences} differences between the read models and the events");
    }
    println!("every read model equals its replay; the money invariants hold");
    Ok(())
}
