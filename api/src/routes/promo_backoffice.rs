//! Back office of promotions for the marketing role (Duty::Marketing;
//! admin too): sign-in table and tasks, task claims awaiting review, the
//! prize board, shop goods, the fulfilment queue. Every change is a
//! `PromotionConfig` (or `Promotion`) event with the staff id.

use axum::extract::{Query, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use commands::engagement::promo::PromoFailure;
use domain::promo::campaign::Campaign;
use domain::promo::draw::Board;
use domain::promo::referral::ReferralSettings;
use domain::promo::shop::Goods;
use domain::promo::tasks::TaskSettings;
use domain::staff::Duty;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::AppState;
use crate::routes::backoffice::{done, BoError, StaffAuth};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/backoffice/promo/tasks", get(tasks).post(save_tasks))
        .route("/api/backoffice/promo/task-claims", get(task_claims))
        .route(
            "/api/backoffice/promo/task-claims/review",
            post(review_task_claim),
        )
        .route("/api/backoffice/promo/board", get(board).post(save_board))
        .route("/api/backoffice/promo/goods", get(goods).post(save_goods))
        .route(
            "/api/backoffice/promo/campaigns",
            get(campaigns).post(save_campaign),
        )
        .route(
            "/api/backoffice/promo/referral",
            get(referral_settings).post(save_referral_settings),
        )
        .route("/api/backoffice/promo/referrals", get(referrals))
        .route("/api/backoffice/promo/fulfilment", get(fulfilment))
        .route("/api/backoffice/promo/fulfilment/ship", post(ship))
}

type Staffed = Result<Json<Value>, BoError>;

impl From<PromoFailure> for BoError {
    fn from(e: PromoFailure) -> Self {
        match e {
            PromoFailure::Refused(code, msg) => BoError::bad(code, msg),
            PromoFailure::Internal(e) => BoError::internal(e),
        }
    }
}

fn body<T>(value: Value) -> Result<T, BoError>
where
    T: serde::de::DeserializeOwned,
{
    serde_json::from_value(value).map_err(|e| {
        BoError::bad(
            domain::Code::BAD_PARAMETERS.0,
            format!("Invalid request parameters: {e}"),
        )
    })
}

#[utoipa::path(get, path = "/api/backoffice/promo/tasks", operation_id = "promo_backoffice_tasks", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn tasks(State(state): State<AppState>, auth: StaffAuth) -> Staffed {
    auth.may(Duty::Marketing)?;
    Ok(done(json!(state.promotions.task_settings().await?)))
}

#[utoipa::path(post, path = "/api/backoffice/promo/tasks", operation_id = "promo_backoffice_save_tasks", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn save_tasks(
    State(state): State<AppState>,
    auth: StaffAuth,
    Json(value): Json<Value>,
) -> Staffed {
    auth.may(Duty::Marketing)?;
    let settings: TaskSettings = body(value)?;
    state
        .promotions
        .save_task_settings(&settings, &auth.staff.id)
        .await?;
    Ok(done(json!(settings)))
}

#[derive(Deserialize, Default)]
struct StateParams {
    #[serde(default)]
    state: Option<String>,
}

/// Task claims: pending (default), paid, approved, rejected or all.
#[utoipa::path(get, path = "/api/backoffice/promo/task-claims", operation_id = "promo_backoffice_task_claims", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn task_claims(
    State(state): State<AppState>,
    auth: StaffAuth,
    Query(params): Query<StateParams>,
) -> Staffed {
    auth.may(Duty::Marketing)?;
    let wanted = match params.state.as_deref() {
        None | Some("pending") => "pending",
        Some("all") => "",
        Some(s @ ("paid" | "approved" | "rejected")) => s,
        Some(_) => {
            return Err(BoError::bad(
                domain::Code::BAD_PARAMETERS.0,
                "Invalid request parameters: state",
            ))
        }
    };
    Ok(done(json!(state.promotions.task_claims(wanted).await?)))
}

#[derive(Deserialize)]
struct ReviewBody {
    reference: String,
    approve: bool,
    #[serde(default)]
    reason: String,
}

#[utoipa::path(post, path = "/api/backoffice/promo/task-claims/review", operation_id = "promo_backoffice_review_task_claim", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn review_task_claim(
    State(state): State<AppState>,
    auth: StaffAuth,
    Json(value): Json<Value>,
) -> Staffed {
    auth.may(Duty::Marketing)?;
    let b: ReviewBody = body(value)?;
    if b.reference.len() > 200 {
        return Err(BoError::bad(
            domain::Code::BAD_PARAMETERS.0,
            "Invalid request parameters: reference",
        ));
    }
    let claim = state
        .promotions
        .review_task_claim(&b.reference, b.approve, &b.reason, &auth.staff.id)
        .await?;
    Ok(done(json!(claim)))
}

/// The prize board and this week's stock (slot, stock, taken).
#[utoipa::path(get, path = "/api/backoffice/promo/board", operation_id = "promo_backoffice_board", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn board(State(state): State<AppState>, auth: StaffAuth) -> Staffed {
    auth.may(Duty::Marketing)?;
    let board = state.promotions.board().await?;
    let week = domain::promo::week_of_day(state.promotions.today());
    let stock: Vec<Value> = state
        .promotions
        .prize_stock(week)
        .await?
        .into_iter()
        .map(|(slot, stock, taken)| json!({"slot": slot, "stock": stock, "taken": taken}))
        .collect();
    Ok(done(json!({"board": board, "week": week, "stock": stock})))
}

#[utoipa::path(post, path = "/api/backoffice/promo/board", operation_id = "promo_backoffice_save_board", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn save_board(
    State(state): State<AppState>,
    auth: StaffAuth,
    Json(value): Json<Value>,
) -> Staffed {
    auth.may(Duty::Marketing)?;
    let board: Board = body(value)?;
    state.promotions.save_board(&board, &auth.staff.id).await?;
    Ok(done(json!(board)))
}

/// Every goods item, on sale or not, with stock sold.
#[utoipa::path(get, path = "/api/backoffice/promo/goods", operation_id = "promo_backoffice_goods", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn goods(State(state): State<AppState>, auth: StaffAuth) -> Staffed {
    auth.may(Duty::Marketing)?;
    Ok(done(json!(state.promotions.goods_list(true).await?)))
}

#[utoipa::path(post, path = "/api/backoffice/promo/goods", operation_id = "promo_backoffice_save_goods", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn save_goods(
    State(state): State<AppState>,
    auth: StaffAuth,
    Json(value): Json<Value>,
) -> Staffed {
    auth.may(Duty::Marketing)?;
    let goods: Goods = body(value)?;
    state.promotions.save_goods(&goods, &auth.staff.id).await?;
    Ok(done(json!(goods)))
}

/// Physical prizes and goods to ship (state=to_ship, default) or shipped.
#[utoipa::path(get, path = "/api/backoffice/promo/fulfilment", operation_id = "promo_backoffice_fulfilment", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn fulfilment(
    State(state): State<AppState>,
    auth: StaffAuth,
    Query(params): Query<StateParams>,
) -> Staffed {
    auth.may(Duty::Marketing)?;
    let wanted = match params.state.as_deref() {
        None | Some("to_ship") => "to_ship",
        Some("shipped") => "shipped",
        Some(_) => {
            return Err(BoError::bad(
                domain::Code::BAD_PARAMETERS.0,
                "Invalid request parameters: state",
            ))
        }
    };
    Ok(done(json!(state.promotions.fulfilment(wanted).await?)))
}

#[derive(Deserialize)]
struct ShipBody {
    source: String,
    id: String,
}

#[utoipa::path(post, path = "/api/backoffice/promo/fulfilment/ship", operation_id = "promo_backoffice_ship", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn ship(State(state): State<AppState>, auth: StaffAuth, Json(value): Json<Value>) -> Staffed {
    auth.may(Duty::Marketing)?;
    let b: ShipBody = body(value)?;
    if b.id.len() > 200 {
        return Err(BoError::bad(
            domain::Code::BAD_PARAMETERS.0,
            "Invalid request parameters: id",
        ));
    }
    state
        .promotions
        .ship(&b.source, &b.id, &auth.staff.id)
        .await?;
    Ok(done(
        json!({"source": b.source, "id": b.id, "state": "shipped"}),
    ))
}

#[utoipa::path(get, path = "/api/backoffice/promo/campaigns", operation_id = "promo_backoffice_campaigns", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn campaigns(State(state): State<AppState>, auth: StaffAuth) -> Staffed {
    auth.may(Duty::Marketing)?;
    Ok(done(json!(state.promotions.campaigns().await?)))
}

#[utoipa::path(post, path = "/api/backoffice/promo/campaigns", operation_id = "promo_backoffice_save_campaign", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn save_campaign(
    State(state): State<AppState>,
    auth: StaffAuth,
    Json(value): Json<Value>,
) -> Staffed {
    auth.may(Duty::Marketing)?;
    let c: Campaign = body(value)?;
    state.promotions.save_campaign(&c, &auth.staff.id).await?;
    Ok(done(json!(c)))
}

#[utoipa::path(get, path = "/api/backoffice/promo/referral", operation_id = "promo_backoffice_referral_settings", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn referral_settings(State(state): State<AppState>, auth: StaffAuth) -> Staffed {
    auth.may(Duty::Marketing)?;
    Ok(done(json!(state.promotions.referral_settings().await?)))
}

#[utoipa::path(post, path = "/api/backoffice/promo/referral", operation_id = "promo_backoffice_save_referral_settings", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn save_referral_settings(
    State(state): State<AppState>,
    auth: StaffAuth,
    Json(value): Json<Value>,
) -> Staffed {
    auth.may(Duty::Marketing)?;
    let s: ReferralSettings = body(value)?;
    state
        .promotions
        .save_referral_settings(&s, &auth.staff.id)
        .await?;
    Ok(done(json!(s)))
}

/// Referrals: pending, paid, refused or all (default).
#[utoipa::path(get, path = "/api/backoffice/promo/referrals", operation_id = "promo_backoffice_referrals", tag = crate::openapi::BACK_OFFICE, responses(crate::openapi::StaffAnswers))]
async fn referrals(
    State(state): State<AppState>,
    auth: StaffAuth,
    Query(params): Query<StateParams>,
) -> Staffed {
    auth.may(Duty::Marketing)?;
    let wanted = match params.state.as_deref() {
        None | Some("all") => "",
        Some(s @ ("pending" | "paid" | "refused")) => s,
        Some(_) => {
            return Err(BoError::bad(
                domain::Code::BAD_PARAMETERS.0,
                "Invalid request parameters: state",
            ))
        }
    };
    Ok(done(json!(state.promotions.referrals(wanted).await?)))
}

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(
        tasks,
        save_tasks,
        task_claims,
        review_task_claim,
        board,
        save_board,
        goods,
        save_goods,
        campaigns,
        save_campaign,
        referral_settings,
        save_referral_settings,
        referrals,
        fulfilment,
        ship,
    ))]
    struct Doc;
    <Doc as utoipa::OpenApi>::openapi()
}
