//! Payments on the main API (spec 001 sections 7.2 and 7.3):
//! `emaildeposit/*`, `security/*` (cards, withdrawals, transfers),
//! `user/getthirdbalance`, `report/*` (money reports); the provider
//! callbacks and the sandbox's pay page (plain HTTP, outside the request
//! layer); the chain watcher's and rate source's stand-ins (DEMO=1).
//! Contract: DESIGN.md "Payments" and docs/payments.md.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use commands::payments::deposits::{CallbackError, CallbackOutcome};
use commands::payments::provider::SandboxOutcome;
use commands::payments::reports::{OrderFilter, Page, Period};
use commands::payments::PaymentFailure;
use domain::payment::{Chain, Channel};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::AppState;
use crate::error::{ok, ApiError, Envelope};
use crate::routes::auth::Member;
use crate::transport::{Payload, ReadRoutes};

impl From<PaymentFailure> for ApiError {
    fn from(e: PaymentFailure) -> Self {
        match e {
            PaymentFailure::Refused(r) => ApiError::with_message(r.code, r.msg),
            PaymentFailure::Internal(detail) => ApiError::Internal(detail),
        }
    }
}

type Answer = Result<Json<Envelope<Value>>, ApiError>;

/// Member calls, behind the request layer.
pub fn router() -> Router<AppState> {
    Router::new()
        .read_route("/api/emaildeposit/channels", post(channels).get(channels))
        .route("/api/emaildeposit/chongzhi", post(provider_deposit))
        .route("/api/emaildeposit/bankchongzhi", post(bank_deposit))
        .route("/api/emaildeposit/virtualchongzhi", post(usdt_deposit))
        .read_route(
            "/api/emaildeposit/GetVirtualExchangeRate",
            post(rate).get(rate),
        )
        .read_route("/api/emaildeposit/frame", post(frame).get(frame))
        .read_route("/api/emaildeposit/newframe", post(frame).get(frame))
        .route("/api/emaildeposit/cancelorder", post(cancel_order))
        .route("/api/emaildeposit/confirmorder", post(confirm_order))
        .read_route("/api/security/userbankinfo", post(cards).get(cards))
        .route("/api/security/adduserbank", post(add_card))
        .read_route(
            "/api/security/uservirtualbankinfo",
            post(usdt_addresses).get(usdt_addresses),
        )
        .route("/api/security/addvirtualbank", post(add_usdt_address))
        .route("/api/security/checksecuritypass", post(check_fund_password))
        .route("/api/security/platwithdraw", post(withdraw))
        .route("/api/security/cancelwithdraw", post(cancel_withdraw))
        .route("/api/security/delwithdraw", post(hide_withdraw))
        .route("/api/security/transwalletmoney", post(transfer))
        .read_route(
            "/api/user/getthirdbalance",
            post(game_balances).get(game_balances),
        )
        .read_route(
            "/api/report/moneyorders",
            post(money_orders).get(money_orders),
        )
        .read_route(
            "/api/report/accountchanges",
            post(account_changes).get(account_changes),
        )
        .read_route(
            "/api/report/depositrecordsdel",
            post(deposit_records).get(deposit_records),
        )
        .read_route(
            "/api/report/depositprogress",
            post(deposit_progress).get(deposit_progress),
        )
        .read_route(
            "/api/report/withdrawprogress",
            post(withdraw_progress).get(withdraw_progress),
        )
        .read_route("/api/report/withdrawbetlistv2", post(flow).get(flow))
        .read_route(
            "/api/report/memberreport",
            post(member_report).get(member_report),
        )
        .read_route("/api/report/usercenter", post(user_centre).get(user_centre))
}

/// Provider callbacks and the sandbox provider's pay page (DEMO only).
pub fn open_router(demo: bool) -> Router<AppState> {
    let router = Router::new().route("/api/payments/callback/{provider}", post(callback));
    if demo {
        router
            .route(
                "/api/payments/sandbox/pay/{order_id}",
                get(sandbox_page).post(sandbox_pay),
            )
            .route("/api/dev/payments/chain-transfer", post(chain_transfer))
            .route("/api/dev/payments/usdt-rate", post(set_rate))
    } else {
        router
    }
}

/// A request field as text: strings as they are, numbers as written.
fn text(params: &Value, key: &str) -> String {
    match &params[key] {
        Value::String(s) => s.trim().to_string(),
        Value::Number(n) => n.to_string(),
        _ => String::new(),
    }
}

fn bounded(params: &Value, key: &str, max: usize) -> Result<String, ApiError> {
    let value = text(params, key);
    if value.chars().count() > max {
        return Err(ApiError::with_message(
            domain::Code::BAD_PARAMETERS.0,
            format!("Invalid request parameters: {key} is too long"),
        ));
    }
    Ok(value)
}

// Deposits.

#[utoipa::path(method(post, get), path = "/api/emaildeposit/channels", operation_id = "payments_channels", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn channels(State(state): State<AppState>, member: Member) -> Answer {
    let account = state.accounts.load(&member.user_id).await?;
    let currency = account
        .profile
        .map(|p| p.currency)
        .unwrap_or(domain::Currency::Cny);
    let settings = state.payments.settings();
    let list: Vec<Value> = Channel::ALL
        .into_iter()
        .filter_map(|channel| {
            settings.deposit_limits(channel, currency).map(|l| {
                json!({"channel": channel.name(), "min": currency.round(l.min).to_string(),
                    "max": currency.round(l.max).to_string()})
            })
        })
        .collect();
    let quick: Vec<String> = settings
        .quick_amounts
        .get(currency.code())
        .map(|v| v.iter().map(|a| currency.round(*a).to_string()).collect())
        .unwrap_or_default();
    Ok(ok(json!({
        "currency": currency.code(),
        "channels": list,
        "quick_amounts": quick,
        "chains": Chain::ALL.map(|c| json!({"chain": c.name(), "confirmations": settings.confirmations(c)})),
        "bank": {"bank_name": settings.bank.bank_name, "account": settings.bank.account, "holder": settings.bank.holder},
        "sandbox": true,
    })))
}

async fn create(state: &AppState, member: &Member, channel: Channel, params: &Value) -> Answer {
    let amount = bounded(params, "amount", 24)?;
    let chain = bounded(params, "chain", 10)?;
    let order = state
        .payments
        .create_deposit(&member.user_id, channel, &amount, Some(chain.as_str()))
        .await?;
    Ok(ok(serde_json::to_value(order).unwrap_or_default()))
}

#[utoipa::path(post, path = "/api/emaildeposit/chongzhi", operation_id = "payments_provider_deposit", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn provider_deposit(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Answer {
    // `channel` may pick another channel; the provider is the default.
    let channel = match text(&params, "channel").as_str() {
        "" => Channel::Provider,
        name => Channel::parse(name).ok_or_else(|| {
            ApiError::with_message(
                domain::payment::codes::UNKNOWN_CHANNEL,
                "Unknown deposit channel",
            )
        })?,
    };
    create(&state, &member, channel, &params).await
}

#[utoipa::path(post, path = "/api/emaildeposit/bankchongzhi", operation_id = "payments_bank_deposit", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn bank_deposit(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Answer {
    create(&state, &member, Channel::Bank, &params).await
}

#[utoipa::path(post, path = "/api/emaildeposit/virtualchongzhi", operation_id = "payments_usdt_deposit", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn usdt_deposit(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Answer {
    create(&state, &member, Channel::Usdt, &params).await
}

#[utoipa::path(post, path = "/api/emaildeposit/GetVirtualExchangeRate", operation_id = "payments_rate", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn rate(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Answer {
    let amount = bounded(&params, "amount", 24)?;
    let quote = state
        .payments
        .quote(&member.user_id, Some(amount.as_str()))
        .await?;
    Ok(ok(serde_json::to_value(quote).unwrap_or_default()))
}

#[utoipa::path(post, path = "/api/emaildeposit/frame", operation_id = "payments_frame", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn frame(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Answer {
    let order_id = bounded(&params, "orderid", 40)?;
    let deposit = state
        .payments
        .member_deposit(&member.user_id, &order_id)
        .await?;
    let channel = deposit.order.map(|o| o.channel);
    let url = match channel {
        Some(Channel::Provider) => state.payments.sandbox_pay_url(&order_id),
        _ => String::new(),
    };
    Ok(ok(
        json!({"orderid": order_id, "url": url, "status": deposit.status.name()}),
    ))
}

#[utoipa::path(post, path = "/api/emaildeposit/cancelorder", operation_id = "payments_cancel_order", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn cancel_order(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Answer {
    let order_id = bounded(&params, "orderid", 40)?;
    state
        .payments
        .cancel_deposit(&member.user_id, &order_id)
        .await?;
    Ok(ok(Value::Null))
}

#[utoipa::path(post, path = "/api/emaildeposit/confirmorder", operation_id = "payments_confirm_order", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn confirm_order(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Answer {
    let order_id = bounded(&params, "orderid", 40)?;
    state
        .payments
        .confirm_deposit(&member.user_id, &order_id)
        .await?;
    Ok(ok(Value::Null))
}

// Cards, addresses, withdrawals, transfers.

#[utoipa::path(method(post, get), path = "/api/security/userbankinfo", operation_id = "payments_cards", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn cards(State(state): State<AppState>, member: Member) -> Answer {
    let list = state
        .payments
        .payment_accounts(&member.user_id, "card")
        .await?;
    let max = state.payments.settings().max_cards;
    Ok(ok(json!({"list": list, "max": max})))
}

#[utoipa::path(method(post, get), path = "/api/security/uservirtualbankinfo", operation_id = "payments_usdt_addresses", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn usdt_addresses(State(state): State<AppState>, member: Member) -> Answer {
    let list = state
        .payments
        .payment_accounts(&member.user_id, "usdt")
        .await?;
    let max = state.payments.settings().max_usdt_addresses;
    Ok(ok(json!({"list": list, "max": max})))
}

#[utoipa::path(post, path = "/api/security/adduserbank", operation_id = "payments_add_card", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn add_card(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Answer {
    let card = state
        .payments
        .add_card(
            &member.user_id,
            &bounded(&params, "bank_name", 50)?,
            &bounded(&params, "card_number", 40)?,
            &bounded(&params, "holder", 60)?,
            &bounded(&params, "fundpass", 128)?,
        )
        .await?;
    Ok(ok(serde_json::to_value(card).unwrap_or_default()))
}

#[utoipa::path(post, path = "/api/security/addvirtualbank", operation_id = "payments_add_usdt_address", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn add_usdt_address(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Answer {
    let added = state
        .payments
        .add_usdt_address(
            &member.user_id,
            &bounded(&params, "chain", 10)?,
            &bounded(&params, "address", 80)?,
            &bounded(&params, "fundpass", 128)?,
        )
        .await?;
    Ok(ok(serde_json::to_value(added).unwrap_or_default()))
}

#[utoipa::path(post, path = "/api/security/checksecuritypass", operation_id = "payments_check_fund_password", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn check_fund_password(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Answer {
    state
        .payments
        .check_fund_password(&member.user_id, &bounded(&params, "fundpass", 128)?)
        .await?;
    Ok(ok(Value::Null))
}

#[utoipa::path(post, path = "/api/security/platwithdraw", operation_id = "payments_withdraw", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn withdraw(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Answer {
    let request = state
        .payments
        .request_withdrawal(
            &member.user_id,
            &bounded(&params, "amount", 24)?,
            &bounded(&params, "bank_id", 40)?,
            &bounded(&params, "fundpass", 128)?,
        )
        .await?;
    Ok(ok(json!({
        "orderid": request.withdrawal_id,
        "amount": request.amount.to_string(),
        "currency": request.currency.code(),
        "status": "requested",
        "bankname": request.destination.bank_name,
        "account": request.destination.masked,
    })))
}

#[utoipa::path(post, path = "/api/security/cancelwithdraw", operation_id = "payments_cancel_withdraw", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn cancel_withdraw(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Answer {
    state
        .payments
        .cancel_withdrawal(&member.user_id, &bounded(&params, "orderid", 40)?)
        .await?;
    Ok(ok(Value::Null))
}

#[utoipa::path(post, path = "/api/security/delwithdraw", operation_id = "payments_hide_withdraw", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn hide_withdraw(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Answer {
    state
        .payments
        .hide_withdrawal(&member.user_id, &bounded(&params, "orderid", 40)?)
        .await?;
    Ok(ok(Value::Null))
}

#[utoipa::path(post, path = "/api/security/transwalletmoney", operation_id = "payments_transfer", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn transfer(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Answer {
    let done = state
        .payments
        .transfer(
            &member.user_id,
            &bounded(&params, "from", 30)?,
            &bounded(&params, "to", 30)?,
            &bounded(&params, "amount", 24)?,
        )
        .await?;
    Ok(ok(json!({"msg": "Transfer success", "transfer": done})))
}

#[utoipa::path(method(post, get), path = "/api/user/getthirdbalance", operation_id = "payments_game_balances", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn game_balances(State(state): State<AppState>, member: Member) -> Answer {
    let list = state.payments.game_balances(&member.user_id).await?;
    Ok(ok(json!({"list": list})))
}

// Reports.

fn period(state: &AppState, params: &Value) -> Result<Period, ApiError> {
    Ok(Period::from_params(params, state.clock.now_ms())?)
}

async fn list_orders(
    state: &AppState,
    member: &Member,
    params: &Value,
    kind: Option<&str>,
    statuses: Vec<String>,
) -> Answer {
    let kind = match text(params, "kind").as_str() {
        "" => kind.map(String::from),
        "deposit" | "withdrawal" => Some(text(params, "kind")),
        other => {
            return Err(ApiError::with_message(
                domain::Code::BAD_PARAMETERS.0,
                format!("Invalid request parameters: kind '{other}' (deposit or withdrawal)"),
            ))
        }
    };
    let mut statuses = statuses;
    let status = bounded(params, "status", 20)?;
    if !status.is_empty() {
        statuses = vec![status];
    }
    let filter = OrderFilter {
        member_id: Some(member.user_id.clone()),
        kind,
        statuses,
        period: Some(period(state, params)?),
        ..OrderFilter::default()
    };
    let page = Page::from_params(params);
    let (list, total) = state.payments.orders(&filter, page).await?;
    Ok(ok(
        json!({"list": list, "total": total, "page": page.page, "pn": page.size}),
    ))
}

#[utoipa::path(post, path = "/api/report/moneyorders", operation_id = "payments_money_orders", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn money_orders(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Answer {
    list_orders(&state, &member, &params, None, vec![]).await
}

#[utoipa::path(post, path = "/api/report/depositrecordsdel", operation_id = "payments_deposit_records", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn deposit_records(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Answer {
    let order_id = bounded(&params, "orderid", 40)?;
    if !order_id.is_empty() {
        // The member's own deposit of that id, counted as the list counts.
        let filter = OrderFilter {
            member_id: Some(member.user_id.clone()),
            order_id: Some(order_id),
            kind: Some("deposit".into()),
            ..OrderFilter::default()
        };
        let (list, total) = state
            .payments
            .orders(&filter, Page { page: 1, size: 1 })
            .await?;
        return Ok(ok(json!({"list": list, "total": total})));
    }
    list_orders(&state, &member, &params, Some("deposit"), vec![]).await
}

#[utoipa::path(post, path = "/api/report/depositprogress", operation_id = "payments_deposit_progress", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn deposit_progress(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Answer {
    let open = ["created", "confirmed", "paid", "flagged", "failed"]
        .map(String::from)
        .to_vec();
    list_orders(&state, &member, &params, Some("deposit"), open).await
}

#[utoipa::path(post, path = "/api/report/withdrawprogress", operation_id = "payments_withdraw_progress", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn withdraw_progress(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Answer {
    list_orders(&state, &member, &params, Some("withdrawal"), vec![]).await
}

#[utoipa::path(post, path = "/api/report/accountchanges", operation_id = "payments_account_changes", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn account_changes(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Answer {
    let kind = bounded(&params, "type", 20)?;
    let page = Page::from_params(&params);
    let (list, total) = state
        .payments
        .movements(
            &member.user_id,
            period(&state, &params)?,
            Some(kind.as_str()).filter(|k| !k.is_empty()),
            page,
        )
        .await?;
    Ok(ok(
        json!({"list": list, "total": total, "page": page.page, "pn": page.size}),
    ))
}

#[utoipa::path(method(post, get), path = "/api/report/withdrawbetlistv2", operation_id = "payments_flow", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn flow(State(state): State<AppState>, member: Member) -> Answer {
    Ok(ok(state.payments.flow(&member.user_id).await?))
}

#[utoipa::path(post, path = "/api/report/memberreport", operation_id = "payments_member_report", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn member_report(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Answer {
    let p = period(&state, &params)?;
    Ok(ok(state.payments.member_report(&member.user_id, p).await?))
}

#[utoipa::path(method(post, get), path = "/api/report/usercenter", operation_id = "payments_user_centre", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn user_centre(State(state): State<AppState>, member: Member) -> Answer {
    Ok(ok(state.payments.user_centre(&member.user_id).await?))
}

// Provider callbacks.

#[utoipa::path(post, path = "/api/payments/callback/{provider}", operation_id = "payments_callback", tag = crate::openapi::PAYMENTS, params(("provider" = String, Path), ("X-Signature" = String, Header, description = "t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + \".\" + raw body)>")), request_body(content = Object, content_type = "application/json"), responses(crate::openapi::CallbackAnswers))]
async fn callback(
    State(state): State<AppState>,
    Path(provider): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let signature = headers
        .get("x-signature")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    match state.payments.callback(&provider, &body, signature).await {
        Ok(CallbackOutcome::Accepted | CallbackOutcome::Repeated) => {
            (StatusCode::OK, Json(json!({"received": true}))).into_response()
        }
        Err(CallbackError::Internal(detail)) => {
            tracing::error!(error = %detail, provider, "payment callback failed");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                Json(json!({"received": false, "error": "internal error, retry later"})),
            )
                .into_response()
        }
        Err(CallbackError::UnknownProvider) => (
            StatusCode::NOT_FOUND,
            Json(json!({"received": false, "error": "unknown provider"})),
        )
            .into_response(),
        Err(e) => {
            tracing::warn!(error = %e, provider, "payment callback refused");
            (
                StatusCode::BAD_REQUEST,
                Json(json!({"received": false, "error": e.to_string()})),
            )
                .into_response()
        }
    }
}

// The sandbox provider's pay page (DEMO=1 only: a stand-in).

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn page(title: &str, body: &str) -> Html<String> {
    Html(format!(
        r#"<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>{title}</title><style>
body{{font-family:system-ui,sans-serif;background:#f3f5f8;margin:0;padding:16px;color:#1d2733}}
.card{{background:#fff;border-radius:10px;padding:18px;max-width:420px;margin:0 auto;box-shadow:0 2px 8px #0001}}
h1{{font-size:18px;margin:0 0 6px}} .stand{{background:#fff3cd;color:#7a5a00;padding:6px 10px;border-radius:6px;font-size:13px}}
.amount{{font-size:28px;font-weight:700;margin:14px 0}} dl{{display:grid;grid-template-columns:auto 1fr;gap:4px 12px;font-size:14px}}
button{{width:100%;padding:12px;margin-top:10px;border:0;border-radius:8px;font-size:16px;cursor:pointer}}
.pay{{background:#1f7a3a;color:#fff}} .fail{{background:#b3261e;color:#fff}} .odd{{background:#e0e4ea}}
a{{display:block;margin-top:14px;text-align:center}}
</style></head><body><div class="card">{body}</div></body></html>"#
    ))
}

#[utoipa::path(get, path = "/api/payments/sandbox/pay/{order_id}", operation_id = "payments_sandbox_page", tag = crate::openapi::PAYMENTS, params(("order_id" = String, Path)), responses((status = 200, description = "The sandbox payment page", content_type = "text/html", body = String), (status = 404, description = "No such provider deposit", content_type = "text/html", body = String)))]
async fn sandbox_page(State(state): State<AppState>, Path(order_id): Path<String>) -> Response {
    let order = state.payments.order(&order_id).await.ok().flatten();
    let Some(order) = order.filter(|o| o.kind == "deposit" && o.channel == "provider") else {
        return (
            StatusCode::NOT_FOUND,
            page(
                "Sandbox",
                "<h1>Unknown order</h1><a href=\"/usercenter/deposit\">Back</a>",
            ),
        )
            .into_response();
    };
    let id = escape(&order.orderid);
    let open = matches!(order.status.as_str(), "created" | "failed");
    let actions = if open {
        format!(
            r#"<form method="post" action="/api/payments/sandbox/pay/{id}">
<button class="pay" name="outcome" value="paid" id="sandbox-pay">Pay {amount} {currency}</button>
<button class="fail" name="outcome" value="failed" id="sandbox-fail">Fail the payment</button>
<button class="odd" name="outcome" value="wrong_amount" id="sandbox-wrong">Pay a different amount</button></form>"#,
            amount = escape(&order.amount),
            currency = escape(&order.currency)
        )
    } else {
        format!(
            r#"<p>Order status: <b id="sandbox-status">{}</b></p>
<form method="post" action="/api/payments/sandbox/pay/{id}"><button class="odd" name="outcome" value="reversed" id="sandbox-reverse">Reverse the payment (chargeback)</button></form>"#,
            escape(&order.status)
        )
    };
    page(
        "Sandbox payment",
        &format!(
            r#"<h1>Sandbox payment provider</h1><div class="stand">Stand-in provider for testing: no real money moves.</div>
<div class="amount">{amount} {currency}</div><dl><dt>Order</dt><dd>{id}</dd></dl>{actions}
<a href="/usercenter/depositprogress" id="sandbox-back">Back to the site</a>"#,
            amount = escape(&order.amount),
            currency = escape(&order.currency),
        ),
    )
    .into_response()
}

#[derive(Deserialize, utoipa::ToSchema)]
struct PayForm {
    /// paid or failed.
    outcome: String,
}

#[utoipa::path(post, path = "/api/payments/sandbox/pay/{order_id}", operation_id = "payments_sandbox_pay", tag = crate::openapi::PAYMENTS, params(("order_id" = String, Path)), request_body(content = PayForm, content_type = "application/x-www-form-urlencoded"), responses(
    (status = 200, description = "Paid or failed: the page says so", content_type = "text/html", body = String),
    (status = 400, description = "Unknown choice or order", content_type = "text/html", body = String)))]
async fn sandbox_pay(
    State(state): State<AppState>,
    Path(order_id): Path<String>,
    body: Bytes,
) -> Response {
    let Ok(form) = serde_urlencoded::from_bytes::<PayForm>(&body) else {
        return (
            StatusCode::BAD_REQUEST,
            page("Sandbox", "<h1>Unknown choice</h1>"),
        )
            .into_response();
    };
    let Some(outcome) = SandboxOutcome::parse(&form.outcome) else {
        return (
            StatusCode::BAD_REQUEST,
            page("Sandbox", "<h1>Unknown choice</h1>"),
        )
            .into_response();
    };
    match state.payments.sandbox_pay(&order_id, outcome).await {
        Ok(()) => page(
            "Sandbox payment",
            &format!(
                r#"<h1 id="sandbox-done">Payment {}</h1><p>The provider will notify the site in a moment (signed callbacks, sent more than once).</p>
<a href="/usercenter/depositprogress" id="sandbox-back">Back to the site</a>"#,
                escape(&form.outcome)
            ),
        )
        .into_response(),
        Err(e) => (
            StatusCode::BAD_REQUEST,
            page(
                "Sandbox payment",
                &format!(
                    "<h1>Not processed</h1><p>{}</p><a href=\"/usercenter/deposit\">Back</a>",
                    escape(&e.to_string())
                ),
            ),
        )
            .into_response(),
    }
}

// Stand-ins of the chain watcher and the rate source (DEMO=1).

#[derive(Deserialize, utoipa::ToSchema)]
struct ChainTransfer {
    chain: String,
    address: String,
    tx_hash: String,
    usdt_amount: String,
    confirmations: u32,
}

#[utoipa::path(post, path = "/api/dev/payments/chain-transfer", operation_id = "payments_chain_transfer", tag = crate::openapi::DEV, request_body = ChainTransfer, responses(crate::openapi::PlainAnswers))]
async fn chain_transfer(
    State(state): State<AppState>,
    Json(body): Json<ChainTransfer>,
) -> Result<Json<Value>, ApiError> {
    let chain = Chain::parse(&body.chain).ok_or_else(|| {
        ApiError::with_message(
            domain::payment::codes::UNKNOWN_CHAIN,
            "Choose TRC20 or ERC20",
        )
    })?;
    let usdt: rust_decimal::Decimal = body
        .usdt_amount
        .parse()
        .map_err(|_| ApiError::with_message(domain::Code::WRONG_AMOUNT.0, "Wrong amount"))?;
    let order = state
        .payments
        .chain_transfer(
            chain,
            &body.address,
            &body.tx_hash,
            usdt,
            body.confirmations,
        )
        .await?;
    Ok(Json(json!({"status": 0, "data": {"orderid": order}})))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct RateBody {
    currency: String,
    rate: String,
}

#[utoipa::path(post, path = "/api/dev/payments/usdt-rate", operation_id = "payments_set_rate", tag = crate::openapi::DEV, request_body = RateBody, responses(crate::openapi::PlainAnswers))]
async fn set_rate(
    State(state): State<AppState>,
    Json(body): Json<RateBody>,
) -> Result<Json<Value>, ApiError> {
    let currency: domain::Currency = body
        .currency
        .parse()
        .map_err(|_| ApiError::Code(domain::Code::CURRENCY_RULE))?;
    let rate = body
        .rate
        .parse()
        .map_err(|_| ApiError::with_message(domain::Code::WRONG_AMOUNT.0, "Wrong amount"))?;
    state.payments.set_usdt_rate(currency, rate).await?;
    Ok(Json(json!({"status": 0, "data": null})))
}

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(
        channels,
        provider_deposit,
        bank_deposit,
        usdt_deposit,
        rate,
        frame,
        cancel_order,
        confirm_order,
        cards,
        add_card,
        usdt_addresses,
        add_usdt_address,
        check_fund_password,
        withdraw,
        cancel_withdraw,
        hide_withdraw,
        transfer,
        game_balances,
        money_orders,
        account_changes,
        deposit_records,
        deposit_progress,
        withdraw_progress,
        flow,
        member_report,
        user_centre,
        callback,
        sandbox_page,
        sandbox_pay,
        chain_transfer,
        set_rate
    ))]
    struct Doc;
    #[allow(unused_mut)]
    let mut doc = <Doc as utoipa::OpenApi>::openapi();
    crate::openapi::get_alias(&mut doc, "/api/emaildeposit/GetVirtualExchangeRate");
    crate::openapi::get_alias(&mut doc, "/api/emaildeposit/frame");
    crate::openapi::get_alias(&mut doc, "/api/report/moneyorders");
    crate::openapi::get_alias(&mut doc, "/api/report/accountchanges");
    crate::openapi::get_alias(&mut doc, "/api/report/depositrecordsdel");
    crate::openapi::get_alias(&mut doc, "/api/report/depositprogress");
    crate::openapi::get_alias(&mut doc, "/api/report/withdrawprogress");
    crate::openapi::get_alias(&mut doc, "/api/report/memberreport");
    crate::openapi::alias(
        &mut doc,
        "/api/emaildeposit/frame",
        "/api/emaildeposit/newframe",
    );
    doc
}
