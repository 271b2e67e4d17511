//! Projection `settlement`: the process manager's memory for settling bets
//! from results. It reads bets and game results from the global stream in
//! order, so a bet placed just before its game's result is never missed:
//! it records which bet waits on which selection and the latest outcome of
//! each selection, and when every selection of a bet has an outcome it
//! writes a settlement task. Tasks are carried out after the projection's
//! transaction commits (by `commands::sportsbook::bets`), idempotently, so a crash
//! anywhere re-runs them without paying twice. It keeps each selection's
//! starting price too (`sp_prices_of`) for SP bets.
//!
//! Only `BetPlaced` matters here; the other bet events (acceptance,
//! cash-outs, auto cash-out rules, counter offers) are read and skipped. A
//! fully cashed-out bet still gets its task when its results arrive: the
//! Bet aggregate answers it with no event (the cash-out won the race), so
//! nothing is paid, and the task is finished like any other. A partly
//! cashed-out bet settles on its remaining stake.

use domain::bet::BetEvent;
use domain::result::ResultEvent;
use futures::future::BoxFuture;
use sqlx::{AnyConnection, Executor, Row};

use crate::runner::{Projection, ProjectionError};
use store::stream::StoredEvent;

pub const NAME: &str = "settlement";

pub struct SettlementProjection;

/// The outcome's wire name, as stored.
fn outcome_text(outcome: domain::result::SelectionOutcome) -> String {
    serde_json::to_value(outcome)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

struct LegRow {
    event_id: i64,
    game_id: i64,
    market_id: i64,
    start_ts: i64,
}

/// Rows per multi-row statement.
const CHUNK: usize = 400;

/// Records a run of placements: their legs in multi-row inserts, then the
/// tasks of the bets whose every selection already has an outcome.
async fn flush_placements(
    conn: &mut AnyConnection,
    run: &mut Vec<(&str, Vec<LegRow>)>,
    version: i64,
) -> Result<(), sqlx::Error> {
    if run.is_empty() {
        return Ok(());
    }
    let legs: Vec<(&str, &LegRow)> = run
        .iter()
        .flat_map(|(bet, legs)| legs.iter().map(move |l| (*bet, l)))
        .collect();
    for chunk in legs.chunks(CHUNK) {
        let values: Vec<String> = (0..chunk.len())
            .map(|i| {
                let b = i * 5;
                format!(
                    "(${}, ${}, ${}, ${}, ${})",
                    b + 1,
                    b + 2,
                    b + 3,
                    b + 4,
                    b + 5
                )
            })
            .collect();
        let sql = format!(
            "INSERT INTO settlement_legs (event_id, bet_id, game_id, market_id, start_ts) VALUES {} ON CONFLICT (event_id, bet_id) DO NOTHING",
            values.join(", ")
        );
        let sql = store::marks::for_conn(&*conn, &sql);
        let mut query = sqlx::query(&sql);
        for (bet, leg) in chunk {
            query = query
                .bind(leg.event_id)
                .bind(*bet)
                .bind(leg.game_id)
                .bind(leg.market_id)
                .bind(leg.start_ts);
        }
        query.execute(&mut *conn).await?;
    }
    queue_complete(conn, run, version).await?;
    run.clear();
    Ok(())
}

/// Queues a settlement at `version` of each bet of the run whose every
/// selection already has an outcome: the outcomes of the run's selections
/// are read by key (one statement per chunk of distinct selections, often
/// a handful for a run of hundreds of bets), the bets are checked in
/// memory, and their tasks go in one multi-row insert per chunk.
async fn queue_complete(
    conn: &mut AnyConnection,
    run: &[(&str, Vec<LegRow>)],
    version: i64,
) -> Result<(), sqlx::Error> {
    let selections: std::collections::BTreeSet<i64> = run
        .iter()
        .flat_map(|(_, legs)| legs.iter().map(|l| l.event_id))
        .collect();
    let selections: Vec<i64> = selections.into_iter().collect();
    let mut known = std::collections::HashSet::new();
    for row in crate::rows_in(
        conn,
        "SELECT event_id FROM settlement_outcomes WHERE event_id IN ({})",
        &selections,
    )
    .await?
    {
        known.insert(row.try_get::<i64, _>("event_id")?);
    }
    if known.is_empty() {
        return Ok(());
    }
    let mut complete: Vec<&str> = run
        .iter()
        .filter(|(_, legs)| !legs.is_empty() && legs.iter().all(|l| known.contains(&l.event_id)))
        .map(|(bet, _)| *bet)
        .collect();
    complete.sort_unstable();
    complete.dedup();
    let now = now_ms();
    for chunk in complete.chunks(CHUNK) {
        let values: Vec<String> = (0..chunk.len())
            .map(|i| format!("(${}, ${}, 0, ${})", i * 3 + 1, i * 3 + 2, i * 3 + 3))
            .collect();
        let sql = format!(
            "INSERT INTO settlement_tasks (bet_id, version, done, created_ms) VALUES {}",
            values.join(", ")
        );
        let sql = store::marks::for_conn(&*conn, &sql);
        let mut query = sqlx::query(&sql);
        for bet in chunk {
            query = query.bind(*bet).bind(version).bind(now);
        }
        query.execute(&mut *conn).await?;
    }
    Ok(())
}

/// A selection's latest outcome in a run of results: (outcome, the
/// version of the result that stated it, starting price).
type Stated = (String, i64, Option<String>);

/// A run of results read in one batch: each selection's latest outcome,
/// and each result's version with the selections it stated, in order.
#[derive(Default)]
struct Results {
    latest: std::collections::BTreeMap<i64, Stated>,
    each: Vec<(i64, Vec<i64>)>,
}

/// Records a run of results in a few statements whatever its size, and
/// queues what the results one by one would have queued: after each
/// result, at its version, every bet on its selections whose every
/// selection then has an outcome.
async fn flush_results(conn: &mut AnyConnection, results: &mut Results) -> Result<(), sqlx::Error> {
    use std::collections::{BTreeMap, BTreeSet, HashMap};
    if results.each.is_empty() {
        return Ok(());
    }
    // The bets on the run's selections, their legs, and which of those
    // legs had an outcome before the run.
    let stated: Vec<i64> = results.latest.keys().copied().collect();
    let mut bets = BTreeSet::new();
    for row in crate::rows_in(
        conn,
        "SELECT DISTINCT bet_id FROM settlement_legs WHERE event_id IN ({})",
        &stated,
    )
    .await?
    {
        bets.insert(row.try_get::<String, _>("bet_id")?);
    }
    let bet_ids: Vec<&str> = bets.iter().map(String::as_str).collect();
    let mut legs: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for row in crate::rows_in(
        conn,
        "SELECT bet_id, event_id FROM settlement_legs WHERE bet_id IN ({})",
        &bet_ids,
    )
    .await?
    {
        legs.entry(row.try_get("bet_id")?)
            .or_default()
            .push(row.try_get("event_id")?);
    }
    let leg_events: BTreeSet<i64> = legs.values().flatten().copied().collect();
    let leg_events: Vec<i64> = leg_events.into_iter().collect();
    let mut known = std::collections::HashSet::new();
    for row in crate::rows_in(
        conn,
        "SELECT event_id FROM settlement_outcomes WHERE event_id IN ({})",
        &leg_events,
    )
    .await?
    {
        known.insert(row.try_get::<i64, _>("event_id")?);
    }
    // The outcomes, each selection's latest.
    let latest: Vec<(&i64, &Stated)> = results.latest.iter().collect();
    for chunk in latest.chunks(CHUNK) {
        let sql = format!(
            "INSERT INTO settlement_outcomes (event_id, outcome, version, sp) VALUES {}
             ON CONFLICT (event_id) DO UPDATE SET outcome = excluded.outcome, version = excluded.version, sp = excluded.sp",
            crate::placeholders(chunk.len(), 4)
        );
        let sql = store::marks::for_conn(&*conn, &sql);
        let mut query = sqlx::query(&sql);
        for (event_id, (outcome, version, sp)) in chunk {
            query = query
                .bind(**event_id)
                .bind(outcome.as_str())
                .bind(*version)
                .bind(sp.as_deref());
        }
        query.execute(&mut *conn).await?;
    }
    // The tasks, result by result.
    let mut first_stated: HashMap<i64, usize> = HashMap::new();
    for (i, (_, events)) in results.each.iter().enumerate() {
        for event in events {
            first_stated.entry(*event).or_insert(i);
        }
    }
    let mut bets_on: HashMap<i64, Vec<&str>> = HashMap::new();
    for (bet, events) in &legs {
        for event in events {
            bets_on.entry(*event).or_default().push(bet.as_str());
        }
    }
    let mut tasks: Vec<(&str, i64)> = Vec::new();
    for (i, (version, events)) in results.each.iter().enumerate() {
        let touched: BTreeSet<&str> = events
            .iter()
            .flat_map(|e| bets_on.get(e).into_iter().flatten().copied())
            .collect();
        for bet in touched {
            let complete = legs[bet]
                .iter()
                .all(|e| known.contains(e) || first_stated.get(e).is_some_and(|at| *at <= i));
            if complete {
                tasks.push((bet, *version));
            }
        }
    }
    let now = now_ms();
    for chunk in tasks.chunks(CHUNK) {
        let values: Vec<String> = (0..chunk.len())
            .map(|i| format!("(${}, ${}, 0, ${})", i * 3 + 1, i * 3 + 2, i * 3 + 3))
            .collect();
        let sql = format!(
            "INSERT INTO settlement_tasks (bet_id, version, done, created_ms) VALUES {}",
            values.join(", ")
        );
        let sql = store::marks::for_conn(&*conn, &sql);
        let mut query = sqlx::query(&sql);
        for (bet, version) in chunk {
            query = query.bind(*bet).bind(*version).bind(now);
        }
        query.execute(&mut *conn).await?;
    }
    *results = Results::default();
    Ok(())
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or_default()
}

impl Projection for SettlementProjection {
    fn name(&self) -> &'static str {
        NAME
    }

    fn aggregate_types(&self) -> &'static [&'static str] {
        &["Bet", "GameResult"]
    }

    fn apply<'a>(
        &'a self,
        conn: &'a mut AnyConnection,
        events: &'a [StoredEvent],
    ) -> BoxFuture<'a, Result<(), ProjectionError>> {
        Box::pin(async move {
            // Result versions count the results read, in stream order: a
            // correction is always read after what it corrects, so its
            // version is higher (the Bet aggregate ignores older ones).
            let mut version: i64 = sqlx::query_scalar::<_, Option<i64>>(
                "SELECT max(version) FROM settlement_outcomes",
            )
            .fetch_one(&mut *conn)
            .await?
            .unwrap_or(0);
            // Placements come in runs between results, and results in runs
            // between placements: each run is a few multi-row statements
            // whatever its size, written before the next run is read.
            let mut run: Vec<(&str, Vec<LegRow>)> = Vec::new();
            let mut results = Results::default();
            for stored in events {
                let Some(payload) = stored.payload.as_deref() else {
                    continue;
                };
                match stored.aggregate_type.as_str() {
                    "Bet" => {
                        let event = stored.bet_event()?;
                        let BetEvent::BetPlaced { bet, .. } = &*event else {
                            continue;
                        };
                        flush_results(conn, &mut results).await?;
                        let legs = bet
                            .legs
                            .iter()
                            .map(|leg| LegRow {
                                event_id: leg.event_id as i64,
                                game_id: leg.game_id as i64,
                                market_id: leg.market_id as i64,
                                start_ts: leg.start_ts,
                            })
                            .collect();
                        run.push((stored.aggregate_id.as_str(), legs));
                    }
                    "GameResult" => {
                        flush_placements(conn, &mut run, version).await?;
                        let event: ResultEvent = serde_json::from_str(payload)
                            .map_err(|e| ProjectionError::bad_event(stored, e))?;
                        // Results, corrections and voids alike state
                        // outcomes (a void: returned); a later one in the
                        // run replaces an earlier one's.
                        version += 1;
                        let mut stated = Vec::new();
                        for selection in event.selections() {
                            stated.push(selection.event_id as i64);
                            results.latest.insert(
                                selection.event_id as i64,
                                (
                                    outcome_text(selection.outcome),
                                    version,
                                    selection.sp_price.map(|sp| sp.to_string()),
                                ),
                            );
                        }
                        results.each.push((version, stated));
                    }
                    _ => {}
                }
            }
            flush_placements(conn, &mut run, version).await?;
            flush_results(conn, &mut results).await?;
            Ok(())
        })
    }

    fn tables(&self) -> &'static [&'static str] {
        &["settlement_legs", "settlement_outcomes"]
    }

    fn reset<'a>(
        &'a self,
        conn: &'a mut AnyConnection,
    ) -> BoxFuture<'a, Result<(), ProjectionError>> {
        Box::pin(async move {
            // Tasks already carried out stay done; re-queued ones are
            // idempotent (same version: nothing changes, nothing is paid).
            conn.execute("DELETE FROM settlement_legs").await?;
            conn.execute("DELETE FROM settlement_outcomes").await?;
            Ok(())
        })
    }
}

/// Outcomes of a bet's selections, as stored by the projection.
pub async fn outcomes_of(
    pool: &sqlx::AnyPool,
    bet_id: &str,
) -> Result<std::collections::BTreeMap<u64, domain::result::SelectionOutcome>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT o.event_id, o.outcome FROM settlement_legs l JOIN settlement_outcomes o ON o.event_id = l.event_id WHERE l.bet_id = $1",
    )
    .bind(bet_id)
    .fetch_all(pool)
    .await?;
    let mut map = std::collections::BTreeMap::new();
    for row in rows {
        let id: i64 = row.try_get("event_id")?;
        let text: String = row.try_get("outcome")?;
        if let Ok(outcome) = serde_json::from_value(serde_json::Value::String(text)) {
            map.insert(id as u64, outcome);
        }
    }
    Ok(map)
}

/// Starting prices of a bet's selections whose results give one (SP
/// markets): what `BetCommand::Settle::sp_prices` takes, so that SP legs
/// settle at their starting price.
pub async fn sp_prices_of(
    pool: &sqlx::AnyPool,
    bet_id: &str,
) -> Result<std::collections::BTreeMap<u64, rust_decimal::Decimal>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT o.event_id, o.sp FROM settlement_legs l JOIN settlement_outcomes o ON o.event_id = l.event_id WHERE l.bet_id = $1 AND o.sp IS NOT NULL",
    )
    .bind(bet_id)
    .fetch_all(pool)
    .await?;
    let mut map = std::collections::BTreeMap::new();
    for row in rows {
        let id: i64 = row.try_get("event_id")?;
        let text: String = row.try_get("sp")?;
        if let Ok(sp) = text.parse() {
            map.insert(id as u64, sp);
        }
    }
    Ok(map)
}

/// How many selections a bet waits on.
pub async fn legs_of(pool: &sqlx::AnyPool, bet_id: &str) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar("SELECT count(*) FROM settlement_legs WHERE bet_id = $1")
        .bind(bet_id)
        .fetch_one(pool)
        .await
}

/// A selection some bet is on: (event id, market id).
pub type LegSelection = (u64, u64);

/// The selections bets are on in `game_id` (of `market_id` only, when
/// given), as (event id, market id).
pub async fn selections_of(
    pool: &sqlx::AnyPool,
    game_id: u64,
    market_id: Option<u64>,
) -> Result<Vec<LegSelection>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT DISTINCT event_id, market_id FROM settlement_legs WHERE game_id = $1 AND ($2 < 0 OR market_id = $2)",
    )
    .bind(game_id as i64)
    .bind(market_id.map(|m| m as i64).unwrap_or(-1))
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| {
            let event: i64 = r.try_get("event_id")?;
            let market: i64 = r.try_get("market_id")?;
            Ok((event as u64, market as u64))
        })
        .collect()
}

/// The game of `market_id`, if some bet is on it.
pub async fn game_of_market(
    pool: &sqlx::AnyPool,
    market_id: u64,
) -> Result<Option<u64>, sqlx::Error> {
    let game: Option<Option<i64>> =
        sqlx::query_scalar("SELECT game_id FROM settlement_legs WHERE market_id = $1 LIMIT 1")
            .bind(market_id as i64)
            .fetch_optional(pool)
            .await?;
    Ok(game.flatten().map(|g| g as u64))
}

/// A bet on `event_id`, if there is one.
pub async fn a_bet_on(pool: &sqlx::AnyPool, event_id: u64) -> Result<Option<String>, sqlx::Error> {
    sqlx::query_scalar("SELECT bet_id FROM settlement_legs WHERE event_id = $1 LIMIT 1")
        .bind(event_id as i64)
        .fetch_optional(pool)
        .await
}

/// Selections without an outcome on bets whose last leg started before
/// `started_before` (unix s), grouped by game: game id -> selections, at
/// most `limit`. `since` (unix s): only bets with a leg started at or
/// after it, a range of the start index (one statement over every leg
/// grew with the table: 0.4 s a pass at 1,000,000 legs); `None` reads
/// every bet.
///
/// Two steps, so that neither store's planner starts from every leg: the
/// bets, a page of [`DUE_PAGE`] at a time in bet order (from the start
/// index's range, or along the bet index when every bet is read), then
/// the legs without an outcome of those of them that are due (no leg
/// started at or after `started_before`, some leg with a start), by the
/// bet index (`rows_in`, a chunk of bets a statement), until `limit`
/// selections are found or no bet is left.
pub async fn unresulted(
    pool: &sqlx::AnyPool,
    started_before: i64,
    since: Option<i64>,
    limit: i64,
) -> Result<std::collections::BTreeMap<u64, Vec<LegSelection>>, sqlx::Error> {
    unresulted_in_pages(pool, started_before, since, limit, DUE_PAGE).await
}

/// [`unresulted`] with pages of `page` bets (tests use small ones).
pub async fn unresulted_in_pages(
    pool: &sqlx::AnyPool,
    started_before: i64,
    since: Option<i64>,
    limit: i64,
    page: i64,
) -> Result<std::collections::BTreeMap<u64, Vec<LegSelection>>, sqlx::Error> {
    let mut conn = pool.acquire().await?;
    let mut found: std::collections::BTreeSet<(i64, i64, i64)> = Default::default();
    // The due test is step two's (a number of ours, not input: inlined,
    // since `rows_in` numbers the statement's parameters).
    let legs = format!(
        "SELECT DISTINCT l.game_id, l.event_id, l.market_id FROM settlement_legs l
         WHERE l.bet_id IN ({{}}) AND l.game_id IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM settlement_outcomes o WHERE o.event_id = l.event_id)
           AND NOT EXISTS (SELECT 1 FROM settlement_legs x
                           WHERE x.bet_id = l.bet_id AND x.start_ts >= {started_before})
           AND EXISTS (SELECT 1 FROM settlement_legs y
                       WHERE y.bet_id = l.bet_id AND y.start_ts IS NOT NULL)"
    );
    let mut after = String::new();
    while (found.len() as i64) < limit {
        let bets = match since {
            Some(since) => sqlx::query_scalar(
                "SELECT DISTINCT r.bet_id FROM settlement_legs r
                 WHERE r.bet_id > $1 AND r.start_ts >= $2 AND r.start_ts < $3
                 ORDER BY r.bet_id LIMIT $4",
            )
            .bind(after.as_str())
            .bind(since)
            .bind(started_before),
            None => sqlx::query_scalar(
                "SELECT DISTINCT r.bet_id FROM settlement_legs r
                 WHERE r.bet_id > $1 ORDER BY r.bet_id LIMIT $2",
            )
            .bind(after.as_str()),
        };
        let bets: Vec<String> = bets.bind(page).fetch_all(&mut *conn).await?;
        let Some(last) = bets.last() else {
            break;
        };
        after = last.clone();
        let ids: Vec<&str> = bets.iter().map(String::as_str).collect();
        for row in crate::rows_in(&mut conn, &legs, &ids).await? {
            let game: i64 = row.try_get("game_id")?;
            let event: i64 = row.try_get("event_id")?;
            let market: i64 = row.try_get("market_id")?;
            found.insert((game, event, market));
        }
        if (bets.len() as i64) < page {
            break;
        }
    }
    let mut games: std::collections::BTreeMap<u64, Vec<LegSelection>> = Default::default();
    for (game, event, market) in found.into_iter().take(limit.max(0) as usize) {
        games
            .entry(game as u64)
            .or_default()
            .push((event as u64, market as u64));
    }
    Ok(games)
}

/// Bets due that one statement of [`unresulted`] reads at most.
pub const DUE_PAGE: i64 = 5_000;

/// Open settlement tasks, oldest first: (task id, bet id, version).
pub async fn open_tasks(
    pool: &sqlx::AnyPool,
    limit: i64,
) -> Result<Vec<(i64, String, i64)>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT id, bet_id, version FROM settlement_tasks WHERE done = 0 ORDER BY id LIMIT $1",
    )
    .bind(limit)
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| {
            Ok((
                r.try_get("id")?,
                r.try_get("bet_id")?,
                r.try_get("version")?,
            ))
        })
        .collect()
}

pub async fn finish_task(pool: &sqlx::AnyPool, id: i64) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE settlement_tasks SET done = 1 WHERE id = $1")
        .bind(id)
        .execute(pool)
        .await?;
    Ok(())
}
