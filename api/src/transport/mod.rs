//! The main API's request layer (DESIGN.md wire contract, docs/protocol.md):
//! headers, `Sign`, AES envelopes, UniqueId freshness and reuse, and the
//! duplicate-submission guard. Handlers behind it see the plaintext JSON
//! body and `RequestMeta`; their JSON answers are sealed with the caller's
//! key pair on the way out.

pub mod crypto;

use std::collections::BTreeSet;
use std::sync::{Arc, RwLock};

use axum::body::{to_bytes, Body};
use axum::extract::{FromRequest, MatchedPath, Request, State};
use axum::http::{HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::MethodRouter;
use axum::Router;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::client_ip::ClientIp;
use crate::error::ApiError;
use commands::platform::guards::{IdError, Submissions, UniqueIds};
use crypto::{OpenError, Pairs};

/// Largest request body accepted (encrypted form).
const MAX_BODY: usize = 256 * 1024;

/// Member routes that only read, by route path: the duplicate-submission
/// guard leaves them alone. Filled where each route is registered
/// (`ReadRoutes::read_route`), read by `layer` through the request's
/// `MatchedPath`.
///
/// Why a registry and not an `Extension` layer on the route: axum runs a
/// route's own layers *inside* the router-wide layers, so a marker inserted
/// by the route would reach the request only after this layer has already
/// had to decide whether to hold a submission.
static READ_ROUTES: RwLock<BTreeSet<&'static str>> = RwLock::new(BTreeSet::new());

/// Registers read-only member routes: `.read_route(path, post(h).get(h))`
/// instead of `.route(path, ...)` (docs/architecture.md, "the request
/// layer"). A POST to any other route behind the request layer is a
/// submission, held back with -66666 when repeated within 3 s.
pub trait ReadRoutes<S> {
    fn read_route(self, path: &'static str, method_router: MethodRouter<S>) -> Self;
}

impl<S: Clone + Send + Sync + 'static> ReadRoutes<S> for Router<S> {
    fn read_route(self, path: &'static str, method_router: MethodRouter<S>) -> Self {
        mark_reads(&[path]);
        self.route(path, method_router)
    }
}

/// Marks routes registered elsewhere as reads (for a router built by code
/// that does not use `read_route` itself).
pub fn mark_reads(paths: &[&'static str]) {
    let mut reads = READ_ROUTES.write().unwrap_or_else(|e| e.into_inner());
    reads.extend(paths.iter().copied());
}

/// Whether the route `path` (as registered) was marked as a read.
pub fn is_read(path: &str) -> bool {
    READ_ROUTES
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .contains(path)
}

pub struct Transport {
    pairs: Pairs,
    app_token_secret: Vec<u8>,
    unique_ids: UniqueIds,
    submissions: Submissions,
}

/// What the layer learned about a request, for the handlers.
#[derive(Debug, Clone, Default)]
pub struct RequestMeta {
    pub app_id: String,
    pub device_id: String,
    pub unique_id: String,
    pub user_token: Option<String>,
    /// `ClientIp::key()`: the rate-limit key of the caller's address.
    pub ip: String,
}

fn refuse(status: i32, msg: &str) -> ApiError {
    ApiError::Transport {
        status,
        msg: msg.to_string(),
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or_default()
}

impl Transport {
    pub fn new(pairs: Pairs, app_token_secret: Vec<u8>, pool: sqlx::AnyPool) -> Self {
        Self {
            pairs,
            app_token_secret,
            unique_ids: UniqueIds::new(pool.clone()),
            submissions: Submissions::new(pool),
        }
    }

    pub fn pairs(&self) -> &Pairs {
        &self.pairs
    }

    /// A new app token: random, and verifiable without storing it.
    pub fn issue_app_token(&self) -> String {
        use rand::Rng;
        let nonce: [u8; 16] = rand::rng().random();
        let nonce = crypto::hex(&nonce);
        let tag = crypto::mac(&self.app_token_secret, &nonce);
        format!("{nonce}.{}", &tag[..32])
    }

    pub fn app_token_is_valid(&self, token: &str) -> bool {
        match token.split_once('.') {
            Some((nonce, tag)) if nonce.len() == 32 => {
                let expected = crypto::mac(&self.app_token_secret, nonce);
                crypto::signature_matches(&expected[..32], tag)
            }
            _ => false,
        }
    }

    /// Opens `{data, fuaohbcb}`: the pair index and the plaintext JSON.
    pub fn open_envelope(&self, body: &[u8]) -> Result<(i64, String), ApiError> {
        open_envelope(&self.pairs, body)
    }

    /// `{data, fuaohbcb}` around an answer.
    pub fn seal_envelope(&self, index: i64, answer: &[u8]) -> Result<Vec<u8>, ApiError> {
        seal_envelope(&self.pairs, index, answer)
    }
}

/// Opens `{data, fuaohbcb}` with `pairs`: the pair index and the plaintext
/// JSON. Needs no store, so the fuzz target (`fuzz/`) calls it directly.
pub fn open_envelope(pairs: &Pairs, body: &[u8]) -> Result<(i64, String), ApiError> {
    #[derive(Deserialize)]
    struct Envelope {
        data: String,
        fuaohbcb: serde_json::Value,
    }
    let envelope: Envelope =
        serde_json::from_slice(body).map_err(|_| refuse(-70001, "Malformed request envelope"))?;
    let index = match &envelope.fuaohbcb {
        serde_json::Value::Number(n) => n.as_i64(),
        serde_json::Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
    .ok_or_else(|| refuse(-70001, "Malformed request envelope"))?;
    let plain = pairs.open(index, &envelope.data).map_err(|e| match e {
        OpenError::UnknownIndex(_) => refuse(-70002, "Unknown key index"),
        _ => refuse(-70003, "Request cannot be decrypted"),
    })?;
    if serde_json::from_str::<serde_json::Value>(&plain).is_err() {
        return Err(refuse(-70003, "Request cannot be decrypted"));
    }
    Ok((index, plain))
}

/// `{data, fuaohbcb}` around an answer, sealed with pair `index`.
pub fn seal_envelope(pairs: &Pairs, index: i64, answer: &[u8]) -> Result<Vec<u8>, ApiError> {
    let data = pairs
        .seal(index, answer)
        .map_err(|_| ApiError::Internal("sealing an answer".into()))?;
    Ok(
        serde_json::to_vec(&serde_json::json!({ "data": data, "fuaohbcb": index }))
            .unwrap_or_default(),
    )
}

fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// The request layer as an axum middleware.
pub async fn layer(
    State(transport): State<Arc<Transport>>,
    request: Request,
    next: Next,
) -> Response {
    match guarded(transport, request, next).await {
        Ok(response) => response,
        Err(error) => error.into_response(),
    }
}

async fn guarded(
    transport: Arc<Transport>,
    request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    let (mut parts, body) = request.into_parts();
    let headers = &parts.headers;
    let missing = || refuse(-70007, "Missing request headers");
    let app_id = header(headers, "AppId").ok_or_else(missing)?;
    let unique_id = header(headers, "UniqueId").ok_or_else(missing)?;
    let version = header(headers, "Version").ok_or_else(missing)?;
    let device_id = header(headers, "DeviceId")
        .filter(|d| d.len() <= 128)
        .ok_or_else(missing)?;
    let signature = header(headers, "Sign").ok_or_else(missing)?;
    let app_token = header(headers, "AppToken").unwrap_or_default();
    let user_token = header(headers, "UserToken");
    if !matches!(app_id.as_str(), "H5" | "PC" | "iOS" | "Android") {
        return Err(missing());
    }
    if !app_token.is_empty() && !transport.app_token_is_valid(&app_token) {
        return Err(refuse(-70008, "Invalid app token"));
    }
    let now = now_ms();
    transport
        .unique_ids
        .fresh(&unique_id, now)
        .map_err(|e| match e {
            IdError::Malformed => missing(),
            _ => refuse(-70006, "Request expired"),
        })?;

    let post = parts.method == Method::POST;
    let (pair, plain) = if post {
        let raw = to_bytes(body, MAX_BODY)
            .await
            .map_err(|_| refuse(-70001, "Malformed request envelope"))?;
        let (pair, plain) = transport.open_envelope(&raw)?;
        (Some(pair), Some(plain))
    } else {
        (None, None)
    };
    let expected = crypto::sign(&app_token, plain.as_deref(), &unique_id, &app_id, &version);
    if !crypto::signature_matches(&expected, &signature) {
        return Err(refuse(-70004, "Invalid signature"));
    }
    transport
        .unique_ids
        .claim(&unique_id, now)
        .await?
        .map_err(|_| refuse(-70005, "Duplicate request id"))?;

    let path = parts.uri.path().to_string();
    let digest = plain
        .as_deref()
        .map(|p| crypto::hex(&Sha256::digest(p.as_bytes())))
        .unwrap_or_default();
    let route = parts
        .extensions
        .get::<MatchedPath>()
        .map(|m| m.as_str())
        .unwrap_or(path.as_str());
    let guarded = post && !is_read(route);
    if guarded {
        transport
            .submissions
            .begin(&device_id, &path, &digest, now)
            .await?
            .map_err(|r| ApiError::wait(r.code(), r.message(), r.wait()))?;
    }

    // Set by the front middleware (`observability::observe`): the socket peer, or what a trusted proxy
    // forwarded for; never a header the client wrote itself.
    let ip = parts
        .extensions
        .get::<ClientIp>()
        .copied()
        .unwrap_or(ClientIp(None))
        .key();
    parts.extensions.insert(RequestMeta {
        app_id,
        device_id: device_id.clone(),
        unique_id,
        user_token,
        ip,
    });
    let request = Request::from_parts(parts, Body::from(plain.unwrap_or_default()));
    let response = next.run(request).await;
    if guarded {
        if let Err(e) = transport
            .submissions
            .finish(&device_id, &path, &digest, now_ms())
            .await
        {
            // The guard then holds the submission as in progress for 60 s.
            tracing::warn!(error = %e, "submission guard not released");
        }
    }
    let Some(pair) = pair else {
        return Ok(response);
    };
    let (mut parts, body) = response.into_parts();
    let answer = to_bytes(body, usize::MAX)
        .await
        .map_err(|e| ApiError::Internal(format!("reading an answer: {e}")))?;
    let sealed = transport.seal_envelope(pair, &answer)?;
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    Ok(Response::from_parts(parts, Body::from(sealed)))
}

/// A handler's parameters: the decrypted JSON body (POST) or the query
/// string (GET). Bad parameters answer -70009 with what is wrong.
pub struct Payload<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Payload<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, _state: &S) -> Result<Self, Self::Rejection> {
        let invalid = |detail: String| {
            ApiError::with_message(-70009, format!("Invalid request parameters: {detail}"))
        };
        if request.method() == Method::GET {
            let query = request.uri().query().unwrap_or_default();
            let value: T = serde_urlencoded::from_str(query).map_err(|e| invalid(e.to_string()))?;
            return Ok(Payload(value));
        }
        let bytes = to_bytes(request.into_body(), MAX_BODY)
            .await
            .map_err(|e| invalid(e.to_string()))?;
        let bytes: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
            b"{}"
        } else {
            &bytes
        };
        serde_json::from_slice(bytes)
            .map(Payload)
            .map_err(|e| invalid(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn transport() -> Transport {
        let pairs: Vec<(String, String)> = (0..10)
            .map(|i| (format!("testkey{i:09}"), format!("testiv0{i:09}")))
            .collect();
        Transport::new(Pairs::new(&pairs).unwrap(), b"secret".to_vec(), lazy_pool())
    }

    /// A pool that never connects (these tests do not reach the guards).
    fn lazy_pool() -> sqlx::AnyPool {
        sqlx::any::install_default_drivers();
        sqlx::AnyPool::connect_lazy("sqlite::memory:").unwrap()
    }

    /// The stable-toolchain cousin of `fuzz/fuzz_targets/envelope.rs`:
    /// random and mutated bodies never panic the decoder.
    #[tokio::test]
    async fn the_envelope_decoder_survives_random_bodies() {
        let t = transport();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let good = serde_json::to_vec(&serde_json::json!({
            "data": t.pairs().seal(4, br#"{"a":1}"#).unwrap(), "fuaohbcb": 4
        }))
        .unwrap();
        assert!(t.open_envelope(&good).is_ok());
        for round in 0..20_000 {
            let mut body = if round % 2 == 0 {
                good.clone()
            } else {
                (0..rng.random_range(0..64)).map(|_| rng.random()).collect()
            };
            for _ in 0..rng.random_range(0..4) {
                if body.is_empty() {
                    break;
                }
                let i = rng.random_range(0..body.len());
                body[i] = rng.random();
            }
            let _ = t.open_envelope(&body);
        }
    }

    #[tokio::test]
    async fn app_tokens_verify_only_when_issued_here() {
        let t = transport();
        let token = t.issue_app_token();
        assert!(t.app_token_is_valid(&token));
        assert!(!t.app_token_is_valid(&token.replace('.', "x")));
        assert!(!t.app_token_is_valid("abc.def"));
        let other = Transport::new(t.pairs().clone(), b"other".to_vec(), lazy_pool());
        assert!(!other.app_token_is_valid(&token));
    }
}
