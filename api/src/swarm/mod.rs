//! The Swarm-style sportsbook data protocol at `/swarm` (DESIGN wire
//! contract): WebSocket, or HTTP POST with `swarm-session` plus `whats_up`
//! polling. The protocol's pure core is `domain::swarm`; `hub` keeps the
//! sessions and fans out subscription diffs.

pub mod flags;
pub mod hub;
pub mod sources;

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use futures::{SinkExt, StreamExt};
use tokio::sync::mpsc;

use crate::app::AppState;
use hub::{Hub, Origin};

pub fn router() -> Router<AppState> {
    Router::new().route("/swarm", get(socket).post(poll))
}

/// `/swarm` alone over a hub (the fan-out benchmark serves this).
pub fn standalone(hub: Arc<Hub>) -> Router {
    Router::new()
        .route("/swarm", get(socket).post(poll))
        .with_state(hub)
}

impl axum::extract::FromRef<AppState> for Arc<Hub> {
    fn from_ref(state: &AppState) -> Self {
        state.hub.clone()
    }
}

async fn socket(
    upgrade: WebSocketUpgrade,
    State(hub): State<Arc<Hub>>,
    ip: crate::client_ip::ClientIp,
) -> Response {
    let client = ip.key();
    // A message past the bound closes the socket before it is parsed.
    upgrade
        .max_message_size(hub.ws_message_bytes)
        .max_frame_size(hub.ws_message_bytes)
        .on_upgrade(move |ws| serve(hub, ws, client))
}

/// Answers one request; a panic in it answers code -1 for its rid instead of
/// leaving the request without an answer (the socket goes on).
async fn answer(hub: &Hub, origin: Origin<'_>, client: &str, text: &str) -> Utf8Bytes {
    use futures::FutureExt;
    use tracing::Instrument;
    // Each request's log lines carry an id of their own (docs/operations.md).
    let span = tracing::info_span!(
        "swarm",
        request_id = %format!("{:016x}", rand::random::<u64>()),
        client = %client,
    );
    match std::panic::AssertUnwindSafe(hub.handle(origin, client, text).instrument(span))
        .catch_unwind()
        .await
    {
        Ok(answer) => answer,
        Err(detail) => {
            hub.panicked();
            let detail = crate::bounds::panic_text(detail.as_ref());
            tracing::error!(panic = detail, "a swarm request panicked");
            let rid = serde_json::from_str::<serde_json::Value>(text)
                .ok()
                .and_then(|v| v.get("rid").cloned())
                .unwrap_or(serde_json::Value::Null);
            let answer = serde_json::json!({
                "code": domain::Code::INTERNAL.0,
                "rid": rid,
                "msg": domain::Code::INTERNAL.message(),
                "data": null,
            });
            Utf8Bytes::from(answer.to_string())
        }
    }
}

/// One WebSocket: requests in, answers and pushes out through one writer.
async fn serve(hub: Arc<Hub>, ws: WebSocket, client: String) {
    let (mut writer, mut reader) = ws.split();
    let (out, mut outgoing) = mpsc::channel(4_096);
    let write = tokio::spawn(async move {
        // Everything already queued goes out with one flush.
        while let Some(text) = outgoing.recv().await {
            if writer.feed(Message::Text(text)).await.is_err() {
                break;
            }
            while let Ok(more) = outgoing.try_recv() {
                if writer.feed(Message::Text(more)).await.is_err() {
                    return;
                }
            }
            if writer.flush().await.is_err() {
                break;
            }
        }
    });
    let mut session = None;
    while let Some(Ok(message)) = reader.next().await {
        let answer = match message {
            Message::Text(text) => {
                answer(
                    &hub,
                    Origin::Socket {
                        session: &mut session,
                        out: &out,
                    },
                    &client,
                    text.as_str(),
                )
                .await
            }
            Message::Binary(bytes) => {
                let text = String::from_utf8_lossy(&bytes).to_string();
                answer(
                    &hub,
                    Origin::Socket {
                        session: &mut session,
                        out: &out,
                    },
                    &client,
                    &text,
                )
                .await
            }
            Message::Close(_) => break,
            _ => continue,
        };
        if out.send(answer).await.is_err() {
            break;
        }
    }
    if let Some(session) = session {
        hub.close(&session);
    }
    drop(out);
    let _ = write.await;
}

/// The long-poll fallback: one request per POST.
async fn poll(
    State(hub): State<Arc<Hub>>,
    ip: crate::client_ip::ClientIp,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let sid = headers.get("swarm-session").and_then(|v| v.to_str().ok());
    let text = String::from_utf8_lossy(&body);
    let answer = hub.handle(Origin::Poll { sid }, &ip.key(), &text).await;
    (
        [(header::CONTENT_TYPE, "application/json")],
        answer.as_str().to_string(),
    )
        .into_response()
}
