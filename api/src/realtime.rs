//! Realtime notifications at `/ws` (spec 000 section 4): `init` answers a
//! client id, `p` is the 10-second ping, `i` an idle heartbeat; after login
//! the client binds its id to the member (`user/bindws`). Notifications of a
//! member go to every socket bound to them, as `{type, data, client_id}`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use commands::notify::Notifications;
use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::{mpsc, watch};

use crate::app::AppState;

struct Client {
    out: mpsc::Sender<Utf8Bytes>,
    user: Option<String>,
}

#[derive(Default)]
pub struct Realtime {
    clients: Mutex<HashMap<String, Client>>,
}

impl Realtime {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Client>> {
        self.clients.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Binds a connected client to a member; false for an unknown client.
    pub fn bind(&self, client_id: &str, user_id: &str) -> bool {
        match self.lock().get_mut(client_id) {
            Some(client) => {
                client.user = Some(user_id.to_string());
                true
            }
            None => false,
        }
    }

    /// Sends to every socket bound to `user_id`; returns how many.
    pub fn deliver(&self, user_id: &str, kind: i64, data: &Value) -> usize {
        let clients = self.lock();
        let mut sent = 0;
        for (client_id, client) in clients
            .iter()
            .filter(|(_, c)| c.user.as_deref() == Some(user_id))
        {
            let message = json!({ "type": kind, "data": data, "client_id": client_id });
            if client
                .out
                .try_send(Utf8Bytes::from(message.to_string()))
                .is_ok()
            {
                sent += 1;
            }
        }
        sent
    }

    /// Delivers new `notifications` rows until `stop`.
    pub async fn run(
        self: Arc<Self>,
        notifications: Arc<Notifications>,
        mut stop: watch::Receiver<bool>,
    ) {
        let mut last = notifications.last_id().await.unwrap_or(0);
        loop {
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(250)) => {}
                _ = stop.changed() => {}
            }
            if *stop.borrow() {
                return;
            }
            match notifications.after(last, 500).await {
                Ok(batch) => {
                    for n in batch {
                        self.deliver(&n.user_id, n.kind, &n.body);
                        last = n.id;
                    }
                }
                Err(e) => tracing::warn!(error = %e, "notifications not read"),
            }
        }
    }
}

pub fn router() -> Router<AppState> {
    Router::new().route("/ws", get(socket))
}

async fn socket(upgrade: WebSocketUpgrade, State(state): State<AppState>) -> Response {
    let realtime = state.realtime.clone();
    let max = state.config.server.ws_max_message_bytes;
    upgrade
        .max_message_size(max)
        .max_frame_size(max)
        .on_upgrade(move |ws| serve(realtime, ws))
}

async fn serve(realtime: Arc<Realtime>, ws: WebSocket) {
    let (mut writer, mut reader) = ws.split();
    let (out, mut outgoing) = mpsc::channel::<Utf8Bytes>(256);
    let write = tokio::spawn(async move {
        while let Some(text) = outgoing.recv().await {
            if writer.send(Message::Text(text)).await.is_err() {
                break;
            }
        }
    });
    let mut client_id: Option<String> = None;
    while let Some(Ok(message)) = reader.next().await {
        let Message::Text(text) = message else {
            if matches!(message, Message::Close(_)) {
                break;
            }
            continue;
        };
        let request: Value = serde_json::from_str(text.as_str()).unwrap_or(Value::Null);
        let kind = request.get("type").and_then(Value::as_str).unwrap_or("");
        let answer = match kind {
            "init" => {
                let id = client_id.get_or_insert_with(|| {
                    let id = commands::codes::random_id(20);
                    realtime.lock().insert(
                        id.clone(),
                        Client {
                            out: out.clone(),
                            user: None,
                        },
                    );
                    id
                });
                json!({ "type": "init", "client_id": id })
            }
            "p" => json!({ "type": "p" }),
            "i" => json!({ "type": "i", "client_id": client_id }),
            _ => json!({ "type": "error", "msg": "unknown message; send init, i or p" }),
        };
        if out.send(Utf8Bytes::from(answer.to_string())).await.is_err() {
            break;
        }
    }
    if let Some(id) = client_id {
        realtime.lock().remove(&id);
    }
    drop(out);
    let _ = write.await;
}
