//! Safer gambling calls (DESIGN.md "Responsible gambling"): the member's
//! limits, time-out, self-exclusion, reality check and statement, and
//! support's view of them (docs/responsible-gambling.md).

use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Json, Router};
use commands::compliance::safer::{SaferFailure, SaferState};
use domain::safer::{Actor, LimitKind, Period, SaferError};
use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::AppState;
use crate::error::{ok, ApiError, Envelope};
use crate::routes::auth::Member;
use crate::routes::backoffice::{done, BoError, StaffAuth};
use crate::transport::Payload;
use domain::staff::Duty;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/user/rglimits", post(limits).get(limits))
        .route("/api/user/rglimitset", post(set_limit))
        .route("/api/user/timeout", post(time_out))
        .route("/api/user/selfexclude", post(self_exclude))
        .route("/api/user/realitycheck", post(reality_check))
        .route("/api/user/statement", get(statement))
}

pub fn staff_router() -> Router<AppState> {
    Router::new()
        .route("/api/backoffice/members/{user_id}/safer", get(staff_view))
        .route(
            "/api/backoffice/members/{user_id}/timeout",
            post(staff_time_out),
        )
        .route(
            "/api/backoffice/members/{user_id}/statement",
            get(staff_statement),
        )
}

type Answer<T> = Result<Json<Envelope<T>>, ApiError>;

/// The wire form of a member's rules (times in unix seconds, 0 when none;
/// amounts decimal strings).
fn money(amount: Decimal) -> String {
    format!("{:.2}", amount.round_dp(2))
}

fn wire(state: &SaferState, currency: &str) -> Value {
    let limits: Vec<Value> = state
        .limits
        .iter()
        .map(|l| {
            let mut v = json!({
                "kind": l.kind.name(),
                "period": l.period.name(),
                "amount": money(l.amount),
                "used": money(l.used),
            });
            if let Some(p) = l.pending {
                v["pending"] = json!({
                    "amount": p.amount.map(money),
                    "effective_at": p.effective_at_ms / 1000,
                });
            }
            v
        })
        .collect();
    json!({
        "limits": limits,
        "timeout_until": state.timeout_until_ms / 1000,
        "self_excluded_until": state.self_excluded_until_ms / 1000,
        "reality_check_minutes": state.reality_check_minutes,
        "currency": currency,
    })
}

async fn currency_of(state: &AppState, user_id: &str) -> Result<String, ApiError> {
    let account = state.accounts.load(user_id).await?;
    Ok(account
        .profile
        .map(|p| p.currency.code().to_string())
        .unwrap_or_default())
}

async fn answer(state: &AppState, user_id: &str, rules: SaferState) -> Answer<Value> {
    let currency = currency_of(state, user_id).await?;
    Ok(ok(wire(&rules, &currency)))
}

fn invalid(what: &'static str) -> ApiError {
    SaferError::Invalid(what).into()
}

#[utoipa::path(method(post, get), path = "/api/user/rglimits", operation_id = "user_rg_limits", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn limits(State(state): State<AppState>, member: Member) -> Answer<Value> {
    let rules = state.safer.state(&member.user_id).await?;
    answer(&state, &member.user_id, rules).await
}

#[derive(Deserialize, utoipa::ToSchema)]
struct LimitBody {
    #[serde(default)]
    kind: String,
    #[serde(default)]
    period: String,
    /// A decimal string; empty removes the limit.
    #[serde(default)]
    amount: Value,
}

/// The amount of a limit: a decimal string or number, `""`/null removes.
fn limit_amount(value: &Value) -> Result<Option<Decimal>, ApiError> {
    let text = match value {
        Value::Null => return Ok(None),
        Value::String(s) => s.trim().to_string(),
        Value::Number(n) => n.to_string(),
        _ => return Err(invalid("amount: a decimal string")),
    };
    if text.is_empty() {
        return Ok(None);
    }
    if text.len() > 20 {
        return Err(invalid("amount: 0 to 1000000000"));
    }
    text.parse::<Decimal>()
        .map(Some)
        .map_err(|_| invalid("amount: a decimal string"))
}

#[utoipa::path(post, path = "/api/user/rglimitset", operation_id = "user_rg_limit_set", tag = crate::openapi::MEMBER, request_body = LimitBody, responses(crate::openapi::MemberAnswers))]
async fn set_limit(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<LimitBody>,
) -> Answer<Value> {
    let kind = LimitKind::parse(body.kind.trim())
        .ok_or_else(|| invalid("kind: deposit, loss or stake"))?;
    let period =
        Period::parse(body.period.trim()).ok_or_else(|| invalid("period: day, week or month"))?;
    let amount = limit_amount(&body.amount)?;
    let rules = state
        .safer
        .set_limit(&member.user_id, kind, period, amount)
        .await?;
    answer(&state, &member.user_id, rules).await
}

/// A whole number from a JSON number or string, bounded.
fn whole(value: &Value, what: &'static str) -> Result<u32, ApiError> {
    let n = match value {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    n.and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| invalid(what))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct HoursBody {
    #[serde(default)]
    hours: Value,
}

#[utoipa::path(post, path = "/api/user/timeout", operation_id = "user_time_out", tag = crate::openapi::MEMBER, request_body = HoursBody, responses(crate::openapi::MemberAnswers))]
async fn time_out(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<HoursBody>,
) -> Answer<Value> {
    let hours = whole(&body.hours, "hours: 24 to 1008")?;
    let rules = state
        .safer
        .time_out(&member.user_id, hours, Actor::Member)
        .await?;
    answer(&state, &member.user_id, rules).await
}

#[derive(Deserialize, utoipa::ToSchema)]
struct MonthsBody {
    #[serde(default)]
    months: Value,
}

#[utoipa::path(post, path = "/api/user/selfexclude", operation_id = "user_self_exclude", tag = crate::openapi::MEMBER, request_body = MonthsBody, responses(crate::openapi::MemberAnswers))]
async fn self_exclude(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<MonthsBody>,
) -> Answer<Value> {
    let months = whole(&body.months, "months: 6 to 60")?;
    let rules = state.safer.self_exclude(&member.user_id, months).await?;
    answer(&state, &member.user_id, rules).await
}

#[derive(Deserialize, utoipa::ToSchema)]
struct MinutesBody {
    #[serde(default)]
    minutes: Value,
}

#[utoipa::path(post, path = "/api/user/realitycheck", operation_id = "user_reality_check", tag = crate::openapi::MEMBER, request_body = MinutesBody, responses(crate::openapi::MemberAnswers))]
async fn reality_check(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<MinutesBody>,
) -> Answer<Value> {
    let minutes = whole(
        &body.minutes,
        "minutes: 0, 10, 20, 30, 60, 120, 240, 360 or 480",
    )?;
    let rules = state
        .safer
        .set_reality_check(&member.user_id, minutes)
        .await?;
    answer(&state, &member.user_id, rules).await
}

#[derive(Deserialize)]
struct MonthsQuery {
    /// Any text: a number is clamped to 1..=24, anything else is 12.
    months: Option<String>,
}

impl MonthsQuery {
    fn months(&self) -> u32 {
        self.months
            .as_deref()
            .and_then(|m| m.trim().parse::<i64>().ok())
            .map_or(12, |m| m.clamp(1, 24) as u32)
    }
}

fn csv(body: String, user_id: &str) -> axum::response::Response {
    (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"statement-{user_id}.csv\""),
            ),
        ],
        body,
    )
        .into_response()
}

#[utoipa::path(get, path = "/api/user/statement", operation_id = "user_statement", tag = crate::openapi::MEMBER, params(("months" = Option<String>, Query, description = "1 to 24, 12 by default")), responses(crate::openapi::MemberAnswers))]
async fn statement(
    State(state): State<AppState>,
    member: Member,
    Query(query): Query<MonthsQuery>,
) -> Result<axum::response::Response, ApiError> {
    let body = commands::compliance::statements::statement(
        &state.db.any,
        &state.safer.calendar(),
        &member.user_id,
        query.months(),
        state.clock.now_ms(),
    )
    .await?;
    Ok(csv(body, &member.user_id))
}

fn bo(e: SaferFailure) -> BoError {
    match e {
        SaferFailure::Refused(refusal) => BoError::bad(refusal.code().0, refusal.to_string()),
        SaferFailure::Internal(why) => BoError::internal(why),
    }
}

async fn known_member(state: &AppState, user_id: &str) -> Result<String, BoError> {
    let id = match state.accounts.find(user_id.trim()).await {
        Ok(Some(id)) => id,
        _ => user_id.trim().to_string(),
    };
    let account = state
        .accounts
        .load(&id)
        .await
        .map_err(|_| BoError::not_found("Member"))?;
    if account.profile.is_none() {
        return Err(BoError::not_found("Member"));
    }
    Ok(id)
}

async fn staff_answer(state: &AppState, user_id: &str) -> Result<Json<Value>, BoError> {
    let rules = state.safer.state(user_id).await.map_err(bo)?;
    let history = state.safer.history(user_id).await.map_err(bo)?;
    let currency = currency_of(state, user_id)
        .await
        .map_err(BoError::internal)?;
    let mut data = wire(&rules, &currency);
    data["user_id"] = json!(user_id);
    data["history"] = json!(history
        .iter()
        .map(|c| json!({"at": c.at_ms / 1000, "what": c.what, "by": c.by, "detail": c.detail}))
        .collect::<Vec<_>>());
    Ok(done(data))
}

/// A member's limits, time-out, exclusion and the history of changes.
#[utoipa::path(get, path = "/api/backoffice/members/{user_id}/safer", operation_id = "backoffice_member_safer", tag = crate::openapi::BACK_OFFICE, params(("user_id" = String, Path)), responses(crate::openapi::StaffAnswers))]
async fn staff_view(
    State(state): State<AppState>,
    auth: StaffAuth,
    Path(user_id): Path<String>,
) -> Result<Json<Value>, BoError> {
    auth.may(Duty::SaferGambling)?;
    let user_id = known_member(&state, &user_id).await?;
    staff_answer(&state, &user_id).await
}

#[derive(Deserialize, utoipa::ToSchema)]
struct StaffTimeOut {
    #[serde(default)]
    hours: Value,
    #[serde(default)]
    reason: String,
}

/// Support starts a time-out for a member (never ends one), with a reason.
#[utoipa::path(post, path = "/api/backoffice/members/{user_id}/timeout", operation_id = "backoffice_member_time_out", tag = crate::openapi::BACK_OFFICE, params(("user_id" = String, Path)), request_body = StaffTimeOut, responses(crate::openapi::StaffAnswers))]
async fn staff_time_out(
    State(state): State<AppState>,
    auth: StaffAuth,
    Path(user_id): Path<String>,
    body: Result<Json<StaffTimeOut>, axum::extract::rejection::JsonRejection>,
) -> Result<Json<Value>, BoError> {
    auth.may(Duty::SaferGambling)?;
    let Json(body) = body.map_err(|e| {
        BoError::bad(
            domain::Code::BAD_PARAMETERS.0,
            format!("Invalid request parameters: {}", e.body_text()),
        )
    })?;
    let reason = body.reason.trim();
    if reason.is_empty() || reason.chars().count() > 200 {
        return Err(BoError::bad(
            domain::Code::BAD_PARAMETERS.0,
            "Invalid request parameters: reason: 1 to 200 characters",
        ));
    }
    let hours = whole(&body.hours, "hours: 24 to 1008").map_err(|_| {
        BoError::bad(
            domain::Code::BAD_PARAMETERS.0,
            "Invalid request parameters: hours: 24 to 1008",
        )
    })?;
    let user_id = known_member(&state, &user_id).await?;
    let by = Actor::Staff {
        name: auth.staff.username.clone(),
        reason: reason.to_string(),
    };
    state
        .safer
        .time_out(&user_id, hours, by)
        .await
        .map_err(bo)?;
    tracing::info!(staff = %auth.staff.username, member = %user_id, hours, "time-out started by staff");
    staff_answer(&state, &user_id).await
}

/// The member's statement, as the member downloads it.
#[utoipa::path(get, path = "/api/backoffice/members/{user_id}/statement", operation_id = "backoffice_member_statement", tag = crate::openapi::BACK_OFFICE, params(("user_id" = String, Path), ("months" = Option<String>, Query)), responses(crate::openapi::StaffAnswers))]
async fn staff_statement(
    State(state): State<AppState>,
    auth: StaffAuth,
    Path(user_id): Path<String>,
    Query(query): Query<MonthsQuery>,
) -> Result<axum::response::Response, BoError> {
    auth.may(Duty::SaferGambling)?;
    let user_id = known_member(&state, &user_id).await?;
    let body = commands::compliance::statements::statement(
        &state.db.any,
        &state.safer.calendar(),
        &user_id,
        query.months(),
        state.clock.now_ms(),
    )
    .await
    .map_err(BoError::internal)?;
    tracing::info!(staff = %auth.staff.username, member = %user_id, "statement produced by staff");
    Ok(csv(body, &user_id))
}

pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(
        limits,
        set_limit,
        time_out,
        self_exclude,
        reality_check,
        statement,
        staff_view,
        staff_time_out,
        staff_statement
    ))]
    struct Doc;
    <Doc as utoipa::OpenApi>::openapi()
}
