//! The member and visitor casino calls (spec 001 section 7.5, through the
//! request layer): the catalogue (`thirdgamelist`), favourites
//! (`thirdgamefavorite`), search (`casino/search`), the sections shown
//! (`thirdgameshowctl`) and launch (`casino_auth`, `casino_game_url`,
//! `gamelogin`, `gencatgametoken`, `getnewbstoken`).

use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::routing::post;
use axum::{Json, Router};
use commands::casino::catalogue::{Filter, Game};
use domain::casino::launch::{self, Launch, Mode};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::AppState;
use crate::error::{ok, ApiError, Envelope};
use crate::routes::auth::Member;
use crate::transport::{Payload, ReadRoutes, RequestMeta};

pub const GAME_NOT_FOUND: i32 = -70100;
pub const MAINTENANCE: i32 = -70101;
pub const NO_MODE: i32 = -70102;

type Answer = Result<Json<Envelope<Value>>, ApiError>;

pub fn router() -> Router<AppState> {
    Router::new()
        .read_route("/api/thirdgamelist", post(list).get(list))
        .route("/api/thirdgamefavorite", post(favorite).get(favorite))
        .read_route("/api/casino/search", post(search).get(search))
        .read_route("/api/thirdgameshowctl", post(show_ctl).get(show_ctl))
        .route("/api/casino_auth", post(casino_auth).get(casino_auth))
        .route("/api/casino_game_url", post(game_url).get(game_url))
        .route("/api/gamelogin", post(game_login).get(game_login))
        .route("/api/gencatgametoken", post(cat_token).get(cat_token))
        .route("/api/getnewbstoken", post(bs_token).get(bs_token))
}

/// The member when the request carries a valid `UserToken`, else a guest.
pub struct MaybeMember(pub Option<Member>);

impl FromRequestParts<AppState> for MaybeMember {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let has_token = parts
            .extensions
            .get::<RequestMeta>()
            .is_some_and(|m| m.user_token.is_some());
        if !has_token {
            return Ok(MaybeMember(None));
        }
        Ok(MaybeMember(
            Member::from_request_parts(parts, state).await.ok(),
        ))
    }
}

/// Numbers arrive as numbers or strings (query strings are strings).
fn number(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn text(v: &Value, max: usize) -> Result<Option<String>, ApiError> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) if s.trim().is_empty() => Ok(None),
        Value::String(s) if s.chars().count() <= max => Ok(Some(s.trim().to_string())),
        Value::Number(n) => Ok(Some(n.to_string())),
        _ => Err(invalid("a text field is too long or not text")),
    }
}

fn invalid(detail: &str) -> ApiError {
    ApiError::with_message(-70009, format!("Invalid request parameters: {detail}"))
}

fn page(params: &Value) -> (i64, i64) {
    let size = params
        .get("pagesize")
        .or_else(|| params.get("pn"))
        .and_then(number)
        .unwrap_or(60)
        .clamp(1, 200);
    let page = params
        .get("page")
        .and_then(number)
        .unwrap_or(1)
        .clamp(1, 10_000);
    ((page - 1) * size, size)
}

fn game_json(game: &Game, favorites: &[i64]) -> Value {
    let mut v = serde_json::to_value(game).unwrap_or(Value::Null);
    v["favorite"] = json!(u8::from(favorites.contains(&game.id)));
    v["demo"] = json!(game.provider == "demo");
    v
}

async fn favorites_of(state: &AppState, member: &Option<Member>) -> Result<Vec<i64>, ApiError> {
    match member {
        Some(m) => Ok(state.casino.catalogue.favorites(&m.user_id).await?),
        None => Ok(vec![]),
    }
}

/// `thirdgamelist {section, category, provider, type, favorite, mode,
/// page, pagesize}`: `data.list` (games), `total_count`, `providers`,
/// `categories`. `mode: "fun"` lists only games with fun mode (`/demo`).
#[utoipa::path(post, path = "/api/thirdgamelist", operation_id = "casino_list", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn list(
    State(state): State<AppState>,
    member: MaybeMember,
    Payload(params): Payload<Value>,
) -> Answer {
    let get = |k: &str| params.get(k).unwrap_or(&Value::Null);
    let (offset, limit) = page(&params);
    let favorites_only =
        get("favorite").as_bool().unwrap_or(false) || number(get("favorite")) == Some(1);
    if favorites_only && member.0.is_none() {
        return Err(ApiError::Code(domain::Code::NOT_LOGGED_IN));
    }
    let fun_only = match text(get("mode"), 10)?.as_deref() {
        None => false,
        Some("fun") => true,
        Some(_) => return Err(invalid("mode is fun or absent")),
    };
    let filter = Filter {
        section: text(get("section"), 40)?,
        fun_only,
        category: text(get("category"), 40)?,
        provider: text(get("provider"), 40)?,
        game_type: text(get("type"), 10)?.or(text(get("game_type"), 10)?),
        name: None,
        favorites_of: if favorites_only {
            member.0.as_ref().map(|m| m.user_id.clone())
        } else {
            None
        },
        include_disabled: false,
        offset,
        limit,
    };
    let catalogue = &state.casino.catalogue;
    let (total, games) = catalogue.list(&filter).await?;
    let favorites = favorites_of(&state, &member.0).await?;
    let providers: Vec<Value> = catalogue
        .providers()
        .await?
        .into_iter()
        .filter(|p| p.enabled)
        .map(|p| json!({"code": p.code, "name": p.name}))
        .collect();
    let categories = catalogue.categories().await?;
    let categories: Vec<_> = categories
        .into_iter()
        .filter(|c| filter.section.as_deref().is_none_or(|s| s == c.section))
        .collect();
    Ok(ok(json!({
        "list": games.iter().map(|g| game_json(g, &favorites)).collect::<Vec<_>>(),
        "total_count": total,
        "providers": providers,
        "categories": categories,
        "favorites": favorites,
    })))
}

/// `thirdgamefavorite {game_id, favorite: 1|0}` marks or unmarks; without
/// `game_id` lists. Members only.
#[utoipa::path(post, path = "/api/thirdgamefavorite", operation_id = "casino_favorite", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn favorite(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<Value>,
) -> Answer {
    let catalogue = &state.casino.catalogue;
    let ids = match params.get("game_id").or_else(|| params.get("gameid")) {
        None | Some(Value::Null) => catalogue.favorites(&member.user_id).await?,
        Some(v) => {
            let id = number(v).ok_or_else(|| invalid("game_id must be a number"))?;
            if catalogue.game(id).await?.is_none() {
                return Err(ApiError::with_message(GAME_NOT_FOUND, "Game not found"));
            }
            let on = match params.get("favorite") {
                None | Some(Value::Null) => true,
                Some(Value::Bool(b)) => *b,
                Some(v) => number(v).ok_or_else(|| invalid("favorite must be 1 or 0"))? != 0,
            };
            catalogue
                .set_favorite(&member.user_id, id, on, state.clock.now_ms())
                .await?
        }
    };
    Ok(ok(json!({ "list": ids })))
}

/// `casino/search {query, section, page, pagesize}`: `total_count` and
/// `games` (the search panel of spec 001 section 2.11).
#[utoipa::path(post, path = "/api/casino/search", operation_id = "casino_search", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn search(
    State(state): State<AppState>,
    member: MaybeMember,
    Payload(params): Payload<Value>,
) -> Answer {
    let get = |k: &str| params.get(k).unwrap_or(&Value::Null);
    let query = text(get("query"), 50)?
        .or(text(get("name"), 50)?)
        .ok_or_else(|| invalid("query is required"))?;
    let (offset, limit) = page(&params);
    let filter = Filter {
        section: text(get("section"), 40)?,
        name: Some(query),
        offset,
        limit,
        ..Filter::default()
    };
    let (total, games) = state.casino.catalogue.list(&filter).await?;
    let favorites = favorites_of(&state, &member.0).await?;
    Ok(ok(json!({
        "total_count": total,
        "games": games.iter().map(|g| game_json(g, &favorites)).collect::<Vec<_>>(),
    })))
}

/// `thirdgameshowctl`: which game sections show (`data.gameshow`); `bti`
/// (the sportsbook) is always on here.
#[utoipa::path(method(post, get), path = "/api/thirdgameshowctl", operation_id = "casino_show_ctl", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn show_ctl(State(state): State<AppState>) -> Answer {
    let mut gameshow = serde_json::Map::new();
    gameshow.insert("bti".into(), json!(1));
    for section in commands::casino::catalogue::SECTIONS {
        let (total, _) = state
            .casino
            .catalogue
            .list(&Filter {
                section: Some(section.to_string()),
                limit: 1,
                ..Filter::default()
            })
            .await?;
        gameshow.insert(section.replace('-', "_"), json!(u8::from(total > 0)));
    }
    Ok(ok(json!({ "gameshow": gameshow })))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct GameParams {
    #[serde(default, alias = "gameid", alias = "id")]
    game_id: Value,
    #[serde(default)]
    mode: Value,
    #[serde(default)]
    lan: Value,
}

async fn game_of(state: &AppState, id: &Value) -> Result<Game, ApiError> {
    let id = number(id).ok_or_else(|| invalid("game_id must be an integer"))?;
    match state.casino.catalogue.game(id).await? {
        Some(g) if g.enabled => Ok(g),
        _ => Err(ApiError::with_message(GAME_NOT_FOUND, "Game not found")),
    }
}

/// A real-mode launch: a token bound to member, game and currency.
async fn authorise(state: &AppState, member: &Member, game: &Game) -> Result<Value, ApiError> {
    if !game.types.real_mode {
        return Err(ApiError::with_message(
            NO_MODE,
            "This game has no real mode",
        ));
    }
    let provider = state.config.casino.providers.get(&game.provider);
    if provider.is_none_or(|p| p.games_url.is_empty()) {
        return Err(ApiError::with_message(
            MAINTENANCE,
            "This game is under maintenance",
        ));
    }
    // No real play while self-excluded or in a time-out (fun mode stays).
    state.safer.may_play(&member.user_id).await?;
    let account = state.accounts.load(&member.user_id).await?;
    let profile = account
        .profile
        .as_ref()
        .ok_or(ApiError::Code(domain::Code::NOT_LOGGED_IN))?;
    let currency = profile.currency;
    let (token, expires) = state
        .casino
        .tokens
        .issue(&member.user_id, game.id, &game.provider, currency, "real")
        .await?;
    let wallet = state
        .wallets
        .peek(&domain::wallet::WalletId::new(
            member.user_id.clone(),
            currency,
        ))
        .await?;
    Ok(json!({
        "has_error": "False",
        "token": token,
        "username": profile.username.as_str(),
        "balance": wallet.balances().main.to_string(),
        "currency": currency.code(),
        "id": member.user_id,
        "expires": expires,
    }))
}

/// The URL a launch opens (the provider's games URL with the parameters of
/// spec 001 section 7.5).
fn launch_url(
    state: &AppState,
    game: &Game,
    mode: Mode,
    auth: Option<&Value>,
    lan: &str,
) -> Result<String, ApiError> {
    let base = state
        .config
        .casino
        .providers
        .get(&game.provider)
        .map(|p| p.games_url.clone())
        .filter(|u| !u.is_empty())
        .ok_or_else(|| ApiError::with_message(MAINTENANCE, "This game is under maintenance"))?;
    let mut query: Vec<(String, String)> = vec![
        ("gameid".into(), game.extearnal_game_id.clone()),
        ("mode".into(), mode.as_str().into()),
        ("type".into(), game.provider.clone()),
        (
            "lan".into(),
            if lan.is_empty() {
                "eng".into()
            } else {
                lan.into()
            },
        ),
        ("partnerid".into(), "1054".into()),
    ];
    for pair in game.game_options.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        query.push((k.to_string(), v.to_string()));
    }
    if let Some(auth) = auth {
        for (field, name) in [
            ("token", "token"),
            ("username", "username"),
            ("balance", "balance"),
            ("currency", "currency"),
            ("id", "userid"),
        ] {
            query.push((
                name.into(),
                auth[field].as_str().unwrap_or_default().to_string(),
            ));
        }
    }
    let encoded =
        serde_urlencoded::to_string(&query).map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(format!("{base}?{encoded}"))
}

/// `casino_auth?game_id=N` (real mode, members).
#[utoipa::path(post, path = "/api/casino_auth", operation_id = "casino_casino_auth", tag = crate::openapi::MEMBER, request_body = GameParams, responses(crate::openapi::MemberAnswers))]
async fn casino_auth(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<GameParams>,
) -> Answer {
    let game = game_of(&state, &params.game_id).await?;
    let mut auth = authorise(&state, &member, &game).await?;
    let lan = params.lan.as_str().unwrap_or_default().to_string();
    auth["url"] = json!(launch_url(&state, &game, Mode::Real, Some(&auth), &lan)?);
    Ok(ok(auth))
}

/// Applies the launch-mode rules and answers `{mode, url}`, or the login
/// form (code 12) for a guest who needs to log in.
async fn launch(
    state: &AppState,
    member: &Option<Member>,
    params: &GameParams,
) -> Result<Value, ApiError> {
    let game = game_of(state, &params.game_id).await?;
    let requested = match &params.mode {
        Value::Null => None,
        v => Some(
            Mode::parse(
                v.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| v.to_string())
                    .as_str(),
            )
            .ok_or_else(|| invalid("mode is real, fun or view"))?,
        ),
    };
    let lan = params.lan.as_str().unwrap_or_default().to_string();
    match launch::decide(
        requested,
        member.is_some(),
        game.types.modes(),
        !game.link.is_empty(),
    ) {
        Launch::Login => Err(ApiError::Code(domain::Code::NOT_LOGGED_IN)),
        Launch::Unavailable => Err(ApiError::with_message(
            NO_MODE,
            "This game cannot be opened in this mode",
        )),
        Launch::Link => Ok(json!({"mode": "real", "url": game.link, "loginurl": game.link})),
        Launch::Play(Mode::Real) => {
            let Some(member) = member else {
                return Err(ApiError::Code(domain::Code::NOT_LOGGED_IN));
            };
            let auth = authorise(state, member, &game).await?;
            let url = launch_url(state, &game, Mode::Real, Some(&auth), &lan)?;
            Ok(json!({"mode": "real", "url": url, "loginurl": url, "token": auth["token"]}))
        }
        Launch::Play(mode) => {
            let url = launch_url(state, &game, mode, None, &lan)?;
            Ok(json!({"mode": mode.as_str(), "url": url, "loginurl": url}))
        }
    }
}

/// `casino_game_url {provider, game_id, external_game_id, mode, ...}`:
/// `data.url`.
#[utoipa::path(post, path = "/api/casino_game_url", operation_id = "casino_game_url", tag = crate::openapi::MEMBER, request_body = GameParams, responses(crate::openapi::MemberAnswers))]
async fn game_url(
    State(state): State<AppState>,
    member: MaybeMember,
    Payload(params): Payload<GameParams>,
) -> Answer {
    Ok(ok(launch(&state, &member.0, &params).await?))
}

/// `gamelogin {gameid, mode}`: `data.loginurl` (third-party games; game
/// type 8 opens it).
#[utoipa::path(post, path = "/api/gamelogin", operation_id = "casino_game_login", tag = crate::openapi::MEMBER, request_body = GameParams, responses(crate::openapi::MemberAnswers))]
async fn game_login(
    State(state): State<AppState>,
    member: MaybeMember,
    Payload(params): Payload<GameParams>,
) -> Answer {
    Ok(ok(launch(&state, &member.0, &params).await?))
}

/// `gencatgametoken {game_id}`: a launch token for a category lobby game
/// (members).
#[utoipa::path(post, path = "/api/gencatgametoken", operation_id = "casino_cat_token", tag = crate::openapi::MEMBER, request_body = GameParams, responses(crate::openapi::MemberAnswers))]
async fn cat_token(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<GameParams>,
) -> Answer {
    let game = game_of(&state, &params.game_id).await?;
    let auth = authorise(&state, &member, &game).await?;
    Ok(ok(
        json!({"token": auth["token"], "expires": auth["expires"]}),
    ))
}

/// `getnewbstoken {game_id}`: a fresh launch token for a game already open
/// (the old one is near its expiry). Members.
#[utoipa::path(post, path = "/api/getnewbstoken", operation_id = "casino_bs_token", tag = crate::openapi::MEMBER, request_body = GameParams, responses(crate::openapi::MemberAnswers))]
async fn bs_token(
    State(state): State<AppState>,
    member: Member,
    Payload(params): Payload<GameParams>,
) -> Answer {
    cat_token(State(state), member, Payload(params)).await
}

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(
        list,
        favorite,
        search,
        show_ctl,
        casino_auth,
        game_url,
        game_login,
        cat_token,
        bs_token
    ))]
    struct Doc;
    #[allow(unused_mut)]
    let mut doc = <Doc as utoipa::OpenApi>::openapi();
    crate::openapi::get_alias(&mut doc, "/api/thirdgamelist");
    crate::openapi::get_alias(&mut doc, "/api/thirdgamefavorite");
    crate::openapi::get_alias(&mut doc, "/api/casino/search");
    crate::openapi::get_alias(&mut doc, "/api/casino_auth");
    crate::openapi::get_alias(&mut doc, "/api/casino_game_url");
    crate::openapi::get_alias(&mut doc, "/api/gamelogin");
    crate::openapi::get_alias(&mut doc, "/api/gencatgametoken");
    crate::openapi::get_alias(&mut doc, "/api/getnewbstoken");
    doc
}
