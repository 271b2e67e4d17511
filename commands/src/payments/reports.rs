//! Queries of the payment read models (`money_orders`,
//! `wallet_movements`) for the report pages and the back office. Periods
//! come as `from_date`/`to_date` (YYYY-MM-DD, UTC) or as one of the date
//! presets of spec 000 section 9 (`today`, `yesterday`, `2days`, `3days`,
//! `week`, `month`); pages are `page` (from 1) of `pn` rows (at most 1000),
//! so a member can read past the first thousand.

use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::{json, Value};
use sqlx::Row;

use super::{day_start, PaymentFailure, PaymentResult, Payments};

/// A period [from_ms, to_ms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    pub from_ms: i64,
    pub to_ms: i64,
}

/// A page of rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    pub page: i64,
    pub size: i64,
}

impl Page {
    pub fn from_params(params: &Value) -> Page {
        let num = |k: &str| {
            params[k]
                .as_i64()
                .or_else(|| params[k].as_str().and_then(|s| s.parse().ok()))
        };
        Page {
            page: num("page").unwrap_or(1).clamp(1, 1_000_000),
            size: num("pn").unwrap_or(50).clamp(1, 1000),
        }
    }

    fn offset(&self) -> i64 {
        (self.page - 1) * self.size
    }
}

/// A `YYYY-MM-DD` day (1970 to 9999, the first ten characters) to the unix
/// ms of its start (UTC).
fn parse_day(text: &str) -> Option<i64> {
    let date: domain::account::Date = text.trim().get(..10)?.parse().ok()?;
    (date.year() >= 1970).then(|| date.days_since_epoch() * 86_400_000)
}

impl Period {
    /// From the request's `preset` or `from_date`/`to_date`; default: the
    /// last 30 days.
    pub fn from_params(params: &Value, now_ms: i64) -> Result<Period, PaymentFailure> {
        let today = day_start(now_ms);
        let day = 86_400_000;
        let bad = |what: &str| {
            PaymentFailure::refused(
                domain::Code::BAD_PARAMETERS.0,
                format!("Invalid request parameters: {what}"),
            )
        };
        if let Some(preset) = params["preset"].as_str().filter(|p| !p.is_empty()) {
            let (from, to) = match preset {
                "today" => (today, today + day),
                "yesterday" => (today - day, today),
                "2days" => (today - day, today + day),
                "3days" => (today - 2 * day, today + day),
                "week" => (today - 6 * day, today + day),
                "month" => (today - 29 * day, today + day),
                _ => return Err(bad("preset (today, yesterday, 2days, 3days, week, month)")),
            };
            return Ok(Period {
                from_ms: from,
                to_ms: to,
            });
        }
        let from = params["from_date"].as_str().filter(|s| !s.is_empty());
        let to = params["to_date"].as_str().filter(|s| !s.is_empty());
        let from_ms = match from {
            Some(s) => parse_day(s).ok_or_else(|| bad("from_date (YYYY-MM-DD)"))?,
            None => today - 29 * day,
        };
        let to_ms = match to {
            Some(s) => parse_day(s).ok_or_else(|| bad("to_date (YYYY-MM-DD)"))? + day,
            None => today + day,
        };
        if to_ms <= from_ms || to_ms - from_ms > 366 * day {
            return Err(bad("the period (at most a year)"));
        }
        Ok(Period { from_ms, to_ms })
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct OrderView {
    pub orderid: String,
    pub kind: String,
    pub channel: String,
    pub currency: String,
    pub amount: String,
    pub credited_amount: String,
    pub status: String,
    pub flagged: bool,
    pub note: String,
    pub provider_tx_id: String,
    pub detail: Value,
    pub created: i64,
    pub updated: i64,
    pub member_id: String,
}

fn order_view(row: &sqlx::any::AnyRow) -> Result<OrderView, sqlx::Error> {
    let detail: String = row.try_get("detail")?;
    Ok(OrderView {
        orderid: row.try_get("order_id")?,
        kind: row.try_get("kind")?,
        channel: row.try_get("channel")?,
        currency: row.try_get("currency")?,
        amount: row.try_get("amount")?,
        credited_amount: row.try_get("credited_amount")?,
        status: row.try_get("status")?,
        flagged: row.try_get::<i32, _>("flagged")? != 0,
        note: row.try_get("note")?,
        provider_tx_id: row.try_get("provider_tx_id")?,
        detail: serde_json::from_str(&detail).unwrap_or(Value::Null),
        created: row.try_get("created_ms")?,
        updated: row.try_get("updated_ms")?,
        member_id: row.try_get("member_id")?,
    })
}

const ORDER_COLUMNS: &str = "order_id, member_id, kind, channel, currency, amount, credited_amount, status, flagged, note, provider_tx_id, detail, created_ms, updated_ms";

/// Which orders a list shows.
#[derive(Debug, Clone, Default)]
pub struct OrderFilter {
    pub member_id: Option<String>,
    /// One order (still only if the other conditions hold: a member's
    /// lookup of an order id counts none of another member's orders).
    pub order_id: Option<String>,
    pub kind: Option<String>,
    pub statuses: Vec<String>,
    pub flagged_only: bool,
    pub include_hidden: bool,
    pub period: Option<Period>,
}

impl Payments {
    /// Orders, newest first, and how many match.
    pub async fn orders(
        &self,
        filter: &OrderFilter,
        page: Page,
    ) -> PaymentResult<(Vec<OrderView>, i64)> {
        let mut clauses = vec!["1 = 1".to_string()];
        let mut binds: Vec<Bind> = Vec::new();
        if let Some(m) = &filter.member_id {
            binds.push(Bind::Text(m.clone()));
            clauses.push(format!("member_id = ${}", binds.len()));
        }
        if let Some(id) = &filter.order_id {
            binds.push(Bind::Text(id.clone()));
            clauses.push(format!("order_id = ${}", binds.len()));
        }
        if let Some(k) = &filter.kind {
            binds.push(Bind::Text(k.clone()));
            clauses.push(format!("kind = ${}", binds.len()));
        }
        if !filter.statuses.is_empty() {
            let mut list = Vec::new();
            for s in filter.statuses.iter().take(20) {
                binds.push(Bind::Text(s.clone()));
                list.push(format!("${}", binds.len()));
            }
            clauses.push(format!("status IN ({})", list.join(", ")));
        }
        if filter.flagged_only {
            clauses.push("flagged = 1".into());
        }
        if !filter.include_hidden {
            clauses.push("hidden = 0".into());
        }
        if let Some(p) = filter.period {
            binds.push(Bind::Int(p.from_ms));
            clauses.push(format!("created_ms >= ${}", binds.len()));
            binds.push(Bind::Int(p.to_ms));
            clauses.push(format!("created_ms < ${}", binds.len()));
        }
        let cond = clauses.join(" AND ");
        let count_sql = format!("SELECT COUNT(*) FROM money_orders WHERE {cond}");
        let total: i64 = bind_all(sqlx::query_scalar(&count_sql), &binds)
            .fetch_one(&self.pool)
            .await?;
        let sql = format!(
            "SELECT {ORDER_COLUMNS} FROM money_orders WHERE {cond} ORDER BY created_ms DESC, order_id DESC LIMIT {} OFFSET {}",
            page.size,
            page.offset()
        );
        let mut query = sqlx::query(&sql);
        for b in &binds {
            query = match b {
                Bind::Text(t) => query.bind(t.clone()),
                Bind::Int(i) => query.bind(*i),
            };
        }
        let rows = query.fetch_all(&self.pool).await?;
        let list = rows.iter().map(order_view).collect::<Result<_, _>>()?;
        Ok((list, total))
    }

    /// One order of the read model.
    pub async fn order(&self, order_id: &str) -> PaymentResult<Option<OrderView>> {
        let sql = format!("SELECT {ORDER_COLUMNS} FROM money_orders WHERE order_id = $1");
        let row = sqlx::query(&sql)
            .bind(order_id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.as_ref().map(order_view).transpose()?)
    }

    /// The account change report: wallet movements of the member's main
    /// wallet (and game wallets), newest first.
    pub async fn movements(
        &self,
        member_id: &str,
        period: Period,
        kind: Option<&str>,
        page: Page,
    ) -> PaymentResult<(Vec<Value>, i64)> {
        let game_pattern = format!("{member_id}@%");
        let kind_clause = if kind.is_some() { " AND kind = $5" } else { "" };
        let cond = format!(
            "(member_id = $1 OR member_id LIKE $2) AND at_ms >= $3 AND at_ms < $4{kind_clause}"
        );
        let count_sql = format!("SELECT COUNT(*) FROM wallet_movements WHERE {cond}");
        let mut count = sqlx::query_scalar::<_, i64>(&count_sql)
            .bind(member_id)
            .bind(&game_pattern)
            .bind(period.from_ms)
            .bind(period.to_ms);
        if let Some(k) = kind {
            count = count.bind(k);
        }
        let total = count.fetch_one(&self.pool).await?;
        let sql = format!(
            "SELECT wallet_id, sequence, member_id, currency, reference, kind, amount, balance_after, frozen_after, at_ms
             FROM wallet_movements WHERE {cond} ORDER BY at_ms DESC, sequence DESC LIMIT {} OFFSET {}",
            page.size,
            page.offset()
        );
        let mut query = sqlx::query(&sql)
            .bind(member_id)
            .bind(&game_pattern)
            .bind(period.from_ms)
            .bind(period.to_ms);
        if let Some(k) = kind {
            query = query.bind(k);
        }
        let rows = query.fetch_all(&self.pool).await?;
        let mut list = Vec::with_capacity(rows.len());
        for row in rows {
            let wallet_member: String = row.try_get("member_id")?;
            let wallet = match wallet_member.split_once('@') {
                Some((_, provider)) => provider.to_string(),
                None => "main".to_string(),
            };
            list.push(json!({
                "wallet": wallet,
                "sequence": row.try_get::<i64, _>("sequence")?,
                "currency": row.try_get::<String, _>("currency")?,
                "reference": row.try_get::<String, _>("reference")?,
                "kind": row.try_get::<String, _>("kind")?,
                "amount": row.try_get::<String, _>("amount")?,
                "balance_after": row.try_get::<String, _>("balance_after")?,
                "frozen_after": row.try_get::<String, _>("frozen_after")?,
                "time": row.try_get::<i64, _>("at_ms")?,
            }));
        }
        Ok((list, total))
    }

    /// Sums of the member's main-wallet movements per kind in `period`.
    async fn sums(&self, member_id: &str, period: Period) -> PaymentResult<Sums> {
        let rows = sqlx::query(
            "SELECT kind, amount FROM wallet_movements WHERE member_id = $1 AND at_ms >= $2 AND at_ms < $3",
        )
        .bind(member_id)
        .bind(period.from_ms)
        .bind(period.to_ms)
        .fetch_all(&self.pool)
        .await?;
        let mut sums = Sums::default();
        for row in rows {
            let kind: String = row.try_get("kind")?;
            let amount: String = row.try_get("amount")?;
            let amount: Decimal = amount.parse().map_err(PaymentFailure::internal)?;
            match kind.as_str() {
                "deposit" => sums.deposits += amount,
                "withdrawal" => sums.withdrawals -= amount,
                "bet" => sums.bets -= amount,
                "bet_refund" => sums.bets -= amount,
                "payout" => sums.payouts += amount,
                "bonus" | "rebate" => sums.bonuses += amount,
                "game_debit" => sums.bets -= amount,
                "game_credit" => sums.payouts += amount,
                _ => {}
            }
        }
        Ok(sums)
    }

    /// `memberreport`: deposits, withdrawals, bets, payouts, bonuses and
    /// the result of the period.
    pub async fn member_report(&self, member_id: &str, period: Period) -> PaymentResult<Value> {
        let currency = self.member_currency(member_id).await?;
        let s = self.sums(member_id, period).await?;
        let m = |d: Decimal| currency.round(d).to_string();
        Ok(json!({
            "currency": currency.code(),
            "from": period.from_ms,
            "to": period.to_ms,
            "deposits": m(s.deposits),
            "withdrawals": m(s.withdrawals),
            "bets": m(s.bets),
            "payouts": m(s.payouts),
            "bonuses": m(s.bonuses),
            "profit": m(s.payouts + s.bonuses - s.bets),
        }))
    }

    /// `withdrawbetlistv2` (flow breakdown): the turnover the member's
    /// deposits and bonuses require before withdrawal (deposit x
    /// `deposit_turnover_multiple`, bonus x `bonus_turnover_multiple`) and
    /// the turnover done since, per credit, oldest first: each credit's
    /// requirement is met by bets in order.
    pub async fn flow(&self, member_id: &str) -> PaymentResult<Value> {
        let currency = self.member_currency(member_id).await?;
        let rows = sqlx::query(
            "SELECT kind, amount, reference, at_ms FROM wallet_movements WHERE member_id = $1 AND kind IN ('deposit', 'bonus', 'rebate', 'bet', 'bet_refund') ORDER BY at_ms, sequence",
        )
        .bind(member_id)
        .fetch_all(&self.pool)
        .await?;
        let mut credits: Vec<(String, String, Decimal, Decimal, i64)> = Vec::new();
        let mut turnover = Decimal::ZERO;
        for row in &rows {
            let kind: String = row.try_get("kind")?;
            let amount: String = row.try_get("amount")?;
            let amount: Decimal = amount.parse().map_err(PaymentFailure::internal)?;
            match kind.as_str() {
                "deposit" if amount > Decimal::ZERO => credits.push((
                    row.try_get("reference")?,
                    kind,
                    amount,
                    amount * self.settings.deposit_turnover_multiple,
                    row.try_get("at_ms")?,
                )),
                "bonus" | "rebate" => credits.push((
                    row.try_get("reference")?,
                    kind,
                    amount,
                    amount * self.settings.bonus_turnover_multiple,
                    row.try_get("at_ms")?,
                )),
                "bet" | "bet_refund" => turnover -= amount,
                _ => {}
            }
        }
        let mut left = turnover;
        let mut list = Vec::new();
        let mut required_total = Decimal::ZERO;
        for (reference, kind, amount, required, at) in credits
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
        {
            let done = left.min(required).max(Decimal::ZERO);
            left -= done;
            required_total += required;
            list.push(json!({
                "reference": reference, "kind": kind, "amount": currency.round(amount).to_string(),
                "required": currency.round(required).to_string(),
                "done": currency.round(done).to_string(),
                "complete": done >= required, "time": at,
            }));
        }
        list.reverse();
        let done_total = turnover.min(required_total).max(Decimal::ZERO);
        Ok(json!({
            "currency": currency.code(),
            "required": currency.round(required_total).to_string(),
            "done": currency.round(done_total).to_string(),
            "remaining": currency.round((required_total - done_total).max(Decimal::ZERO)).to_string(),
            "turnover": currency.round(turnover).to_string(),
            "list": list,
        }))
    }

    /// `usercenter`: today's and this month's figures and the open orders.
    pub async fn user_centre(&self, member_id: &str) -> PaymentResult<Value> {
        let now = self.clock.now_ms();
        let today = Period {
            from_ms: day_start(now),
            to_ms: day_start(now) + 86_400_000,
        };
        let month = Period {
            from_ms: day_start(now) - 29 * 86_400_000,
            to_ms: today.to_ms,
        };
        let open = OrderFilter {
            member_id: Some(member_id.to_string()),
            statuses: ["created", "confirmed", "requested", "approved", "flagged"]
                .map(String::from)
                .to_vec(),
            ..OrderFilter::default()
        };
        let (open, _) = self.orders(&open, Page { page: 1, size: 20 }).await?;
        Ok(json!({
            "today": self.member_report(member_id, today).await?,
            "month": self.member_report(member_id, month).await?,
            "open_orders": open,
        }))
    }

    /// The reconciliation view: every provider report against the order's
    /// credit, with the difference.
    pub async fn reconciliation(&self, period: Period, page: Page) -> PaymentResult<Value> {
        let rows = sqlx::query(
            "SELECT p.provider, p.event_id, p.provider_tx_id, p.order_id, p.status, p.amount, p.currency, p.received_ms,
                    o.amount AS order_amount, o.currency AS order_currency, o.credited_amount, o.status AS order_status, o.member_id
             FROM provider_transactions p LEFT JOIN money_orders o ON o.order_id = p.order_id
             WHERE p.received_ms >= $1 AND p.received_ms < $2
             ORDER BY p.received_ms DESC, p.event_id LIMIT $3 OFFSET $4",
        )
        .bind(period.from_ms)
        .bind(period.to_ms)
        .bind(page.size)
        .bind((page.page - 1) * page.size)
        .fetch_all(&self.pool)
        .await?;
        let mut list = Vec::new();
        let mut differences = 0;
        for row in rows {
            let status: String = row.try_get("status")?;
            let amount: String = row.try_get("amount")?;
            let credited: Option<String> = row.try_get("credited_amount")?;
            let reported: Decimal = amount.parse().unwrap_or_default();
            let credited_d: Decimal = credited
                .as_deref()
                .unwrap_or("0")
                .parse()
                .unwrap_or_default();
            let expected = if status == "paid" {
                reported
            } else {
                Decimal::ZERO
            };
            let order_status: Option<String> = row.try_get("order_status")?;
            // A reversed order owes nothing; anything else should have
            // credited what was paid.
            let difference = if order_status.as_deref() == Some("reversed") || status != "paid" {
                Decimal::ZERO
            } else {
                expected - credited_d
            };
            if !difference.is_zero() {
                differences += 1;
            }
            list.push(json!({
                "provider": row.try_get::<String, _>("provider")?,
                "event_id": row.try_get::<String, _>("event_id")?,
                "provider_tx_id": row.try_get::<String, _>("provider_tx_id")?,
                "order_id": row.try_get::<String, _>("order_id")?,
                "member_id": row.try_get::<Option<String>, _>("member_id")?,
                "status": status,
                "amount": amount,
                "currency": row.try_get::<String, _>("currency")?,
                "order_amount": row.try_get::<Option<String>, _>("order_amount")?,
                "order_status": order_status,
                "credited_amount": credited,
                "difference": difference.to_string(),
                "received": row.try_get::<i64, _>("received_ms")?,
            }));
        }
        let unmatched = sqlx::query(
            "SELECT tx_hash, chain, address, usdt_amount, confirmations, seen_ms FROM chain_transfers WHERE order_id IS NULL AND seen_ms >= $1 AND seen_ms < $2 ORDER BY seen_ms DESC LIMIT 200",
        )
        .bind(period.from_ms)
        .bind(period.to_ms)
        .fetch_all(&self.pool)
        .await?;
        let unmatched: Vec<Value> = unmatched
            .iter()
            .map(|r| {
                Ok(json!({
                    "tx_hash": r.try_get::<String, _>("tx_hash")?,
                    "chain": r.try_get::<String, _>("chain")?,
                    "address": r.try_get::<String, _>("address")?,
                    "usdt_amount": r.try_get::<String, _>("usdt_amount")?,
                    "confirmations": r.try_get::<i32, _>("confirmations")?,
                    "seen": r.try_get::<i64, _>("seen_ms")?,
                }))
            })
            .collect::<Result<_, sqlx::Error>>()?;
        Ok(
            json!({"list": list, "differences": differences, "unmatched_chain_transfers": unmatched}),
        )
    }
}

#[derive(Debug, Default)]
struct Sums {
    deposits: Decimal,
    withdrawals: Decimal,
    bets: Decimal,
    payouts: Decimal,
    bonuses: Decimal,
}

enum Bind {
    Text(String),
    Int(i64),
}

fn bind_all<'q>(
    mut query: sqlx::query::QueryScalar<'q, sqlx::Any, i64, sqlx::any::AnyArguments<'q>>,
    binds: &'q [Bind],
) -> sqlx::query::QueryScalar<'q, sqlx::Any, i64, sqlx::any::AnyArguments<'q>> {
    for b in binds {
        query = match b {
            Bind::Text(t) => query.bind(t.as_str()),
            Bind::Int(i) => query.bind(*i),
        };
    }
    query
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_and_dates_make_utc_day_periods() {
        let now = parse_day("2026-11-24").unwrap() + 13 * 3_600_000;
        let day = 86_400_000;
        let today = parse_day("2026-11-24").unwrap();
        let p = |v: Value| Period::from_params(&v, now).unwrap();
        assert_eq!(
            p(json!({"preset": "today"})),
            Period {
                from_ms: today,
                to_ms: today + day
            }
        );
        assert_eq!(
            p(json!({"preset": "yesterday"})),
            Period {
                from_ms: today - day,
                to_ms: today
            }
        );
        assert_eq!(p(json!({"preset": "week"})).from_ms, today - 6 * day);
        assert_eq!(
            p(json!({"from_date": "2026-11-01", "to_date": "2026-11-02"})),
            Period {
                from_ms: parse_day("2026-11-01").unwrap(),
                to_ms: parse_day("2026-11-03").unwrap()
            }
        );
        assert_eq!(parse_day("1970-01-02"), Some(day));
        assert!(Period::from_params(&json!({"preset": "ever"}), now).is_err());
        assert!(Period::from_params(
            &json!({"from_date": "2026-12-01", "to_date": "2026-11-01"}),
            now
        )
        .is_err());
    }
}
