//! The finance desk of the back office (`/api/backoffice/payments/*`,
//! role finance or admin): the queue of withdrawals to review and pay, the
//! flagged deposits, a member's money history, the reconciliation of
//! provider transactions against credits, the blacklist.

use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use commands::payments::reports::{OrderFilter, Page, Period};
use commands::payments::withdrawals::Decision;
use commands::payments::PaymentFailure;
use domain::staff::Duty;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::AppState;
use crate::routes::backoffice::StaffAuth;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/backoffice/payments/withdrawals", get(withdrawals))
        .route(
            "/api/backoffice/payments/withdrawals/{id}/{decision}",
            post(decide),
        )
        .route("/api/backoffice/payments/deposits", get(deposits))
        .route(
            "/api/backoffice/payments/deposits/{id}/review",
            post(review),
        )
        .route("/api/backoffice/payments/members/{user}", get(member_money))
        .route(
            "/api/backoffice/payments/reconciliation",
            get(reconciliation),
        )
        .route("/api/backoffice/payments/blacklist", post(blacklist))
}

struct Refusal(StatusCode, i32, String);

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        (
            self.0,
            Json(json!({"status": self.1, "msg": self.2, "data": null})),
        )
            .into_response()
    }
}

impl From<PaymentFailure> for Refusal {
    fn from(e: PaymentFailure) -> Self {
        match e {
            PaymentFailure::Refused(r) => Refusal(StatusCode::BAD_REQUEST, r.code, r.msg),
            PaymentFailure::Internal(detail) => {
                tracing::error!(error = %detail, "finance request failed");
                Refusal(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    domain::Code::INTERNAL.0,
                    domain::Code::INTERNAL.message(),
                )
            }
        }
    }
}

type Answer = Result<Json<Value>, Refusal>;

fn finance(auth: &StaffAuth) -> Result<(), Refusal> {
    if auth.staff.role.may(Duty::Payments) {
        Ok(())
    } else {
        Err(Refusal(
            StatusCode::FORBIDDEN,
            -403,
            "Not allowed for your role".into(),
        ))
    }
}

fn done(data: Value) -> Json<Value> {
    Json(json!({"status": 0, "msg": "OK", "data": data}))
}

fn fail(e: PaymentFailure) -> Refusal {
    Refusal::from(e)
}

fn bad(msg: impl Into<String>) -> Refusal {
    Refusal(
        StatusCode::BAD_REQUEST,
        domain::Code::BAD_PARAMETERS.0,
        msg.into(),
    )
}

#[derive(Deserialize, Default, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct ListParams {
    status: Option<String>,
    flagged: Option<String>,
    page: Option<i64>,
    pn: Option<i64>,
    preset: Option<String>,
    from_date: Option<String>,
    to_date: Option<String>,
}

impl ListParams {
    fn page(&self) -> Page {
        Page::from_params(&json!({"page": self.page, "pn": self.pn}))
    }

    fn period(&self, now_ms: i64) -> Result<Option<Period>, Refusal> {
        if self.preset.is_none() && self.from_date.is_none() && self.to_date.is_none() {
            return Ok(None);
        }
        Period::from_params(
            &json!({"preset": self.preset, "from_date": self.from_date, "to_date": self.to_date}),
            now_ms,
        )
        .map(Some)
        .map_err(fail)
    }
}

#[utoipa::path(get, path = "/api/backoffice/payments/withdrawals", operation_id = "payments_backoffice_withdrawals", tag = crate::openapi::BACK_OFFICE, params(ListParams), responses(crate::openapi::StaffAnswers))]
async fn withdrawals(
    State(state): State<AppState>,
    auth: StaffAuth,
    Query(params): Query<ListParams>,
) -> Answer {
    finance(&auth)?;
    let statuses = match params.status.as_deref() {
        None | Some("open") => vec!["requested".to_string(), "approved".to_string()],
        Some("all") => vec![],
        Some(s @ ("requested" | "approved" | "rejected" | "cancelled" | "paid" | "failed")) => {
            vec![s.to_string()]
        }
        Some(other) => return Err(bad(format!("Invalid request parameters: status '{other}'"))),
    };
    let filter = OrderFilter {
        kind: Some("withdrawal".into()),
        statuses,
        include_hidden: true,
        period: params.period(state.clock.now_ms())?,
        ..OrderFilter::default()
    };
    let (list, total) = state
        .payments
        .orders(&filter, params.page())
        .await
        .map_err(fail)?;
    Ok(done(
        json!({"list": with_usernames(&state, list).await, "total": total}),
    ))
}

#[utoipa::path(get, path = "/api/backoffice/payments/deposits", operation_id = "payments_backoffice_deposits", tag = crate::openapi::BACK_OFFICE, params(ListParams), responses(crate::openapi::StaffAnswers))]
async fn deposits(
    State(state): State<AppState>,
    auth: StaffAuth,
    Query(params): Query<ListParams>,
) -> Answer {
    finance(&auth)?;
    let flagged_only =
        !matches!(params.flagged.as_deref(), Some("0" | "false")) && params.status.is_none();
    let statuses = match params.status.as_deref() {
        None | Some("all") => vec![],
        Some(s) if s.len() <= 20 => vec![s.to_string()],
        Some(_) => return Err(bad("Invalid request parameters: status")),
    };
    let filter = OrderFilter {
        kind: Some("deposit".into()),
        statuses,
        flagged_only,
        include_hidden: true,
        period: params.period(state.clock.now_ms())?,
        ..OrderFilter::default()
    };
    let (list, total) = state
        .payments
        .orders(&filter, params.page())
        .await
        .map_err(fail)?;
    Ok(done(
        json!({"list": with_usernames(&state, list).await, "total": total}),
    ))
}

async fn with_usernames(
    state: &AppState,
    list: Vec<commands::payments::reports::OrderView>,
) -> Vec<Value> {
    let mut out = Vec::with_capacity(list.len());
    for order in list {
        let username = match state.accounts.load(&order.member_id).await {
            Ok(a) => a
                .profile
                .map(|p| p.username.as_str().to_string())
                .unwrap_or_default(),
            Err(_) => String::new(),
        };
        let mut v = serde_json::to_value(order).unwrap_or_default();
        v["username"] = json!(username);
        out.push(v);
    }
    out
}

#[derive(Deserialize, utoipa::ToSchema)]
struct ReasonBody {
    #[serde(default)]
    reason: String,
    #[serde(default)]
    credit: bool,
}

#[utoipa::path(post, path = "/api/backoffice/payments/withdrawals/{id}/{decision}", operation_id = "payments_backoffice_decide", tag = crate::openapi::BACK_OFFICE, params(("id" = String, Path), ("decision" = String, Path)), request_body = ReasonBody, responses(crate::openapi::StaffAnswers))]
async fn decide(
    State(state): State<AppState>,
    auth: StaffAuth,
    Path((id, decision)): Path<(String, String)>,
    body: Result<Json<ReasonBody>, JsonRejection>,
) -> Answer {
    finance(&auth)?;
    let Json(body) =
        body.map_err(|e| bad(format!("Invalid request parameters: {}", e.body_text())))?;
    let decision = Decision::parse(&decision)
        .ok_or_else(|| bad("Invalid request parameters: approve, reject, paid or failed"))?;
    if id.len() > 40 {
        return Err(bad("Invalid request parameters: id"));
    }
    state
        .payments
        .decide_withdrawal(&id, decision, &auth.staff.id, &body.reason)
        .await
        .map_err(fail)?;
    let order = state.payments.order(&id).await.map_err(fail)?;
    Ok(done(json!({"id": id, "order": order})))
}

#[utoipa::path(post, path = "/api/backoffice/payments/deposits/{id}/review", operation_id = "payments_backoffice_review", tag = crate::openapi::BACK_OFFICE, params(("id" = String, Path)), request_body = ReasonBody, responses(crate::openapi::StaffAnswers))]
async fn review(
    State(state): State<AppState>,
    auth: StaffAuth,
    Path(id): Path<String>,
    body: Result<Json<ReasonBody>, JsonRejection>,
) -> Answer {
    finance(&auth)?;
    let Json(body) =
        body.map_err(|e| bad(format!("Invalid request parameters: {}", e.body_text())))?;
    if id.len() > 40 {
        return Err(bad("Invalid request parameters: id"));
    }
    state
        .payments
        .review_deposit(&id, &auth.staff.id, body.credit, &body.reason)
        .await
        .map_err(fail)?;
    Ok(done(json!({"id": id})))
}

#[utoipa::path(get, path = "/api/backoffice/payments/members/{user}", operation_id = "payments_backoffice_member_money", tag = crate::openapi::BACK_OFFICE, params(("user" = String, Path), ListParams), responses(crate::openapi::StaffAnswers))]
async fn member_money(
    State(state): State<AppState>,
    auth: StaffAuth,
    Path(user): Path<String>,
    Query(params): Query<ListParams>,
) -> Answer {
    finance(&auth)?;
    if user.len() > 64 {
        return Err(bad("Invalid request parameters: user"));
    }
    let member_id = match state.accounts.find(&user).await {
        Ok(Some(id)) => id,
        _ => user.clone(),
    };
    let now = state.clock.now_ms();
    let period = params.period(now)?.unwrap_or(Period {
        from_ms: 0,
        to_ms: now + 86_400_000,
    });
    let filter = OrderFilter {
        member_id: Some(member_id.clone()),
        include_hidden: true,
        period: Some(period),
        ..OrderFilter::default()
    };
    let (orders, total) = state
        .payments
        .orders(&filter, params.page())
        .await
        .map_err(fail)?;
    let (movements, movement_total) = state
        .payments
        .movements(&member_id, period, None, params.page())
        .await
        .map_err(fail)?;
    let balance = crate::routes::user::balance_of(&state, &member_id)
        .await
        .ok()
        .map(|b| serde_json::to_value(b).unwrap_or_default());
    Ok(done(json!({
        "member_id": member_id,
        "balance": balance,
        "orders": orders, "orders_total": total,
        "movements": movements, "movements_total": movement_total,
    })))
}

#[utoipa::path(get, path = "/api/backoffice/payments/reconciliation", operation_id = "payments_backoffice_reconciliation", tag = crate::openapi::BACK_OFFICE, params(ListParams), responses(crate::openapi::StaffAnswers))]
async fn reconciliation(
    State(state): State<AppState>,
    auth: StaffAuth,
    Query(params): Query<ListParams>,
) -> Answer {
    finance(&auth)?;
    let now = state.clock.now_ms();
    let period = params.period(now)?.unwrap_or(Period {
        from_ms: now - 30 * 86_400_000,
        to_ms: now + 86_400_000,
    });
    let view = state
        .payments
        .reconciliation(period, params.page())
        .await
        .map_err(fail)?;
    Ok(done(view))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct BlacklistBody {
    value: String,
    reason: String,
}

#[utoipa::path(post, path = "/api/backoffice/payments/blacklist", operation_id = "payments_backoffice_blacklist", tag = crate::openapi::BACK_OFFICE, request_body = BlacklistBody, responses(crate::openapi::StaffAnswers))]
async fn blacklist(
    State(state): State<AppState>,
    auth: StaffAuth,
    body: Result<Json<BlacklistBody>, JsonRejection>,
) -> Answer {
    finance(&auth)?;
    let Json(body) =
        body.map_err(|e| bad(format!("Invalid request parameters: {}", e.body_text())))?;
    if body.value.trim().is_empty()
        || body.value.len() > 80
        || body.reason.trim().is_empty()
        || body.reason.len() > 500
    {
        return Err(bad(
            "Invalid request parameters: value and reason are required",
        ));
    }
    state
        .payments
        .blacklist(&body.value, body.reason.trim())
        .await
        .map_err(fail)?;
    Ok(done(Value::Null))
}

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(
        withdrawals,
        decide,
        deposits,
        review,
        member_money,
        reconciliation,
        blacklist
    ))]
    struct Doc;
    #[allow(unused_mut)]
    let mut doc = <Doc as utoipa::OpenApi>::openapi();
    doc
}
