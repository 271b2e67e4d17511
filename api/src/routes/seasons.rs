//! Season calls (spec 001 sections 7.2 and 7.4): season info, season task
//! list and claims, home team (competitions, teams, myteam, chooseteam),
//! and the back office's season claim queue and task definitions.

use std::collections::BTreeMap;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use commands::engagement::seasons::{codes, SeasonFailure};
use domain::season::{format_time, ClaimOutcome, Phase, TaskDef, HOME_SPORTS};
use domain::staff::Role;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::AppState;
use crate::error::{ok, ApiError, Envelope};
use crate::routes::auth::Member;
use crate::transport::{Payload, ReadRoutes};

pub fn router() -> Router<AppState> {
    Router::new()
        .read_route(
            "/api/vipsystem/seasoninfo",
            post(season_info).get(season_info),
        )
        .read_route(
            "/api/vipsystem/seasontaskbonusinfo",
            post(task_info).get(task_info),
        )
        .route("/api/vipsystem/getseasontaskbonus", post(claim_task))
        .read_route(
            "/api/user/getcompetitions",
            post(competitions).get(competitions),
        )
        .read_route("/api/user/getteams", post(teams).get(teams))
        .read_route("/api/user/myteam", post(my_team).get(my_team))
        .route("/api/activity/chooseteam", post(choose_team))
        .read_route(
            "/api/vipsystem/seasonbonusinfo",
            post(rank_info).get(rank_info),
        )
        .route("/api/vipsystem/getseasonbonus", post(rank_claim))
    // activity/actinfo and activity/main dispatch on aid in
    // routes::promo (aid 13 comes back here).
}

pub fn staff_router() -> Router<AppState> {
    Router::new()
        .route("/api/backoffice/season/claims", get(claim_queue))
        .route("/api/backoffice/season/claim", get(claim_detail))
        .route("/api/backoffice/season/claims/review", post(review))
        .route(
            "/api/backoffice/season/tasks",
            get(task_defs).post(save_task_def),
        )
        .route("/api/backoffice/season/fulfilment", get(fulfilment))
        .route("/api/backoffice/season/fulfilment/ship", post(ship))
        .route("/api/backoffice/season/ranks", post(set_rank))
        .route("/api/backoffice/season/ranking", get(ranking))
}

// ---------------------------------------------------------------- rank rewards

#[derive(Deserialize, Default, utoipa::ToSchema)]
struct RankBody {
    #[serde(default)]
    seasonid: Option<Value>,
    #[serde(default)]
    sid: Option<Value>,
    #[serde(default)]
    aid: Option<Value>,
    #[serde(default, rename = "actRand")]
    act_rand: Option<String>,
    #[serde(default)]
    size: Option<String>,
    /// The page's language (zhh, eng, tha): the prize (`jiangpin`) is named
    /// in it; otherwise in the member's market language.
    #[serde(default)]
    lang: Option<String>,
}

/// The language the prize is named in: the page's `lang` when it is one of
/// zhh, eng, tha, else the member's market language (`market` of `account`).
fn prize_lang(body: &RankBody, account: &domain::account::Account) -> &'static str {
    member_lang(body.lang.as_deref(), account)
}

/// The language a member reads: `lang` when it is one of zhh, eng, tha,
/// else the member's market language, else eng.
fn member_lang(lang: Option<&str>, account: &domain::account::Account) -> &'static str {
    match lang.map(str::trim) {
        Some("zhh") => "zhh",
        Some("eng") => "eng",
        Some("tha") => "tha",
        _ => account
            .profile
            .as_ref()
            .map(|p| p.market.code())
            .unwrap_or("eng"),
    }
}

/// The season rank rewards address: `seasonid`/`sid`, default 3 (spec 001
/// section 9: season id 3 for the season bonus).
fn rank_season(body: &RankBody) -> Result<u32, ApiError> {
    match body.seasonid.as_ref().or(body.sid.as_ref()) {
        None => Ok(3),
        Some(v) => number(v).ok_or_else(|| bad_params("seasonid")),
    }
}

#[utoipa::path(post, path = "/api/vipsystem/seasonbonusinfo", operation_id = "seasons_rank_info", tag = crate::openapi::MEMBER, request_body = RankBody, responses(crate::openapi::MemberAnswers))]
async fn rank_info(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<RankBody>,
) -> Answer {
    let sid = rank_season(&body)?;
    let account = state.accounts.load(&member.user_id).await?;
    let info = state
        .seasons
        .rank_info_in(sid, &member.user_id, prize_lang(&body, &account))
        .await?;
    Ok(ok(json!({"aUserActInfo": info, "actRand": info.act_rand})))
}

async fn claim_rank_for(state: &AppState, member_id: &str, body: &RankBody) -> Answer {
    let sid = rank_season(body)?;
    if body.size.as_deref().is_some_and(|s| s.len() > 8)
        || body.act_rand.as_deref().is_some_and(|s| s.len() > 64)
    {
        return Err(bad_params("size or actRand"));
    }
    let account = state.accounts.load(member_id).await?;
    let currency = account
        .profile
        .as_ref()
        .map(|p| p.currency)
        .ok_or(ApiError::Code(domain::Code::NOT_LOGGED_IN))?;
    let address = account
        .address
        .as_ref()
        .and_then(|a| serde_json::to_string(a).ok())
        .filter(|a| !a.is_empty() && a != "{}");
    let info = state
        .seasons
        .claim_rank(
            sid,
            member_id,
            currency,
            body.act_rand.as_deref(),
            body.size.as_deref(),
            address,
            prize_lang(body, &account),
        )
        .await?;
    Ok(Json(Envelope {
        status: 0,
        msg: "Received successfully".into(),
        data: json!({"jiangpin": info.jiangpin, "aUserActInfo": info}),
    }))
}

#[utoipa::path(post, path = "/api/vipsystem/getseasonbonus", operation_id = "seasons_rank_claim", tag = crate::openapi::MEMBER, request_body = RankBody, responses(crate::openapi::MemberAnswers))]
async fn rank_claim(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<RankBody>,
) -> Answer {
    claim_rank_for(&state, &member.user_id, &body).await
}

fn aid13(body: &RankBody) -> Result<(), ApiError> {
    match body.aid.as_ref().and_then(number) {
        Some(13) => Ok(()),
        _ => Err(bad_params("aid (13)")),
    }
}

/// `activity/actinfo` and `activity/main` with aid 13, from the promotions
/// dispatcher (which reads the body as JSON first).
pub(crate) async fn activity_13(
    state: AppState,
    member: Member,
    body: Value,
    main: bool,
) -> Answer {
    let body: RankBody = serde_json::from_value(body).map_err(|_| bad_params("body"))?;
    if main {
        activity_main(State(state), member, Payload(body)).await
    } else {
        activity_info(State(state), member, Payload(body)).await
    }
}

/// `activity/actinfo` with aid 13 and sid: data.aUserActInfo, data.actRand.
#[utoipa::path(post, path = "/api/activity/actinfo", operation_id = "seasons_activity_info", tag = crate::openapi::MEMBER, request_body = RankBody, responses(crate::openapi::MemberAnswers))]
async fn activity_info(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<RankBody>,
) -> Answer {
    aid13(&body)?;
    rank_info(State(state), member, Payload(body)).await
}

/// `activity/main` with aid 13, actRand, sid, optional size: the claim.
#[utoipa::path(post, path = "/api/activity/main", operation_id = "seasons_activity_main", tag = crate::openapi::MEMBER, request_body = RankBody, responses(crate::openapi::MemberAnswers))]
async fn activity_main(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<RankBody>,
) -> Answer {
    aid13(&body)?;
    if body.act_rand.as_deref().unwrap_or_default().is_empty() {
        return Err(bad_params("actRand"));
    }
    claim_rank_for(&state, &member.user_id, &body).await
}

type Answer = Result<Json<Envelope<Value>>, ApiError>;

impl From<SeasonFailure> for ApiError {
    fn from(e: SeasonFailure) -> Self {
        match e {
            SeasonFailure::Refused(status, msg) => ApiError::Answer {
                status,
                msg,
                data: Value::Null,
            },
            SeasonFailure::Internal(e) => ApiError::Internal(e),
        }
    }
}

fn season_json(id: u32, name: &str, start: i64, end: i64) -> Value {
    json!({
        "seasonid": id,
        "name": name,
        "starttime": format_time(start),
        "endtime": format_time(end),
        "start_ms": start,
        "end_ms": end,
    })
}

/// `seasoninfo` (also `customer.seasoninfo`): the running season, or
/// `status: "off-season"` with the previous and next season.
pub fn season_info_value(state: &AppState) -> Value {
    let now = state.seasons.now_ms();
    match state.seasons.calendar().phase_at(now) {
        Phase::InSeason(s) => {
            let mut v = season_json(s.id, &s.name, s.start_ms, s.end_ms);
            v["status"] = json!("season");
            v["daysleft"] = json!((s.end_ms - now) / domain::season::DAY_MS);
            v
        }
        Phase::OffSeason { previous, next } => json!({
            "status": "off-season",
            "seasonid": 0,
            "previous": previous.map(|s| season_json(s.id, &s.name, s.start_ms, s.end_ms)),
            "next": next.map(|s| season_json(s.id, &s.name, s.start_ms, s.end_ms)),
        }),
    }
}

#[utoipa::path(method(post, get), path = "/api/vipsystem/seasoninfo", operation_id = "seasons_season_info", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn season_info(State(state): State<AppState>) -> Answer {
    Ok(ok(season_info_value(&state)))
}

#[derive(Deserialize, Default, utoipa::ToSchema)]
struct TaskInfoBody {
    #[serde(default)]
    seasonid: Option<Value>,
    /// The page's language (zhh, eng, tha): task texts (`taskdesc`,
    /// `bonusname`) are given in it; otherwise in the member's market
    /// language.
    #[serde(default)]
    lang: Option<String>,
}

#[utoipa::path(post, path = "/api/vipsystem/seasontaskbonusinfo", operation_id = "seasons_task_info", tag = crate::openapi::MEMBER, request_body = TaskInfoBody, responses(crate::openapi::MemberAnswers))]
async fn task_info(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<TaskInfoBody>,
) -> Answer {
    let season = match body.seasonid.as_ref() {
        None | Some(Value::Null) => None,
        Some(v) => Some(number(v).ok_or_else(|| bad_params("seasonid"))?),
    };
    let account = state.accounts.load(&member.user_id).await?;
    let lang = member_lang(body.lang.as_deref(), &account);
    let (season, list, active) = state
        .seasons
        .task_list(&member.user_id, season, lang)
        .await?;
    Ok(ok(json!({
        "season": season_json(season.id, &season.name, season.start_ms, season.end_ms),
        "list": list,
        "activedays": active,
        "needdays": state.seasons.rule().min_active_days,
    })))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct ClaimBody {
    id: Value,
}

fn number(v: &Value) -> Option<u32> {
    match v {
        Value::Number(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn bad_params(detail: &str) -> ApiError {
    ApiError::Answer {
        status: domain::Code::BAD_PARAMETERS.0,
        msg: format!("Invalid request parameters: {detail}"),
        data: Value::Null,
    }
}

/// `getseasontaskbonus` (id): data.needcheck 0 paid at once, 1 waiting for
/// customer-service review; msg says which.
#[utoipa::path(post, path = "/api/vipsystem/getseasontaskbonus", operation_id = "seasons_claim_task", tag = crate::openapi::MEMBER, request_body = ClaimBody, responses(crate::openapi::MemberAnswers))]
async fn claim_task(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<ClaimBody>,
) -> Answer {
    let id = number(&body.id).ok_or_else(|| bad_params("id"))?;
    let account = state.accounts.load(&member.user_id).await?;
    let currency = account
        .profile
        .as_ref()
        .map(|p| p.currency)
        .ok_or(ApiError::Code(domain::Code::NOT_LOGGED_IN))?;
    let outcome = state.seasons.claim(&member.user_id, currency, id).await?;
    let (needcheck, msg, cash, claim_status) = match outcome {
        ClaimOutcome::Paid { cash, .. } => (0, "Received successfully", cash, "received"),
        ClaimOutcome::Queued { cash, .. } => (
            1,
            "Submitted, waiting for customer service review",
            cash,
            "review",
        ),
        ClaimOutcome::Rejected { reason } => {
            return Err(ApiError::Answer {
                status: -64007,
                msg: format!("The claim was rejected: {reason}"),
                data: json!({"needcheck": 1}),
            })
        }
    };
    Ok(Json(Envelope {
        status: 0,
        msg: msg.into(),
        data: json!({"id": id, "needcheck": needcheck, "cash": cash.normalize().to_string(), "claim": claim_status}),
    }))
}

// ---------------------------------------------------------------- home team

/// A stable team id from its name (the catalogue keys games, not teams).
pub fn team_id(sport_id: u64, name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ sport_id;
    for b in name.trim().to_lowercase().bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h % 2_000_000_000 + 1
}

#[derive(Deserialize, Default, utoipa::ToSchema)]
struct SportBody {
    #[serde(default)]
    sportid: Option<Value>,
}

fn home_sport(v: &Option<Value>) -> Result<u64, ApiError> {
    let sport = v
        .as_ref()
        .and_then(number)
        .ok_or_else(|| bad_params("sportid"))?;
    if !HOME_SPORTS.contains(&sport) {
        return Err(bad_params("sportid (1 football, 3 basketball)"));
    }
    Ok(sport as u64)
}

#[utoipa::path(post, path = "/api/user/getcompetitions", operation_id = "seasons_competitions", tag = crate::openapi::MEMBER, request_body = SportBody, responses(crate::openapi::MemberAnswers))]
async fn competitions(State(state): State<AppState>, Payload(body): Payload<SportBody>) -> Answer {
    let sport = home_sport(&body.sportid)?;
    let list = state.live.read(|c| {
        let mut list = Vec::new();
        for region in c.regions_of(sport) {
            for comp in c.competitions_of(region.id) {
                list.push(json!({"id": comp.id, "name": comp.name}));
            }
        }
        list
    });
    Ok(ok(json!({"list": list})))
}

#[derive(Deserialize, Default, utoipa::ToSchema)]
struct TeamsBody {
    #[serde(default)]
    cid: Option<Value>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    sportid: Option<Value>,
}

/// Teams of the catalogue for `sport` (all competitions, or `cid`),
/// by id, whose names contain `name`.
fn find_teams(state: &AppState, sport: Option<u64>, cid: Option<u64>, name: &str) -> Vec<Value> {
    let needle = name.trim().to_lowercase();
    state.live.read(|c| {
        let mut teams: BTreeMap<String, Value> = BTreeMap::new();
        for comp in c.competitions().values() {
            if cid.is_some_and(|cid| cid != comp.id) {
                continue;
            }
            let Some(sport_id) = c.regions().get(&comp.region_id).map(|r| r.sport_id) else {
                continue;
            };
            if sport.is_some_and(|s| s != sport_id) || !HOME_SPORTS.contains(&(sport_id as u32)) {
                continue;
            }
            for game in c.games_of(comp.id) {
                for team in [Some(&game.team1_name), game.team2_name.as_ref()]
                    .into_iter()
                    .flatten()
                {
                    if team.is_empty()
                        || (!needle.is_empty() && !team.to_lowercase().contains(&needle))
                    {
                        continue;
                    }
                    let id = team_id(sport_id, team);
                    teams.entry(team.to_lowercase()).or_insert_with(
                        || json!({"id": id, "vbet_id": id, "sportid": sport_id, "name": team}),
                    );
                }
            }
        }
        teams.into_values().take(500).collect()
    })
}

#[utoipa::path(post, path = "/api/user/getteams", operation_id = "seasons_teams", tag = crate::openapi::MEMBER, request_body = TeamsBody, responses(crate::openapi::MemberAnswers))]
async fn teams(State(state): State<AppState>, Payload(body): Payload<TeamsBody>) -> Answer {
    let cid = body.cid.as_ref().and_then(number).map(u64::from);
    let name = body.name.unwrap_or_default();
    if name.chars().count() > 50 {
        return Err(bad_params("name"));
    }
    if cid.is_none() && name.trim().is_empty() {
        return Err(bad_params("cid or name"));
    }
    let sport = body.sportid.as_ref().and_then(number).map(u64::from);
    Ok(ok(json!({"list": find_teams(&state, sport, cid, &name)})))
}

#[derive(Deserialize, Default, utoipa::ToSchema)]
struct TeamBody {
    #[serde(default)]
    teamid: Option<Value>,
    #[serde(default)]
    sportid: Option<Value>,
}

async fn my_team_value(state: &AppState, member_id: &str) -> Result<Value, ApiError> {
    let held = state.seasons.home_teams(member_id).await?;
    let mut out = json!({});
    for (sport, key) in [(1u32, "football"), (3u32, "basketball")] {
        let team = held.iter().find(|t| t.0 == sport);
        let may = state.seasons.may_choose(member_id, sport).await?;
        out[format!("my{key}status")] = json!(if may { 1 } else { 0 });
        out[format!("my{key}")] = match team {
            Some((_, id, name, _)) => {
                json!({"vbet_id": id, "id": id, "name": name, "sportid": sport})
            }
            None => Value::Null,
        };
    }
    out["seasoninfo"] = season_info_value(state);
    Ok(out)
}

/// `myteam` without teamid: the two home teams and whether each may be
/// chosen now (myfootballstatus, mybasketballstatus: 1 may choose); with
/// teamid and sportid: chooses (as `chooseteam`).
#[utoipa::path(post, path = "/api/user/myteam", operation_id = "seasons_my_team", tag = crate::openapi::MEMBER, request_body = TeamBody, responses(crate::openapi::MemberAnswers))]
async fn my_team(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<TeamBody>,
) -> Answer {
    if body.teamid.is_some() {
        choose(&state, &member.user_id, &body).await?;
    }
    Ok(ok(my_team_value(&state, &member.user_id).await?))
}

async fn choose(state: &AppState, member_id: &str, body: &TeamBody) -> Result<(), ApiError> {
    let sport = home_sport(&body.sportid)?;
    let team = body.teamid.as_ref().and_then(|v| match v {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    });
    let team = team.ok_or_else(|| bad_params("teamid"))?;
    let name = state.live.read(|c| {
        for comp in c.competitions().values() {
            if c.regions().get(&comp.region_id).map(|r| r.sport_id) != Some(sport) {
                continue;
            }
            for game in c.games_of(comp.id) {
                for t in [Some(&game.team1_name), game.team2_name.as_ref()]
                    .into_iter()
                    .flatten()
                {
                    if team_id(sport, t) == team {
                        return Some(t.clone());
                    }
                }
            }
        }
        None
    });
    let Some(name) = name else {
        return Err(ApiError::Answer {
            status: codes::BAD_TEAM,
            msg: "Team not found".into(),
            data: Value::Null,
        });
    };
    state
        .seasons
        .choose_team(member_id, sport as u32, &team.to_string(), &name)
        .await?;
    Ok(())
}

#[utoipa::path(post, path = "/api/activity/chooseteam", operation_id = "seasons_choose_team", tag = crate::openapi::MEMBER, request_body = TeamBody, responses(crate::openapi::MemberAnswers))]
async fn choose_team(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<TeamBody>,
) -> Answer {
    choose(&state, &member.user_id, &body).await?;
    Ok(ok(my_team_value(&state, &member.user_id).await?))
}

// ---------------------------------------------------------------- back office

struct StaffError(StatusCode, i32, String);

impl IntoResponse for StaffError {
    fn into_response(self) -> Response {
        (
            self.0,
            Json(json!({"status": self.1, "msg": self.2, "data": null})),
        )
            .into_response()
    }
}

impl From<SeasonFailure> for StaffError {
    fn from(e: SeasonFailure) -> Self {
        match e {
            SeasonFailure::Refused(code, msg) => StaffError(StatusCode::BAD_REQUEST, code, msg),
            SeasonFailure::Internal(e) => {
                tracing::error!(error = %e, "season back office request failed");
                StaffError(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    domain::Code::INTERNAL.0,
                    domain::Code::INTERNAL.message(),
                )
            }
        }
    }
}

/// The staff member behind the bearer token, if their role is one of
/// `roles` (admin always).
async fn staff(
    state: &AppState,
    headers: &HeaderMap,
    roles: &[Role],
) -> Result<String, StaffError> {
    let token = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .ok_or(StaffError(
            StatusCode::UNAUTHORIZED,
            -401,
            "Not logged in".into(),
        ))?;
    let staff = state
        .staff
        .authenticate(&token)
        .await
        .map_err(|_| StaffError(StatusCode::UNAUTHORIZED, -401, "Not logged in".into()))?;
    if staff.role == Role::Admin || roles.contains(&staff.role) {
        Ok(staff.id.to_string())
    } else {
        Err(StaffError(
            StatusCode::FORBIDDEN,
            -403,
            "Not allowed for your role".into(),
        ))
    }
}

fn done(data: Value) -> Json<Value> {
    Json(json!({"status": 0, "msg": "OK", "data": data}))
}

#[derive(Deserialize, Default, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct QueueParams {
    #[serde(default)]
    state: Option<String>,
}

/// Claims waiting for support (state=pending, the default), or in another
/// state (paid, approved, rejected, all).
#[utoipa::path(get, path = "/api/backoffice/season/claims", operation_id = "seasons_claim_queue", tag = crate::openapi::BACK_OFFICE, params(QueueParams), responses(crate::openapi::StaffAnswers))]
async fn claim_queue(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(params): Query<QueueParams>,
) -> Result<Json<Value>, StaffError> {
    staff(&state, &headers, &[Role::Support]).await?;
    let wanted = match params.state.as_deref() {
        None | Some("pending") => "pending",
        Some("all") => "",
        Some(s @ ("paid" | "approved" | "rejected")) => s,
        Some(other) => {
            return Err(StaffError(
                StatusCode::BAD_REQUEST,
                domain::Code::BAD_PARAMETERS.0,
                format!("Invalid request parameters: state '{other}'"),
            ))
        }
    };
    let rows = state.seasons.claims(wanted, 500).await?;
    Ok(done(json!(rows)))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct ClaimParams {
    reference: String,
}

/// One claim with the member's task history beside it.
#[utoipa::path(get, path = "/api/backoffice/season/claim", operation_id = "seasons_claim_detail", tag = crate::openapi::BACK_OFFICE, params(ClaimParams), responses(crate::openapi::StaffAnswers))]
async fn claim_detail(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(params): Query<ClaimParams>,
) -> Result<Json<Value>, StaffError> {
    staff(&state, &headers, &[Role::Support]).await?;
    let claim = state
        .seasons
        .claim_row(&params.reference)
        .await?
        .ok_or(StaffError(
            StatusCode::NOT_FOUND,
            -404,
            "Claim not found".into(),
        ))?;
    let history = state
        .seasons
        .history(claim.season_id as u32, &claim.member_id)
        .await?;
    let progress = state
        .seasons
        .progress(claim.season_id as u32, &claim.member_id)
        .await?;
    Ok(done(json!({
        "claim": claim,
        "history": history,
        "activedays": progress.active_days(state.seasons.rule()),
    })))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct ReviewBody {
    reference: String,
    approve: bool,
    #[serde(default)]
    reason: String,
}

/// Support approves (pays, once) or rejects (with a reason) a claim.
#[utoipa::path(post, path = "/api/backoffice/season/claims/review", operation_id = "seasons_review", tag = crate::openapi::BACK_OFFICE, request_body = ReviewBody, responses(crate::openapi::StaffAnswers))]
async fn review(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Json<ReviewBody>, axum::extract::rejection::JsonRejection>,
) -> Result<Json<Value>, StaffError> {
    let staff_id = staff(&state, &headers, &[Role::Support]).await?;
    let Json(body) = body.map_err(|e| {
        StaffError(
            StatusCode::BAD_REQUEST,
            domain::Code::BAD_PARAMETERS.0,
            format!("Invalid request parameters: {}", e.body_text()),
        )
    })?;
    if body.reference.len() > 200 || body.reason.chars().count() > 500 {
        return Err(StaffError(
            StatusCode::BAD_REQUEST,
            domain::Code::BAD_PARAMETERS.0,
            "Invalid request parameters: too long".into(),
        ));
    }
    let row = state
        .seasons
        .review(&body.reference, body.approve, &body.reason, &staff_id)
        .await?;
    Ok(done(json!(row)))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct SeasonParams {
    seasonid: u32,
}

#[utoipa::path(get, path = "/api/backoffice/season/tasks", operation_id = "seasons_task_defs", tag = crate::openapi::BACK_OFFICE, params(SeasonParams), responses(crate::openapi::StaffAnswers))]
async fn task_defs(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(params): Query<SeasonParams>,
) -> Result<Json<Value>, StaffError> {
    staff(&state, &headers, &[Role::Support]).await?;
    let defs = state.seasons.task_defs(params.seasonid).await?;
    Ok(done(json!(defs)))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct DefBody {
    seasonid: u32,
    /// The task definition (docs/seasons.md).
    #[schema(value_type = Object)]
    task: TaskDef,
}

#[derive(Deserialize, Default, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct FulfilmentParams {
    #[serde(default)]
    state: Option<String>,
}

/// Physical prizes to ship (state=to_ship, the default) or shipped.
#[utoipa::path(get, path = "/api/backoffice/season/fulfilment", operation_id = "seasons_fulfilment", tag = crate::openapi::BACK_OFFICE, params(FulfilmentParams), responses(crate::openapi::StaffAnswers))]
async fn fulfilment(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(params): Query<FulfilmentParams>,
) -> Result<Json<Value>, StaffError> {
    staff(&state, &headers, &[Role::Support]).await?;
    let wanted = match params.state.as_deref() {
        None | Some("to_ship") => "to_ship",
        Some("shipped") => "shipped",
        Some(other) => {
            return Err(StaffError(
                StatusCode::BAD_REQUEST,
                domain::Code::BAD_PARAMETERS.0,
                format!("Invalid request parameters: state '{other}' (to_ship or shipped)"),
            ))
        }
    };
    Ok(done(json!(state.seasons.fulfilment(wanted).await?)))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct ShipBody {
    seasonid: u32,
    member_id: String,
}

#[utoipa::path(post, path = "/api/backoffice/season/fulfilment/ship", operation_id = "seasons_ship", tag = crate::openapi::BACK_OFFICE, request_body = ShipBody, responses(crate::openapi::StaffAnswers))]
async fn ship(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Json<ShipBody>, axum::extract::rejection::JsonRejection>,
) -> Result<Json<Value>, StaffError> {
    let staff_id = staff(&state, &headers, &[Role::Support]).await?;
    let Json(body) = body.map_err(|e| {
        StaffError(
            StatusCode::BAD_REQUEST,
            domain::Code::BAD_PARAMETERS.0,
            format!("Invalid request parameters: {}", e.body_text()),
        )
    })?;
    let shipped = state
        .seasons
        .ship(body.seasonid, &body.member_id, &staff_id)
        .await?;
    Ok(done(json!({"shipped": shipped})))
}

#[derive(Deserialize)]
struct RankingParams {
    seasonid: u32,
}

/// A season's ranking by honour value (support and admin): its state (none,
/// live, final) and the rows, best first per market.
#[utoipa::path(get, path = "/api/backoffice/season/ranking", operation_id = "seasons_ranking", tag = crate::openapi::BACK_OFFICE, params(("seasonid" = u32, Query)), responses(crate::openapi::StaffAnswers))]
async fn ranking(
    State(state): State<AppState>,
    headers: HeaderMap,
    params: Result<Query<RankingParams>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Value>, StaffError> {
    staff(&state, &headers, &[Role::Support]).await?;
    let Query(params) = params.map_err(|e| {
        StaffError(
            StatusCode::BAD_REQUEST,
            domain::Code::BAD_PARAMETERS.0,
            format!("Invalid request parameters: {}", e.body_text()),
        )
    })?;
    let ranking_state = state.seasons.ranking_state(params.seasonid).await?;
    let rows = state.seasons.ranking(params.seasonid, 500).await?;
    Ok(done(
        json!({"seasonid": params.seasonid, "state": ranking_state.unwrap_or_default(), "list": rows}),
    ))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct RankSet {
    seasonid: u32,
    member_id: String,
    rank: u32,
    #[serde(default)]
    honour: rust_decimal::Decimal,
}

/// Admin staff set a member's season rank by hand (a correction; the
/// ranking job computes the others and never overwrites this one).
#[utoipa::path(post, path = "/api/backoffice/season/ranks", operation_id = "seasons_set_rank", tag = crate::openapi::BACK_OFFICE, request_body = RankSet, responses(crate::openapi::StaffAnswers))]
async fn set_rank(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Json<RankSet>, axum::extract::rejection::JsonRejection>,
) -> Result<Json<Value>, StaffError> {
    staff(&state, &headers, &[]).await?;
    let Json(body) = body.map_err(|e| {
        StaffError(
            StatusCode::BAD_REQUEST,
            domain::Code::BAD_PARAMETERS.0,
            format!("Invalid request parameters: {}", e.body_text()),
        )
    })?;
    if body.rank > 10 || body.member_id.len() > 64 {
        return Err(StaffError(
            StatusCode::BAD_REQUEST,
            domain::Code::BAD_PARAMETERS.0,
            "Invalid request parameters: rank 0 to 10".into(),
        ));
    }
    state
        .seasons
        .set_rank(body.seasonid, &body.member_id, body.rank, body.honour)
        .await?;
    Ok(done(json!(
        state
            .seasons
            .rank_info(body.seasonid, &body.member_id)
            .await?
    )))
}

/// Admin staff add or change a season task definition.
#[utoipa::path(post, path = "/api/backoffice/season/tasks", operation_id = "seasons_save_task_def", tag = crate::openapi::BACK_OFFICE, request_body = DefBody, responses(crate::openapi::StaffAnswers))]
async fn save_task_def(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Json<DefBody>, axum::extract::rejection::JsonRejection>,
) -> Result<Json<Value>, StaffError> {
    let staff_id = staff(&state, &headers, &[]).await?;
    let Json(body) = body.map_err(|e| {
        StaffError(
            StatusCode::BAD_REQUEST,
            domain::Code::BAD_PARAMETERS.0,
            format!("Invalid request parameters: {}", e.body_text()),
        )
    })?;
    state
        .seasons
        .save_def(body.seasonid, body.task, &staff_id)
        .await?;
    Ok(done(json!(state.seasons.task_defs(body.seasonid).await?)))
}

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(
        season_info,
        task_info,
        claim_task,
        competitions,
        teams,
        my_team,
        choose_team,
        rank_info,
        rank_claim,
        activity_info,
        activity_main,
        claim_queue,
        claim_detail,
        review,
        task_defs,
        save_task_def,
        fulfilment,
        ship,
        set_rank,
        ranking,
        dev_activity,
        dev_end
    ))]
    struct Doc;
    #[allow(unused_mut)]
    let mut doc = <Doc as utoipa::OpenApi>::openapi();
    crate::openapi::get_alias(&mut doc, "/api/vipsystem/seasontaskbonusinfo");
    crate::openapi::get_alias(&mut doc, "/api/user/getcompetitions");
    crate::openapi::get_alias(&mut doc, "/api/user/getteams");
    crate::openapi::get_alias(&mut doc, "/api/user/myteam");
    crate::openapi::get_alias(&mut doc, "/api/vipsystem/seasonbonusinfo");
    crate::openapi::get_alias(&mut doc, "/api/activity/actinfo");
    doc
}

/// `POST /api/dev/season/activity` (DEMO=1 only, plain JSON; a test aid,
/// never in production): fast-forwards a member's season progress. Makes
/// sure the member `username` exists (CNY, password `password`), then
/// appends a credited deposit of 500 (an active day) on each of the last
/// `days` days of the running season (1 to 30, today included), exactly as
/// the payments issue's `DepositCredited` looks, and waits for the season
/// progress pass to count them. Answers the member's task list.
pub fn dev_router() -> Router<AppState> {
    Router::new()
        .route("/api/dev/season/activity", post(dev_activity))
        .route("/api/dev/season/end", post(dev_end))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
struct DevActivity {
    username: String,
    password: String,
    days: u32,
}

#[utoipa::path(post, path = "/api/dev/season/activity", operation_id = "seasons_dev_activity", tag = crate::openapi::DEV, request_body = DevActivity, responses(crate::openapi::PlainAnswers))]
async fn dev_activity(State(state): State<AppState>, Json(body): Json<DevActivity>) -> Answer {
    if !(1..=30).contains(&body.days) {
        return Err(bad_params("days must be 1 to 30"));
    }
    let now = state.seasons.now_ms();
    let Some(season) = state.seasons.calendar().current(now).cloned() else {
        return Err(ApiError::Answer {
            status: codes::NO_SEASON,
            msg: "Off-season".into(),
            data: Value::Null,
        });
    };
    let user_id = state
        .accounts
        .ensure_member(&body.username, &body.password, domain::Currency::Cny)
        .await
        .map_err(|e| bad_params(&e.to_string()))?;
    for day in 0..body.days as i64 {
        let at = now - day * domain::season::DAY_MS;
        if at < season.start_ms {
            break;
        }
        let id = format!(
            "dev-season-{user_id}-{at}-{}",
            crate::routes::vip::rand_suffix()
        );
        crate::routes::vip::append_event(
            &state,
            "Deposit",
            &id,
            "DepositCredited",
            json!({"DepositCredited": {
            "member_id": user_id, "currency": "CNY", "amount": "500",
            "order_id": id, "channel": "bank", "credited_at": at}}),
        )
        .await?;
    }
    state
        .seasons
        .progress_settle(std::time::Duration::from_secs(10))
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    let (_, list, active) = state
        .seasons
        .task_list(&user_id, Some(season.id), "eng")
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(ok(
        json!({"user_id": user_id, "seasonid": season.id, "activedays": active, "list": list}),
    ))
}

/// `POST /api/dev/season/end` (DEMO=1 only, plain JSON, no body; a test
/// aid, never in production): ends the running season now, so the rank
/// reward claim can be shown. The seasons' clock (in this process) moves to
/// the season's calendar end; the boundary job's pass writes `SeasonEnded`
/// as at the real end; the VIP read model passes it; the ranking job's pass
/// freezes the ranking from the VIP ledger. Answers the season, the
/// ranking's state and its members. Between seasons: -64004. Once a season
/// is ended this way the process stays in the off-season (a restart returns
/// to the calendar; the season stays ended, its ranking final).
#[utoipa::path(post, path = "/api/dev/season/end", operation_id = "seasons_dev_end", tag = crate::openapi::DEV, responses(crate::openapi::PlainAnswers))]
async fn dev_end(State(state): State<AppState>) -> Answer {
    let internal = |e: SeasonFailure| ApiError::Internal(e.to_string());
    let Some(season) = state.seasons.demo_end_season().await.map_err(internal)? else {
        return Err(ApiError::Answer {
            status: codes::NO_SEASON,
            msg: "Off-season".into(),
            data: Value::Null,
        });
    };
    state.runner.waker().notify_one();
    state
        .runner
        .settle(projections::vip::NAME, std::time::Duration::from_secs(10))
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    let frozen = state
        .seasons
        .ranking_settle(season.id, std::time::Duration::from_secs(10))
        .await
        .map_err(internal)?;
    let members = state
        .seasons
        .ranking(season.id, 1000)
        .await
        .map_err(internal)?
        .len();
    Ok(ok(json!({
        "seasonid": season.id,
        "ended_at": format_time(season.end_ms),
        "ranking": if frozen { "final" } else { "live" },
        "members": members,
    })))
}
