//! Development endpoints, mounted only with `DEMO=1`. Plain JSON, not the
//! member request layer.
//!
//! - `GET /api/dev/balance`: the demo member's balance (the client shell
//!   shows it before anyone logs in).
//! - `GET /api/dev/outbox`: codes "sent" by SMS and e-mail and the captcha
//!   codes issued, newest first, so automated clients pass the human checks.
//! - `POST /api/dev/end-bet-games {bet_id}`: ends every game of a bet now
//!   with a random score and records the results (the simulator's games
//!   last minutes), so a test can watch the bet settle.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;

use crate::app::AppState;
use crate::error::{ok, ApiError, Envelope};
use crate::routes::user::{balance_of, BalanceView};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/dev/balance", get(balance))
        .route("/api/dev/outbox", get(outbox))
        .route("/dev/outbox", get(outbox_page))
        .route("/api/dev/end-bet-games", axum::routing::post(end_bet_games))
}

pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(balance, outbox, outbox_page, end_bet_games))]
    struct Doc;
    <Doc as utoipa::OpenApi>::openapi()
}

#[derive(Serialize)]
struct DemoBalance {
    #[serde(flatten)]
    balance: BalanceView,
    username: String,
}

/// The demo member's balance from the balance projection (getbalance's
/// shape plus `username`).
#[utoipa::path(get, path = "/api/dev/balance", tag = crate::openapi::DEV, responses(crate::openapi::PlainAnswers))]
async fn balance(State(state): State<AppState>) -> Result<Json<Envelope<DemoBalance>>, ApiError> {
    let username = state.config.demo.member.clone();
    let user_id = state
        .accounts
        .find(&username)
        .await?
        .ok_or(ApiError::Code(domain::Code::NOT_LOGGED_IN))?;
    Ok(ok(DemoBalance {
        balance: balance_of(&state, &user_id).await?,
        username,
    }))
}

/// Codes "sent" by SMS and e-mail and captcha codes issued, newest first.
#[utoipa::path(get, path = "/api/dev/outbox", tag = crate::openapi::DEV, responses(
    (status = 200, description = "Outbox entries, newest first", body = [Object])))]
async fn outbox(
    State(state): State<AppState>,
) -> Result<Json<Vec<commands::accounts::codes::OutboxEntry>>, ApiError> {
    Ok(Json(
        commands::accounts::codes::outbox(&state.db.any, 100).await?,
    ))
}

/// The outbox as a page a person can read during development.
#[utoipa::path(get, path = "/dev/outbox", tag = crate::openapi::DEV, responses(
    (status = 200, description = "HTML page", content_type = "text/html", body = String)))]
async fn outbox_page(
    State(state): State<AppState>,
) -> Result<axum::response::Html<String>, ApiError> {
    let entries = commands::accounts::codes::outbox(&state.db.any, 100).await?;
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let rows: String = entries
        .iter()
        .map(|e| {
            format!(
                "<tr><td>{}</td><td>{}</td><td><b>{}</b></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&e.channel),
                escape(&e.to),
                escape(&e.code),
                e.kind,
                escape(&e.uid),
                e.at
            )
        })
        .collect();
    Ok(axum::response::Html(format!(
        "<!doctype html><meta charset=utf-8><meta name=viewport content='width=device-width'>\
         <title>Outbox (development stand-in)</title>\
         <style>body{{font:14px system-ui;margin:16px}}td,th{{padding:4px 8px;border-bottom:1px solid #ddd}}</style>\
         <h1>Outbox</h1><p>Development stand-in for the SMS and e-mail gateways (DEMO=1 only). Newest first.</p>\
         <table><tr><th>channel</th><th>to</th><th>code</th><th>type</th><th>uid</th><th>at (ms)</th></tr>{rows}</table>"
    )))
}

#[derive(serde::Deserialize, utoipa::ToSchema)]
struct EndBody {
    /// The bet's id (a string or a number).
    bet_id: serde_json::Value,
}

/// Ends every game of a bet now with a random score and records the
/// results, so a test can watch the bet settle.
#[utoipa::path(post, path = "/api/dev/end-bet-games", tag = crate::openapi::DEV, request_body = EndBody,
    responses(crate::openapi::PlainAnswers))]
async fn end_bet_games(
    State(state): State<AppState>,
    Json(body): Json<EndBody>,
) -> Result<Json<Envelope<serde_json::Value>>, ApiError> {
    use domain::result::{settle, FinalScore, SelectionOutcome, SelectionResult};
    use rand::seq::SliceRandom;
    use rand::Rng;
    let bet_id = match &body.bet_id {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let bet = state
        .betting
        .bets
        .load(&bet_id)
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    let placement = bet
        .placement
        .ok_or_else(|| ApiError::with_message(-404, "No such bet"))?;
    let mut ended = Vec::new();
    for leg in &placement.bet.legs {
        if ended.contains(&leg.game_id) {
            continue;
        }
        let score = {
            let mut rng = rand::rng();
            FinalScore {
                team1: rng.random_range(0..4),
                team2: rng.random_range(0..4),
                first_half: Some((0, 0)),
                corners: Some(9),
            }
        };
        let selections: Vec<SelectionResult> = state.live.read(|c| {
            let mut selections = Vec::new();
            for m in c.markets_of(leg.game_id) {
                if m.market_type == commands::sportsbook::feed::RACE_MARKET_TYPE {
                    // A race: a random finishing order, each runner at its
                    // price as its starting price.
                    let mut runners: Vec<_> = c.events_of(m.id).collect();
                    runners.shuffle(&mut rand::rng());
                    let places = m.ew_places.unwrap_or(1) as usize;
                    for (position, e) in runners.into_iter().enumerate() {
                        selections.push(SelectionResult {
                            event_id: e.id,
                            market_id: m.id,
                            outcome: match position {
                                0 => SelectionOutcome::Won,
                                p if p < places => SelectionOutcome::Placed,
                                _ => SelectionOutcome::Lost,
                            },
                            sp_price: m.sp_allowed.then_some(e.price),
                        });
                    }
                    continue;
                }
                for e in c.events_of(m.id) {
                    if let Some(outcome) =
                        settle(&m.market_type, &e.type_, e.base.or(m.base), &score)
                    {
                        selections.push(SelectionResult {
                            event_id: e.id,
                            market_id: m.id,
                            outcome,
                            sp_price: None,
                        });
                    }
                }
            }
            selections
        });
        let finished = commands::sportsbook::feed::Finished {
            game_id: leg.game_id,
            score,
            selections,
        };
        state
            .results
            .record(finished, state.clock.now_ms())
            .await
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        // The feed's leader takes it out of every process's catalogue.
        commands::sportsbook::live::end_game(&state.db.any, leg.game_id, state.clock.now_ms())
            .await?;
        ended.push(leg.game_id);
    }
    Ok(ok(serde_json::json!({ "games": ended })))
}
