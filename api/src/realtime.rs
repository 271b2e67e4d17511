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
use commands::engagement::notify::Notifications;
use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::{mpsc, watch};

use crate::app::AppState;

struct Client {
    out: mpsc::Sender<Utf8Bytes>,
}

/// The sockets this process holds; which member each client id belongs to
/// is shared by every process (`ws_bindings`): `user/bindws` may reach
/// another process than the one holding the socket.
pub struct Realtime {
    pool: sqlx::AnyPool,
    /// This process's id: its rows go when it stops beating (commands::platform::nodes).
    node_id: String,
    /// The sessions' clock: a binding lives as long as its session.
    clock: commands::platform::clock::SharedClock,
    clients: Mutex<HashMap<String, Client>>,
}

impl Realtime {
    pub fn new(
        pool: sqlx::AnyPool,
        node_id: String,
        clock: commands::platform::clock::SharedClock,
    ) -> Arc<Self> {
        Arc::new(Self {
            pool,
            node_id,
            clock,
            clients: Mutex::new(HashMap::new()),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Client>> {
        self.clients.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records a client id issued by `init` (not bound to anyone yet).
    async fn issued(&self, client_id: &str, now_ms: i64) -> Result<(), sqlx::Error> {
        sqlx::query(
            "INSERT INTO ws_bindings (client_id, user_id, bound_ms, node_id) VALUES ($1, '', $2, $3)",
        )
        .bind(client_id)
        .bind(now_ms)
        .bind(&self.node_id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn closed(&self, client_id: &str) -> Result<(), sqlx::Error> {
        sqlx::query("DELETE FROM ws_bindings WHERE client_id = $1")
            .bind(client_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Binds a connected client (on any process) to a member, for as long
    /// as the login session `auth_token` lives; false for a client id no
    /// socket holds.
    pub async fn bind(
        &self,
        client_id: &str,
        user_id: &str,
        auth_token: &str,
    ) -> Result<bool, sqlx::Error> {
        let bound = sqlx::query(
            "UPDATE ws_bindings SET user_id = $2, bound_ms = $3, token_hash = $4 WHERE client_id = $1",
        )
        .bind(client_id)
        .bind(user_id)
        .bind(now_ms())
        .bind(commands::accounts::sessions::token_hash(auth_token))
        .execute(&self.pool)
        .await?;
        Ok(bound.rows_affected() == 1)
    }

    /// The client ids bound to each of `users` by a login session that is
    /// still alive (an ended or expired one binds nothing).
    async fn bound(&self, users: &[&str]) -> Result<Vec<(String, String)>, sqlx::Error> {
        if users.is_empty() {
            return Ok(Vec::new());
        }
        let marks: Vec<String> = (2..=users.len() + 1).map(|i| format!("${i}")).collect();
        let sql = format!(
            "SELECT b.client_id, b.user_id FROM ws_bindings b
             JOIN sessions s ON s.token_hash = b.token_hash AND s.user_id = b.user_id
             WHERE b.user_id IN ({}) AND s.expires_ms > $1",
            marks.join(", ")
        );
        let mut query = sqlx::query(&sql).bind(self.clock.now_ms());
        for user in users {
            query = query.bind(*user);
        }
        let rows = query.fetch_all(&self.pool).await?;
        use sqlx::Row;
        rows.iter()
            .map(|r| Ok((r.try_get("client_id")?, r.try_get("user_id")?)))
            .collect()
    }

    /// Sends each notification to the sockets of this process bound to its
    /// member; returns how many messages went out.
    pub async fn deliver(
        &self,
        batch: &[commands::engagement::notify::Notification],
    ) -> Result<usize, sqlx::Error> {
        let mut users: Vec<&str> = batch.iter().map(|n| n.user_id.as_str()).collect();
        users.sort_unstable();
        users.dedup();
        let mut sent = 0;
        for chunk in users.chunks(200) {
            let bindings = self.bound(chunk).await?;
            let clients = self.lock();
            for n in batch.iter().filter(|n| chunk.contains(&n.user_id.as_str())) {
                for (client_id, _) in bindings.iter().filter(|(_, u)| *u == n.user_id) {
                    let Some(client) = clients.get(client_id) else {
                        continue;
                    };
                    let message = json!({ "type": n.kind, "data": n.body, "client_id": client_id });
                    if client
                        .out
                        .try_send(Utf8Bytes::from(message.to_string()))
                        .is_ok()
                    {
                        sent += 1;
                    }
                }
            }
        }
        Ok(sent)
    }

    /// Delivers new `notifications` rows until `stop`.
    pub async fn run(
        self: Arc<Self>,
        notifications: Arc<Notifications>,
        mut stop: watch::Receiver<bool>,
    ) {
        let mut cursor = loop {
            match notifications.start().await {
                Ok(cursor) => break cursor,
                Err(e) => {
                    tracing::warn!(error = %e, "notifications not reachable; retrying");
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                        _ = stop.changed() => return,
                    }
                }
            }
        };
        loop {
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(250)) => {}
                _ = stop.changed() => {}
            }
            if *stop.borrow() {
                return;
            }
            match notifications.after(&cursor, 500).await {
                Ok((batch, next)) => match self.deliver(&batch).await {
                    Ok(_) => cursor = next,
                    Err(e) => tracing::warn!(error = %e, "notifications not delivered; retrying"),
                },
                Err(e) => tracing::warn!(error = %e, "notifications not read"),
            }
        }
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or_default()
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
                if client_id.is_none() {
                    let id = commands::accounts::codes::random_id(20);
                    match realtime.issued(&id, now_ms()).await {
                        Ok(()) => {
                            realtime
                                .lock()
                                .insert(id.clone(), Client { out: out.clone() });
                            client_id = Some(id);
                        }
                        Err(e) => tracing::warn!(error = %e, "realtime client id not recorded"),
                    }
                }
                match &client_id {
                    Some(id) => json!({ "type": "init", "client_id": id }),
                    None => json!({ "type": "error", "msg": "please try again later" }),
                }
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
        if let Err(e) = realtime.closed(&id).await {
            tracing::warn!(error = %e, "realtime binding not removed");
        }
    }
    drop(out);
    let _ = write.await;
}
