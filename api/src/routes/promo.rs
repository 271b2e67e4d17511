//! Promotion calls of members (spec 001 section 7.4 activity/*, shop/*;
//! 7.2 user/invite, invitetemplate; docs/promotions.md): sign-in, daily and
//! novice tasks, the prize draw (activity main/actinfo aid 5), the shop.

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use commands::engagement::promo::PromoFailure;
use domain::promo::tasks::TaskGroup;
use domain::Currency;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::AppState;
use crate::error::{ok, ApiError, Envelope};
use crate::routes::auth::Member;
use crate::transport::{Payload, ReadRoutes};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/activity/signin", post(sign_in).get(sign_in))
        .read_route("/api/activity/gettasklist", post(task_list).get(task_list))
        .route("/api/activity/gettaskbonus", post(task_bonus))
        .read_route("/api/activity/actinfo", post(act_info).get(act_info))
        .route("/api/activity/main", post(act_main))
        .read_route("/api/activity/index", post(act_index).get(act_index))
        .route("/api/activity/apply", post(act_apply))
        .read_route(
            "/api/activity/reissuelist",
            post(reissue_list).get(reissue_list),
        )
        .route("/api/activity/reissueget", post(reissue_get))
        .read_route("/api/activity/MedalsNum", post(medals).get(medals))
        .read_route("/api/user/invite", post(invite).get(invite))
        .read_route(
            "/api/user/invitetemplate",
            post(invite_template).get(invite_template),
        )
        .read_route("/api/shop/goodslist", post(goods_list).get(goods_list))
        .read_route("/api/shop/goodsinfo", post(goods_info).get(goods_info))
        .route("/api/shop/buy", post(buy))
}

pub(crate) type Answer = Result<Json<Envelope<Value>>, ApiError>;

impl From<PromoFailure> for ApiError {
    fn from(e: PromoFailure) -> Self {
        match e {
            PromoFailure::Refused(status, msg) => ApiError::Answer {
                status,
                msg,
                data: Value::Null,
            },
            PromoFailure::Internal(e) => ApiError::Internal(e),
        }
    }
}

pub(crate) fn number(v: &Value) -> Option<u32> {
    match v {
        Value::Number(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
        Value::String(s) if s.len() <= 12 => s.trim().parse().ok(),
        _ => None,
    }
}

pub(crate) fn bad_params(detail: &str) -> ApiError {
    ApiError::Answer {
        status: domain::Code::BAD_PARAMETERS.0,
        msg: format!("Invalid request parameters: {detail}"),
        data: Value::Null,
    }
}

pub(crate) fn answer(msg: &str, data: Value) -> Answer {
    Ok(Json(Envelope {
        status: 0,
        msg: msg.into(),
        data,
    }))
}

/// The member's wallet currency.
pub(crate) async fn currency_of(state: &AppState, member_id: &str) -> Result<Currency, ApiError> {
    let account = state.accounts.load(member_id).await?;
    account
        .profile
        .as_ref()
        .map(|p| p.currency)
        .ok_or(ApiError::Code(domain::Code::NOT_LOGGED_IN))
}

// ---------------------------------------------------------------- sign-in, tasks

/// `activity/signin`: today's sign-in, its streak and reward.
#[utoipa::path(method(post, get), path = "/api/activity/signin", operation_id = "promo_sign_in", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn sign_in(State(state): State<AppState>, member: Member) -> Answer {
    let currency = currency_of(&state, &member.user_id).await?;
    let done = state.promotions.sign_in(&member.user_id, currency).await?;
    let sign = state.promotions.sign_state(&member.user_id).await?;
    answer(
        "Signed in successfully",
        json!({
            "day": domain::promo::day_text(done.day),
            "streak": done.streak,
            "reward": done.reward.normalize().to_string(),
            "signin": sign,
        }),
    )
}

#[derive(Deserialize, Default)]
struct ListBody {
    /// 1 daily, 2 novice; absent: both.
    #[serde(default, rename = "type")]
    kind: Option<Value>,
    /// The member's language (zhh, eng, tha; else eng), as campaigns take it.
    #[serde(default)]
    lang: Option<Value>,
}

/// The language of a request's optional `lang` (zhh, eng, tha; else eng).
fn lang_in(lang: &Option<Value>) -> &'static str {
    match lang.as_ref().and_then(Value::as_str) {
        Some("zhh") => "zhh",
        Some("tha") => "tha",
        _ => "eng",
    }
}

/// `activity/gettasklist {type}`: tasks with nowvalue, taskvalue, status
/// (0 undone, 1 claimable, other received) and the sign-in state.
#[utoipa::path(method(post, get), path = "/api/activity/gettasklist", operation_id = "promo_task_list", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn task_list(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<ListBody>,
) -> Answer {
    let group = match body.kind.as_ref() {
        None | Some(Value::Null) => None,
        Some(v) => match number(v) {
            Some(1) => Some(TaskGroup::Daily),
            Some(2) => Some(TaskGroup::Novice),
            _ => return Err(bad_params("type (1 daily, 2 novice)")),
        },
    };
    let list = state
        .promotions
        .task_list(&member.user_id, group, lang_in(&body.lang))
        .await?;
    let sign = state.promotions.sign_state(&member.user_id).await?;
    Ok(ok(json!({"list": list, "signin": sign})))
}

#[derive(Deserialize)]
struct BonusBody {
    id: Value,
}

/// `activity/gettaskbonus {id}`: data.needcheck 0 paid, 1 waiting for
/// review (spec 001 section 4).
#[utoipa::path(post, path = "/api/activity/gettaskbonus", operation_id = "promo_task_bonus", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn task_bonus(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<BonusBody>,
) -> Answer {
    let id = number(&body.id).ok_or_else(|| bad_params("id"))?;
    let currency = currency_of(&state, &member.user_id).await?;
    let claim = state
        .promotions
        .claim_task(&member.user_id, currency, id)
        .await?;
    let pending = claim.state == "pending";
    answer(
        if pending {
            "Submitted, waiting for customer service review"
        } else {
            "Received successfully"
        },
        json!({"id": id, "needcheck": pending as i32, "cash": claim.cash, "claim": claim.state}),
    )
}

// ---------------------------------------------------------------- activities by aid

/// The prize draw's activity id (spec 001 section 7.4).
pub const DRAW_AID: u32 = 5;
/// The season rank reward's (routes::seasons).
pub const SEASON_AID: u32 = 13;

/// The activity id: `aid`, or a campaign's `slug` (promotion routes).
fn aid_of(body: &Value) -> Result<u32, ApiError> {
    body.get("aid")
        .and_then(number)
        .ok_or_else(|| bad_params("aid"))
}

/// The member's delivery address (`user/setuseraddress`) as JSON text,
/// empty when none is set.
pub(crate) async fn address_of(state: &AppState, member_id: &str) -> Result<String, ApiError> {
    let account = state.accounts.load(member_id).await?;
    Ok(account
        .address
        .as_ref()
        .and_then(|a| serde_json::to_string(a).ok())
        .filter(|a| !a.is_empty() && a != "{}")
        .unwrap_or_default())
}

/// `activity/actinfo {aid, ...}`: aid 5 the prize draw board, aid 13 the
/// season rank reward, other aids a campaign.
#[utoipa::path(method(post, get), path = "/api/activity/actinfo", operation_id = "promo_act_info", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn act_info(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<Value>,
) -> Answer {
    match aid_of(&body)? {
        DRAW_AID => {
            let info = state
                .promotions
                .draw_info(&member.user_id, &lang_of(&body))
                .await?;
            Ok(ok(json!({
                "actRand": info.act_rand,
                "board": info,
            })))
        }
        SEASON_AID => crate::routes::seasons::activity_13(state, member, body, false).await,
        aid => campaign_info(&state, &member, aid, &body).await,
    }
}

/// `activity/main {aid, actRand, ...}`: aid 5 draws (data.jiangpin,
/// data.actRand; -21404 when the prizes are gone), aid 13 claims the
/// season rank reward, other aids apply for a campaign.
#[utoipa::path(post, path = "/api/activity/main", operation_id = "promo_act_main", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn act_main(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<Value>,
) -> Answer {
    match aid_of(&body)? {
        DRAW_AID => {
            let token = body
                .get("actRand")
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty() && t.len() <= 64)
                .ok_or_else(|| bad_params("actRand"))?;
            let currency = currency_of(&state, &member.user_id).await?;
            let address = address_of(&state, &member.user_id).await?;
            let drawn = state
                .promotions
                .draw(&member.user_id, currency, token, &address)
                .await?;
            let info = state
                .promotions
                .draw_info(&member.user_id, &lang_of(&body))
                .await?;
            // the same draw with the prize named in the member's language
            let drawn = info.drawn.clone().unwrap_or(drawn);
            answer(
                &format!("Congratulations, you won {}", drawn.jiangpin),
                json!({"jiangpin": drawn.jiangpin, "prize": drawn, "actRand": info.act_rand}),
            )
        }
        SEASON_AID => crate::routes::seasons::activity_13(state, member, body, true).await,
        aid => campaign_apply(&state, &member, aid).await,
    }
}

// ---------------------------------------------------------------- shop

/// `shop/goodslist`: goods on sale (with what is left), the member's M
/// currency and their latest orders.
#[utoipa::path(method(post, get), path = "/api/shop/goodslist", operation_id = "promo_goods_list", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn goods_list(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<Value>,
) -> Answer {
    let lang = lang_of(&body);
    let list = state.promotions.goods_list(false).await?;
    let points = state.promotions.points_left(&member.user_id).await?;
    let orders = state.promotions.orders_of(&member.user_id).await?;
    let orders: Vec<Value> = orders
        .into_iter()
        .take(20)
        .map(|mut o| {
            // the record keeps the eng name; the member reads their language
            if let Some(g) = list.iter().find(|g| g.goods.id as i64 == o.goods_id) {
                if g.goods.name.is_one_of(&o.name) {
                    o.name = g.goods.name.pick(&lang).to_string();
                }
            }
            json!(o)
        })
        .collect();
    Ok(ok(json!({
        "list": list.iter().map(|g| goods_json(g, &lang)).collect::<Vec<_>>(),
        "points": points.normalize().to_string(),
        "orders": orders,
    })))
}

/// Goods as a member reads them: name and description in `lang`.
fn goods_json(g: &commands::engagement::promo::shop::GoodsView, lang: &str) -> Value {
    let mut v = json!(g);
    v["name"] = json!(g.goods.name.pick(lang));
    v["desc"] = json!(g.goods.desc.pick(lang));
    v
}

#[derive(Deserialize)]
struct GoodsBody {
    id: Value,
    #[serde(default)]
    num: Option<Value>,
    #[serde(default)]
    lang: Option<Value>,
}

/// `shop/goodsinfo {id}`.
#[utoipa::path(method(post, get), path = "/api/shop/goodsinfo", operation_id = "promo_goods_info", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn goods_info(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<GoodsBody>,
) -> Answer {
    let id = number(&body.id).ok_or_else(|| bad_params("id"))?;
    let info = state.promotions.goods_info(&member.user_id, id).await?;
    let points = state.promotions.points_left(&member.user_id).await?;
    Ok(ok(
        json!({"info": goods_json(&info, lang_in(&body.lang)), "points": points.normalize().to_string()}),
    ))
}

/// `shop/buy {id, num}`: -40301 out of stock, -40302 not enough M
/// currency, -40303 limit reached, -40304 no such goods, -40305 no
/// delivery address for physical goods.
#[utoipa::path(post, path = "/api/shop/buy", operation_id = "promo_buy", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn buy(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<GoodsBody>,
) -> Answer {
    let id = number(&body.id).ok_or_else(|| bad_params("id"))?;
    let qty = match body.num.as_ref() {
        None | Some(Value::Null) => 1,
        Some(v) => number(v).ok_or_else(|| bad_params("num"))?,
    };
    let currency = currency_of(&state, &member.user_id).await?;
    let address = address_of(&state, &member.user_id).await?;
    let mut order = state
        .promotions
        .buy(&member.user_id, currency, id, qty, &address)
        .await?;
    if let Ok(info) = state.promotions.goods_info(&member.user_id, id).await {
        if info.goods.name.is_one_of(&order.name) {
            order.name = info.goods.name.pick(lang_in(&body.lang)).to_string();
        }
    }
    // Read our own write: the VIP read model counts the points spent.
    let _ = state
        .runner
        .settle(projections::vip::NAME, std::time::Duration::from_secs(2))
        .await;
    let points = state.promotions.points_left(&member.user_id).await?;
    answer(
        "Purchase successful",
        json!({"order": order, "points": points.normalize().to_string()}),
    )
}

// ---------------------------------------------------------------- campaigns

fn lang_of(body: &Value) -> String {
    match body.get("lang").and_then(Value::as_str) {
        Some(l @ ("zhh" | "eng" | "tha")) => l.to_string(),
        _ => "eng".into(),
    }
}

fn campaign_json(c: &domain::promo::campaign::Campaign, lang: &str, now: i64) -> Value {
    let page = c.page(lang).cloned().unwrap_or_default();
    json!({
        "aid": c.id,
        "slug": c.slug,
        "title": page.title,
        "body": page.body,
        "banner": page.banner,
        "start_ms": c.start_ms,
        "end_ms": c.end_ms,
        "repeat": c.repeat,
        "rule": c.rule,
        "turnover_multiple": c.turnover_multiple.normalize().to_string(),
        "running": c.running(now),
    })
}

/// `activity/index {lang}`: campaigns that are enabled and not over (open
/// to visitors: the promotion pages list them).
#[utoipa::path(method(post, get), path = "/api/activity/index", operation_id = "promo_act_index", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn act_index(State(state): State<AppState>, Payload(body): Payload<Value>) -> Answer {
    let lang = lang_of(&body);
    let now = state.promotions.now_ms();
    let list: Vec<Value> = state
        .promotions
        .campaigns()
        .await?
        .iter()
        .filter(|c| c.enabled && c.end_ms > now)
        .map(|c| campaign_json(c, &lang, now))
        .collect();
    Ok(ok(json!({"list": list})))
}

async fn campaign_info(state: &AppState, member: &Member, aid: u32, body: &Value) -> Answer {
    let currency = currency_of(state, &member.user_id).await?;
    let (c, standing) = state
        .promotions
        .standing(aid, &member.user_id, currency)
        .await?;
    let now = state.promotions.now_ms();
    Ok(ok(json!({
        "activity": campaign_json(&c, &lang_of(body), now),
        "standing": standing,
    })))
}

async fn campaign_apply(state: &AppState, member: &Member, aid: u32) -> Answer {
    let currency = currency_of(state, &member.user_id).await?;
    let applied = state
        .promotions
        .apply(aid, &member.user_id, currency)
        .await?;
    answer(
        "Applied successfully, the bonus has been credited",
        json!({"reward": applied}),
    )
}

/// `activity/apply {aid}`.
#[utoipa::path(post, path = "/api/activity/apply", operation_id = "promo_act_apply", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn act_apply(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<Value>,
) -> Answer {
    let aid = aid_of(&body)?;
    if domain::promo::campaign::RESERVED_AIDS.contains(&aid) {
        return Err(bad_params("aid"));
    }
    campaign_apply(&state, &member, aid).await
}

/// `activity/reissuelist`: the member's campaign rewards.
#[utoipa::path(method(post, get), path = "/api/activity/reissuelist", operation_id = "promo_reissue_list", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn reissue_list(State(state): State<AppState>, member: Member) -> Answer {
    let list = state.promotions.applications_of(&member.user_id).await?;
    Ok(ok(json!({"list": list})))
}

#[derive(Deserialize)]
struct ReissueBody {
    reference: String,
}

/// `activity/reissueget {reference}`: re-sends a reward's credit (moves
/// money only if it never arrived).
#[utoipa::path(post, path = "/api/activity/reissueget", operation_id = "promo_reissue_get", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn reissue_get(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<ReissueBody>,
) -> Answer {
    if body.reference.is_empty() || body.reference.len() > 200 {
        return Err(bad_params("reference"));
    }
    let a = state
        .promotions
        .reissue(&member.user_id, &body.reference)
        .await?;
    answer("Received successfully", json!({"reward": a}))
}

/// `activity/MedalsNum`: campaigns the member may apply for now (num) and
/// rewards received (received).
#[utoipa::path(method(post, get), path = "/api/activity/MedalsNum", operation_id = "promo_medals", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn medals(State(state): State<AppState>, member: Member) -> Answer {
    let currency = currency_of(&state, &member.user_id).await?;
    let now = state.promotions.now_ms();
    let mut num = 0;
    for c in state
        .promotions
        .campaigns()
        .await?
        .iter()
        .filter(|c| c.running(now))
        .take(50)
    {
        let (_, s) = state
            .promotions
            .standing(c.id, &member.user_id, currency)
            .await?;
        if s.status == 1 {
            num += 1;
        }
    }
    let received = state
        .promotions
        .applications_of(&member.user_id)
        .await?
        .len();
    Ok(ok(json!({"num": num, "received": received})))
}

// ---------------------------------------------------------------- referrals

fn rules_json(s: &domain::promo::referral::ReferralSettings) -> Value {
    json!({
        "min_deposit": s.min_deposit.normalize().to_string(),
        "gift": s.gift.normalize().to_string(),
        "days": s.days,
        "turnover_multiple": s.turnover_multiple.normalize().to_string(),
    })
}

/// `user/invite`: the member's invite code, referral records (username,
/// created, action 1 first deposit / 2 promotion, bonus) and totals.
#[utoipa::path(method(post, get), path = "/api/user/invite", operation_id = "promo_invite", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn invite(State(state): State<AppState>, member: Member) -> Answer {
    let code = state.promotions.invite_code(&member.user_id).await?;
    let list = state.promotions.referral_records(&member.user_id).await?;
    let settings = state.promotions.referral_settings().await?;
    let total: rust_decimal::Decimal = list
        .iter()
        .map(|r| r.bonus.parse::<rust_decimal::Decimal>().unwrap_or_default())
        .sum();
    Ok(ok(json!({
        "code": code,
        "count": list.len(),
        "total_bonus": total.normalize().to_string(),
        "list": list,
        "rules": rules_json(&settings),
    })))
}

/// `user/invitetemplate`: what a member shares: the code, the registration
/// link (the `action=register` fragment of spec 001 section 2.2 with the
/// code) and the rules.
#[utoipa::path(method(post, get), path = "/api/user/invitetemplate", operation_id = "promo_invite_template", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn invite_template(State(state): State<AppState>, member: Member) -> Answer {
    let code = state.promotions.invite_code(&member.user_id).await?;
    let settings = state.promotions.referral_settings().await?;
    Ok(ok(json!({
        "code": code,
        "link": format!("/#action=register&invite_code={code}"),
        "rules": rules_json(&settings),
    })))
}

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(
        sign_in,
        task_list,
        task_bonus,
        act_info,
        act_main,
        act_index,
        act_apply,
        reissue_list,
        reissue_get,
        medals,
        invite,
        invite_template,
        goods_list,
        goods_info,
        buy,
    ))]
    struct Doc;
    <Doc as utoipa::OpenApi>::openapi()
}
