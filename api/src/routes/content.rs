//! Content for members and guests (spec 001 section 7.4, docs/content.md):
//! the marquee's notices, banners, the cover popup, runtime popups, news
//! and help pages. Read only; the marketing desk writes them
//! (`content_backoffice`).

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use commands::engagement::content::{ContentFailure, ContentRow};
use domain::content::{ContentKind, LANGUAGES};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::AppState;
use crate::error::{ok, ApiError, Envelope};
use crate::transport::Payload;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/about/notice", post(notice).get(notice))
        .route("/api/about/notices", post(notices).get(notices))
        .route(
            "/api/indexbannerslist",
            post(index_banners).get(index_banners),
        )
        .route("/api/bannerslist", post(banners).get(banners))
        .route("/api/coverlist", post(cover).get(cover))
        .route("/api/getCoverList", post(cover).get(cover))
        .route("/api/about/popups", post(popups).get(popups))
        .route("/api/news/list", post(news_list).get(news_list))
        .route("/api/news/detail", post(news_detail).get(news_detail))
        .route("/api/about/helplist", post(help_list).get(help_list))
        .route("/api/about/help", post(help_page).get(help_page))
}

type Answer = Result<Json<Envelope<Value>>, ApiError>;

impl From<ContentFailure> for ApiError {
    fn from(e: ContentFailure) -> Self {
        match e {
            ContentFailure::Invalid(e) => {
                ApiError::with_message(domain::Code::BAD_PARAMETERS.0, e.0)
            }
            ContentFailure::NotFound => ApiError::with_message(
                domain::Code::BAD_PARAMETERS.0,
                "Invalid request parameters: no such item",
            ),
            ContentFailure::Internal(detail) => ApiError::Internal(detail),
        }
    }
}

#[derive(Deserialize, Default)]
struct Params {
    #[serde(default)]
    lang: Option<String>,
    #[serde(default)]
    place: Option<String>,
    #[serde(default, rename = "type")]
    news_type: Option<Value>,
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    title: Option<String>,
}

impl Params {
    /// The language asked for; an unknown one reads as the default (zhh).
    fn lang(&self) -> &str {
        match self.lang.as_deref().map(str::trim) {
            Some(l) if LANGUAGES.contains(&l) => l,
            _ => "zhh",
        }
    }

    fn id(&self) -> Result<i64, ApiError> {
        let id = match &self.id {
            Some(Value::Number(n)) => n.as_i64(),
            Some(Value::String(s)) => s.trim().parse().ok(),
            _ => None,
        };
        id.filter(|id| *id > 0).ok_or_else(|| {
            ApiError::with_message(
                domain::Code::BAD_PARAMETERS.0,
                "Invalid request parameters: id",
            )
        })
    }
}

fn list(rows: &[ContentRow]) -> Value {
    Value::Array(rows.iter().map(ContentRow::public).collect())
}

/// The marquee (spec 001 section 2.3): `data.msgList[].content`.
#[utoipa::path(method(post, get), path = "/api/about/notices", operation_id = "content_notices", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn notices(State(state): State<AppState>, Payload(p): Payload<Params>) -> Answer {
    let rows = state
        .content
        .published(ContentKind::Notice, p.lang(), 50)
        .await?;
    Ok(ok(json!({ "msgList": list(&rows) })))
}

/// The newest notices only (the same shape as `about/notices`).
#[utoipa::path(method(post, get), path = "/api/about/notice", operation_id = "content_notice", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn notice(State(state): State<AppState>, Payload(p): Payload<Params>) -> Answer {
    let rows = state
        .content
        .published(ContentKind::Notice, p.lang(), 5)
        .await?;
    Ok(ok(json!({ "msgList": list(&rows) })))
}

async fn banners_of(state: &AppState, lang: &str, place: &str) -> Result<Value, ApiError> {
    let rows = state
        .content
        .published(ContentKind::Banner, lang, 100)
        .await?;
    let rows: Vec<ContentRow> = rows
        .into_iter()
        .filter(|r| r.body["place"] == place)
        .take(20)
        .collect();
    Ok(json!({ "list": list(&rows) }))
}

#[utoipa::path(method(post, get), path = "/api/indexbannerslist", operation_id = "content_index_banners", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn index_banners(State(state): State<AppState>, Payload(p): Payload<Params>) -> Answer {
    Ok(ok(banners_of(&state, p.lang(), "index").await?))
}

#[utoipa::path(method(post, get), path = "/api/bannerslist", operation_id = "content_banners", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn banners(State(state): State<AppState>, Payload(p): Payload<Params>) -> Answer {
    let place = match p.place.as_deref() {
        Some("index") => "index",
        _ => "list",
    };
    Ok(ok(banners_of(&state, p.lang(), place).await?))
}

/// The cover popup: `data.img` or `data.gameinfo` (empty object: none).
#[utoipa::path(method(post, get), path = "/api/coverlist", operation_id = "content_cover", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn cover(State(state): State<AppState>, Payload(p): Payload<Params>) -> Answer {
    let rows = state
        .content
        .published(ContentKind::Cover, p.lang(), 1)
        .await?;
    Ok(ok(rows
        .first()
        .map(ContentRow::public)
        .unwrap_or(json!({}))))
}

/// Runtime popups with their audience and repeat; the client decides when
/// to show each (features/content/popupSchedule.ts).
#[utoipa::path(method(post, get), path = "/api/about/popups", operation_id = "content_popups", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn popups(State(state): State<AppState>, Payload(p): Payload<Params>) -> Answer {
    let rows = state
        .content
        .published(ContentKind::Popup, p.lang(), 20)
        .await?;
    Ok(ok(json!({ "list": list(&rows) })))
}

/// News by type (zhh only; spec 001 section 2.1).
#[utoipa::path(method(post, get), path = "/api/news/list", operation_id = "content_news_list", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn news_list(State(state): State<AppState>, Payload(p): Payload<Params>) -> Answer {
    let rows = state
        .content
        .published(ContentKind::News, "zhh", 100)
        .await?;
    let wanted = match &p.news_type {
        Some(Value::Number(n)) => n.as_i64(),
        Some(Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    };
    let rows: Vec<ContentRow> = rows
        .into_iter()
        .filter(|r| wanted.is_none() || r.body["type"].as_i64() == wanted)
        .map(|mut r| {
            // the list carries summaries, not whole articles
            if let Some(body) = r.body.as_object_mut() {
                body.remove("content");
            }
            r
        })
        .collect();
    Ok(ok(json!({ "list": list(&rows), "total": rows.len() })))
}

/// One article; `data` null when there is no such published article.
#[utoipa::path(method(post, get), path = "/api/news/detail", operation_id = "content_news_detail", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn news_detail(State(state): State<AppState>, Payload(p): Payload<Params>) -> Answer {
    let id = p.id()?;
    match state.content.published_item(ContentKind::News, id).await {
        Ok(row) => Ok(ok(row.public())),
        Err(ContentFailure::NotFound) => Ok(ok(Value::Null)),
        Err(e) => Err(e.into()),
    }
}

/// The help centre's pages of a language (titles only).
#[utoipa::path(method(post, get), path = "/api/about/helplist", operation_id = "content_help_list", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn help_list(State(state): State<AppState>, Payload(p): Payload<Params>) -> Answer {
    let rows = state
        .content
        .published(ContentKind::Help, p.lang(), 200)
        .await?;
    let pages: Vec<Value> = rows
        .iter()
        .filter(|r| r.lang == p.lang())
        .map(|r| json!({"id": r.id, "slug": r.slug, "title": r.title}))
        .collect();
    Ok(ok(json!({ "list": pages })))
}

/// `/page/help-root-{language}/{title}`: `data` null when there is none.
#[utoipa::path(method(post, get), path = "/api/about/help", operation_id = "content_help_page", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn help_page(State(state): State<AppState>, Payload(p): Payload<Params>) -> Answer {
    let slug = p.title.as_deref().unwrap_or_default().trim();
    if slug.is_empty()
        || slug.len() > 64
        || !slug
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(ApiError::with_message(
            domain::Code::BAD_PARAMETERS.0,
            "Invalid request parameters: title",
        ));
    }
    match state.content.help_page(p.lang(), slug).await {
        Ok(row) => Ok(ok(row.public())),
        Err(ContentFailure::NotFound) => Ok(ok(Value::Null)),
        Err(e) => Err(e.into()),
    }
}

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(
        notice,
        notices,
        index_banners,
        banners,
        cover,
        popups,
        news_list,
        news_detail,
        help_list,
        help_page,
    ))]
    struct Doc;
    let mut doc = <Doc as utoipa::OpenApi>::openapi();
    // One handler on two paths (spec names both).
    crate::openapi::alias(&mut doc, "/api/coverlist", "/api/getCoverList");
    doc
}
