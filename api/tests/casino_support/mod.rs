//! Casino test helpers: a launched member and a provider that signs its
//! wallet calls with the demo provider's key (as an outside provider would).

#![allow(dead_code)]

use api::casino::signing::{Signer256, Verifier256, HEADER};
use serde_json::{json, Value};

use crate::common::{self, Client, Server};

pub const SLOT: i64 = 1001;
pub const SLOT_CODE: &str = "demo_slot";
pub const ROULETTE: i64 = 2001;

pub struct Launched {
    pub client: Client,
    pub user: String,
    pub token: String,
    pub balance: String,
}

/// The demo member logged in and launched on `game_id` in real mode.
pub async fn launch(server: &Server, game_id: i64) -> Launched {
    let mut client = Client::new(server).await;
    let login = client.login(server, "demo", "demo1234").await;
    assert_eq!(login["status"], 0, "{login}");
    let auth = client
        .get(&format!("/api/casino_auth?game_id={game_id}"))
        .await;
    assert_eq!(auth["status"], 0, "{auth}");
    assert_eq!(auth["data"]["has_error"], "False");
    Launched {
        client,
        user: auth["data"]["id"].as_str().unwrap().to_string(),
        token: auth["data"]["token"].as_str().unwrap().to_string(),
        balance: auth["data"]["balance"].as_str().unwrap().to_string(),
    }
}

pub fn provider_signer(server: &Server) -> Signer256 {
    Signer256::from_pem(&server.running.state.config.casino.providers["demo"].private_key).unwrap()
}

pub fn platform_verifier(server: &Server) -> Verifier256 {
    Verifier256::from_pem(&server.running.state.config.casino.platform_public_key).unwrap()
}

/// A wallet call signed as the demo provider; checks our answer's signature.
pub async fn call(server: &Server, path: &str, body: &Value) -> Value {
    let raw = body.to_string();
    let signature = provider_signer(server).sign(raw.as_bytes());
    call_raw(server, path, raw.as_bytes(), Some(&signature)).await
}

pub async fn call_raw(server: &Server, path: &str, raw: &[u8], signature: Option<&str>) -> Value {
    let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
    if let Some(s) = signature {
        headers.push((HEADER.to_string(), s.to_string()));
    }
    let (status, head, body) =
        exchange(server, &format!("/api/wallet/demo/{path}"), &headers, raw).await;
    assert_eq!(status, 200, "{body}");
    let signature = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .starts_with("x-hub88-signature:")
                .then(|| l[18..].trim().to_string())
        })
        .expect("a signed answer");
    assert!(
        platform_verifier(server).verify(body.as_bytes(), &signature),
        "the answer's signature verifies with the platform's public key"
    );
    serde_json::from_str(&body).unwrap()
}

/// One HTTP/1.1 POST: status, head, body.
pub async fn exchange(
    server: &Server,
    path: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> (u16, String, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(server.addr()).await.unwrap();
    let mut head = format!(
        "POST {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, head.to_string(), body.to_string())
}

static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

pub fn uuid(prefix: &str) -> String {
    format!(
        "{prefix}-{}-{}",
        common::unique_id(),
        N.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    )
}

pub fn bet(l: &Launched, tx: &str, round: &str, amount: i64, closed: bool) -> Value {
    json!({
        "user": l.user, "token": l.token, "request_uuid": uuid("req"), "game_code": SLOT_CODE,
        "currency": "CNY", "transaction_uuid": tx, "supplier_transaction_id": format!("s-{tx}"),
        "supplier_user": "p-demo", "round": round, "round_closed": closed, "amount": amount,
        "is_free": false, "bet": "spin"
    })
}

pub fn win(
    l: &Launched,
    tx: &str,
    round: &str,
    reference: &str,
    amount: i64,
    closed: bool,
) -> Value {
    let mut v = bet(l, tx, round, amount, closed);
    v["reference_transaction_uuid"] = json!(reference);
    v
}

pub fn rollback(l: &Launched, tx: &str, round: &str, reference: &str, closed: bool) -> Value {
    let mut v = win(l, tx, round, reference, 0, closed);
    v.as_object_mut().unwrap().remove("amount");
    v
}

/// The member's main balance in units, as `user/balance` answers it.
pub async fn balance(server: &Server, l: &Launched) -> i64 {
    let answer = call(
        server,
        "user/balance",
        &json!({"user": l.user, "token": l.token, "request_uuid": uuid("req"), "game_code": SLOT_CODE}),
    )
    .await;
    assert_eq!(answer["status"], "RS_OK", "{answer}");
    answer["balance"].as_i64().unwrap()
}
