//! Read model `vip`: every member's honour values (deposits "money", valid
//! turnover "bets"), level, valid turnover per day and product, experience
//! and M currency ledger, and the rewards granted (docs/vip.md).
//!
//! Sources: `Account` (market, currency, registration), `Bet` (valid
//! turnover of settlements, re-settlements and cash-outs), `Deposit`
//! (`DepositCredited`), `CasinoRound` (`CasinoRoundClosed`), both read
//! generically from their payload JSON, and `Vip` (levels reached, decays,
//! rewards, points spent). Valid turnover is counted once per bet or round:
//! `vip_bets` keeps what each has counted, so a re-settlement (or a round
//! closed again) adds only the difference.

use std::collections::{BTreeMap, HashMap};
use std::str::FromStr;
use std::sync::Arc;

use domain::account::{AccountEvent, Date, Market};
use domain::bet::{BetEvent, BetStatus};
use domain::vip::{points_for, Product, VipEvent, VipTables};
use futures::future::BoxFuture;
use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::Value;
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, AnyPool, Executor, Row};

use crate::runner::{Projection, ProjectionError};
use store::stream::StoredEvent;

pub const NAME: &str = "vip";

pub struct VipProjection {
    tables: Arc<VipTables>,
}

impl VipProjection {
    pub fn new(tables: Arc<VipTables>) -> Self {
        Self { tables }
    }
}

/// A member's VIP row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VipMember {
    pub member_id: String,
    pub market: String,
    pub currency: String,
    pub registered_ms: i64,
    pub level: u8,
    /// The highest level the Vip aggregate has recorded (`VipLevelReached`).
    pub reached_level: u8,
    pub money: Decimal,
    pub bets: Decimal,
    pub deposits_total: Decimal,
    pub turnover_total: Decimal,
    pub points_earned: Decimal,
    pub points_spent: Decimal,
    pub updated_ms: i64,
}

impl VipMember {
    fn new(member_id: &str, currency: &str) -> Self {
        let market = match currency {
            "CNY" => "zhh",
            "THB" => "tha",
            _ => "eng",
        };
        Self {
            member_id: member_id.to_string(),
            market: market.to_string(),
            currency: currency.to_string(),
            registered_ms: 0,
            level: 1,
            reached_level: 1,
            money: Decimal::ZERO,
            bets: Decimal::ZERO,
            deposits_total: Decimal::ZERO,
            turnover_total: Decimal::ZERO,
            points_earned: Decimal::ZERO,
            points_spent: Decimal::ZERO,
            updated_ms: 0,
        }
    }

    pub fn market(&self) -> Market {
        Market::from_language(&self.market)
    }

    pub fn points(&self) -> Decimal {
        self.points_earned - self.points_spent
    }

    fn exp_rank(&self) -> i64 {
        use rust_decimal::prelude::ToPrimitive;
        (self.bets * Decimal::ONE_HUNDRED)
            .trunc()
            .to_i64()
            .unwrap_or(i64::MAX)
    }
}

/// One movement of experience or M currency.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LedgerRow {
    pub member_id: String,
    pub source: String,
    pub at_ms: i64,
    /// The source event's global position (orders rows of one millisecond).
    pub position: i64,
    /// deposit, sport, ag, pg, cashout, decay, spend
    pub kind: String,
    pub money_delta: Decimal,
    pub bets_delta: Decimal,
    pub points: Decimal,
    pub money: Decimal,
    pub bets: Decimal,
    pub level: u8,
}

/// A reward granted, with the turnover it requires before withdrawal.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RewardRow {
    pub reference: String,
    pub member_id: String,
    pub kind: String,
    pub key: String,
    pub level: u8,
    pub currency: String,
    pub amount: Decimal,
    pub basis: Decimal,
    pub rate: Decimal,
    pub turnover_required: Decimal,
    pub at_ms: i64,
}

#[derive(Debug, Clone, PartialEq)]
struct BetRow {
    member_id: String,
    stake: Decimal,
    odds: Option<Decimal>,
    free: bool,
    counted: Decimal,
}

/// The batch's working set: rows loaded once, written once at the end.
#[derive(Default)]
struct Batch {
    members: HashMap<String, VipMember>,
    /// Members the batch looked up and found without a row.
    absent: std::collections::HashSet<String>,
    bets: HashMap<String, Option<BetRow>>,
    daily: BTreeMap<(String, String, String), Decimal>,
    ledger: Vec<LedgerRow>,
    rewards: Vec<RewardRow>,
}

fn dec(text: &str) -> Result<Decimal, sqlx::Error> {
    Decimal::from_str(text).map_err(|e| sqlx::Error::Decode(Box::new(e)))
}

fn money_of(value: Option<&Value>) -> Option<Decimal> {
    match value? {
        Value::String(s) => Decimal::from_str(s.trim()).ok(),
        Value::Number(n) => Decimal::from_str(&n.to_string()).ok(),
        _ => None,
    }
}

/// A time from another issue's payload: unix seconds or milliseconds (a
/// number or digits), or an RFC 3339 text in UTC.
pub fn time_ms(value: Option<&Value>) -> Option<i64> {
    let from_number = |n: i64| {
        if n.abs() >= 100_000_000_000 {
            n
        } else {
            n * 1000
        }
    };
    match value? {
        Value::Number(n) => n.as_i64().map(from_number),
        Value::String(s) => {
            let s = s.trim();
            if let Ok(n) = s.parse::<i64>() {
                return Some(from_number(n));
            }
            let date: Date = s.get(..10)?.parse().ok()?;
            let mut ms = date.days_since_epoch() * 86_400_000;
            if let Some(time) = s.get(11..19) {
                let parts: Vec<i64> = time.split(':').filter_map(|p| p.parse().ok()).collect();
                if parts.len() == 3 {
                    ms += (parts[0] * 3600 + parts[1] * 60 + parts[2]) * 1000;
                }
            }
            Some(ms)
        }
        _ => None,
    }
}

pub fn day_of(ms: i64) -> String {
    Date::from_epoch_ms(ms).to_string()
}

fn source(event: &StoredEvent) -> String {
    format!(
        "{}/{}#{}",
        event.aggregate_type, event.aggregate_id, event.sequence
    )
}

/// The inner object of a cqrs-es enum payload `{"Tag": {...}}`.
fn inner<'a>(payload: &'a Value, tag: &str) -> Option<&'a Value> {
    payload.get(tag)
}

impl VipProjection {
    async fn member<'b>(
        &self,
        conn: &mut AnyConnection,
        batch: &'b mut Batch,
        member_id: &str,
        currency: &str,
    ) -> Result<&'b mut VipMember, ProjectionError> {
        if !batch.members.contains_key(member_id) {
            let row = match batch.absent.contains(member_id) {
                true => None,
                false => load_member(conn, member_id).await?,
            }
            .unwrap_or_else(|| VipMember::new(member_id, currency));
            batch.members.insert(member_id.to_string(), row);
        }
        Ok(batch.members.get_mut(member_id).expect("just inserted"))
    }

    async fn bet<'b>(
        &self,
        conn: &mut AnyConnection,
        batch: &'b mut Batch,
        bet_id: &str,
    ) -> Result<&'b mut Option<BetRow>, ProjectionError> {
        if !batch.bets.contains_key(bet_id) {
            let row = load_bet(conn, bet_id).await?;
            batch.bets.insert(bet_id.to_string(), row);
        }
        Ok(batch.bets.get_mut(bet_id).expect("just inserted"))
    }

    /// Adds experience (and the points it earns) to a member.
    #[allow(clippy::too_many_arguments)]
    async fn activity(
        &self,
        conn: &mut AnyConnection,
        batch: &mut Batch,
        event: &StoredEvent,
        member_id: &str,
        currency: &str,
        kind: &str,
        product: Option<Product>,
        money: Decimal,
        bets: Decimal,
        at_ms: i64,
    ) -> Result<(), ProjectionError> {
        if money.is_zero() && bets.is_zero() {
            return Ok(());
        }
        let tables = self.tables.clone();
        let points = points_for(bets, tables.points_per_turnover);
        let m = self.member(conn, batch, member_id, currency).await?;
        m.money += money;
        m.bets += bets;
        m.deposits_total += money;
        m.turnover_total += bets;
        m.points_earned += points;
        m.level = tables
            .market(m.market())
            .level_for(m.level, m.money, m.bets);
        m.updated_ms = m.updated_ms.max(at_ms);
        let row = LedgerRow {
            member_id: member_id.to_string(),
            source: source(event),
            at_ms,
            position: event.checkpoint.position,
            kind: kind.to_string(),
            money_delta: money,
            bets_delta: bets,
            points,
            money: m.money,
            bets: m.bets,
            level: m.level,
        };
        batch.ledger.push(row);
        if let Some(product) = product {
            if !bets.is_zero() {
                *batch
                    .daily
                    .entry((
                        member_id.to_string(),
                        day_of(at_ms),
                        product.code().to_string(),
                    ))
                    .or_default() += bets;
            }
        }
        Ok(())
    }

    async fn on_bet(
        &self,
        conn: &mut AnyConnection,
        batch: &mut Batch,
        event: &StoredEvent,
        parsed: std::sync::Arc<BetEvent>,
    ) -> Result<(), ProjectionError> {
        let rules = self.tables.turnover.clone();
        let id = event.aggregate_id.as_str();
        match &*parsed {
            BetEvent::BetPlaced { member_id, bet, .. } => {
                let odds = bet.odds.or_else(|| {
                    bet.possible_win
                        .filter(|_| bet.stake > Decimal::ZERO)
                        .map(|w| (w / bet.stake).round_dp(3))
                });
                *self.bet(conn, batch, id).await? = Some(BetRow {
                    member_id: member_id.clone(),
                    stake: bet.stake,
                    odds,
                    free: bet.bonus_id.is_some(),
                    counted: Decimal::ZERO,
                });
            }
            BetEvent::BetAccepted {
                terms: Some(terms), ..
            } => {
                if let Some(row) = self.bet(conn, batch, id).await? {
                    row.stake = terms.stake;
                    if terms.odds.is_some() {
                        row.odds = terms.odds;
                    }
                }
            }
            BetEvent::BetSettled {
                member_id,
                currency,
                status,
                payout,
                at_ms,
                ..
            }
            | BetEvent::BetResettled {
                member_id,
                currency,
                status,
                payout,
                at_ms,
                ..
            } => {
                let Some(row) = self.bet(conn, batch, id).await?.as_mut() else {
                    return Ok(());
                };
                let counts = !row.free || rules.free_bets_count;
                let now = if counts {
                    rules.settled(row.stake, *payout, *status == BetStatus::Returned, row.odds)
                } else {
                    Decimal::ZERO
                };
                let delta = now - row.counted;
                row.counted = now;
                self.activity(
                    conn,
                    batch,
                    event,
                    member_id,
                    currency.code(),
                    "sport",
                    Some(Product::Sport),
                    Decimal::ZERO,
                    delta,
                    *at_ms,
                )
                .await?;
            }
            BetEvent::BetCashedOut {
                member_id,
                currency,
                amount,
                stake_part,
                remaining_stake,
                at_ms,
                ..
            } => {
                let Some(row) = self.bet(conn, batch, id).await?.as_mut() else {
                    return Ok(());
                };
                let counts = !row.free || rules.free_bets_count;
                let turnover = if counts {
                    rules.cashed_out(*stake_part, *amount, row.odds)
                } else {
                    Decimal::ZERO
                };
                row.stake = *remaining_stake;
                self.activity(
                    conn,
                    batch,
                    event,
                    member_id,
                    currency.code(),
                    "cashout",
                    Some(Product::Sport),
                    Decimal::ZERO,
                    turnover,
                    *at_ms,
                )
                .await?;
            }
            _ => {}
        }
        Ok(())
    }

    async fn on_vip(
        &self,
        conn: &mut AnyConnection,
        batch: &mut Batch,
        event: &StoredEvent,
        parsed: VipEvent,
    ) -> Result<(), ProjectionError> {
        let member_id = event.aggregate_id.as_str();
        match parsed {
            VipEvent::VipLevelReached {
                level,
                market,
                currency,
                ..
            } => {
                let m = self.member(conn, batch, member_id, currency.code()).await?;
                if m.registered_ms == 0 && m.money.is_zero() && m.bets.is_zero() {
                    m.market = market.code().to_string();
                }
                m.reached_level = m.reached_level.max(level);
                m.level = m.level.max(level);
            }
            VipEvent::HonourDecayed {
                to,
                money,
                bets,
                at_ms,
                ..
            } => {
                let m = self.member(conn, batch, member_id, "CNY").await?;
                let row = LedgerRow {
                    member_id: member_id.to_string(),
                    source: source(event),
                    at_ms,
                    position: event.checkpoint.position,
                    kind: "decay".into(),
                    money_delta: money - m.money,
                    bets_delta: bets - m.bets,
                    points: Decimal::ZERO,
                    money,
                    bets,
                    level: to,
                };
                m.money = money;
                m.bets = bets;
                m.level = to;
                m.reached_level = to;
                m.updated_ms = m.updated_ms.max(at_ms);
                batch.ledger.push(row);
            }
            VipEvent::RewardGranted(grant) => {
                batch.rewards.push(RewardRow {
                    reference: grant.reference,
                    member_id: member_id.to_string(),
                    kind: grant.kind.code().to_string(),
                    key: grant.key,
                    level: grant.level,
                    currency: grant.currency.code().to_string(),
                    amount: grant.amount,
                    basis: grant.basis,
                    rate: grant.rate,
                    turnover_required: grant.turnover_required,
                    at_ms: grant.at_ms,
                });
            }
            VipEvent::PointsSpent { amount, at_ms, .. } => {
                let m = self.member(conn, batch, member_id, "CNY").await?;
                m.points_spent += amount;
                let row = LedgerRow {
                    member_id: member_id.to_string(),
                    source: source(event),
                    at_ms,
                    position: event.checkpoint.position,
                    kind: "spend".into(),
                    money_delta: Decimal::ZERO,
                    bets_delta: Decimal::ZERO,
                    points: -amount,
                    money: m.money,
                    bets: m.bets,
                    level: m.level,
                };
                batch.ledger.push(row);
            }
        }
        Ok(())
    }

    async fn apply_one(
        &self,
        conn: &mut AnyConnection,
        batch: &mut Batch,
        event: &StoredEvent,
        parsed: Parsed,
    ) -> Result<(), ProjectionError> {
        match parsed {
            Parsed::Registered {
                user_id,
                market,
                currency,
                at_ms,
            } => {
                let m = self.member(conn, batch, &user_id, &currency).await?;
                m.market = market;
                m.currency = currency;
                m.registered_ms = at_ms;
            }
            Parsed::Bet(parsed) => self.on_bet(conn, batch, event, parsed).await?,
            Parsed::Vip(parsed) => self.on_vip(conn, batch, event, parsed).await?,
            Parsed::Deposit(body) => {
                let (Some(member_id), Some(amount)) = (
                    body.get("member_id").and_then(Value::as_str),
                    money_of(body.get("amount")),
                ) else {
                    tracing::warn!(source = %source(event), "DepositCredited without member_id or amount; not counted");
                    return Ok(());
                };
                let currency = body
                    .get("currency")
                    .and_then(Value::as_str)
                    .unwrap_or("CNY");
                let at_ms = time_ms(body.get("credited_at")).unwrap_or(0);
                self.activity(
                    conn,
                    batch,
                    event,
                    member_id,
                    currency,
                    "deposit",
                    None,
                    amount,
                    Decimal::ZERO,
                    at_ms,
                )
                .await?;
            }
            Parsed::CasinoRound(body) => {
                let member_id = body.get("member_id").and_then(Value::as_str);
                let product = body
                    .get("product")
                    .and_then(Value::as_str)
                    .and_then(Product::parse);
                let stake = money_of(body.get("stake"));
                let payout = money_of(body.get("payout")).unwrap_or_default();
                let (Some(member_id), Some(product), Some(stake)) = (member_id, product, stake)
                else {
                    tracing::warn!(source = %source(event), "CasinoRoundClosed without member_id, product or stake; not counted");
                    return Ok(());
                };
                let currency = body
                    .get("currency")
                    .and_then(Value::as_str)
                    .unwrap_or("CNY");
                let at_ms = time_ms(body.get("closed_at")).unwrap_or(0);
                let rules = self.tables.turnover.clone();
                let key = format!("CasinoRound/{}", event.aggregate_id);
                let now = rules.casino(stake, payout);
                let slot = self.bet(conn, batch, &key).await?;
                let row = slot.get_or_insert_with(|| BetRow {
                    member_id: member_id.to_string(),
                    stake,
                    odds: None,
                    free: false,
                    counted: Decimal::ZERO,
                });
                let delta = now - row.counted;
                row.counted = now;
                row.stake = stake;
                self.activity(
                    conn,
                    batch,
                    event,
                    member_id,
                    currency,
                    product.code(),
                    Some(product),
                    Decimal::ZERO,
                    delta,
                    at_ms,
                )
                .await?;
            }
        }
        Ok(())
    }
}

/// An event the projection reads, decoded once (before the batch's rows
/// are loaded, so that they load in a few statements).
enum Parsed {
    Registered {
        user_id: String,
        market: String,
        currency: String,
        at_ms: i64,
    },
    Bet(std::sync::Arc<BetEvent>),
    Vip(VipEvent),
    /// The `DepositCredited` body.
    Deposit(Value),
    /// The `CasinoRoundClosed` body.
    CasinoRound(Value),
}

impl Parsed {
    /// What the projection reads of `event`; `None` for events it skips.
    fn of(event: &StoredEvent) -> Result<Option<Parsed>, ProjectionError> {
        let Some(payload) = event.payload.as_deref() else {
            return Ok(None);
        };
        let bad = |e| ProjectionError::bad_event(event, e);
        Ok(
            match (event.aggregate_type.as_str(), event.event_type.as_str()) {
                ("Account", "Registered") => match serde_json::from_str(payload).map_err(bad)? {
                    AccountEvent::Registered {
                        user_id,
                        profile,
                        at_ms,
                        ..
                    } => Some(Parsed::Registered {
                        user_id,
                        market: profile.market.code().to_string(),
                        currency: profile.currency.code().to_string(),
                        at_ms,
                    }),
                    _ => None,
                },
                // Only the events that move valid turnover are read.
                (
                    "Bet",
                    "BetPlaced" | "BetAccepted" | "BetSettled" | "BetResettled" | "BetCashedOut",
                ) => Some(Parsed::Bet(event.bet_event()?)),
                ("Vip", _) => Some(Parsed::Vip(serde_json::from_str(payload).map_err(bad)?)),
                ("Deposit", "DepositCredited") => {
                    let value: Value = serde_json::from_str(payload).map_err(bad)?;
                    inner(&value, "DepositCredited")
                        .cloned()
                        .map(Parsed::Deposit)
                }
                ("CasinoRound", "CasinoRoundClosed") => {
                    let value: Value = serde_json::from_str(payload).map_err(bad)?;
                    inner(&value, "CasinoRoundClosed")
                        .cloned()
                        .map(Parsed::CasinoRound)
                }
                _ => None,
            },
        )
    }

    /// The member whose row applying this event reads, if any.
    fn member<'a>(&'a self, event: &'a StoredEvent) -> Option<&'a str> {
        match self {
            Parsed::Registered { user_id, .. } => Some(user_id),
            Parsed::Bet(bet) => match &**bet {
                BetEvent::BetSettled { member_id, .. }
                | BetEvent::BetResettled { member_id, .. }
                | BetEvent::BetCashedOut { member_id, .. } => Some(member_id),
                _ => None,
            },
            Parsed::Vip(_) => Some(event.aggregate_id.as_str()),
            Parsed::Deposit(body) | Parsed::CasinoRound(body) => {
                body.get("member_id").and_then(Value::as_str)
            }
        }
    }
}

impl Projection for VipProjection {
    fn name(&self) -> &'static str {
        NAME
    }

    fn tables(&self) -> &'static [&'static str] {
        &[
            "vip_members",
            "vip_bets",
            "vip_daily",
            "vip_ledger",
            "vip_rewards",
        ]
    }

    fn aggregate_types(&self) -> &'static [&'static str] {
        &["Account", "Bet", "Deposit", "CasinoRound", "Vip"]
    }

    fn apply<'a>(
        &'a self,
        conn: &'a mut AnyConnection,
        events: &'a [StoredEvent],
    ) -> BoxFuture<'a, Result<(), ProjectionError>> {
        Box::pin(async move {
            let mut parsed = Vec::with_capacity(events.len());
            for event in events {
                if let Some(p) = Parsed::of(event)? {
                    parsed.push((event, p));
                }
            }
            let mut batch = Batch::default();
            let mut members: Vec<&str> = parsed.iter().filter_map(|(e, p)| p.member(e)).collect();
            members.sort_unstable();
            members.dedup();
            prefetch_members(conn, &mut batch, &members).await?;
            prefetch_bets(conn, &mut batch, events).await?;
            for (event, p) in parsed {
                self.apply_one(conn, &mut batch, event, p).await?;
            }
            write(conn, batch).await?;
            Ok(())
        })
    }

    fn reset<'a>(
        &'a self,
        conn: &'a mut AnyConnection,
    ) -> BoxFuture<'a, Result<(), ProjectionError>> {
        Box::pin(async move {
            for table in [
                "vip_members",
                "vip_bets",
                "vip_daily",
                "vip_ledger",
                "vip_rewards",
            ] {
                conn.execute(format!("DELETE FROM {table}").as_str())
                    .await?;
            }
            Ok(())
        })
    }
}

/// Loads the `vip_bets` rows of every bet and round of the batch in a few
/// statements (one lookup per event otherwise); bets not found are
/// remembered as absent. A bet whose first event in the batch is its
/// placement is not looked up: `BetPlaced` writes the bet's whole row
/// whatever stood before (and only it creates one), so at the peak, where
/// nearly every bet of a batch is new, the batch reads next to nothing.
async fn prefetch_bets(
    conn: &mut AnyConnection,
    batch: &mut Batch,
    events: &[StoredEvent],
) -> Result<(), sqlx::Error> {
    let mut placed_first = std::collections::HashSet::new();
    let mut seen = std::collections::HashSet::new();
    let mut ids: Vec<String> = Vec::new();
    for e in events.iter().filter(|e| e.payload.is_some()) {
        let id = match e.aggregate_type.as_str() {
            "Bet" => e.aggregate_id.clone(),
            "CasinoRound" => format!("CasinoRound/{}", e.aggregate_id),
            _ => continue,
        };
        if !seen.insert(id.clone()) {
            continue;
        }
        if e.aggregate_type == "Bet" && e.event_type == "BetPlaced" {
            placed_first.insert(id);
        } else {
            ids.push(id);
        }
    }
    for id in placed_first {
        batch.bets.insert(id, None);
    }
    ids.sort();
    let sql =
        "SELECT bet_id, member_id, stake, odds, free, counted FROM vip_bets WHERE bet_id IN ({})";
    for row in crate::rows_in(conn, sql, &ids).await? {
        let id: String = row.try_get("bet_id")?;
        batch.bets.insert(id, Some(decode_bet(&row)?));
    }
    for id in ids {
        batch.bets.entry(id).or_insert(None);
    }
    Ok(())
}

/// Loads the `vip_members` rows of `members` in a few statements; the
/// ones without a row are remembered as absent.
async fn prefetch_members(
    conn: &mut AnyConnection,
    batch: &mut Batch,
    members: &[&str],
) -> Result<(), sqlx::Error> {
    let sql = format!("SELECT {MEMBER_COLUMNS} FROM vip_members WHERE member_id IN ({{}})");
    for row in crate::rows_in(conn, &sql, members).await? {
        let member = decode_member(&row)?;
        batch.members.insert(member.member_id.clone(), member);
    }
    for id in members {
        if !batch.members.contains_key(*id) {
            batch.absent.insert(id.to_string());
        }
    }
    Ok(())
}

/// Rows per multi-row statement of the batch's writes (at most 14
/// parameters a row: 7,000 a statement, under SQLite's 32,766).
const WRITE_CHUNK: usize = 500;

/// Writes the batch's rows: a few multi-row statements per table whatever
/// the batch holds.
async fn write(conn: &mut AnyConnection, batch: Batch) -> Result<(), sqlx::Error> {
    let members: Vec<&VipMember> = batch.members.values().collect();
    for chunk in members.chunks(WRITE_CHUNK) {
        let sql = format!(
            "INSERT INTO vip_members (member_id, market, currency, registered_ms, level, reached_level, money, bets,
                deposits_total, turnover_total, points_earned, points_spent, exp_rank, updated_ms)
             VALUES {}
             ON CONFLICT (member_id) DO UPDATE SET market = excluded.market, currency = excluded.currency,
                registered_ms = excluded.registered_ms, level = excluded.level, reached_level = excluded.reached_level,
                money = excluded.money, bets = excluded.bets, deposits_total = excluded.deposits_total,
                turnover_total = excluded.turnover_total, points_earned = excluded.points_earned,
                points_spent = excluded.points_spent, exp_rank = excluded.exp_rank, updated_ms = excluded.updated_ms",
            crate::placeholders(chunk.len(), 14)
        );
        let sql = store::marks::for_conn(&*conn, &sql);
        let mut query = sqlx::query(&sql);
        for m in chunk {
            query = query
                .bind(m.member_id.clone())
                .bind(m.market.clone())
                .bind(m.currency.clone())
                .bind(m.registered_ms)
                .bind(m.level as i64)
                .bind(m.reached_level as i64)
                .bind(m.money.to_string())
                .bind(m.bets.to_string())
                .bind(m.deposits_total.to_string())
                .bind(m.turnover_total.to_string())
                .bind(m.points_earned.to_string())
                .bind(m.points_spent.to_string())
                .bind(m.exp_rank())
                .bind(m.updated_ms);
        }
        query.execute(&mut *conn).await?;
    }
    let bets: Vec<(&String, &BetRow)> = batch
        .bets
        .iter()
        .filter_map(|(id, row)| row.as_ref().map(|r| (id, r)))
        .collect();
    for chunk in bets.chunks(WRITE_CHUNK) {
        let sql = format!(
            "INSERT INTO vip_bets (bet_id, member_id, stake, odds, free, counted) VALUES {}
             ON CONFLICT (bet_id) DO UPDATE SET stake = excluded.stake, odds = excluded.odds, counted = excluded.counted",
            crate::placeholders(chunk.len(), 6)
        );
        let sql = store::marks::for_conn(&*conn, &sql);
        let mut query = sqlx::query(&sql);
        for (bet_id, row) in chunk {
            query = query
                .bind(bet_id.to_string())
                .bind(row.member_id.clone())
                .bind(row.stake.to_string())
                .bind(row.odds.map(|o| o.to_string()))
                .bind(row.free as i64)
                .bind(row.counted.to_string());
        }
        query.execute(&mut *conn).await?;
    }
    let daily: Vec<(&(String, String, String), &Decimal)> = batch.daily.iter().collect();
    for chunk in daily.chunks(WRITE_CHUNK) {
        // What the keys hold already, in one statement.
        let sql = format!(
            "SELECT member_id, day, product, turnover FROM vip_daily
             WHERE (member_id, day, product) IN (VALUES {})",
            crate::placeholders(chunk.len(), 3)
        );
        let sql = store::marks::for_conn(&*conn, &sql);
        let mut query = sqlx::query(&sql);
        for ((member_id, day, product), _) in chunk {
            query = query
                .bind(member_id.as_str())
                .bind(day.as_str())
                .bind(product.as_str());
        }
        let mut before: HashMap<(String, String, String), Decimal> = HashMap::new();
        for row in query.fetch_all(&mut *conn).await? {
            before.insert(
                (
                    row.try_get("member_id")?,
                    row.try_get("day")?,
                    row.try_get("product")?,
                ),
                dec(&row.try_get::<String, _>("turnover")?)?,
            );
        }
        let sql = format!(
            "INSERT INTO vip_daily (member_id, day, product, turnover) VALUES {}
             ON CONFLICT (member_id, day, product) DO UPDATE SET turnover = excluded.turnover",
            crate::placeholders(chunk.len(), 4)
        );
        let sql = store::marks::for_conn(&*conn, &sql);
        let mut query = sqlx::query(&sql);
        for (key, delta) in chunk {
            let total = before.get(*key).copied().unwrap_or_default() + **delta;
            query = query
                .bind(key.0.as_str())
                .bind(key.1.as_str())
                .bind(key.2.as_str())
                .bind(total.to_string());
        }
        query.execute(&mut *conn).await?;
    }
    for chunk in batch.ledger.chunks(WRITE_CHUNK) {
        let sql = format!(
            "INSERT INTO vip_ledger (member_id, source, at_ms, position, kind, money_delta, bets_delta, points, money, bets, level)
             VALUES {} ON CONFLICT (member_id, source) DO NOTHING",
            crate::placeholders(chunk.len(), 11)
        );
        let sql = store::marks::for_conn(&*conn, &sql);
        let mut query = sqlx::query(&sql);
        for row in chunk {
            query = query
                .bind(row.member_id.as_str())
                .bind(row.source.as_str())
                .bind(row.at_ms)
                .bind(row.position)
                .bind(row.kind.as_str())
                .bind(row.money_delta.normalize().to_string())
                .bind(row.bets_delta.normalize().to_string())
                .bind(row.points.normalize().to_string())
                .bind(row.money.to_string())
                .bind(row.bets.to_string())
                .bind(row.level as i64);
        }
        query.execute(&mut *conn).await?;
    }
    for chunk in batch.rewards.chunks(WRITE_CHUNK) {
        let sql = format!(
            "INSERT INTO vip_rewards (reference, member_id, kind, reward_key, level, currency, amount, basis, rate,
                turnover_required, at_ms)
             VALUES {} ON CONFLICT (reference) DO NOTHING",
            crate::placeholders(chunk.len(), 11)
        );
        let sql = store::marks::for_conn(&*conn, &sql);
        let mut query = sqlx::query(&sql);
        for row in chunk {
            query = query
                .bind(row.reference.as_str())
                .bind(row.member_id.as_str())
                .bind(row.kind.as_str())
                .bind(row.key.as_str())
                .bind(row.level as i64)
                .bind(row.currency.as_str())
                .bind(row.amount.to_string())
                .bind(row.basis.to_string())
                .bind(row.rate.to_string())
                .bind(row.turnover_required.to_string())
                .bind(row.at_ms);
        }
        query.execute(&mut *conn).await?;
    }
    Ok(())
}

const MEMBER_COLUMNS: &str =
    "member_id, market, currency, registered_ms, level, reached_level, money, bets,
    deposits_total, turnover_total, points_earned, points_spent, updated_ms";

fn decode_member(row: &AnyRow) -> Result<VipMember, sqlx::Error> {
    let money =
        |name: &str| -> Result<Decimal, sqlx::Error> { dec(&row.try_get::<String, _>(name)?) };
    Ok(VipMember {
        member_id: row.try_get("member_id")?,
        market: row.try_get("market")?,
        currency: row.try_get("currency")?,
        registered_ms: row.try_get("registered_ms")?,
        level: row.try_get::<i64, _>("level")?.clamp(1, 10) as u8,
        reached_level: row.try_get::<i64, _>("reached_level")?.clamp(1, 10) as u8,
        money: money("money")?,
        bets: money("bets")?,
        deposits_total: money("deposits_total")?,
        turnover_total: money("turnover_total")?,
        points_earned: money("points_earned")?,
        points_spent: money("points_spent")?,
        updated_ms: row.try_get("updated_ms")?,
    })
}

async fn load_member(
    conn: &mut AnyConnection,
    member_id: &str,
) -> Result<Option<VipMember>, sqlx::Error> {
    let sql = format!("SELECT {MEMBER_COLUMNS} FROM vip_members WHERE member_id = $1");
    let row = sqlx::query(&sql)
        .bind(member_id)
        .fetch_optional(&mut *conn)
        .await?;
    row.as_ref().map(decode_member).transpose()
}

async fn load_bet(conn: &mut AnyConnection, bet_id: &str) -> Result<Option<BetRow>, sqlx::Error> {
    let row =
        sqlx::query("SELECT member_id, stake, odds, free, counted FROM vip_bets WHERE bet_id = $1")
            .bind(bet_id)
            .fetch_optional(&mut *conn)
            .await?;
    row.as_ref().map(decode_bet).transpose()
}

fn decode_bet(row: &AnyRow) -> Result<BetRow, sqlx::Error> {
    let odds: Option<String> = row.try_get("odds")?;
    Ok(BetRow {
        member_id: row.try_get("member_id")?,
        stake: dec(&row.try_get::<String, _>("stake")?)?,
        odds: odds.as_deref().map(dec).transpose()?,
        free: row.try_get::<i64, _>("free")? != 0,
        counted: dec(&row.try_get::<String, _>("counted")?)?,
    })
}

// ---- queries ----

pub async fn member(pool: &AnyPool, member_id: &str) -> Result<Option<VipMember>, sqlx::Error> {
    let mut conn = pool.acquire().await?;
    load_member(&mut conn, member_id).await
}

/// Every member row, ordered (rebuild comparisons).
pub async fn all_members(pool: &AnyPool) -> Result<Vec<VipMember>, sqlx::Error> {
    let sql = format!("SELECT {MEMBER_COLUMNS} FROM vip_members ORDER BY member_id");
    let rows = sqlx::query(&sql).fetch_all(pool).await?;
    rows.iter().map(decode_member).collect()
}

/// Rank within the member's market: 1 + members with a higher level, or
/// the same level and more experience.
pub async fn rank(pool: &AnyPool, member: &VipMember) -> Result<i64, sqlx::Error> {
    let row = sqlx::query(
        "SELECT COUNT(*) AS n FROM vip_members WHERE market = $1 AND (level > $2 OR (level = $2 AND exp_rank > $3))",
    )
    .bind(&member.market)
    .bind(member.level as i64)
    .bind(member.exp_rank())
    .fetch_one(pool)
    .await?;
    Ok(row.try_get::<i64, _>("n")? + 1)
}

/// Members whose level is above what the Vip aggregate recorded.
pub async fn to_promote(pool: &AnyPool, limit: i64) -> Result<Vec<VipMember>, sqlx::Error> {
    let sql = format!(
        "SELECT {MEMBER_COLUMNS} FROM vip_members WHERE level > reached_level ORDER BY member_id LIMIT $1"
    );
    let rows = sqlx::query(&sql).bind(limit).fetch_all(pool).await?;
    rows.iter().map(decode_member).collect()
}

/// Members above level 1, after `after` (paging by member id).
pub async fn above_level_one(
    pool: &AnyPool,
    after: &str,
    limit: i64,
) -> Result<Vec<VipMember>, sqlx::Error> {
    let sql = format!(
        "SELECT {MEMBER_COLUMNS} FROM vip_members WHERE level > 1 AND member_id > $1 ORDER BY member_id LIMIT $2"
    );
    let rows = sqlx::query(&sql)
        .bind(after)
        .bind(limit)
        .fetch_all(pool)
        .await?;
    rows.iter().map(decode_member).collect()
}

/// Valid turnover per product on `day` for one member.
pub async fn daily(
    pool: &AnyPool,
    member_id: &str,
    day: &str,
) -> Result<BTreeMap<Product, Decimal>, sqlx::Error> {
    let rows =
        sqlx::query("SELECT product, turnover FROM vip_daily WHERE member_id = $1 AND day = $2")
            .bind(member_id)
            .bind(day)
            .fetch_all(pool)
            .await?;
    let mut out = BTreeMap::new();
    for row in rows {
        if let Some(p) = Product::parse(&row.try_get::<String, _>("product")?) {
            out.insert(p, dec(&row.try_get::<String, _>("turnover")?)?);
        }
    }
    Ok(out)
}

/// Members with any turnover recorded on `day` (the rebate job), paged.
pub async fn members_on(
    pool: &AnyPool,
    day: &str,
    after: &str,
    limit: i64,
) -> Result<Vec<String>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT DISTINCT member_id FROM vip_daily WHERE day = $1 AND member_id > $2 ORDER BY member_id LIMIT $3",
    )
    .bind(day)
    .bind(after)
    .bind(limit)
    .fetch_all(pool)
    .await?;
    rows.iter().map(|r| r.try_get("member_id")).collect()
}

/// Members with any turnover in month `YYYY-MM` (the salary job), paged.
pub async fn members_in_month(
    pool: &AnyPool,
    month: &str,
    after: &str,
    limit: i64,
) -> Result<Vec<String>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT DISTINCT member_id FROM vip_daily WHERE day >= $1 AND day <= $2 AND member_id > $3 ORDER BY member_id LIMIT $4",
    )
    .bind(format!("{month}-01"))
    .bind(format!("{month}-31"))
    .bind(after)
    .bind(limit)
    .fetch_all(pool)
    .await?;
    rows.iter().map(|r| r.try_get("member_id")).collect()
}

/// One member's valid turnover in month `YYYY-MM`, all products.
pub async fn month_turnover(
    pool: &AnyPool,
    member_id: &str,
    month: &str,
) -> Result<Decimal, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT turnover FROM vip_daily WHERE member_id = $1 AND day >= $2 AND day <= $3",
    )
    .bind(member_id)
    .bind(format!("{month}-01"))
    .bind(format!("{month}-31"))
    .fetch_all(pool)
    .await?;
    let mut sum = Decimal::ZERO;
    for row in rows {
        sum += dec(&row.try_get::<String, _>("turnover")?)?;
    }
    Ok(sum)
}

fn decode_ledger(row: &AnyRow) -> Result<LedgerRow, sqlx::Error> {
    let money =
        |name: &str| -> Result<Decimal, sqlx::Error> { dec(&row.try_get::<String, _>(name)?) };
    Ok(LedgerRow {
        member_id: row.try_get("member_id")?,
        source: row.try_get("source")?,
        at_ms: row.try_get("at_ms")?,
        position: row.try_get("position")?,
        kind: row.try_get("kind")?,
        money_delta: money("money_delta")?,
        bets_delta: money("bets_delta")?,
        points: money("points")?,
        money: money("money")?,
        bets: money("bets")?,
        level: row.try_get::<i64, _>("level")?.clamp(1, 10) as u8,
    })
}

/// Which ledger rows a list shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LedgerFilter {
    /// Experience movements (vipxporders, the growth chart).
    Experience,
    /// M currency movements (scoreorders, mcoindetail).
    Points,
    All,
}

/// One member's ledger, newest first, `page` from 1, between two times.
pub async fn ledger(
    pool: &AnyPool,
    member_id: &str,
    filter: LedgerFilter,
    from_ms: i64,
    to_ms: i64,
    page: i64,
    size: i64,
) -> Result<(Vec<LedgerRow>, i64), sqlx::Error> {
    let cond = match filter {
        LedgerFilter::Experience => "AND (money_delta <> '0' OR bets_delta <> '0')",
        LedgerFilter::Points => "AND points <> '0'",
        LedgerFilter::All => "",
    };
    let count = sqlx::query(&format!(
        "SELECT COUNT(*) AS n FROM vip_ledger WHERE member_id = $1 AND at_ms >= $2 AND at_ms <= $3 {cond}"
    ))
    .bind(member_id)
    .bind(from_ms)
    .bind(to_ms)
    .fetch_one(pool)
    .await?
    .try_get::<i64, _>("n")?;
    let rows = sqlx::query(&format!(
        "SELECT member_id, source, at_ms, position, kind, money_delta, bets_delta, points, money, bets, level FROM vip_ledger
         WHERE member_id = $1 AND at_ms >= $2 AND at_ms <= $3 {cond}
         ORDER BY at_ms DESC, position DESC LIMIT $4 OFFSET $5"
    ))
    .bind(member_id)
    .bind(from_ms)
    .bind(to_ms)
    .bind(size)
    .bind((page.max(1) - 1) * size)
    .fetch_all(pool)
    .await?;
    Ok((
        rows.iter().map(decode_ledger).collect::<Result<_, _>>()?,
        count,
    ))
}

/// Every ledger row, ordered (rebuild comparisons).
pub async fn all_ledger(pool: &AnyPool) -> Result<Vec<LedgerRow>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT member_id, source, at_ms, position, kind, money_delta, bets_delta, points, money, bets, level FROM vip_ledger
         ORDER BY member_id, source",
    )
    .fetch_all(pool)
    .await?;
    rows.iter().map(decode_ledger).collect()
}

/// Every daily row, ordered (rebuild comparisons).
pub async fn all_daily(
    pool: &AnyPool,
) -> Result<Vec<(String, String, String, String)>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT member_id, day, product, turnover FROM vip_daily ORDER BY member_id, day, product",
    )
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| {
            Ok((
                r.try_get("member_id")?,
                r.try_get("day")?,
                r.try_get("product")?,
                r.try_get("turnover")?,
            ))
        })
        .collect()
}

/// Rewards granted to a member, newest first.
pub async fn rewards(pool: &AnyPool, member_id: &str) -> Result<Vec<RewardRow>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT reference, member_id, kind, reward_key, level, currency, amount, basis, rate, turnover_required, at_ms
         FROM vip_rewards WHERE member_id = $1 ORDER BY at_ms DESC, reference DESC LIMIT 500",
    )
    .bind(member_id)
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|row| {
            let money = |name: &str| -> Result<Decimal, sqlx::Error> {
                dec(&row.try_get::<String, _>(name)?)
            };
            Ok(RewardRow {
                reference: row.try_get("reference")?,
                member_id: row.try_get("member_id")?,
                kind: row.try_get("kind")?,
                key: row.try_get("reward_key")?,
                level: row.try_get::<i64, _>("level")?.clamp(1, 10) as u8,
                currency: row.try_get("currency")?,
                amount: money("amount")?,
                basis: money("basis")?,
                rate: money("rate")?,
                turnover_required: money("turnover_required")?,
                at_ms: row.try_get("at_ms")?,
            })
        })
        .collect()
}
