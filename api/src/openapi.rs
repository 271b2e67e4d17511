//! The OpenAPI description of the platform's HTTP APIs, generated from the
//! handlers' `#[utoipa::path]` annotations (each route module has a
//! `doc()` listing its own) and served at `GET /api/openapi.json`; in DEMO
//! a browsable page lists it at `GET /api/docs`. docs/openapi.md.
//!
//! Not described: `/swarm` (the Swarm protocol: WebSocket and long-poll
//! frames, docs/protocol.md), `/ws` (the realtime socket) and the client's
//! static files.

use axum::http::header;
use axum::response::{Html, IntoResponse};
use axum::routing::get;
use axum::Router;
use serde_json::Value;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::OpenApi as Description;
use utoipa::{IntoResponses, Modify, OpenApi, ToSchema};

use crate::app::AppState;

/// Tags: what an operation belongs to and how it is called.
pub const MEMBER: &str = "member (encrypted)";
pub const MEMBER_OPEN: &str = "member (plain)";
pub const BACK_OFFICE: &str = "back office";
pub const PAYMENTS: &str = "payment callbacks";
pub const WALLET: &str = "seamless wallet";
pub const HEALTH: &str = "health";
pub const DEV: &str = "dev (DEMO only)";
pub const DEMO_PROVIDER: &str = "demo game provider";
pub const PARTNER: &str = "partner";

/// `{status, msg, data}`: the answer of every JSON API but the seamless
/// wallet. `status` 0 is success; anything else is a code of the catalogue
/// (docs/protocol.md) with its message.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct Answer {
    /// 0, or the code of a refusal.
    status: i32,
    /// Empty or "OK" on success, the refusal's text otherwise.
    msg: String,
    /// The call's answer (any JSON; null on a refusal).
    data: Value,
}

/// A payment provider's callback answer.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct CallbackReply {
    /// Whether the report was taken (a repeated report is taken again).
    received: bool,
    /// Why not.
    error: Option<String>,
}

#[derive(IntoResponses)]
#[allow(dead_code)]
pub enum CallbackAnswers {
    /// Taken (first time or repeated).
    #[response(status = 200)]
    Received(#[to_schema] CallbackReply),
    /// Bad signature, body or order.
    #[response(status = 400)]
    Refused(#[to_schema] CallbackReply),
    /// No such provider.
    #[response(status = 404)]
    UnknownProvider(#[to_schema] CallbackReply),
}

/// The demo game provider's own answers (its API, not the platform's).
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct ProviderReply {
    /// ok, refused or error.
    status: String,
    /// Why a bet or spin was refused.
    reason: Option<String>,
}

#[derive(IntoResponses)]
#[allow(dead_code)]
pub enum ProviderAnswers {
    /// `status` ok with the call's fields, or refused/error with `reason`.
    #[response(status = 200)]
    Done(#[to_schema] ProviderReply),
    /// -70009: a body of the wrong shape.
    #[response(status = 400)]
    Bad(#[to_schema] Answer),
}

/// The answers of a main API call, after the envelope is opened.
#[derive(IntoResponses)]
#[allow(dead_code)]
pub enum MemberAnswers {
    /// `status` 0 with the answer in `data`, or a catalogue code (a
    /// business refusal). A POST's answer is sealed in the envelope.
    #[response(status = 200)]
    Done(#[to_schema] Answer),
    /// The request layer refused the call (-70001 to -70008), plain JSON.
    #[response(status = 400)]
    Refused(#[to_schema] Answer),
}

/// The answers of a plain-JSON call with no staff token.
#[derive(IntoResponses)]
#[allow(dead_code)]
pub enum PlainAnswers {
    /// `status` 0, or a catalogue code.
    #[response(status = 200)]
    Done(#[to_schema] Answer),
    /// Malformed or out-of-range input.
    #[response(status = 400)]
    Bad(#[to_schema] Answer),
    /// No such thing.
    #[response(status = 404)]
    NotFound(#[to_schema] Answer),
}

/// The answers of a back-office call (`Authorization: Bearer <token>`).
#[derive(IntoResponses)]
#[allow(dead_code)]
pub enum StaffAnswers {
    /// `status` 0, msg "OK".
    #[response(status = 200)]
    Done(#[to_schema] Answer),
    /// Malformed input or a refused action (its code).
    #[response(status = 400)]
    Bad(#[to_schema] Answer),
    /// -401: no valid staff token.
    #[response(status = 401)]
    NotLoggedIn(#[to_schema] Answer),
    /// -403: the role has not this duty.
    #[response(status = 403)]
    Forbidden(#[to_schema] Answer),
    /// -404: no such record.
    #[response(status = 404)]
    NotFound(#[to_schema] Answer),
    /// A conflicting change (the record moved on).
    #[response(status = 409)]
    Conflict(#[to_schema] Answer),
}

const INFO: &str = "The sportsbook and casino platform's HTTP APIs.\n\n\
Main API envelope: every `/api/` path tagged `member (encrypted)` goes through the request \
layer (docs/protocol.md, 'Main API request layer'). Headers `AppId`, `UniqueId`, `Version`, \
`DeviceId`, `AppToken`, `UserToken`, `Sign` (HMAC-SHA256 keyed by the AppToken over the \
reversed plaintext body + UniqueId + AppId + Version). A POST body is \
`{\"data\": base64(AES-128-CBC(JSON)), \"fuaohbcb\": i}` and so is its answer; the request \
bodies and answers described here are the plaintext JSON inside the envelope. GET calls take \
their parameters in the query string and answer plain JSON. Transport refusals are HTTP 400 \
plain JSON with status -70001 to -70008.\n\n\
Back office: `Authorization: Bearer <token>` from `POST /api/backoffice/login`. \
Seamless wallet: requests signed by the provider (`X-Hub88-Signature`, RSA-SHA256 over the \
raw body), answers signed by the platform. Payment callbacks: signed by the provider \
(docs/payments.md).\n\n\
Not described here: `/swarm` (the Swarm protocol over WebSocket and long-poll), `/ws` (the \
realtime socket) and the web client's static files.";

struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut Description) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "staff",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
        components.add_security_scheme(
            "member",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "UserToken",
                "auth_token from login, with the other request-layer headers",
            ))),
        );
    }
}

#[derive(OpenApi)]
#[openapi(
    info(title = "Sportsbook platform", description = INFO),
    components(schemas(Answer)),
    modifiers(&Security),
    tags(
        (name = MEMBER, description = "Main API through the encrypted request layer; bodies are the plaintext inside the envelope"),
        (name = MEMBER_OPEN, description = "Main API paths outside the request layer"),
        (name = BACK_OFFICE, description = "Staff, plain JSON, bearer token"),
        (name = PAYMENTS, description = "Payment providers' signed callbacks and the DEMO sandbox"),
        (name = WALLET, description = "Hub88-style seamless wallet called by game providers"),
        (name = HEALTH, description = "Health and metrics"),
        (name = DEV, description = "Development endpoints, DEMO=1 only"),
        (name = PARTNER, description = "The partner's server opening sessions for its members (`X-Partner-Key`)"),
        (name = DEMO_PROVIDER, description = "The built-in demo game provider, DEMO stand-in for an outside provider"),
    )
)]
struct ApiDoc;

/// The whole description: every area's `doc()` merged.
pub fn description() -> Description {
    let mut doc = ApiDoc::openapi();
    for part in [
        crate::routes::health::doc(),
        crate::routes::account::doc(),
        crate::routes::user::doc(),
        crate::routes::seasons::doc(),
        crate::routes::sport::doc(),
        crate::routes::report::doc(),
        crate::routes::vip::doc(),
        crate::routes::payments::doc(),
        crate::routes::partner::doc(),
        crate::routes::backoffice::doc(),
        crate::routes::backoffice_audit::doc(),
        crate::routes::payments_backoffice::doc(),
        crate::routes::dev::doc(),
        crate::routes::promo::doc(),
        crate::routes::promo_backoffice::doc(),
        crate::routes::content::doc(),
        crate::routes::content_backoffice::doc(),
        crate::routes::safer::doc(),
        crate::casino::doc(),
        own_doc(),
    ] {
        doc.merge(part);
    }
    unique_operation_ids(&mut doc);
    doc
}

/// One handler served on GET and POST (`method(get, post)`) gives both
/// operations its id: the GET's gets `_get`.
fn unique_operation_ids(doc: &mut Description) {
    for item in doc.paths.paths.values_mut() {
        let post_id = item.post.as_ref().and_then(|op| op.operation_id.clone());
        if let Some(get) = item.get.as_mut() {
            if get.operation_id.is_some() && get.operation_id == post_id {
                if let Some(id) = get.operation_id.as_mut() {
                    id.push_str("_get");
                }
            }
        }
    }
}

#[derive(OpenApi)]
#[openapi(paths(openapi_json, docs_page))]
struct OwnDoc;

fn own_doc() -> Description {
    OwnDoc::openapi()
}

/// `path` served by the same handler as `from` (same operations).
pub fn alias(doc: &mut Description, from: &str, path: &str) {
    if let Some(item) = doc.paths.paths.get(from).cloned() {
        let mut item = item;
        for op in item_operations(&mut item) {
            if let Some(id) = op.operation_id.as_mut() {
                id.push_str("_alias");
            }
        }
        doc.paths.paths.insert(path.to_string(), item);
    }
}

/// A member call served on GET as well as POST: the GET takes the POST
/// body's fields in the query string (and answers plain JSON).
pub fn get_alias(doc: &mut Description, path: &str) {
    let Some(item) = doc.paths.paths.get_mut(path) else {
        return;
    };
    let Some(mut op) = item.post.clone() else {
        return;
    };
    op.request_body = None;
    if let Some(id) = op.operation_id.as_mut() {
        id.push_str("_get");
    }
    let note = "GET: the POST body's fields in the query string; the answer is plain JSON.";
    op.description = Some(match op.description.take() {
        Some(d) if !d.is_empty() => format!("{d}\n\n{note}"),
        _ => note.to_string(),
    });
    item.get = Some(op);
}

fn item_operations(
    item: &mut utoipa::openapi::PathItem,
) -> impl Iterator<Item = &mut utoipa::openapi::path::Operation> {
    [
        item.get.as_mut(),
        item.post.as_mut(),
        item.put.as_mut(),
        item.delete.as_mut(),
        item.patch.as_mut(),
    ]
    .into_iter()
    .flatten()
}

pub fn router(demo: bool) -> Router<AppState> {
    let router = Router::new().route("/api/openapi.json", get(openapi_json));
    if demo {
        router.route("/api/docs", get(docs_page))
    } else {
        router
    }
}

/// This description.
#[utoipa::path(get, path = "/api/openapi.json", tag = HEALTH,
    responses((status = 200, description = "The OpenAPI 3.1 description", content_type = "application/json", body = Object)))]
async fn openapi_json() -> impl IntoResponse {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let text = TEXT.get_or_init(|| description().to_json().unwrap_or_else(|_| "{}".into()));
    ([(header::CONTENT_TYPE, "application/json")], text.as_str())
}

/// A browsable list of the operations (DEMO only; renders the JSON in the
/// page, no outside assets).
#[utoipa::path(get, path = "/api/docs", tag = DEV,
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String)))]
async fn docs_page() -> Html<&'static str> {
    Html(include_str!("openapi_page.html"))
}
