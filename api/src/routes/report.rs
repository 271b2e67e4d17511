//! Reports on the main API: the bet history and the betting statistics
//! (spec 001 section 7.3).

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};

use crate::app::AppState;
use crate::error::{ok, ApiError, Envelope};
use crate::routes::auth::Member;
use crate::transport::{Payload, ReadRoutes};

pub fn router() -> Router<AppState> {
    Router::new()
        .read_route("/api/report/betrecods", post(bet_records).get(bet_records))
        .read_route(
            "/api/report/betanalytics",
            post(bet_analytics).get(bet_analytics),
        )
}

/// `report/betrecods {from_date, to_date, pn, outcome, bet_type, BetId}`:
/// the member's bets, newest first (default: the last 24 hours).
#[utoipa::path(post, path = "/api/report/betrecods", operation_id = "report_bet_records", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn bet_records(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Result<Json<Envelope<Value>>, ApiError> {
    let (list, total) = state
        .betting
        .history(&member.user_id, &params)
        .await
        .map_err(|e| ApiError::with_message(-70009, format!("Invalid request parameters: {e}")))?;
    Ok(ok(json!({ "list": list, "total": total })))
}

/// The longest period `betanalytics` answers, in seconds (a year and a day).
const MAX_PERIOD_S: i64 = 366 * 86_400;
/// Its default period: the last 30 days.
const DEFAULT_PERIOD_S: i64 = 30 * 86_400;
/// Sports listed, by bet count.
const TOP_SPORTS: usize = 10;

fn bad(what: &str) -> ApiError {
    ApiError::with_message(-70009, format!("Invalid request parameters: {what}"))
}

/// A whole number of unix seconds, given as a number or a string; absent
/// or empty: `None`.
fn seconds(params: &Value, key: &str) -> Result<Option<i64>, ApiError> {
    match params.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::Number(n)) => n
            .as_i64()
            .map(Some)
            .ok_or_else(|| bad(&format!("{key} must be a whole number"))),
        Some(Value::String(s)) => s
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| bad(&format!("{key} must be a whole number"))),
        Some(_) => Err(bad(&format!("{key} must be a whole number"))),
    }
}

/// `report/betanalytics {from_date, to_date}` (unix seconds; default the
/// last 30 days, at most 366 days): the member's betting statistics from
/// the bet history read model (docs/protocol.md "Betting statistics").
#[utoipa::path(post, path = "/api/report/betanalytics", operation_id = "report_bet_analytics", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn bet_analytics(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Result<Json<Envelope<Value>>, ApiError> {
    let now = state.clock.now_ms().div_euclid(1000);
    let to = seconds(&params, "to_date")?.unwrap_or(now);
    let from = match seconds(&params, "from_date")? {
        Some(from) => from,
        None => to.saturating_sub(DEFAULT_PERIOD_S),
    };
    if from > to {
        return Err(bad("from_date is after to_date"));
    }
    if to
        .checked_sub(from)
        .is_none_or(|period| period > MAX_PERIOD_S)
    {
        return Err(bad("the period is at most 366 days"));
    }
    let account = state.accounts.load(&member.user_id).await?;
    let currency = account
        .profile
        .as_ref()
        .map(|p| p.currency)
        .unwrap_or(domain::Currency::Cny);
    let found = projections::bets::analytics(&state.db.any, &member.user_id, from, to).await?;
    let s = &found.stats;
    let money = |d: rust_decimal::Decimal| currency.round(d).to_string();
    let totals = |t: &domain::bet::stats::Totals| {
        json!({
            "count": t.count,
            "stake": money(t.stake),
            "settled_stake": money(t.settled_stake),
            "payout": money(t.payout),
            "profit": money(t.profit()),
        })
    };
    let by_type: Vec<Value> = s
        .by_type
        .iter()
        .map(|(bet_type, t)| {
            let mut v = totals(t);
            v["type"] = json!(bet_type);
            v
        })
        .collect();
    let by_sport: Vec<Value> = s
        .top_sports(TOP_SPORTS)
        .into_iter()
        .map(|(sport, t)| {
            let mut v = totals(t);
            v["sport"] = json!(sport);
            v
        })
        .collect();
    Ok(ok(json!({
        "currency": currency.code(),
        "from_date": from,
        "to_date": to,
        "partial": found.partial,
        "total": totals(&s.all),
        "open": s.open,
        "won": s.won,
        "lost": s.lost,
        "returned": s.returned,
        "cashed_out": s.cashed_out,
        "declined": s.declined,
        "win_rate": s.win_rate().map(|r| r.to_string()),
        "average_odds": s.average_odds().map(|k| k.to_string()),
        "biggest_win": money(s.biggest_win),
        "by_type": by_type,
        "by_sport": by_sport,
    })))
}

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(bet_records, bet_analytics))]
    struct Doc;
    #[allow(unused_mut)]
    let mut doc = <Doc as utoipa::OpenApi>::openapi();
    crate::openapi::get_alias(&mut doc, "/api/report/betrecods");
    crate::openapi::get_alias(&mut doc, "/api/report/betanalytics");
    doc
}
