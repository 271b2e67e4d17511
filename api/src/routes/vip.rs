//! VIP calls (spec 001 section 7.4 `vipsystem/*`; docs/vip.md): the level
//! table, the member's level and progress, experience and M currency
//! movements, and the reward claims. Rules live in `domain::vip`, the work
//! in `commands::engagement::vip`; this only decodes, calls and encodes.

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use commands::engagement::vip::{previous_month, yesterday, Paid, VipFailure};
use domain::account::Market;
use domain::vip::{Product, RewardKind, LEVELS};
use projections::vip::{self as model, LedgerFilter, LedgerRow, VipMember};
use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::AppState;
use crate::error::{ok, ApiError, Envelope};
use crate::routes::auth::Member;
use crate::transport::{Payload, ReadRoutes};

pub fn router() -> Router<AppState> {
    Router::new()
        .read_route(
            "/api/vipsystem/allvipdetail",
            post(all_levels).get(all_levels),
        )
        .read_route("/api/vipsystem/vipdetail", post(detail).get(detail))
        .read_route("/api/vipsystem/vipxporders", post(xp_orders).get(xp_orders))
        .read_route(
            "/api/vipsystem/scoreorders",
            post(score_orders).get(score_orders),
        )
        .read_route(
            "/api/vipsystem/mcoindetail",
            post(mcoin_detail).get(mcoin_detail),
        )
        .route("/api/vipsystem/getvipbonus", post(claim_rebate))
        .route("/api/vipsystem/getgrowgift", post(claim_gift))
}

type Answer = Result<Json<Envelope<Value>>, ApiError>;

impl From<VipFailure> for ApiError {
    fn from(e: VipFailure) -> Self {
        match e {
            VipFailure::Refused(r) => ApiError::with_message(r.code().0, r.to_string()),
            VipFailure::Internal(detail) => ApiError::Internal(detail),
        }
    }
}

fn bad(detail: &str) -> ApiError {
    ApiError::with_message(-70009, format!("Invalid request parameters: {detail}"))
}

/// The member's market and currency (from the account when the VIP read
/// model has no row yet).
async fn profile_of(state: &AppState, user_id: &str) -> Result<(Market, String), ApiError> {
    let account = state.accounts.load(user_id).await?;
    let profile = account
        .profile
        .as_ref()
        .ok_or(ApiError::Code(domain::Code::NOT_LOGGED_IN))?;
    Ok((profile.market, profile.currency.code().to_string()))
}

/// The member's VIP row, or a level-1 row when nothing was counted yet.
pub async fn member_row(state: &AppState, user_id: &str) -> Result<VipMember, ApiError> {
    if let Some(m) = state.vip.member(user_id).await? {
        return Ok(m);
    }
    let (market, currency) = profile_of(state, user_id).await?;
    Ok(VipMember {
        member_id: user_id.to_string(),
        market: market.code().to_string(),
        currency,
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
    })
}

/// What `userinfo` carries: vipname, vipexpbalance, userrank.
pub async fn userinfo_fields(
    state: &AppState,
    user_id: &str,
) -> Result<(String, String, i64), ApiError> {
    let m = member_row(state, user_id).await?;
    let name = state
        .vip
        .tables()
        .market(m.market())
        .name(m.level)
        .to_string();
    let rank = model::rank(&state.db.any, &m).await?;
    Ok((name, money(m.bets), rank))
}

fn money(d: Decimal) -> String {
    format!("{:.2}", d)
}

#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
struct LevelsQuery {
    #[serde(default)]
    lang: Option<String>,
}

/// `allvipdetail`: the ten levels of the member's market (a visitor: of
/// `lang`, default eng).
#[utoipa::path(post, path = "/api/vipsystem/allvipdetail", operation_id = "vip_all_levels", tag = crate::openapi::MEMBER, request_body = LevelsQuery, responses(crate::openapi::MemberAnswers))]
async fn all_levels(
    State(state): State<AppState>,
    member: Result<Member, ApiError>,
    Payload(query): Payload<LevelsQuery>,
) -> Answer {
    let (market, level) = match member {
        Ok(member) => {
            let m = member_row(&state, &member.user_id).await?;
            (m.market(), m.level)
        }
        Err(_) => (
            Market::from_language(query.lang.as_deref().unwrap_or("eng")),
            0,
        ),
    };
    let table = state.vip.tables().market(market);
    Ok(ok(json!({
        "market": market.code(),
        "level": level,
        "list": table.all(),
    })))
}

/// `vipdetail`: level card, progress, rank, gifts, salary, rebate.
#[utoipa::path(method(post, get), path = "/api/vipsystem/vipdetail", operation_id = "vip_detail", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn detail(State(state): State<AppState>, member: Member) -> Answer {
    let m = member_row(&state, &member.user_id).await?;
    let tables = state.vip.tables().clone();
    let table = tables.market(m.market());
    let vip = state.vip.state(&member.user_id).await?;
    let rank = model::rank(&state.db.any, &m).await?;
    let (money_pct, bets_pct) = table.progress(m.level, m.money, m.bets);
    let next = (m.level < LEVELS as u8).then(|| {
        let n = m.level + 1;
        json!({
            "level": n,
            "vipname": table.name(n),
            "money": money(table.money_needed(n)),
            "bets": money(table.bets_needed(n)),
            "money_left": money((table.money_needed(n) - m.money).max(Decimal::ZERO)),
            "bets_left": money((table.bets_needed(n) - m.bets).max(Decimal::ZERO)),
        })
    });
    let gifts: Vec<Value> = (2..=LEVELS as u8)
        .map(|l| {
            let received = vip.grants.contains_key(&(RewardKind::Gift, l.to_string()));
            let reached = vip.reached.contains(&l) || l <= m.level;
            json!({
                "level": l,
                "vipname": table.name(l),
                "growgift": money(table.gift(l)),
                // 0 not reached, 1 claimable, 2 received
                "status": if received { 2 } else if reached && table.gift(l) > Decimal::ZERO { 1 } else { 0 },
            })
        })
        .collect();
    let now = state.clock.now_ms();
    let day = yesterday(now);
    let preview = state.vip.rebate_preview(&m).await?;
    let mut rebate_received = false;
    let mut rebate_due = Decimal::ZERO;
    let rebate_items: Vec<Value> = Product::ALL
        .iter()
        .map(|p| {
            let (basis, rate, amount) = preview.get(p).copied().unwrap_or_default();
            let key = format!("{day}:{}", p.code());
            let granted = vip.grants.get(&(RewardKind::Rebate, key));
            if granted.is_some() {
                rebate_received = true;
            } else {
                rebate_due += amount;
            }
            json!({
                "product": p.code(),
                "turnover": money(granted.map(|g| g.basis).unwrap_or(basis)),
                "rate": format!("{:.2}", granted.map(|g| g.rate).unwrap_or(rate)),
                "amount": money(granted.map(|g| g.amount).unwrap_or(amount)),
                "received": granted.is_some(),
            })
        })
        .collect();
    let month = previous_month(now);
    let this_month = &commands::engagement::vip::today(now).to_string()[..7];
    let salary_granted = vip.grants.get(&(RewardKind::Salary, month.clone()));
    let month_turnover = model::month_turnover(&state.db.any, &m.member_id, this_month).await?;
    let rewards = model::rewards(&state.db.any, &m.member_id).await?;
    Ok(ok(json!({
        "level": m.level,
        "vipname": table.name(m.level),
        "vipexpbalance": money(m.bets),
        "money": money(m.money),
        "bets": money(m.bets),
        "deposits_total": money(m.deposits_total),
        "turnover_total": money(m.turnover_total),
        "progress": { "money": format!("{:.2}", money_pct), "bets": format!("{:.2}", bets_pct) },
        "next": next,
        "userrank": rank,
        "market": m.market,
        "currency": m.currency,
        "points": money(m.points()),
        "info": table.info(m.level),
        "gifts": gifts,
        "salary": {
            "month": month,
            "monthsalary": money(table.salary(m.level)),
            "cashflow": money(table.cashflow(m.level)),
            "month_turnover": money(month_turnover),
            "paid": salary_granted.map(|g| money(g.amount)),
            // 2 received for last month, 0 not (paid by the monthly job)
            "status": if salary_granted.is_some() { 2 } else { 0 },
        },
        "rebate": {
            "day": day.to_string(),
            "items": rebate_items,
            "amount": money(rebate_due),
            // 0 nothing, 1 claimable, 2 received
            "status": if rebate_due > Decimal::ZERO { 1 } else if rebate_received { 2 } else { 0 },
        },
        "withdrawtimes": table.withdraw_times(m.level),
        "withdrawlimits": money(table.withdraw_limit(m.level)),
        "rewards": rewards.iter().take(50).map(|r| json!({
            "reference": r.reference,
            "kind": r.kind,
            "key": r.key,
            "level": r.level,
            "amount": money(r.amount),
            "turnover_required": money(r.turnover_required),
            "time": r.at_ms / 1000,
        })).collect::<Vec<_>>(),
    })))
}

#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
struct Page {
    #[serde(default, alias = "pn")]
    page: Option<i64>,
    #[serde(default, alias = "pagesize")]
    size: Option<i64>,
    /// Unix seconds.
    #[serde(default)]
    from_date: Option<i64>,
    #[serde(default)]
    to_date: Option<i64>,
}

impl Page {
    fn read(&self) -> Result<(i64, i64, i64, i64), ApiError> {
        let page = self.page.unwrap_or(1);
        let size = self.size.unwrap_or(20);
        if !(1..=100_000).contains(&page) {
            return Err(bad("page must be 1 or more"));
        }
        if !(1..=100).contains(&size) {
            return Err(bad("size must be 1 to 100"));
        }
        let from = self.from_date.unwrap_or(0).clamp(0, i64::MAX / 1000) * 1000;
        let to = self
            .to_date
            .map(|t| t.clamp(0, i64::MAX / 1000 - 1) * 1000 + 999)
            .unwrap_or(i64::MAX);
        if from > to {
            return Err(bad("from_date after to_date"));
        }
        Ok((page, size, from, to))
    }
}

fn ledger_json(row: &LedgerRow) -> Value {
    json!({
        "id": row.source,
        "time": row.at_ms / 1000,
        "time_ms": row.at_ms,
        "seq": row.position,
        "kind": row.kind,
        "money": money(row.money_delta),
        "bets": money(row.bets_delta),
        "exp": money(row.bets_delta),
        "score": money(row.points),
        "money_after": money(row.money),
        "exp_after": money(row.bets),
        "level": row.level,
    })
}

async fn list(state: &AppState, user_id: &str, filter: LedgerFilter, page: Page) -> Answer {
    let (page, size, from, to) = page.read()?;
    let (rows, total) = model::ledger(&state.db.any, user_id, filter, from, to, page, size).await?;
    Ok(ok(json!({
        "list": rows.iter().map(ledger_json).collect::<Vec<_>>(),
        "total": total,
        "page": page,
        "size": size,
    })))
}

/// `vipxporders`: experience movements (deposits, valid turnover, decay).
#[utoipa::path(post, path = "/api/vipsystem/vipxporders", operation_id = "vip_xp_orders", tag = crate::openapi::MEMBER, request_body = Page, responses(crate::openapi::MemberAnswers))]
async fn xp_orders(
    State(state): State<AppState>,
    member: Member,
    Payload(page): Payload<Page>,
) -> Answer {
    list(&state, &member.user_id, LedgerFilter::Experience, page).await
}

/// `scoreorders`: M currency movements (earned, spent).
#[utoipa::path(post, path = "/api/vipsystem/scoreorders", operation_id = "vip_score_orders", tag = crate::openapi::MEMBER, request_body = Page, responses(crate::openapi::MemberAnswers))]
async fn score_orders(
    State(state): State<AppState>,
    member: Member,
    Payload(page): Payload<Page>,
) -> Answer {
    list(&state, &member.user_id, LedgerFilter::Points, page).await
}

/// `mcoindetail`: M currency balance, earned and spent, with its movements.
#[utoipa::path(post, path = "/api/vipsystem/mcoindetail", operation_id = "vip_mcoin_detail", tag = crate::openapi::MEMBER, request_body = Page, responses(crate::openapi::MemberAnswers))]
async fn mcoin_detail(
    State(state): State<AppState>,
    member: Member,
    Payload(page): Payload<Page>,
) -> Answer {
    let m = member_row(&state, &member.user_id).await?;
    let (page, size, from, to) = page.read()?;
    let (rows, total) = model::ledger(
        &state.db.any,
        &member.user_id,
        LedgerFilter::Points,
        from,
        to,
        page,
        size,
    )
    .await?;
    Ok(ok(json!({
        "balance": money(m.points()),
        "earned": money(m.points_earned),
        "spent": money(m.points_spent),
        "per_turnover": state.vip.tables().points_per_turnover.to_string(),
        "list": rows.iter().map(ledger_json).collect::<Vec<_>>(),
        "total": total,
    })))
}

fn paid_json(paid: &[Paid]) -> Value {
    let total: Decimal = paid.iter().map(|p| p.grant.amount).sum();
    json!({
        "amount": money(total),
        "duplicate": paid.iter().all(|p| p.duplicate),
        "list": paid.iter().map(|p| json!({
            "reference": p.grant.reference,
            "kind": p.grant.kind.code(),
            "key": p.grant.key,
            "level": p.grant.level,
            "amount": money(p.grant.amount),
            "turnover": money(p.grant.basis),
            "rate": format!("{:.2}", p.grant.rate),
            "turnover_required": money(p.grant.turnover_required),
            "duplicate": p.duplicate,
        })).collect::<Vec<_>>(),
    })
}

/// `getvipbonus`: yesterday's rebate (per product) to the bonus pot.
#[utoipa::path(post, path = "/api/vipsystem/getvipbonus", operation_id = "vip_claim_rebate", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn claim_rebate(State(state): State<AppState>, member: Member) -> Answer {
    let paid = state.vip.claim_rebate(&member.user_id).await?;
    Ok(ok(paid_json(&paid)))
}

#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
struct GiftQuery {
    #[serde(default)]
    level: Option<Value>,
}

/// `getgrowgift {level}`: the upgrade gift of a level reached (no level:
/// every gift reached and not yet collected).
#[utoipa::path(post, path = "/api/vipsystem/getgrowgift", operation_id = "vip_claim_gift", tag = crate::openapi::MEMBER, request_body = GiftQuery, responses(crate::openapi::MemberAnswers))]
async fn claim_gift(
    State(state): State<AppState>,
    member: Member,
    Payload(q): Payload<GiftQuery>,
) -> Answer {
    let level = match &q.level {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => Some(n.as_i64().ok_or_else(|| bad("level"))?),
        Some(Value::String(s)) if s.trim().is_empty() => None,
        Some(Value::String(s)) => Some(s.trim().parse::<i64>().map_err(|_| bad("level"))?),
        Some(_) => return Err(bad("level")),
    };
    let level = match level {
        None => None,
        Some(l) if (2..=LEVELS as i64).contains(&l) => Some(l as u8),
        Some(_) => return Err(bad("level must be 2 to 10")),
    };
    let paid = state.vip.claim_gifts(&member.user_id, level).await?;
    Ok(ok(paid_json(&paid)))
}

/// `POST /api/dev/vip/activity` (DEMO=1 only, plain JSON): stand-ins for
/// the payments and casino issues until they land. Makes sure the member
/// `username` exists (CNY, password `password`), then appends a
/// `DepositCredited` of `deposit` and a lost `CasinoRoundClosed` of
/// `turnover` (product `pg`) exactly as those issues' events look, so
/// automated clients can move a member across VIP levels.
pub fn dev_router() -> Router<AppState> {
    Router::new().route("/api/dev/vip/activity", post(dev_activity))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
struct DevActivity {
    username: String,
    password: String,
    #[serde(default)]
    deposit: Option<Decimal>,
    #[serde(default)]
    turnover: Option<Decimal>,
}

#[utoipa::path(post, path = "/api/dev/vip/activity", operation_id = "vip_dev_activity", tag = crate::openapi::DEV, request_body = DevActivity, responses(crate::openapi::PlainAnswers))]
async fn dev_activity(State(state): State<AppState>, Json(body): Json<DevActivity>) -> Answer {
    let limit = Decimal::from(100_000_000);
    for amount in [body.deposit, body.turnover].into_iter().flatten() {
        if amount <= Decimal::ZERO || amount > limit || amount.scale() > 2 {
            return Err(bad("amounts must be positive with at most 2 places"));
        }
    }
    let user_id = state
        .accounts
        .ensure_member(&body.username, &body.password, domain::Currency::Cny)
        .await
        .map_err(|e| bad(&e.to_string()))?;
    let now = state.clock.now_ms();
    let id = format!("dev-{}-{now}-{}", user_id, rand_suffix());
    if let Some(amount) = body.deposit {
        append_event(
            &state,
            "Deposit",
            &id,
            "DepositCredited",
            json!({"DepositCredited": {
            "member_id": user_id, "currency": "CNY", "amount": amount.to_string(),
            "order_id": id, "channel": "bank", "credited_at": now}}),
        )
        .await?;
    }
    if let Some(amount) = body.turnover {
        append_event(
            &state,
            "CasinoRound",
            &id,
            "CasinoRoundClosed",
            json!({"CasinoRoundClosed": {
            "member_id": user_id, "currency": "CNY", "product": "pg", "provider": "demo",
            "game_id": "dev", "round": id, "stake": amount.to_string(), "payout": "0",
            "closed_at": now / 1000}}),
        )
        .await?;
    }
    state.runner.waker().notify_one();
    state
        .runner
        .settle(projections::vip::NAME, std::time::Duration::from_secs(5))
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    let m = member_row(&state, &user_id).await?;
    Ok(ok(
        json!({"user_id": user_id, "level": m.level, "bets": money(m.bets), "money": money(m.money)}),
    ))
}

pub(crate) fn rand_suffix() -> String {
    use std::time::{SystemTime, UNIX_EPOCH};
    let n = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("{n:09}")
}

pub(crate) async fn append_event(
    state: &AppState,
    aggregate_type: &str,
    id: &str,
    event_type: &str,
    payload: Value,
) -> Result<(), ApiError> {
    // Through the store's unit of work, as every append (sequence 1: a
    // repeated id collides instead of writing twice).
    let row = store::events::EventRow {
        aggregate_type: aggregate_type.to_string(),
        aggregate_id: id.to_string(),
        sequence: 1,
        event_type: event_type.to_string(),
        event_version: "1.0".to_string(),
        payload: payload.to_string(),
        metadata: "{}".to_string(),
    };
    let uow = store::UnitOfWork::new(store::RetryPolicy::default()).on(&state.db.group);
    let appended: Result<(), store::unit::UnitError<String>> = store::unit_of_work!(uow, |unit| {
        unit.event_row(row.clone());
        Ok(())
    });
    appended.map_err(|e| ApiError::Internal(e.to_string()))
}

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(
        all_levels,
        detail,
        xp_orders,
        score_orders,
        mcoin_detail,
        claim_rebate,
        claim_gift,
        dev_activity
    ))]
    struct Doc;
    #[allow(unused_mut)]
    let mut doc = <Doc as utoipa::OpenApi>::openapi();
    crate::openapi::get_alias(&mut doc, "/api/vipsystem/allvipdetail");
    crate::openapi::get_alias(&mut doc, "/api/vipsystem/vipxporders");
    crate::openapi::get_alias(&mut doc, "/api/vipsystem/scoreorders");
    crate::openapi::get_alias(&mut doc, "/api/vipsystem/mcoindetail");
    doc
}
