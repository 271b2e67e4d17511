//! Read model `bets`: the bet history (report/betrecods, the right panel's
//! 24-hour records, open bets), one row per bet with the bet record of spec
//! 001 section 3 ready to answer, plus the cash-out and super-bet fields of
//! docs/cashout-and-backoffice.md ("bet_history"): `cash_out`,
//! `cashout_amount` (paid by cash-outs so far), `remaining_stake`,
//! `super_bet_status`, `counter_offer`, `auto_cashout`. A full cash-out
//! shows status 5 with the cashed-out total as `payout`.
//!
//! `placed_record` and `fold` are the pure fold of a bet's events into its
//! record (the projection stores what they give; an audit can replay a
//! bet's events through them and compare).

use std::collections::{BTreeMap, HashMap};

use domain::bet::{cash_out_offered, BetEvent, BetStatus, ValidBet};
use domain::result::SelectionOutcome;
use domain::Currency;
use futures::future::BoxFuture;
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sqlx::{AnyConnection, Executor, Row};

use crate::runner::{Projection, ProjectionError};
use store::stream::StoredEvent;

pub const NAME: &str = "bets";

pub struct BetHistoryProjection;

/// A selection's outcome as the bet record shows it: 3 is "not settled yet"
/// (spec 000 section 3); the others are platform-defined (6: placed, an
/// each-way runner that finished within the places but did not win).
pub fn leg_outcome_code(outcome: Option<SelectionOutcome>) -> i64 {
    match outcome {
        None => 3,
        Some(SelectionOutcome::Lost) => 0,
        Some(SelectionOutcome::Won) => 1,
        Some(SelectionOutcome::Returned) => 2,
        Some(SelectionOutcome::HalfWon) => 4,
        Some(SelectionOutcome::HalfLost) => 5,
        Some(SelectionOutcome::Placed) => 6,
    }
}

/// W1/W2/Team 1/Team 2/Home/Away in a selection's name become team names.
pub fn named(name: &str, team1: &str, team2: Option<&str>) -> String {
    let team2 = team2.unwrap_or_default();
    let mut out = name.to_string();
    for (placeholder, team) in [
        ("Team 1", team1),
        ("Team 2", team2),
        ("W1", team1),
        ("W2", team2),
        ("Home", team1),
        ("Away", team2),
    ] {
        if !team.is_empty() {
            out = out.replace(placeholder, team);
        }
    }
    out
}

fn money(currency: Currency, amount: Decimal) -> String {
    currency.round(amount).to_string()
}

/// The bet record of spec 001 section 3 as the history answers it, with
/// the cash-out and super-bet fields. Typed, so folding a rebuild's
/// hundreds of thousands of bets neither builds nor walks JSON maps; the
/// JSON is the same as the fields in this order. `#[serde(default)]`: a
/// row written by an older version with fewer fields still loads.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BetRecord {
    pub id: i64,
    #[serde(rename = "BetId")]
    pub bet_id: i64,
    #[serde(rename = "type")]
    pub bet_type: u8,
    pub system_min_count: Option<u32>,
    pub date_time: i64,
    pub amount: String,
    pub bonus_bet_amount: String,
    pub bonus: String,
    #[serde(rename = "Bonus")]
    pub bonus_again: String,
    pub k: Option<String>,
    pub possible_win: Option<String>,
    pub payout: String,
    pub outcome: i8,
    pub cash_out: bool,
    pub cashout_amount: String,
    pub remaining_stake: String,
    pub counter_offer: Value,
    pub auto_cashout: Value,
    pub is_super_bet: bool,
    pub super_bet_id: Option<i64>,
    pub super_bet_status: Option<i8>,
    pub client_bonus_id: Option<String>,
    pub currency: String,
    pub each_way: bool,
    pub events: Vec<LegRecord>,
}

/// One selection of a bet record.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LegRecord {
    pub competition_name: String,
    pub team1: String,
    pub team2: Option<String>,
    pub sport_name: String,
    pub region_name: String,
    pub game_name: String,
    pub market_name: String,
    pub event_name: String,
    pub coeficient: String,
    pub base: Option<String>,
    pub sport_index: u64,
    pub sport_id: u64,
    pub game_id: u64,
    pub selection_id: u64,
    pub start_date: i64,
    pub banker: bool,
    pub outcome: i64,
}

impl BetRecord {
    /// The record as the JSON the history answers.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    fn currency(&self) -> Currency {
        self.currency.parse().unwrap_or(Currency::Cny)
    }
}

/// The bet record of a placed bet in its current state.
#[allow(clippy::too_many_arguments)]
pub fn record(
    bet_id: &str,
    bet: &ValidBet,
    currency: Currency,
    date_time: i64,
    status: BetStatus,
    payout: Decimal,
    bonus: Decimal,
    outcomes: &BTreeMap<u64, SelectionOutcome>,
) -> BetRecord {
    let events = bet
        .legs
        .iter()
        .map(|leg| {
            let n = &leg.names;
            LegRecord {
                competition_name: n.competition_name.clone(),
                team1: n.team1.clone(),
                team2: n.team2.clone(),
                sport_name: n.sport_name.clone(),
                region_name: n.region_name.clone(),
                game_name: match &n.team2 {
                    Some(t2) => format!("{} - {}", n.team1, t2),
                    None => n.team1.clone(),
                },
                market_name: named(&n.market_name, &n.team1, n.team2.as_deref()),
                event_name: named(&n.event_name, &n.team1, n.team2.as_deref()),
                coeficient: leg.price.to_string(),
                base: leg.base.map(|b| b.to_string()),
                sport_index: n.sport_id,
                sport_id: n.sport_id,
                game_id: leg.game_id,
                selection_id: leg.event_id,
                start_date: leg.start_ts,
                banker: leg.banker,
                outcome: leg_outcome_code(outcomes.get(&leg.event_id).copied()),
            }
        })
        .collect();
    let id: i64 = bet_id.parse().unwrap_or_default();
    BetRecord {
        id,
        bet_id: id,
        bet_type: bet.bet_type.code(),
        system_min_count: bet.sys_bet,
        date_time,
        amount: money(currency, bet.stake),
        bonus_bet_amount: money(currency, Decimal::ZERO),
        bonus: money(currency, bonus),
        bonus_again: money(currency, bonus),
        k: bet.odds.map(|k| k.to_string()),
        possible_win: bet.possible_win.map(|w| money(currency, w)),
        payout: money(currency, payout),
        outcome: status.code(),
        cash_out: cash_out_offered(bet),
        cashout_amount: money(currency, Decimal::ZERO),
        remaining_stake: money(currency, bet.stake),
        counter_offer: Value::Null,
        auto_cashout: Value::Null,
        is_super_bet: bet.super_bet,
        super_bet_id: bet.super_bet.then_some(id),
        super_bet_status: bet.super_bet.then_some(0),
        client_bonus_id: bet.bonus_id.clone(),
        currency: currency.code().to_string(),
        each_way: bet.each_way,
        events,
    }
}

struct Row2 {
    member_id: String,
    record: BetRecord,
    sequence: i64,
    settled_at: i64,
}

/// A bet row ready to write: the record already serialised.
struct Prepared {
    bet_id: String,
    member_id: String,
    bet_type: i64,
    status: i64,
    amount: String,
    payout: String,
    currency: String,
    date_time: i64,
    settled_at: i64,
    record: String,
    sequence: i64,
    possible_win: Option<String>,
}

impl Prepared {
    fn new(bet_id: &str, row: &Row2) -> Self {
        let record = &row.record;
        Prepared {
            bet_id: bet_id.to_string(),
            member_id: row.member_id.clone(),
            bet_type: i64::from(record.bet_type),
            status: i64::from(record.outcome),
            amount: record.amount.clone(),
            payout: record.payout.clone(),
            currency: record.currency.clone(),
            date_time: record.date_time,
            settled_at: row.settled_at,
            record: serde_json::to_string(record).unwrap_or_default(),
            sequence: row.sequence,
            possible_win: record.possible_win.clone(),
        }
    }
}

/// One line of `bet_totals`: the bets of a currency in a status and their
/// amounts (exact decimals).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Total {
    pub bets: i64,
    pub staked: Decimal,
    pub paid: Decimal,
    pub possible_win: Decimal,
}

impl Total {
    fn add(&mut self, sign: i64, amount: &str, payout: &str, possible_win: Option<&str>) {
        self.bets += sign;
        let sign = Decimal::from(sign);
        self.staked += sign * amount_of(amount);
        self.paid += sign * amount_of(payout);
        self.possible_win += sign * possible_win.map(amount_of).unwrap_or_default();
    }

    fn is_zero(&self) -> bool {
        *self == Total::default()
    }
}

/// `bet_totals` by (currency, status).
pub type Totals = BTreeMap<(String, i64), Total>;

/// The current `bet_totals`.
pub async fn totals(conn: &mut AnyConnection) -> Result<Totals, sqlx::Error> {
    let rows =
        sqlx::query("SELECT currency, status, bets, staked, paid, possible_win FROM bet_totals")
            .fetch_all(&mut *conn)
            .await?;
    rows.iter()
        .map(|r| {
            Ok((
                (r.try_get("currency")?, r.try_get("status")?),
                Total {
                    bets: r.try_get("bets")?,
                    staked: amount_of(&r.try_get::<String, _>("staked")?),
                    paid: amount_of(&r.try_get::<String, _>("paid")?),
                    possible_win: amount_of(&r.try_get::<String, _>("possible_win")?),
                },
            ))
        })
        .collect()
}

/// Adds `changes` to `bet_totals`: one read of its few rows, one statement
/// per line that moved (a line back to no bets is removed, so the table is
/// the same whatever the batches were).
async fn save_totals(conn: &mut AnyConnection, changes: Totals) -> Result<(), sqlx::Error> {
    let changes: Vec<_> = changes.into_iter().filter(|(_, t)| !t.is_zero()).collect();
    if changes.is_empty() {
        return Ok(());
    }
    let mut now = totals(conn).await?;
    for (key, change) in changes {
        let line = now.entry(key.clone()).or_default();
        line.bets += change.bets;
        line.staked += change.staked;
        line.paid += change.paid;
        line.possible_win += change.possible_win;
        write_total(conn, &key, line).await?;
    }
    Ok(())
}

async fn write_total(
    conn: &mut AnyConnection,
    (currency, status): &(String, i64),
    line: &Total,
) -> Result<(), sqlx::Error> {
    if line.bets == 0 {
        let sql = store::marks::for_conn(
            &*conn,
            "DELETE FROM bet_totals WHERE currency = $1 AND status = $2",
        )
        .into_owned();
        sqlx::query(&sql)
            .bind(currency.as_str())
            .bind(*status)
            .execute(&mut *conn)
            .await?;
        return Ok(());
    }
    let sql = store::marks::for_conn(
        &*conn,
        "INSERT INTO bet_totals (currency, status, bets, staked, paid, possible_win)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (currency, status) DO UPDATE SET bets = excluded.bets, staked = excluded.staked,
           paid = excluded.paid, possible_win = excluded.possible_win",
    )
    .into_owned();
    sqlx::query(&sql)
        .bind(currency.as_str())
        .bind(*status)
        .bind(line.bets)
        .bind(line.staked.normalize().to_string())
        .bind(line.paid.normalize().to_string())
        .bind(line.possible_win.normalize().to_string())
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Fills an empty `bet_totals` from the bet table (bets placed before the
/// table existed), under the projection's checkpoint lock on Postgres so
/// no batch runs meanwhile; true when it wrote. Once, at the first start
/// of a version with the table; a node that finds it filled does nothing.
pub async fn seed_totals(pool: &sqlx::AnyPool) -> Result<bool, sqlx::Error> {
    let mut tx = pool.begin().await?;
    if tx.backend_name() != "SQLite" {
        sqlx::query("SELECT name FROM projection_checkpoints WHERE name = $1 FOR UPDATE")
            .bind(NAME)
            .fetch_optional(&mut *tx)
            .await?;
    }
    let filled: Option<i64> = sqlx::query_scalar("SELECT bets FROM bet_totals LIMIT 1")
        .fetch_optional(&mut *tx)
        .await?;
    if filled.is_some() {
        return Ok(false);
    }
    let mut all = Totals::new();
    {
        let mut rows = sqlx::query("SELECT currency, status, amount, payout, record FROM bets")
            .fetch(&mut *tx);
        while let Some(r) = futures::TryStreamExt::try_next(&mut rows).await? {
            let record: String = r.try_get("record")?;
            let possible_win = serde_json::from_str::<Value>(&record)
                .ok()
                .and_then(|v| v.get("possible_win")?.as_str().map(str::to_string));
            all.entry((r.try_get("currency")?, r.try_get("status")?))
                .or_default()
                .add(
                    1,
                    &r.try_get::<String, _>("amount")?,
                    &r.try_get::<String, _>("payout")?,
                    possible_win.as_deref(),
                );
        }
    }
    if all.is_empty() {
        return Ok(false);
    }
    for (key, line) in &all {
        write_total(&mut tx, key, line).await?;
    }
    tx.commit().await?;
    Ok(true)
}

/// Bet rows per keyed read or multi-row upsert (11 parameters a row).
const CHUNK: usize = 500;

/// Bet events in a batch from which the fold is shared between threads (a
/// rebuild's batches; the live runner's are far smaller).
const PARALLEL_FROM: usize = 2_000;

/// The rows of `bet_ids`, read by primary key in chunks.
async fn load_many(
    conn: &mut AnyConnection,
    bet_ids: &[&str],
) -> Result<HashMap<String, Row2>, sqlx::Error> {
    let mut found = HashMap::with_capacity(bet_ids.len());
    let sql = "SELECT bet_id, member_id, record, last_sequence, settled_at FROM bets WHERE bet_id IN ({})";
    for r in crate::rows_in(conn, sql, bet_ids).await? {
        let text: String = r.try_get("record")?;
        // A row that does not read as a record is left out: the events
        // that continue it are then parked, for an operator to see.
        let Ok(record) = serde_json::from_str::<BetRecord>(&text) else {
            continue;
        };
        found.insert(
            r.try_get("bet_id")?,
            Row2 {
                member_id: r.try_get("member_id")?,
                record,
                sequence: r.try_get("last_sequence")?,
                settled_at: r.try_get("settled_at")?,
            },
        );
    }
    Ok(found)
}

/// Writes `rows` with one multi-row upsert per chunk.
async fn save_many(conn: &mut AnyConnection, rows: &[Prepared]) -> Result<(), sqlx::Error> {
    for chunk in rows.chunks(CHUNK) {
        let values: Vec<String> = (0..chunk.len())
            .map(|r| {
                let cols: Vec<String> = (1..=11).map(|c| format!("${}", r * 11 + c)).collect();
                format!("({})", cols.join(", "))
            })
            .collect();
        let sql = format!(
            "INSERT INTO bets (bet_id, member_id, bet_type, status, amount, payout, currency, date_time, settled_at, record, last_sequence)
             VALUES {}
             ON CONFLICT (bet_id) DO UPDATE SET status = excluded.status, amount = excluded.amount, payout = excluded.payout,
               settled_at = excluded.settled_at, record = excluded.record, last_sequence = excluded.last_sequence",
            values.join(", ")
        );
        let sql = store::marks::for_conn(&*conn, &sql);
        let mut query = sqlx::query(&sql);
        for row in chunk {
            query = query
                .bind(row.bet_id.as_str())
                .bind(row.member_id.as_str())
                .bind(row.bet_type)
                .bind(row.status)
                .bind(row.amount.as_str())
                .bind(row.payout.as_str())
                .bind(row.currency.as_str())
                .bind(row.date_time)
                .bind(row.settled_at)
                .bind(row.record.as_str())
                .bind(row.sequence);
        }
        query.execute(&mut *conn).await?;
    }
    Ok(())
}

/// Folds `events` (one part of a batch, in stream order, every bet's
/// events in this part) into `rows`, and gives the touched rows ready to
/// write. Pure CPU: a rebuild runs parts on several threads.
fn fold_part(
    events: &[&StoredEvent],
    mut rows: HashMap<String, Row2>,
) -> Result<Vec<Prepared>, ProjectionError> {
    let mut touched: Vec<&str> = Vec::with_capacity(events.len());
    for stored in events {
        let event = stored.bet_event()?;
        let bet_id = stored.aggregate_id.as_str();
        touched.push(bet_id);
        if let Some((member_id, record)) = placed_record(bet_id, &event) {
            rows.insert(
                bet_id.to_string(),
                Row2 {
                    member_id,
                    record,
                    sequence: stored.sequence,
                    settled_at: 0,
                },
            );
            continue;
        }
        let Some(row) = rows.get_mut(bet_id) else {
            return Err(ProjectionError::bad_event(
                stored,
                "bet event before its BetPlaced",
            ));
        };
        if stored.sequence <= row.sequence {
            continue; // folded already
        }
        row.settled_at = fold(&mut row.record, &event);
        row.sequence = stored.sequence;
    }
    touched.sort_unstable();
    touched.dedup();
    Ok(touched
        .iter()
        .filter_map(|id| rows.get(*id).map(|row| Prepared::new(id, row)))
        .collect())
}

/// Which part of a batch a bet's events go to.
fn part_of(bet_id: &str, parts: usize) -> usize {
    let hash = bet_id
        .bytes()
        .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    (hash % parts as u64) as usize
}

fn amount_of(text: &str) -> Decimal {
    text.parse().unwrap_or_default()
}

fn apply_settlement(
    record: &mut BetRecord,
    status: BetStatus,
    payout: Decimal,
    bonus: Decimal,
    outcomes: &BTreeMap<u64, SelectionOutcome>,
) {
    let currency = record.currency();
    record.outcome = status.code();
    record.payout = money(currency, payout);
    record.bonus = money(currency, bonus);
    record.bonus_again = money(currency, bonus);
    record.auto_cashout = Value::Null;
    for leg in &mut record.events {
        leg.outcome = leg_outcome_code(outcomes.get(&leg.selection_id).copied());
    }
}

/// A price as a JSON number (the contract's `counter_offer.price`).
fn price_number(price: Decimal) -> Value {
    price.to_f64().map(|p| json!(p)).unwrap_or(Value::Null)
}

/// The member and the record of a bet from its `BetPlaced`; none for any
/// other event.
pub fn placed_record(bet_id: &str, event: &BetEvent) -> Option<(String, BetRecord)> {
    let BetEvent::BetPlaced {
        member_id,
        currency,
        bet,
        status,
        date_time,
        cash_out,
        ..
    } = event
    else {
        return None;
    };
    let mut record = record(
        bet_id,
        bet,
        *currency,
        *date_time,
        *status,
        Decimal::ZERO,
        Decimal::ZERO,
        &BTreeMap::new(),
    );
    if let Some(flag) = cash_out {
        record.cash_out = *flag;
    }
    Some((member_id.clone(), record))
}

/// Folds an event after `BetPlaced` into the bet's record. Returns the
/// `settled_at` to store (unix seconds; 0 while the bet is open).
pub fn fold(record: &mut BetRecord, event: &BetEvent) -> i64 {
    let at_s = |at_ms: i64| at_ms / 1000;
    let currency = record.currency();
    match event {
        BetEvent::BetPlaced { .. } => 0,
        BetEvent::BetAccepted { terms, .. } => {
            record.outcome = BetStatus::Unsettled.code();
            record.super_bet_status = Some(1);
            if let Some(terms) = terms {
                record.amount = money(currency, terms.stake);
                record.remaining_stake = money(currency, terms.stake);
                record.k = terms.odds.map(|k| k.to_string());
                record.possible_win = terms.possible_win.map(|w| money(currency, w));
                if let Some(price) = terms.price {
                    for leg in &mut record.events {
                        leg.coeficient = price.to_string();
                    }
                }
            }
            0
        }
        BetEvent::BetDeclined { at_ms, .. } => {
            record.outcome = BetStatus::Declined.code();
            record.auto_cashout = Value::Null;
            if record.is_super_bet {
                record.super_bet_status = Some(-1);
            }
            at_s(*at_ms)
        }
        BetEvent::BetSettled {
            status,
            payout,
            bonus,
            outcomes,
            at_ms,
            ..
        }
        | BetEvent::BetResettled {
            status,
            payout,
            bonus,
            outcomes,
            at_ms,
            ..
        } => {
            apply_settlement(record, *status, *payout, *bonus, outcomes);
            at_s(*at_ms)
        }
        BetEvent::BetCashedOut {
            amount,
            remaining_stake,
            possible_win,
            full,
            by_rule,
            at_ms,
            ..
        } => {
            let total = amount_of(&record.cashout_amount) + amount;
            record.cashout_amount = money(currency, total);
            record.remaining_stake = money(currency, *remaining_stake);
            record.possible_win = possible_win.map(|w| money(currency, w));
            if *by_rule || *full {
                record.auto_cashout = Value::Null;
            }
            if !*full {
                return 0;
            }
            record.outcome = BetStatus::CashedOut.code();
            record.payout = money(currency, total);
            at_s(*at_ms)
        }
        BetEvent::AutoCashoutSet {
            min_amount,
            partial_amount,
            ..
        } => {
            record.auto_cashout = json!({
                "MinAmount": money(currency, *min_amount),
                "PartialAmount": partial_amount.map(|p| money(currency, p)),
            });
            0
        }
        BetEvent::AutoCashoutCancelled { .. } => {
            record.auto_cashout = Value::Null;
            0
        }
        BetEvent::CounterOffered {
            amount,
            price,
            reason,
            at_ms,
            ..
        } => {
            record.counter_offer = json!({
                "amount": money(currency, *amount),
                "price": price.map(price_number),
                "reason": reason,
                "at": at_ms,
            });
            0
        }
    }
}

impl Projection for BetHistoryProjection {
    fn name(&self) -> &'static str {
        NAME
    }

    fn aggregate_types(&self) -> &'static [&'static str] {
        &["Bet"]
    }

    fn apply<'a>(
        &'a self,
        conn: &'a mut AnyConnection,
        events: &'a [StoredEvent],
    ) -> BoxFuture<'a, Result<(), ProjectionError>> {
        Box::pin(async move {
            // One keyed read of the bets the batch continues, the fold in
            // memory (on several threads for a rebuild's large batches),
            // one multi-row upsert per chunk.
            let mine: Vec<&StoredEvent> = events
                .iter()
                .filter(|e| e.aggregate_type == "Bet")
                .collect();
            if mine.is_empty() {
                return Ok(());
            }
            // A bet continued from an earlier batch is read first; whether
            // an event opens its bet is told by its type (a payload that
            // disagrees fails its fold and is parked).
            let mut wanted: Vec<&str> = mine
                .iter()
                .filter(|e| e.event_type != "BetPlaced")
                .map(|e| e.aggregate_id.as_str())
                .collect();
            wanted.sort_unstable();
            wanted.dedup();
            let rows = load_many(conn, &wanted).await?;
            // The totals lose what the rows were and gain what they become.
            let mut changes = Totals::new();
            for row in rows.values() {
                let r = &row.record;
                changes
                    .entry((r.currency.clone(), i64::from(r.outcome)))
                    .or_default()
                    .add(-1, &r.amount, &r.payout, r.possible_win.as_deref());
            }
            let threads = if mine.len() >= PARALLEL_FROM {
                std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
            } else {
                1
            };
            let prepared = if threads <= 1 {
                fold_part(&mine, rows)?
            } else {
                let mut parts: Vec<(Vec<&StoredEvent>, HashMap<String, Row2>)> =
                    (0..threads).map(|_| Default::default()).collect();
                for stored in &mine {
                    parts[part_of(&stored.aggregate_id, threads)]
                        .0
                        .push(*stored);
                }
                for (bet_id, row) in rows {
                    parts[part_of(&bet_id, threads)].1.insert(bet_id, row);
                }
                let results: Vec<Result<Vec<Prepared>, ProjectionError>> =
                    std::thread::scope(|scope| {
                        let handles: Vec<_> = parts
                            .into_iter()
                            .map(|(events, rows)| scope.spawn(move || fold_part(&events, rows)))
                            .collect();
                        handles
                            .into_iter()
                            .map(|h| {
                                h.join().unwrap_or_else(|_| {
                                    Err(ProjectionError::bad_event(
                                        mine[0],
                                        "the fold of a bet panicked",
                                    ))
                                })
                            })
                            .collect()
                    });
                let mut all = Vec::with_capacity(mine.len());
                for result in results {
                    all.extend(result?);
                }
                all
            };
            for p in &prepared {
                changes
                    .entry((p.currency.clone(), p.status))
                    .or_default()
                    .add(1, &p.amount, &p.payout, p.possible_win.as_deref());
            }
            save_many(conn, &prepared).await?;
            save_totals(conn, changes).await?;
            Ok(())
        })
    }

    fn tables(&self) -> &'static [&'static str] {
        &["bets", "bet_totals"]
    }

    fn reset<'a>(
        &'a self,
        conn: &'a mut AnyConnection,
    ) -> BoxFuture<'a, Result<(), ProjectionError>> {
        Box::pin(async move {
            conn.execute("DELETE FROM bets").await?;
            conn.execute("DELETE FROM bet_totals").await?;
            Ok(())
        })
    }
}

/// Filters of report/betrecods.
#[derive(Debug, Clone, Default)]
pub struct HistoryQuery {
    pub member_id: String,
    pub from_date: i64,
    pub to_date: i64,
    pub outcome: Option<i64>,
    pub bet_type: Option<i64>,
    pub bet_id: Option<String>,
    /// Only unsettled (0) or only settled bets.
    pub settled: Option<bool>,
    pub limit: i64,
}

/// A member's bet records, newest first, and how many matched.
pub async fn history(
    pool: &sqlx::AnyPool,
    q: &HistoryQuery,
) -> Result<(Vec<Value>, i64), sqlx::Error> {
    let mut sql =
        String::from("FROM bets WHERE member_id = $1 AND date_time >= $2 AND date_time <= $3");
    let mut binds: Vec<Bind> = vec![
        Bind::Text(q.member_id.clone()),
        Bind::Int(q.from_date),
        Bind::Int(q.to_date),
    ];
    if let Some(outcome) = q.outcome {
        binds.push(Bind::Int(outcome));
        sql.push_str(&format!(" AND status = ${}", binds.len()));
    }
    if let Some(bet_type) = q.bet_type {
        binds.push(Bind::Int(bet_type));
        sql.push_str(&format!(" AND bet_type = ${}", binds.len()));
    }
    if let Some(bet_id) = &q.bet_id {
        binds.push(Bind::Text(bet_id.clone()));
        sql.push_str(&format!(" AND bet_id = ${}", binds.len()));
    }
    match q.settled {
        Some(true) => sql.push_str(" AND status NOT IN (0, -5)"),
        Some(false) => sql.push_str(" AND status IN (0, -5)"),
        None => {}
    }
    let count_sql = format!("SELECT count(*) {sql}");
    let list_sql = format!(
        "SELECT record {sql} ORDER BY date_time DESC, bet_id DESC LIMIT {}",
        q.limit.clamp(1, 1000)
    );
    let mut count = sqlx::query_scalar::<_, i64>(&count_sql);
    let mut list = sqlx::query(&list_sql);
    for b in &binds {
        match b {
            Bind::Text(t) => {
                count = count.bind(t.clone());
                list = list.bind(t.clone());
            }
            Bind::Int(i) => {
                count = count.bind(*i);
                list = list.bind(*i);
            }
        }
    }
    let total = count.fetch_one(pool).await?;
    let rows = list.fetch_all(pool).await?;
    let records = rows
        .iter()
        .map(|r| {
            let text: String = r.try_get("record")?;
            Ok(serde_json::from_str(&text).unwrap_or(Value::Null))
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    Ok((records, total))
}

enum Bind {
    Text(String),
    Int(i64),
}

/// The most bet records `analytics` folds, newest first: a period with
/// more is answered from these and marked `partial`.
pub const ANALYTICS_MAX_BETS: i64 = 10_000;

/// A member's betting statistics (`report/betanalytics`).
#[derive(Debug, Clone, Default)]
pub struct Analytics {
    pub stats: domain::bet::stats::BetStats,
    /// More bets than `ANALYTICS_MAX_BETS` fell in the period.
    pub partial: bool,
}

/// The statistics of a member's bets placed from `from_date` to `to_date`
/// (unix seconds, both included), folded from the records this read model
/// keeps (`domain::bet::stats`).
pub async fn analytics(
    pool: &sqlx::AnyPool,
    member_id: &str,
    from_date: i64,
    to_date: i64,
) -> Result<Analytics, sqlx::Error> {
    let rows = sqlx::query(&format!(
        "SELECT record FROM bets WHERE member_id = $1 AND date_time >= $2 AND date_time <= $3
         ORDER BY date_time DESC, bet_id DESC LIMIT {}",
        ANALYTICS_MAX_BETS + 1
    ))
    .bind(member_id)
    .bind(from_date)
    .bind(to_date)
    .fetch_all(pool)
    .await?;
    let partial = rows.len() as i64 > ANALYTICS_MAX_BETS;
    let mut stats = domain::bet::stats::BetStats::default();
    for row in rows.iter().take(ANALYTICS_MAX_BETS as usize) {
        let text: String = row.try_get("record")?;
        // A record this version cannot read is left out, not fatal.
        let Ok(record) = serde_json::from_str::<BetRecord>(&text) else {
            continue;
        };
        let money = |s: &str| s.parse::<Decimal>().unwrap_or_default();
        stats.add(&domain::bet::stats::BetFacts {
            status: record.outcome,
            bet_type: record.bet_type,
            stake: money(&record.amount),
            payout: money(&record.payout),
            odds: record.k.as_deref().and_then(|k| k.parse().ok()),
            sports: record
                .events
                .iter()
                .map(|e| e.sport_name.as_str())
                .collect(),
        });
    }
    Ok(Analytics { stats, partial })
}

/// Every row (rebuild comparisons).
pub async fn all(pool: &sqlx::AnyPool) -> Result<Vec<(String, String)>, sqlx::Error> {
    let rows = sqlx::query("SELECT bet_id, record FROM bets ORDER BY bet_id")
        .fetch_all(pool)
        .await?;
    rows.iter()
        .map(|r| Ok((r.try_get("bet_id")?, r.try_get("record")?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::bet::{AcceptMode, AcceptedTerms, ExpressBonus};
    use rust_decimal_macros::dec;

    const AT: i64 = 1_700_000_123_456;

    fn bet(mode: AcceptMode, amount: Decimal, prices: &[Decimal]) -> ValidBet {
        domain::bet::fixtures::straight_bet(mode, amount, 1, prices)
    }

    fn placed(bet: ValidBet) -> BetEvent {
        BetEvent::BetPlaced {
            bet_id: "1000001".into(),
            member_id: "m1".into(),
            currency: Currency::Cny,
            request_id: "r1".into(),
            status: if bet.super_bet {
                BetStatus::OnHold
            } else {
                BetStatus::Unsettled
            },
            cash_out: Some(domain::bet::cash_out_offered(&bet)),
            bet,
            express_bonus: ExpressBonus::None,
            date_time: AT / 1000,
            at_ms: AT,
        }
    }

    fn folded(events: &[BetEvent]) -> (Value, i64) {
        let (_, mut record) = placed_record("1000001", &events[0]).unwrap();
        let mut settled_at = 0;
        for event in &events[1..] {
            settled_at = fold(&mut record, event);
        }
        (record.to_value(), settled_at)
    }

    fn cashed_out(amount: Decimal, remaining: Decimal, win: Decimal, full: bool) -> BetEvent {
        BetEvent::BetCashedOut {
            member_id: "m1".into(),
            currency: Currency::Cny,
            request_id: format!("c{amount}"),
            number: 1,
            amount,
            stake_part: dec!(10.00) - remaining,
            remaining_stake: remaining,
            possible_win: Some(win),
            full,
            by_rule: false,
            at_ms: AT + 5000,
        }
    }

    #[test]
    fn a_placed_bet_shows_its_cash_out_fields() {
        let (record, _) = folded(&[placed(bet(
            AcceptMode::NoChanges,
            dec!(10),
            &[dec!(2), dec!(3)],
        ))]);
        assert_eq!(record["cash_out"], true);
        assert_eq!(record["cashout_amount"], "0.00");
        assert_eq!(record["remaining_stake"], "10.00");
        assert_eq!(record["super_bet_status"], Value::Null);
        assert_eq!(record["counter_offer"], Value::Null);
        assert_eq!(record["auto_cashout"], Value::Null);
    }

    #[test]
    fn a_full_cash_out_shows_status_5_and_the_cashed_out_total_as_payout() {
        let express = bet(AcceptMode::NoChanges, dec!(10), &[dec!(2), dec!(3)]);
        let (record, settled_at) = folded(&[
            placed(express),
            cashed_out(dec!(4.05), dec!(5.00), dec!(30.00), false),
            cashed_out(dec!(4.10), dec!(0.00), dec!(0.00), true),
        ]);
        assert_eq!(record["outcome"], 5);
        assert_eq!(record["payout"], "8.15");
        assert_eq!(record["cashout_amount"], "8.15");
        assert_eq!(record["remaining_stake"], "0.00");
        assert_eq!(record["amount"], "10.00");
        assert_eq!(settled_at, (AT + 5000) / 1000);
    }

    #[test]
    fn a_partial_cash_out_keeps_the_bet_open_on_the_remaining_stake() {
        let express = bet(AcceptMode::NoChanges, dec!(10), &[dec!(2), dec!(3)]);
        let (record, settled_at) = folded(&[
            placed(express),
            BetEvent::AutoCashoutSet {
                min_amount: dec!(10),
                partial_amount: Some(dec!(2)),
                at_ms: AT,
            },
            cashed_out(dec!(4.05), dec!(5.00), dec!(30.00), false),
        ]);
        assert_eq!(record["outcome"], 0);
        assert_eq!(record["payout"], "0.00");
        assert_eq!(record["cashout_amount"], "4.05");
        assert_eq!(record["remaining_stake"], "5.00");
        assert_eq!(record["possible_win"], "30.00");
        assert_eq!(
            record["auto_cashout"],
            json!({"MinAmount": "10.00", "PartialAmount": "2.00"})
        );
        assert_eq!(settled_at, 0);
    }

    #[test]
    fn the_auto_cashout_rule_shows_until_cancelled_spent_or_settled() {
        let express = bet(AcceptMode::NoChanges, dec!(10), &[dec!(2), dec!(3)]);
        let rule = BetEvent::AutoCashoutSet {
            min_amount: dec!(12.5),
            partial_amount: None,
            at_ms: AT,
        };
        let (record, _) = folded(&[placed(express.clone()), rule.clone()]);
        assert_eq!(
            record["auto_cashout"],
            json!({"MinAmount": "12.50", "PartialAmount": null})
        );
        let mut by_rule = cashed_out(dec!(4.05), dec!(5.00), dec!(30.00), false);
        if let BetEvent::BetCashedOut { by_rule, .. } = &mut by_rule {
            *by_rule = true;
        }
        let settled = BetEvent::BetSettled {
            member_id: "m1".into(),
            currency: Currency::Cny,
            status: BetStatus::Lost,
            payout: dec!(0),
            bonus: dec!(0),
            result_version: 1,
            outcomes: [(2, SelectionOutcome::Lost)].into(),
            sp_prices: BTreeMap::new(),
            at_ms: AT + 9000,
        };
        for end in [
            BetEvent::AutoCashoutCancelled { at_ms: AT },
            by_rule,
            settled,
        ] {
            let (record, _) = folded(&[placed(express.clone()), rule.clone(), end]);
            assert_eq!(record["auto_cashout"], Value::Null);
        }
    }

    #[test]
    fn a_counter_offer_shows_and_its_acceptance_changes_the_terms() {
        let single = bet(AcceptMode::SuperBet, dec!(100), &[dec!(2)]);
        let offer = BetEvent::CounterOffered {
            staff_id: "s1".into(),
            amount: dec!(50.00),
            price: Some(dec!(2.1)),
            reason: "over the limit".into(),
            at_ms: AT + 100,
        };
        let (record, _) = folded(&[placed(single.clone()), offer.clone()]);
        assert_eq!(record["outcome"], -5);
        assert_eq!(record["super_bet_status"], 0);
        assert_eq!(
            record["counter_offer"],
            json!({"amount": "50.00", "price": 2.1, "reason": "over the limit", "at": AT + 100})
        );
        let accepted = BetEvent::BetAccepted {
            at_ms: AT + 200,
            staff_id: None,
            reason: None,
            counter_offer: true,
            terms: Some(AcceptedTerms {
                member_id: "m1".into(),
                currency: Currency::Cny,
                stake: dec!(50.00),
                unit_stake: dec!(50.00),
                price: Some(dec!(2.1)),
                odds: Some(dec!(2.1)),
                possible_win: Some(dec!(105.00)),
                stake_taken: dec!(50.00),
                stake_released: dec!(50.00),
            }),
        };
        let (record, _) = folded(&[placed(single.clone()), offer.clone(), accepted]);
        assert_eq!(record["outcome"], 0);
        assert_eq!(record["super_bet_status"], 1);
        assert_eq!(record["amount"], "50.00");
        assert_eq!(record["remaining_stake"], "50.00");
        assert_eq!(record["k"], "2.1");
        assert_eq!(record["possible_win"], "105.00");
        assert_eq!(record["events"][0]["coeficient"], "2.1");
        assert_eq!(record["counter_offer"]["amount"], "50.00");
        let declined = BetEvent::BetDeclined {
            member_id: "m1".into(),
            currency: Currency::Cny,
            stake: dec!(100.00),
            reason_code: 0,
            at_ms: AT + 200,
            staff_id: None,
            reason: None,
            counter_offer: true,
        };
        let (record, _) = folded(&[placed(single), offer, declined]);
        assert_eq!(record["outcome"], -4);
        assert_eq!(record["super_bet_status"], -1);
        assert_eq!(record["amount"], "100.00");
    }
}
