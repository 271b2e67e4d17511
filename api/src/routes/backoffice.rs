//! The back office: `/api/backoffice/*`, plain JSON for staff (support,
//! auditor, trader, admin), never for members. Every endpoint but login checks the
//! staff token and the role's duty (`domain::staff::Role::may`).
//! Contract: docs/cashout-and-backoffice.md.

use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use commands::accounts::staff::{Staff, StaffError};
use commands::sportsbook::cashout::{Decider, Decision};
use commands::sportsbook::desk::{DeskAction, DeskError};
use commands::sportsbook::freebets::{GrantFailure, GrantRequest};
use commands::sportsbook::shortfalls::{Shortfall, ShortfallError};
use domain::staff::{Duty, Role};
use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/backoffice/login", post(login))
        .route("/api/backoffice/logout", post(logout))
        .route("/api/backoffice/me", get(me))
        .route("/api/backoffice/counter-offers", get(queue))
        .route("/api/backoffice/counter-offers/{bet_id}", get(queue_item))
        .route("/api/backoffice/counter-offers/{bet_id}/offer", post(offer))
        .route(
            "/api/backoffice/counter-offers/{bet_id}/accept",
            post(accept),
        )
        .route(
            "/api/backoffice/counter-offers/{bet_id}/decline",
            post(decline),
        )
        .route("/api/backoffice/bets", get(search))
        .route("/api/backoffice/bets/{bet_id}/events", get(trail))
        .route("/api/backoffice/audit/replay", post(replay))
        .route("/api/backoffice/staff", get(list_staff).post(create_staff))
        .route("/api/backoffice/free-bets", post(grant_free_bet))
        .route("/api/backoffice/games/{game_id}/result", post(enter_result))
        .route("/api/backoffice/games/{game_id}/void", post(void_game))
        .route(
            "/api/backoffice/markets/{market_id}/void",
            post(void_market),
        )
        .route("/api/backoffice/shortfalls", get(shortfalls))
        .route(
            "/api/backoffice/shortfalls/{id}/collect",
            post(collect_shortfall),
        )
        .route(
            "/api/backoffice/shortfalls/{id}/write-off",
            post(write_off_shortfall),
        )
}

/// A back-office refusal: an HTTP status and `{status, msg}`.
#[derive(Debug)]
pub struct BoError {
    http: StatusCode,
    status: i32,
    msg: String,
}

impl BoError {
    fn new(http: StatusCode, status: i32, msg: impl Into<String>) -> Self {
        Self {
            http,
            status,
            msg: msg.into(),
        }
    }

    fn unauthorized() -> Self {
        Self::new(StatusCode::UNAUTHORIZED, -401, "Not logged in")
    }

    pub(crate) fn forbidden() -> Self {
        Self::new(StatusCode::FORBIDDEN, -403, "Not allowed for your role")
    }

    pub(crate) fn not_found(what: &str) -> Self {
        Self::new(StatusCode::NOT_FOUND, -404, format!("{what} not found"))
    }

    pub(crate) fn bad(status: i32, msg: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, status, msg)
    }

    pub(crate) fn internal(e: impl std::fmt::Display) -> Self {
        tracing::error!(error = %e, "back office request failed");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            domain::Code::INTERNAL.0,
            domain::Code::INTERNAL.message(),
        )
    }
}

impl IntoResponse for BoError {
    fn into_response(self) -> Response {
        (
            self.http,
            Json(json!({"status": self.status, "msg": self.msg, "data": null})),
        )
            .into_response()
    }
}

impl From<StaffError> for BoError {
    fn from(e: StaffError) -> Self {
        match e {
            StaffError::NotLoggedIn => BoError::unauthorized(),
            StaffError::BadCredentials | StaffError::Locked { .. } => {
                BoError::new(StatusCode::UNAUTHORIZED, e.code(), e.to_string())
            }
            StaffError::Invalid(_) | StaffError::Taken => BoError::bad(e.code(), e.to_string()),
            StaffError::Internal(e) => BoError::internal(e),
        }
    }
}

fn bad_body(e: JsonRejection) -> BoError {
    BoError::bad(
        domain::Code::BAD_PARAMETERS.0,
        format!("Invalid request parameters: {}", e.body_text()),
    )
}

pub(crate) fn done(data: Value) -> Json<Value> {
    Json(json!({"status": 0, "msg": "OK", "data": data}))
}

/// The staff member behind `Authorization: Bearer <token>`.
pub struct StaffAuth {
    pub staff: Staff,
    token: String,
}

impl FromRequestParts<AppState> for StaffAuth {
    type Rejection = BoError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, BoError> {
        let token = parts
            .headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .ok_or_else(BoError::unauthorized)?;
        let staff = state.staff.authenticate(&token).await?;
        Ok(StaffAuth { staff, token })
    }
}

impl StaffAuth {
    pub(crate) fn may(&self, duty: Duty) -> Result<(), BoError> {
        if self.staff.role.may(duty) {
            Ok(())
        } else {
            Err(BoError::forbidden())
        }
    }
}

#[derive(Deserialize, utoipa::ToSchema)]
struct LoginBody {
    username: String,
    password: String,
}

#[utoipa::path(post, path = "/api/backoffice/login", operation_id = "backoffice_login", tag = crate::openapi::BACK_OFFICE, request_body = LoginBody, responses(crate::openapi::StaffAnswers))]
async fn login(
    State(state): State<AppState>,
    body: Result<Json<LoginBody>, JsonRejection>,
) -> Result<Json<Value>, BoError> {
    let Json(body) = body.map_err(bad_body)?;
    let login = state.staff.login(&body.username, &body.password).await?;
    Ok(done(json!(login)))
}

#[utoipa::path(post, path = "/api/backoffice/logout", operation_id = "backoffice_logout", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn logout(State(state): State<AppState>, auth: StaffAuth) -> Result<Json<Value>, BoError> {
    state.staff.logout(&auth.token).await?;
    Ok(done(Value::Null))
}

#[utoipa::path(get, path = "/api/backoffice/me", operation_id = "backoffice_me", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn me(auth: StaffAuth) -> Json<Value> {
    done(json!({"username": auth.staff.username, "role": auth.staff.role, "id": auth.staff.id}))
}

#[derive(Deserialize, Default, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct QueueParams {
    status: Option<String>,
}

/// The username of a member, for staff screens.
async fn username_of(state: &AppState, user_id: &str) -> String {
    match state.accounts.load(user_id).await {
        Ok(account) => account
            .profile
            .map(|p| p.username.as_str().to_string())
            .unwrap_or_default(),
        Err(_) => String::new(),
    }
}

async fn records(
    state: &AppState,
    sql: &str,
    bind: Option<&str>,
) -> Result<Vec<(String, Value)>, BoError> {
    use sqlx::Row;
    let mut query = sqlx::query(sql);
    if let Some(b) = bind {
        query = query.bind(b.to_string());
    }
    let rows = query
        .fetch_all(&state.db.any)
        .await
        .map_err(BoError::internal)?;
    rows.iter()
        .map(|row| {
            let member: String = row.try_get("member_id").map_err(BoError::internal)?;
            let text: String = row.try_get("record").map_err(BoError::internal)?;
            Ok((member, serde_json::from_str(&text).unwrap_or(Value::Null)))
        })
        .collect()
}

#[utoipa::path(get, path = "/api/backoffice/counter-offers", operation_id = "backoffice_queue", tag = crate::openapi::BACK_OFFICE, params(QueueParams), responses(crate::openapi::StaffAnswers))]
async fn queue(
    State(state): State<AppState>,
    auth: StaffAuth,
    Query(params): Query<QueueParams>,
) -> Result<Json<Value>, BoError> {
    auth.may(Duty::CounterOffers)?;
    let all = match params.status.as_deref() {
        None | Some("open") => false,
        Some("all") => true,
        Some(other) => {
            return Err(BoError::bad(
                domain::Code::BAD_PARAMETERS.0,
                format!("Invalid request parameters: status '{other}' (open or all)"),
            ))
        }
    };
    let rows = if all {
        records(
            &state,
            "SELECT member_id, record FROM bets ORDER BY date_time DESC, bet_id DESC LIMIT 2000",
            None,
        )
        .await?
        .into_iter()
        .filter(|(_, r)| r["is_super_bet"] == json!(true))
        .take(200)
        .collect()
    } else {
        records(
            &state,
            "SELECT member_id, record FROM bets WHERE status = -5 ORDER BY date_time, bet_id LIMIT 500",
            None,
        )
        .await?
    };
    let mut list = Vec::with_capacity(rows.len());
    for (member, record) in rows {
        list.push(queue_entry(&state, &member, record).await);
    }
    Ok(done(json!(list)))
}

async fn queue_entry(state: &AppState, member: &str, record: Value) -> Value {
    let username = username_of(state, member).await;
    json!({
        "bet_id": record["id"],
        "user_id": member,
        "username": username,
        "currency": record["currency"],
        "type": record["type"],
        "amount": record["amount"],
        "k": record["k"],
        "possible_win": record["possible_win"],
        "placed_at": record["date_time"],
        "status": record["outcome"],
        "super_bet_status": record["super_bet_status"],
        "counter_offer": record["counter_offer"],
        "events": record["events"],
    })
}

async fn bet_record(state: &AppState, bet_id: &str) -> Result<(String, Value), BoError> {
    records(
        state,
        "SELECT member_id, record FROM bets WHERE bet_id = $1",
        Some(bet_id),
    )
    .await?
    .into_iter()
    .next()
    .ok_or_else(|| BoError::not_found("Bet"))
}

#[utoipa::path(get, path = "/api/backoffice/counter-offers/{bet_id}", operation_id = "backoffice_queue_item", tag = crate::openapi::BACK_OFFICE, params(("bet_id" = String, Path)), responses(crate::openapi::StaffAnswers))]
async fn queue_item(
    State(state): State<AppState>,
    auth: StaffAuth,
    Path(bet_id): Path<String>,
) -> Result<Json<Value>, BoError> {
    auth.may(Duty::CounterOffers)?;
    let (member, record) = bet_record(&state, &bet_id).await?;
    let entry = queue_entry(&state, &member, record).await;
    let currency = entry["currency"]
        .as_str()
        .and_then(|c| c.parse::<domain::Currency>().ok())
        .unwrap_or(domain::Currency::Cny);
    let balance = state
        .wallets
        .load(&domain::wallet::WalletId::new(&member, currency))
        .await
        .map(|w| w.balances().main)
        .map_err(BoError::internal)?;
    let max_stake = state
        .betting
        .bets
        .max_bet(&member, currency)
        .await
        .map_err(BoError::internal)?;
    let query = projections::bets::HistoryQuery {
        member_id: member.clone(),
        from_date: 0,
        to_date: i64::MAX / 2,
        limit: 20,
        ..Default::default()
    };
    let (recent, total) = projections::bets::history(&state.db.any, &query)
        .await
        .map_err(BoError::internal)?;
    Ok(done(json!({
        "bet": entry,
        "member": {
            "user_id": member,
            "username": entry["username"],
            "currency": currency.code(),
            "balance": currency.round(balance).to_string(),
            "max_stake": currency.round(max_stake).to_string(),
            "bets_total": total,
        },
        "recent": recent,
    })))
}

fn amount(value: &Option<Value>, what: &str) -> Result<Option<Decimal>, BoError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::Number(n)) => Decimal::from_str_exact(&n.to_string())
            .map(Some)
            .map_err(|_| BoError::bad(domain::Code::BAD_PARAMETERS.0, format!("Invalid {what}"))),
        Some(Value::String(s)) => Decimal::from_str_exact(s.trim())
            .map(Some)
            .map_err(|_| BoError::bad(domain::Code::BAD_PARAMETERS.0, format!("Invalid {what}"))),
        Some(_) => Err(BoError::bad(
            domain::Code::BAD_PARAMETERS.0,
            format!("Invalid {what}"),
        )),
    }
}

#[derive(Deserialize, utoipa::ToSchema)]
struct DecisionBody {
    amount: Option<Value>,
    price: Option<Value>,
    reason: Option<String>,
}

async fn decide(
    state: &AppState,
    auth: &StaffAuth,
    bet_id: &str,
    decision: Decision,
) -> Result<Json<Value>, BoError> {
    auth.may(Duty::CounterOffers)?;
    let decider = Decider {
        staff_id: auth.staff.id.clone(),
        role: auth.staff.role.name().to_string(),
    };
    let result = state
        .betting
        .bets
        .decide_super_bet(bet_id, &decider, decision)
        .await
        .map_err(BoError::internal)?;
    match result {
        Ok(bet) => Ok(done(json!({
            "bet_id": bet_id,
            "status": bet.status.code(),
            "super_bet_status": bet.super_bet_status,
            "counter_offer": bet.counter_offer,
        }))),
        Err(domain::bet::BetError::NotPlaced) => Err(BoError::not_found("Bet")),
        Err(e) => Err(BoError::bad(e.code().0, e.to_string())),
    }
}

fn reason_of(body: &DecisionBody) -> Option<String> {
    body.reason
        .as_deref()
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(str::to_string)
}

#[utoipa::path(post, path = "/api/backoffice/counter-offers/{bet_id}/offer", operation_id = "backoffice_offer", tag = crate::openapi::BACK_OFFICE, params(("bet_id" = String, Path)), request_body = DecisionBody, responses(crate::openapi::StaffAnswers))]
async fn offer(
    State(state): State<AppState>,
    auth: StaffAuth,
    Path(bet_id): Path<String>,
    body: Result<Json<DecisionBody>, JsonRejection>,
) -> Result<Json<Value>, BoError> {
    auth.may(Duty::CounterOffers)?;
    let Json(body) = body.map_err(bad_body)?;
    let reason = reason_of(&body).unwrap_or_default();
    let decision = Decision::Offer {
        amount: amount(&body.amount, "amount")?,
        price: amount(&body.price, "price")?,
        reason,
    };
    decide(&state, &auth, &bet_id, decision).await
}

#[utoipa::path(post, path = "/api/backoffice/counter-offers/{bet_id}/accept", operation_id = "backoffice_accept", tag = crate::openapi::BACK_OFFICE, params(("bet_id" = String, Path)), request_body = DecisionBody, responses(crate::openapi::StaffAnswers))]
async fn accept(
    State(state): State<AppState>,
    auth: StaffAuth,
    Path(bet_id): Path<String>,
    body: Option<Json<DecisionBody>>,
) -> Result<Json<Value>, BoError> {
    let reason = body.as_ref().and_then(|Json(b)| reason_of(b));
    decide(&state, &auth, &bet_id, Decision::Accept { reason }).await
}

#[utoipa::path(post, path = "/api/backoffice/counter-offers/{bet_id}/decline", operation_id = "backoffice_decline", tag = crate::openapi::BACK_OFFICE, params(("bet_id" = String, Path)), request_body = DecisionBody, responses(crate::openapi::StaffAnswers))]
async fn decline(
    State(state): State<AppState>,
    auth: StaffAuth,
    Path(bet_id): Path<String>,
    body: Result<Json<DecisionBody>, JsonRejection>,
) -> Result<Json<Value>, BoError> {
    auth.may(Duty::CounterOffers)?;
    let Json(body) = body.map_err(bad_body)?;
    let reason = reason_of(&body).ok_or_else(|| {
        BoError::bad(
            domain::Code::BAD_PARAMETERS.0,
            "Invalid request parameters: a reason is required",
        )
    })?;
    decide(&state, &auth, &bet_id, Decision::Decline { reason }).await
}

#[derive(Deserialize, Default, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct SearchParams {
    bet_id: Option<String>,
    user: Option<String>,
}

#[utoipa::path(get, path = "/api/backoffice/bets", operation_id = "backoffice_search", tag = crate::openapi::BACK_OFFICE, params(SearchParams), responses(crate::openapi::StaffAnswers))]
async fn search(
    State(state): State<AppState>,
    auth: StaffAuth,
    Query(params): Query<SearchParams>,
) -> Result<Json<Value>, BoError> {
    auth.may(Duty::Audit)?;
    let rows = match (
        params.bet_id.as_deref().map(str::trim),
        params.user.as_deref().map(str::trim),
    ) {
        (Some(id), _) if !id.is_empty() => {
            records(
                &state,
                "SELECT member_id, record FROM bets WHERE bet_id = $1",
                Some(id),
            )
            .await?
        }
        (_, Some(user)) if !user.is_empty() => {
            let member = match state.accounts.find(user).await {
                Ok(Some(id)) => id,
                _ => user.to_string(),
            };
            records(
                &state,
                "SELECT member_id, record FROM bets WHERE member_id = $1 ORDER BY date_time DESC LIMIT 200",
                Some(&member),
            )
            .await?
        }
        _ => {
            return Err(BoError::bad(
                domain::Code::BAD_PARAMETERS.0,
                "Invalid request parameters: bet_id or user is required",
            ))
        }
    };
    let list: Vec<Value> = rows
        .into_iter()
        .map(|(member, mut record)| {
            record["user_id"] = json!(member);
            record
        })
        .collect();
    Ok(done(json!(list)))
}

#[utoipa::path(get, path = "/api/backoffice/bets/{bet_id}/events", operation_id = "backoffice_trail", tag = crate::openapi::BACK_OFFICE, params(("bet_id" = String, Path)), responses(crate::openapi::StaffAnswers))]
async fn trail(
    State(state): State<AppState>,
    auth: StaffAuth,
    Path(bet_id): Path<String>,
) -> Result<Json<Value>, BoError> {
    auth.may(Duty::Audit)?;
    let trail = crate::audit::trail(&state, &bet_id)
        .await
        .map_err(BoError::internal)?
        .ok_or_else(|| BoError::not_found("Bet"))?;
    Ok(done(trail))
}

#[utoipa::path(post, path = "/api/backoffice/audit/replay", operation_id = "backoffice_replay", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn replay(State(state): State<AppState>, auth: StaffAuth) -> Result<Json<Value>, BoError> {
    auth.may(Duty::Audit)?;
    let report = crate::audit::replay_bets(&state)
        .await
        .map_err(BoError::internal)?;
    Ok(done(json!(report)))
}

#[utoipa::path(get, path = "/api/backoffice/staff", operation_id = "backoffice_list_staff", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn list_staff(
    State(state): State<AppState>,
    auth: StaffAuth,
) -> Result<Json<Value>, BoError> {
    auth.may(Duty::ManageStaff)?;
    Ok(done(json!(state.staff.list().await?)))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct NewStaff {
    username: String,
    password: String,
    role: String,
}

#[utoipa::path(post, path = "/api/backoffice/staff", operation_id = "backoffice_create_staff", tag = crate::openapi::BACK_OFFICE, request_body = NewStaff, responses(crate::openapi::StaffAnswers))]
async fn create_staff(
    State(state): State<AppState>,
    auth: StaffAuth,
    body: Result<Json<NewStaff>, JsonRejection>,
) -> Result<Json<Value>, BoError> {
    auth.may(Duty::ManageStaff)?;
    let Json(body) = body.map_err(bad_body)?;
    let role = Role::parse(&body.role).ok_or_else(|| {
        BoError::bad(
            domain::Code::BAD_PARAMETERS.0,
            "Invalid request parameters: role is support, auditor, trader or admin",
        )
    })?;
    let staff = state
        .staff
        .create(&body.username, &body.password, role)
        .await?;
    Ok(done(json!(staff)))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct FreeBetGrant {
    /// The member's user name or user id.
    user: String,
    amount: Value,
    /// Days it can be staked (default 7).
    days: Option<i64>,
    /// Why (required, at most 200 characters): kept with the grant.
    #[serde(default)]
    reason: String,
}

/// Grants a member a free bet (support or admin).
#[utoipa::path(post, path = "/api/backoffice/free-bets", operation_id = "backoffice_grant_free_bet", tag = crate::openapi::BACK_OFFICE, request_body = FreeBetGrant, responses(crate::openapi::StaffAnswers))]
async fn grant_free_bet(
    State(state): State<AppState>,
    auth: StaffAuth,
    body: Result<Json<FreeBetGrant>, JsonRejection>,
) -> Result<Json<Value>, BoError> {
    auth.may(Duty::CounterOffers)?;
    let Json(body) = body.map_err(bad_body)?;
    let amount = amount(&Some(body.amount.clone()), "amount")?
        .ok_or_else(|| BoError::bad(domain::Code::WRONG_AMOUNT.0, "Wrong amount"))?;
    let member = match state.accounts.find(body.user.trim()).await {
        Ok(Some(id)) => id,
        _ => body.user.trim().to_string(),
    };
    let account = state
        .accounts
        .load(&member)
        .await
        .map_err(|_| BoError::not_found("Member"))?;
    let currency = account
        .profile
        .map(|p| p.currency)
        .ok_or_else(|| BoError::not_found("Member"))?;
    // No free bets for a member who is self-excluded or in a time-out.
    state.safer.may_play(&member).await.map_err(|e| match e {
        commands::compliance::safer::SaferFailure::Refused(r) => {
            BoError::bad(r.code().0, r.to_string())
        }
        other => BoError::internal(other),
    })?;
    let request = GrantRequest {
        member_id: &member,
        currency,
        amount,
        days: body.days.unwrap_or(7),
        granted_by: &auth.staff.id,
        reason: &body.reason,
    };
    let granted = state
        .betting
        .bets
        .free_bets
        .grant(request, &state.config.bets.free_bet_limits())
        .await
        .map_err(|e| match e {
            GrantFailure::Refused(rule) => BoError::bad(rule.code().0, rule.to_string()),
            GrantFailure::Internal(detail) => BoError::internal(detail),
        })?;
    Ok(done(json!({
        "id": granted.id,
        "user_id": granted.member_id,
        "amount": format!("{:.2}", granted.amount),
        "currency": currency.code(),
        "expires": granted.expires_ms / 1000,
    })))
}

impl From<DeskError> for BoError {
    fn from(e: DeskError) -> Self {
        match e {
            DeskError::GameNotFound => BoError::not_found("Game"),
            DeskError::MarketNotFound => BoError::not_found("Market"),
            DeskError::Invalid(_) => BoError::bad(domain::Code::BAD_PARAMETERS.0, e.to_string()),
            DeskError::Internal(e) => BoError::internal(e),
        }
    }
}

/// The most selections one result entry may name.
const MAX_GIVEN_OUTCOMES: usize = 2_000;

#[derive(Deserialize, utoipa::ToSchema)]
struct GivenOutcome {
    event_id: u64,
    /// won, lost, void, placed, half_won or half_lost.
    #[schema(value_type = String)]
    outcome: domain::result::SelectionOutcome,
}

#[derive(Deserialize, utoipa::ToSchema)]
struct ResultBody {
    /// The final score: team1, team2, optional first_half and corners.
    #[schema(value_type = Object)]
    score: domain::result::FinalScore,
    #[serde(default)]
    selections: Vec<GivenOutcome>,
    reason: Option<String>,
}

#[derive(Deserialize, utoipa::ToSchema)]
struct VoidBody {
    reason: Option<String>,
}

/// A reason is required for every results decision (the audit trail).
fn required_reason(reason: Option<&str>) -> Result<String, BoError> {
    let reason = reason.map(str::trim).unwrap_or_default();
    if reason.is_empty() || reason.chars().count() > 500 {
        return Err(BoError::bad(
            domain::Code::BAD_PARAMETERS.0,
            "Invalid request parameters: a reason (up to 500 characters) is required",
        ));
    }
    Ok(reason.to_string())
}

fn decider(auth: &StaffAuth) -> Decider {
    Decider {
        staff_id: auth.staff.id.clone(),
        role: auth.staff.role.name().to_string(),
    }
}

fn decided(game_id: u64, action: DeskAction) -> Json<Value> {
    done(json!({"game_id": game_id, "action": action}))
}

/// Enters a game's result (or corrects the one it has): trader, admin.
#[utoipa::path(post, path = "/api/backoffice/games/{game_id}/result", operation_id = "backoffice_enter_result", tag = crate::openapi::BACK_OFFICE, params(("game_id" = String, Path)), request_body = ResultBody, responses(crate::openapi::StaffAnswers))]
async fn enter_result(
    State(state): State<AppState>,
    auth: StaffAuth,
    Path(game_id): Path<String>,
    body: Result<Json<ResultBody>, JsonRejection>,
) -> Result<Json<Value>, BoError> {
    auth.may(Duty::Results)?;
    let Json(body) = body.map_err(bad_body)?;
    let game_id: u64 = game_id.parse().map_err(|_| BoError::not_found("Game"))?;
    let reason = required_reason(body.reason.as_deref())?;
    if body.selections.len() > MAX_GIVEN_OUTCOMES {
        return Err(BoError::bad(
            domain::Code::BAD_PARAMETERS.0,
            format!("Invalid request parameters: at most {MAX_GIVEN_OUTCOMES} selections"),
        ));
    }
    let given: Vec<_> = body
        .selections
        .iter()
        .map(|s| (s.event_id, s.outcome))
        .collect();
    let action = state
        .desk
        .enter_result(game_id, body.score, &given, &decider(&auth), &reason)
        .await?;
    Ok(decided(game_id, action))
}

/// Voids a game: every selection returned (trader, admin).
#[utoipa::path(post, path = "/api/backoffice/games/{game_id}/void", operation_id = "backoffice_void_game", tag = crate::openapi::BACK_OFFICE, params(("game_id" = String, Path)), request_body = VoidBody, responses(crate::openapi::StaffAnswers))]
async fn void_game(
    State(state): State<AppState>,
    auth: StaffAuth,
    Path(game_id): Path<String>,
    body: Result<Json<VoidBody>, JsonRejection>,
) -> Result<Json<Value>, BoError> {
    auth.may(Duty::Results)?;
    let Json(body) = body.map_err(bad_body)?;
    let game_id: u64 = game_id.parse().map_err(|_| BoError::not_found("Game"))?;
    let reason = required_reason(body.reason.as_deref())?;
    let action = state
        .desk
        .void_game(game_id, &decider(&auth), &reason)
        .await?;
    Ok(decided(game_id, action))
}

/// Voids a market: its selections returned for good (trader, admin).
#[utoipa::path(post, path = "/api/backoffice/markets/{market_id}/void", operation_id = "backoffice_void_market", tag = crate::openapi::BACK_OFFICE, params(("market_id" = String, Path)), request_body = VoidBody, responses(crate::openapi::StaffAnswers))]
async fn void_market(
    State(state): State<AppState>,
    auth: StaffAuth,
    Path(market_id): Path<String>,
    body: Result<Json<VoidBody>, JsonRejection>,
) -> Result<Json<Value>, BoError> {
    auth.may(Duty::Results)?;
    let Json(body) = body.map_err(bad_body)?;
    let market_id: u64 = market_id
        .parse()
        .map_err(|_| BoError::not_found("Market"))?;
    let reason = required_reason(body.reason.as_deref())?;
    let (game_id, action) = state
        .desk
        .void_market(market_id, &decider(&auth), &reason)
        .await?;
    Ok(done(
        json!({"game_id": game_id, "market_id": market_id, "action": action}),
    ))
}

impl From<ShortfallError> for BoError {
    fn from(e: ShortfallError) -> Self {
        match e {
            ShortfallError::NotFound => BoError::not_found("Shortfall"),
            ShortfallError::NotOpen | ShortfallError::Busy => {
                BoError::bad(domain::Code::BAD_PARAMETERS.0, e.to_string())
            }
            other => BoError::internal(other),
        }
    }
}

async fn shortfall_entry(state: &AppState, row: &Shortfall) -> Value {
    json!({
        "id": row.id,
        "bet_id": row.bet_id,
        "result_version": row.version,
        "user_id": row.member_id,
        "username": username_of(state, &row.member_id).await,
        "currency": row.currency.code(),
        "due": format!("{:.2}", row.due),
        "part": format!("{:.2}", row.part),
        "taken": format!("{:.2}", row.taken),
        "shortfall": format!("{:.2}", row.shortfall),
        "status": row.status,
        "created": row.created_ms,
        "resolved": row.resolved_ms,
        "resolved_by": row.resolved_by,
        "note": row.note,
    })
}

/// The queue of corrections members could not cover (support, admin).
#[utoipa::path(get, path = "/api/backoffice/shortfalls", operation_id = "backoffice_shortfalls", tag = crate::openapi::BACK_OFFICE, params(QueueParams), responses(crate::openapi::StaffAnswers))]
async fn shortfalls(
    State(state): State<AppState>,
    auth: StaffAuth,
    Query(params): Query<QueueParams>,
) -> Result<Json<Value>, BoError> {
    auth.may(Duty::Shortfalls)?;
    let all = match params.status.as_deref() {
        None | Some("open") => false,
        Some("all") => true,
        Some(other) => {
            return Err(BoError::bad(
                domain::Code::BAD_PARAMETERS.0,
                format!("Invalid request parameters: status '{other}' (open or all)"),
            ))
        }
    };
    let rows = state.betting.bets.shortfalls.list(all, 500).await?;
    let mut list = Vec::with_capacity(rows.len());
    for row in &rows {
        list.push(shortfall_entry(&state, row).await);
    }
    Ok(done(json!(list)))
}

fn shortfall_id(id: &str) -> Result<i64, BoError> {
    id.parse().map_err(|_| BoError::not_found("Shortfall"))
}

/// Collects what the member holds now, up to the debt (support, admin).
#[utoipa::path(post, path = "/api/backoffice/shortfalls/{id}/collect", operation_id = "backoffice_collect_shortfall", tag = crate::openapi::BACK_OFFICE, params(("id" = String, Path)), responses(crate::openapi::StaffAnswers))]
async fn collect_shortfall(
    State(state): State<AppState>,
    auth: StaffAuth,
    Path(id): Path<String>,
) -> Result<Json<Value>, BoError> {
    auth.may(Duty::Shortfalls)?;
    let id = shortfall_id(&id)?;
    let collected = state
        .betting
        .bets
        .shortfalls
        .collect(id, &auth.staff.id)
        .await?;
    let mut entry = shortfall_entry(&state, &collected.shortfall).await;
    entry["collected"] = json!(format!("{:.2}", collected.amount));
    Ok(done(entry))
}

/// Writes the debt off with a reason (support, admin).
#[utoipa::path(post, path = "/api/backoffice/shortfalls/{id}/write-off", operation_id = "backoffice_write_off_shortfall", tag = crate::openapi::BACK_OFFICE, params(("id" = String, Path)), request_body = VoidBody, responses(crate::openapi::StaffAnswers))]
async fn write_off_shortfall(
    State(state): State<AppState>,
    auth: StaffAuth,
    Path(id): Path<String>,
    body: Result<Json<VoidBody>, JsonRejection>,
) -> Result<Json<Value>, BoError> {
    auth.may(Duty::Shortfalls)?;
    let Json(body) = body.map_err(bad_body)?;
    let id = shortfall_id(&id)?;
    let reason = required_reason(body.reason.as_deref())?;
    let row = state
        .betting
        .bets
        .shortfalls
        .write_off(id, &auth.staff.id, &reason)
        .await?;
    Ok(done(shortfall_entry(&state, &row).await))
}

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(
        login,
        logout,
        me,
        queue,
        queue_item,
        offer,
        accept,
        decline,
        search,
        trail,
        replay,
        list_staff,
        create_staff,
        grant_free_bet,
        enter_result,
        void_game,
        void_market,
        shortfalls,
        collect_shortfall,
        write_off_shortfall
    ))]
    struct Doc;
    #[allow(unused_mut)]
    let mut doc = <Doc as utoipa::OpenApi>::openapi();
    doc
}
