//! `api audit replay`: every read model rebuilt into a scratch copy from
//! the events with the production code and compared with the live one at
//! the same point of the stream; and the money invariants checked with an
//! independent fold written for the audit alone (it reads the events'
//! JSON itself and shares no code with the Wallet aggregate or the
//! projections).

use std::collections::{BTreeMap, HashMap};

use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::Value;
use sqlx::{AnyConnection, Connection, Executor, Row};

use crate::runner::{ProjectionError, Runner, Target};
use crate::shadow::Shadow;
use store::checkpoint::{lock_checkpoint, read_checkpoint};
use store::stream::{self, Backend, Checkpoint};

/// Rows shown per difference.
const SAMPLE: i64 = 20;

#[derive(Debug, Clone, Serialize)]
pub struct TableDifference {
    pub table: String,
    /// Rows the replay built that the live read model lacks (or holds
    /// otherwise), and the other way round.
    pub only_in_replay: i64,
    pub only_in_live: i64,
    pub replay_rows: Vec<String>,
    pub live_rows: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ScratchReport {
    pub projection: String,
    /// Where both were compared.
    pub position: i64,
    pub events: u64,
    pub differences: Vec<TableDifference>,
}

impl Runner {
    /// Rebuilds `name` into a scratch copy (the live one keeps serving)
    /// and compares the two at the live checkpoint, table by table.
    pub async fn replay_scratch(
        &self,
        name: &str,
        progress: &(dyn Fn(u64, u64) + Sync),
    ) -> Result<ScratchReport, ProjectionError> {
        let projection = self.find(name)?.clone();
        if projection.tables().is_empty() {
            return Err(ProjectionError::Unknown(
                format!("{name} (names no tables to replay)"),
                self.names().join(", "),
            ));
        }
        self.catch_up_with(projection.as_ref(), &|_| {}).await?;
        let mut conn = self.pool().acquire().await?;
        let shadow =
            Shadow::create_as(&mut conn, self.backend(), projection.as_ref(), "au").await?;
        let target = Target {
            checkpoint: format!("{name}@audit"),
            search_path: shadow.search_path(),
            live: false,
        };
        let result = self
            .fill_and_compare(&mut conn, projection.as_ref(), &shadow, &target, progress)
            .await;
        let dropped = shadow.drop(&mut conn).await;
        let _ = sqlx::query("DELETE FROM projection_checkpoints WHERE name = $1")
            .bind(&target.checkpoint)
            .execute(&mut *conn)
            .await;
        let report = result?;
        dropped?;
        Ok(report)
    }

    async fn fill_and_compare(
        &self,
        conn: &mut AnyConnection,
        projection: &dyn crate::Projection,
        shadow: &Shadow,
        target: &Target,
        progress: &(dyn Fn(u64, u64) + Sync),
    ) -> Result<ScratchReport, ProjectionError> {
        sqlx::query("DELETE FROM projection_checkpoints WHERE name = $1")
            .bind(&target.checkpoint)
            .execute(&mut *conn)
            .await?;
        let total = stream::count_after(&mut *conn, self.backend(), Checkpoint::default())
            .await?
            .max(0) as u64;
        let mut done = 0u64;
        // Fill the scratch copy up to what the live one has applied.
        loop {
            let live_at = read_checkpoint(&mut *conn, projection.name()).await?;
            let at = read_checkpoint(&mut *conn, &target.checkpoint).await?;
            if at >= live_at {
                break;
            }
            let n = self
                .batch(conn, projection, target, self.rebuild_batch_size())
                .await?;
            done += n as u64;
            progress(done, total.max(done));
            if n == 0 {
                break;
            }
        }
        for _ in 0..10 {
            let mut tx = conn.begin().await?;
            target.enter(&mut tx).await?;
            // Holding the live checkpoint: the live model stands still.
            let live_at = lock_checkpoint(&mut tx, projection.name()).await?;
            let mut at = lock_checkpoint(&mut tx, &target.checkpoint).await?;
            if at > live_at {
                // The live runner is behind the scratch copy: let it catch up.
                tx.rollback().await?;
                self.catch_up_with(projection, &|_| {}).await?;
                continue;
            }
            loop {
                let events: Vec<_> = stream::read_after(
                    &mut tx,
                    self.backend(),
                    at,
                    projection.aggregate_types(),
                    self.rebuild_batch_size(),
                )
                .await?
                .into_iter()
                .filter(|e| e.checkpoint <= live_at)
                .collect();
                let Some(last) = events.last().map(|e| e.checkpoint) else {
                    break;
                };
                projection.apply(&mut tx, &events).await?;
                done += events.len() as u64;
                at = last;
            }
            let mut differences = Vec::new();
            for table in shadow.tables() {
                let (only_in_replay, replay_rows) =
                    shadow.compare(&mut tx, table, true, SAMPLE).await?;
                let (only_in_live, live_rows) =
                    shadow.compare(&mut tx, table, false, SAMPLE).await?;
                if only_in_replay > 0 || only_in_live > 0 {
                    differences.push(TableDifference {
                        table: table.clone(),
                        only_in_replay,
                        only_in_live,
                        replay_rows,
                        live_rows,
                    });
                }
            }
            tx.rollback().await?;
            progress(done, total.max(done));
            return Ok(ScratchReport {
                projection: projection.name().to_string(),
                position: live_at.position,
                events: done,
                differences,
            });
        }
        Err(ProjectionError::Sql(sqlx::Error::Protocol(format!(
            "the live {} kept moving behind its scratch replay",
            projection.name()
        ))))
    }
}

/// A money rule the independent fold found broken, with the events that
/// explain it.
#[derive(Debug, Clone, Serialize)]
pub struct MoneyDifference {
    pub rule: String,
    pub subject: String,
    pub expected: String,
    pub found: String,
    /// `position type payload` of the events behind it (up to 50).
    pub events: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct MoneyReport {
    pub position: i64,
    pub events: u64,
    pub wallets: u64,
    pub bets: u64,
    pub deposits: String,
    pub withdrawals: String,
    pub stakes: String,
    pub payouts: String,
    pub balances_total: String,
    pub differences: Vec<MoneyDifference>,
}

/// One wallet as the audit folds it: what sits in each place.
#[derive(Debug, Clone, Default, PartialEq)]
struct Pots {
    main: Decimal,
    bonus: Decimal,
    bonus_win: Decimal,
    frozen: Decimal,
    reserved: Decimal,
}

impl Pots {
    fn pot(&mut self, name: &str) -> &mut Decimal {
        match name {
            "bonus" => &mut self.bonus,
            "bonus_win" => &mut self.bonus_win,
            _ => &mut self.main,
        }
    }
    fn text(&self) -> String {
        format!(
            "main {} bonus {} bonus_win {} frozen {} reserved {}",
            self.main.normalize(),
            self.bonus.normalize(),
            self.bonus_win.normalize(),
            self.frozen.normalize(),
            self.reserved.normalize()
        )
    }
}

fn amount(body: &Value) -> Decimal {
    match &body["amount"] {
        Value::String(s) => s.parse().unwrap_or_default(),
        Value::Number(n) => n.to_string().parse().unwrap_or_default(),
        _ => Decimal::ZERO,
    }
}

/// Checks the money invariants on every wallet event up to the balances
/// read model's checkpoint, with a fold of its own:
/// - each wallet's pots (sum of its movements) equal its balances row;
/// - each bet's stake is taken at most once (`bet:{id}:take`), and paid at
///   most once per result version (`bet:{id}:payout:{version}`);
/// - across the platform, credits - debits - stakes taken + payouts
///   (+ what is still held or frozen) equals the sum of the balances.
pub async fn money(
    pool: &sqlx::AnyPool,
    backend: Backend,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<MoneyReport, ProjectionError> {
    // The balances and their checkpoint, read in one snapshot.
    let mut conn = pool.acquire().await?;
    match backend {
        Backend::Postgres => {
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
                .await?
        }
        Backend::Sqlite => conn.execute("BEGIN").await?,
    };
    let upto = read_checkpoint(&mut conn, crate::balances::NAME).await?;
    let rows = sqlx::query(
        "SELECT member_id, currency, balance, bonus_balance, bonus_win_balance, frozen_balance, reserved FROM balances",
    )
    .fetch_all(&mut *conn)
    .await;
    conn.execute("COMMIT").await?;
    let mut read_model: HashMap<String, Pots> = HashMap::new();
    for row in rows? {
        let money = |c: &str| -> Result<Decimal, sqlx::Error> {
            Ok(row.try_get::<String, _>(c)?.parse().unwrap_or_default())
        };
        let id = format!(
            "{}:{}",
            row.try_get::<String, _>("member_id")?,
            row.try_get::<String, _>("currency")?
        );
        read_model.insert(
            id,
            Pots {
                main: money("balance")?,
                bonus: money("bonus_balance")?,
                bonus_win: money("bonus_win_balance")?,
                frozen: money("frozen_balance")?,
                reserved: money("reserved")?,
            },
        );
    }
    let total = stream::count_upto(&mut conn, backend, upto).await?.max(0) as u64;
    let mut report = MoneyReport {
        position: upto.position,
        ..Default::default()
    };
    let mut wallets: HashMap<String, Pots> = HashMap::new();
    let mut positions: HashMap<String, Vec<i64>> = HashMap::new();
    let mut reservations: HashMap<(String, String), (String, Decimal)> = HashMap::new();
    let mut taken: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    let mut paid: BTreeMap<(String, String), Vec<i64>> = BTreeMap::new();
    let (mut deposits, mut withdrawals, mut stakes, mut payouts) =
        (Decimal::ZERO, Decimal::ZERO, Decimal::ZERO, Decimal::ZERO);
    let mut at = Checkpoint::default();
    let mut seen = 0u64;
    loop {
        let events = stream::read_after(&mut conn, backend, at, &["Wallet"], 20_000).await?;
        let mut more = false;
        for event in &events {
            if event.checkpoint > upto {
                break;
            }
            more = true;
            at = event.checkpoint;
            seen += 1;
            let Some(payload) = event.payload.as_deref() else {
                continue;
            };
            let Ok(Value::Object(outer)) = serde_json::from_str::<Value>(payload) else {
                report.differences.push(MoneyDifference {
                    rule: "readable event".into(),
                    subject: event.aggregate_id.clone(),
                    expected: "a wallet event".into(),
                    found: payload.chars().take(200).collect(),
                    events: vec![format!(
                        "{} {}",
                        event.checkpoint.position, event.event_type
                    )],
                });
                continue;
            };
            let Some((kind, body)) = outer.iter().next() else {
                continue;
            };
            let wallet = event.aggregate_id.clone();
            positions
                .entry(wallet.clone())
                .or_default()
                .push(event.checkpoint.position);
            let pots = wallets.entry(wallet.clone()).or_default();
            let pot = body["pot"].as_str().unwrap_or("main");
            let reference = body["reference"].as_str().unwrap_or("").to_string();
            let value = amount(body);
            match kind.as_str() {
                "Credited" => {
                    *pots.pot(pot) += value;
                    deposits += value;
                }
                "Debited" => {
                    *pots.pot(pot) -= value;
                    withdrawals += value;
                }
                "PaidOut" => {
                    *pots.pot(pot) += value;
                    payouts += value;
                    if let Some(rest) = reference.strip_prefix("bet:") {
                        if let Some((bet, version)) = rest.split_once(":payout:") {
                            paid.entry((bet.to_string(), version.to_string()))
                                .or_default()
                                .push(event.checkpoint.position);
                        }
                    }
                }
                "StakeReserved" => {
                    *pots.pot(pot) -= value;
                    pots.reserved += value;
                    reservations.insert((wallet.clone(), reference), (pot.to_string(), value));
                }
                "StakeReleased" => {
                    *pots.pot(pot) += value;
                    pots.reserved -= value;
                }
                "StakeTaken" | "StakeReservedAndTaken" => {
                    let take = match kind.as_str() {
                        "StakeTaken" => {
                            pots.reserved -= value;
                            reference.as_str()
                        }
                        // Held and taken at once: out of the pot, never
                        // held; the take's reference is `taken_as`.
                        _ => {
                            *pots.pot(pot) -= value;
                            body["taken_as"].as_str().unwrap_or("")
                        }
                    };
                    stakes += value;
                    if let Some(bet) = take
                        .strip_prefix("bet:")
                        .and_then(|r| r.strip_suffix(":take"))
                    {
                        taken
                            .entry(bet.to_string())
                            .or_default()
                            .push(event.checkpoint.position);
                    }
                }
                "Frozen" => {
                    pots.main -= value;
                    pots.frozen += value;
                }
                "Unfrozen" => {
                    pots.frozen -= value;
                    pots.main += value;
                }
                _ => {}
            }
        }
        if seen % 100_000 < 20_000 {
            progress(seen, total.max(seen));
        }
        if !more || events.len() < 20_000 {
            break;
        }
    }
    progress(seen, total.max(seen));
    report.events = seen;
    report.wallets = wallets.len() as u64;
    report.bets = taken.len() as u64;
    let explain = |ids: &[i64]| -> Vec<i64> { ids.iter().rev().take(50).rev().copied().collect() };
    let mut pending: Vec<(MoneyDifference, Vec<i64>)> = Vec::new();
    let zero = Pots::default();
    let mut all: Vec<&String> = wallets.keys().chain(read_model.keys()).collect();
    all.sort();
    all.dedup();
    let mut balances_total = Decimal::ZERO;
    for id in all {
        let folded = wallets.get(id).unwrap_or(&zero);
        let stored = read_model.get(id).unwrap_or(&zero);
        balances_total +=
            stored.main + stored.bonus + stored.bonus_win + stored.frozen + stored.reserved;
        if folded != stored {
            pending.push((
                MoneyDifference {
                    rule: "a wallet's balances equal the sum of its movements".into(),
                    subject: id.clone(),
                    expected: folded.text(),
                    found: stored.text(),
                    events: Vec::new(),
                },
                explain(positions.get(id).map(Vec::as_slice).unwrap_or(&[])),
            ));
        }
    }
    for (bet, at) in &taken {
        if at.len() > 1 {
            pending.push((
                MoneyDifference {
                    rule: "a bet's stake is taken once".into(),
                    subject: format!("bet {bet}"),
                    expected: "1".into(),
                    found: at.len().to_string(),
                    events: Vec::new(),
                },
                explain(at),
            ));
        }
    }
    for ((bet, version), at) in &paid {
        if at.len() > 1 {
            pending.push((
                MoneyDifference {
                    rule: "a bet is paid at most once per result version".into(),
                    subject: format!("bet {bet} version {version}"),
                    expected: "1".into(),
                    found: at.len().to_string(),
                    events: Vec::new(),
                },
                explain(at),
            ));
        }
    }
    let platform = deposits - withdrawals - stakes + payouts;
    if platform != balances_total {
        pending.push((
            MoneyDifference {
                rule: "credits - debits - stakes + payouts equals the sum of the balances".into(),
                subject: "platform".into(),
                expected: platform.normalize().to_string(),
                found: balances_total.normalize().to_string(),
                events: Vec::new(),
            },
            Vec::new(),
        ));
    }
    for (mut difference, at) in pending.into_iter().take(200) {
        for position in at {
            if let Some(e) = stream::read_at(&mut conn, backend, position, &["Wallet"]).await? {
                difference.events.push(format!(
                    "{} {}/{}#{} {} {}",
                    position,
                    e.aggregate_type,
                    e.aggregate_id,
                    e.sequence,
                    e.event_type,
                    e.payload.unwrap_or_default()
                ));
            }
        }
        report.differences.push(difference);
    }
    report.deposits = deposits.normalize().to_string();
    report.withdrawals = withdrawals.normalize().to_string();
    report.stakes = stakes.normalize().to_string();
    report.payouts = payouts.normalize().to_string();
    report.balances_total = balances_total.normalize().to_string();
    Ok(report)
}
