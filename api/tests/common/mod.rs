//! A test client that speaks the real protocol: plain HTTP/1.1 over TCP and
//! the main API's request layer (headers, Sign, AES envelopes).

#![allow(dead_code)]

pub mod conformance;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use api::app;
use api::config::Config;
use api::transport::crypto::{self, Pairs};
use commands::platform::clock::{ManualClock, SharedClock};
use domain::catalogue::GameType;
use rust_decimal::Decimal;
use serde_json::{json, Value};
use store::db::testing;
use store::StoreKind;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

pub struct Answer {
    pub status: u16,
    pub content_type: String,
    /// The status line and headers, lower-cased.
    pub head: String,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).to_string()
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
}

/// One HTTP/1.1 exchange with `Connection: close`.
pub async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> Answer {
    try_http(addr, method, path, headers, body)
        .await
        .unwrap_or_else(|why| panic!("no HTTP answer to {method} {path}: {why}"))
}

/// [`http`], with a connection refused, reset or closed before a whole
/// answer head as an error (a node killed mid-request behind a balancer).
pub async fn try_http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> Result<Answer, String> {
    let mut stream = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream
        .write_all(head.as_bytes())
        .await
        .map_err(|e| format!("write: {e}"))?;
    stream
        .write_all(body)
        .await
        .map_err(|e| format!("write: {e}"))?;
    let mut raw = Vec::new();
    stream
        .read_to_end(&mut raw)
        .await
        .map_err(|e| format!("read: {e}"))?;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| format!("closed after {} bytes, no answer head", raw.len()))?;
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut body = raw[split + 4..].to_vec();
    let lower = head.to_ascii_lowercase();
    if lower.contains("transfer-encoding: chunked") {
        body = dechunk(&body);
    }
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no status in {head:?}"))?;
    let content_type = lower
        .lines()
        .find_map(|l| {
            l.strip_prefix("content-type:")
                .map(|v| v.trim().to_string())
        })
        .unwrap_or_default();
    Ok(Answer {
        status,
        content_type,
        head: lower,
        body,
    })
}

fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(line_end) = body.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(String::from_utf8_lossy(&body[..line_end]).trim(), 16)
            .unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = line_end + 2;
        out.extend_from_slice(&body[start..start + size]);
        body = &body[start + size + 2..];
    }
    out
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// One RSA key for the whole test binary (generating one per server is slow).
fn rsa_key_file() -> PathBuf {
    static FILE: OnceLock<PathBuf> = OnceLock::new();
    FILE.get_or_init(|| {
        use rsa::pkcs8::{EncodePrivateKey, LineEnding};
        let key = rsa::RsaPrivateKey::new(&mut rsa::rand_core::OsRng, 2048).unwrap();
        let path = std::env::temp_dir().join(format!("test-rsa-{}.pem", std::process::id()));
        std::fs::write(&path, key.to_pkcs8_pem(LineEnding::LF).unwrap().as_bytes()).unwrap();
        path
    })
    .clone()
}

pub fn config(demo: bool) -> Config {
    let mut config = Config::from_file(&root().join("config/default.toml")).unwrap();
    config.server.web_dist = std::env::temp_dir().join("no-client-build");
    config.server.skins_dir = root().join("config/skins");
    config.accounts.rsa_key_file = Some(rsa_key_file());
    config.demo_mode = demo;
    config
}

pub struct Server {
    pub running: app::Running,
    pub clock: ManualClock,
}

impl Server {
    pub fn addr(&self) -> SocketAddr {
        self.running.addr
    }

    pub async fn stop(self) {
        self.running.stop().await.unwrap();
    }

    /// The newest outbox entry matching `filter` (DEMO=1 page).
    pub async fn outbox(&self, filter: impl Fn(&Value) -> bool) -> Value {
        let entries = http(self.addr(), "GET", "/api/dev/outbox", &[], b"")
            .await
            .json();
        entries
            .as_array()
            .unwrap()
            .iter()
            .find(|e| filter(e))
            .cloned()
            .unwrap_or_else(|| panic!("no such outbox entry in {entries}"))
    }
}

pub async fn start(kind: StoreKind) -> Server {
    start_with(kind, config(true)).await
}

pub async fn start_with(kind: StoreKind, config: Config) -> Server {
    start_on(testing::fresh(kind).await, config).await
}

/// A server on a store that may already be in use (another node).
pub async fn start_on(db: store::Db, config: Config) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let clock = ManualClock::at(now);
    let shared: SharedClock = std::sync::Arc::new(clock.clone());
    let running = app::start_with_clock(config, db, listener, shared)
        .await
        .unwrap();
    Server { running, clock }
}

static SEQUENCE: AtomicU64 = AtomicU64::new(0);

/// A member's browser: device id, app token, session.
pub struct Client {
    pub addr: SocketAddr,
    pub pairs: Pairs,
    pub app_token: String,
    pub user_token: Option<String>,
    pub device_id: String,
    pub pair: i64,
    /// Sent with every request besides the request layer's own headers.
    pub extra_headers: Vec<(String, String)>,
}

pub fn unique_id() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    let n = SEQUENCE.fetch_add(1, Ordering::SeqCst);
    format!("{now:013}{:06}", n % 1_000_000).replace(|c: char| !c.is_ascii_alphanumeric(), "0")
}

impl Client {
    pub async fn new(server: &Server) -> Client {
        Client::at(server.addr()).await
    }

    /// A client of a server known only by its address (a load balancer).
    pub async fn at(addr: SocketAddr) -> Client {
        let pairs = Pairs::new(&config(true).transport.pairs).unwrap();
        let mut client = Client {
            addr,
            pairs,
            app_token: String::new(),
            user_token: None,
            device_id: format!("device-{}", unique_id()),
            pair: 3,
            extra_headers: Vec::new(),
        };
        let token = client.get("/api/getapitoken").await;
        assert_eq!(token["status"], 0, "{token}");
        client.app_token = token["data"]["apitoken"].as_str().unwrap().to_string();
        client
    }

    pub fn headers(&self, unique: &str, body: Option<&str>) -> Vec<(String, String)> {
        let sign = crypto::sign(&self.app_token, body, unique, "H5", "2.0.2");
        let mut headers = vec![
            ("AppId".to_string(), "H5".to_string()),
            ("UniqueId".to_string(), unique.to_string()),
            ("Version".to_string(), "2.0.2".to_string()),
            ("DeviceId".to_string(), self.device_id.clone()),
            ("AppToken".to_string(), self.app_token.clone()),
            ("IsAB".to_string(), "0".to_string()),
            ("Sign".to_string(), sign),
            ("Content-Type".to_string(), "application/json".to_string()),
        ];
        if let Some(token) = &self.user_token {
            headers.push(("UserToken".to_string(), token.clone()));
        }
        headers.extend(self.extra_headers.iter().cloned());
        headers
    }

    pub async fn get(&self, path: &str) -> Value {
        let unique = unique_id();
        http(self.addr, "GET", path, &self.headers(&unique, None), b"")
            .await
            .json()
    }

    /// POSTs `body` through the request layer and opens the sealed answer.
    pub async fn post(&self, path: &str, body: Value) -> Value {
        let plain = body.to_string();
        let unique = unique_id();
        let envelope = json!({ "data": self.pairs.seal(self.pair, plain.as_bytes()).unwrap(), "fuaohbcb": self.pair });
        let answer = http(
            self.addr,
            "POST",
            path,
            &self.headers(&unique, Some(&plain)),
            envelope.to_string().as_bytes(),
        )
        .await;
        self.open(&answer)
    }

    pub fn open(&self, answer: &Answer) -> Value {
        let envelope = answer.json();
        match (
            envelope.get("data").and_then(Value::as_str),
            envelope.get("fuaohbcb"),
        ) {
            (Some(data), Some(index)) => {
                assert_eq!(
                    index.as_i64(),
                    Some(self.pair),
                    "answered with the request's pair"
                );
                serde_json::from_str(&self.pairs.open(self.pair, data).unwrap()).unwrap()
            }
            _ => envelope,
        }
    }

    /// The captcha for a fresh uid, read back from the outbox.
    pub async fn captcha(&self, server: &Server) -> (String, String) {
        let uid = format!("{:0>16}", unique_id())
            .chars()
            .rev()
            .take(16)
            .collect::<String>();
        let image = http(
            self.addr,
            "GET",
            &format!("/api/validateimage?uid={uid}"),
            &[],
            b"",
        )
        .await;
        assert_eq!(image.status, 200);
        assert_eq!(image.content_type, "image/png");
        let entry = server.outbox(|e| e["uid"] == uid.as_str()).await;
        (uid, entry["code"].as_str().unwrap().to_string())
    }

    /// Logs in through the real flow (captcha, RSA-encrypted password).
    pub async fn login(&mut self, server: &Server, username: &str, password: &str) -> Value {
        let config = self.get("/api/getconfig").await;
        let pem = config["data"]["public_key"].as_str().unwrap();
        let loginpass = api::secrets::encrypt_for(pem, password).unwrap();
        let (uid, code) = self.captcha(server).await;
        let answer = self
            .post(
                "/api/default/login",
                json!({"username": username, "loginpass": loginpass, "validateCode": code, "type": 1, "uid": uid}),
            )
            .await;
        if answer["status"] == 0 {
            self.user_token = Some(answer["data"]["auth_token"].as_str().unwrap().to_string());
        }
        answer
    }

    /// Registers by phone: sendcode, code from the outbox, checkcode, register.
    pub async fn register_phone(&mut self, server: &Server, phone: &str, password: &str) -> Value {
        let sent = self
            .post(
                "/api/sendcode",
                json!({"type": 2, "valtype": 1, "mobile": phone}),
            )
            .await;
        assert_eq!(sent["status"], 0, "{sent}");
        let uid = sent["data"]["uid"].as_str().unwrap().to_string();
        let code = server.outbox(|e| e["uid"] == uid.as_str()).await["code"]
            .as_str()
            .unwrap()
            .to_string();
        let checked = self
            .post(
                "/api/checkcode",
                json!({"uid": uid, "type": 2, "valtype": 1, "mobile": phone, "checkCode": code}),
            )
            .await;
        assert_eq!(checked["status"], 0, "{checked}");
        let answer = self
            .post(
                "/api/default/registermobile",
                json!({"phone": phone, "phoneUid": uid, "password": password, "repassword": password,
                       "country_code": "CN", "currency_name": "CNY", "agree": true, "language": "zhh"}),
            )
            .await;
        if answer["status"] == 0 {
            self.user_token = Some(answer["data"]["auth_token"].as_str().unwrap().to_string());
        }
        answer
    }
}

// Swarm helpers shared by the betting tests.

pub async fn swarm(server: &Server, sid: &str, body: Value) -> Value {
    let headers = vec![
        ("swarm-session".to_string(), sid.to_string()),
        ("Content-Type".to_string(), "application/json".to_string()),
    ];
    http(
        server.addr(),
        "POST",
        "/swarm",
        &headers,
        body.to_string().as_bytes(),
    )
    .await
    .json()
}

/// A logged-in member with a restored Swarm session.
pub async fn member(server: &Server) -> (Client, String) {
    let mut client = Client::new(server).await;
    let login = client.login(server, "demo", "demo1234").await;
    assert_eq!(login["status"], 0, "{login}");
    let sid = swarm_session(server, &login).await;
    (client, sid)
}

/// A long-poll Swarm session restored with a main API login's answer.
pub async fn swarm_session(server: &Server, login: &Value) -> String {
    let headers = vec![("Content-Type".to_string(), "application/json".to_string())];
    let session = http(
        server.addr(),
        "POST",
        "/swarm",
        &headers,
        json!({"command": "request_session", "params": {}, "rid": 1})
            .to_string()
            .as_bytes(),
    )
    .await
    .json();
    let sid = session["data"]["sid"].as_str().unwrap().to_string();
    let restored = swarm(server, &sid, json!({"command": "restore_login", "rid": 2,
        "params": {"user_id": login["data"]["user_id"], "auth_token": login["data"]["auth_token"]}})).await;
    assert_eq!(restored["code"], 0, "{restored}");
    sid
}

/// A prematch selection with a price, its game and market.
pub fn pick(server: &Server) -> (u64, u64, u64, Decimal) {
    server.running.state.live.read(|c| {
        // The prematch game that starts last (the living feed kicks games
        // off within the hour, and a bet on a started one is refused, 1100)
        // whose match-result market and first selection are open now: the
        // feed suspends a few markets at a time, and the same seed and tick
        // times suspend the same ones in every test started in that minute.
        let mut games: Vec<_> = c
            .games()
            .values()
            .filter(|g| g.game_type == GameType::Prematch && !g.is_blocked)
            .collect();
        games.sort_by_key(|g| (std::cmp::Reverse(g.start_ts), g.id));
        games
            .into_iter()
            .find_map(|game| {
                let market = c.markets_of(game.id).find(|m| {
                    (m.market_type == "P1XP2" || m.market_type == "P1P2") && !m.is_suspended
                })?;
                let event = c
                    .events_of(market.id)
                    .next()
                    .filter(|e| !e.is_suspended && e.price > Decimal::ONE)?;
                Some((event.id, market.id, game.id, event.price))
            })
            .expect("an open match-result selection")
    })
}

// The back office (plain JSON, bearer tokens).

/// A back-office call: the HTTP status and the JSON answer (null if none).
pub async fn backoffice(
    server: &Server,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
    if let Some(token) = token {
        headers.push(("Authorization".to_string(), format!("Bearer {token}")));
    }
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let answer = http(server.addr(), method, path, &headers, body.as_bytes()).await;
    let json = serde_json::from_slice(&answer.body).unwrap_or(Value::Null);
    (answer.status, json)
}

/// Staff login: the bearer token.
pub async fn staff_token(server: &Server, username: &str, password: &str) -> String {
    let (status, answer) = backoffice(
        server,
        "POST",
        "/api/backoffice/login",
        None,
        Some(json!({"username": username, "password": password})),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["data"]["username"], username);
    answer["data"]["token"].as_str().unwrap().to_string()
}

impl Client {
    /// Logs in as `login` does, reading the captcha from the outbox of the
    /// server at `self.addr` (DEMO=1), whichever process answers.
    pub async fn login_here(&mut self, username: &str, password: &str) -> Value {
        let config = self.get("/api/getconfig").await;
        let pem = config["data"]["public_key"].as_str().unwrap();
        let loginpass = api::secrets::encrypt_for(pem, password).unwrap();
        let uid: String = format!("{:0>16}", unique_id())
            .chars()
            .rev()
            .take(16)
            .collect();
        let image = http(
            self.addr,
            "GET",
            &format!("/api/validateimage?uid={uid}"),
            &[],
            b"",
        )
        .await;
        assert_eq!(image.status, 200);
        let mut code = None;
        for _ in 0..50 {
            let entries = http(self.addr, "GET", "/api/dev/outbox", &[], b"")
                .await
                .json();
            code = entries
                .as_array()
                .and_then(|list| list.iter().find(|e| e["uid"] == uid.as_str()))
                .and_then(|e| e["code"].as_str().map(str::to_string));
            if code.is_some() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        let code = code.expect("the captcha is in the outbox");
        let answer = self
            .post(
                "/api/default/login",
                json!({"username": username, "loginpass": loginpass, "validateCode": code, "type": 1, "uid": uid}),
            )
            .await;
        if answer["status"] == 0 {
            self.user_token = Some(answer["data"]["auth_token"].as_str().unwrap().to_string());
        }
        answer
    }
}

/// A Swarm WebSocket (tests that speak the protocol over a socket).
pub type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

pub async fn ws_ask(ws: &mut Ws, request: Value) -> Value {
    futures::SinkExt::send(
        ws,
        tokio_tungstenite::tungstenite::Message::Text(request.to_string().into()),
    )
    .await
    .unwrap();
    loop {
        let message = tokio::time::timeout(
            std::time::Duration::from_secs(10),
            futures::StreamExt::next(ws),
        )
        .await
        .expect("an answer within 10 s")
        .expect("the socket is open")
        .unwrap();
        if let tokio_tungstenite::tungstenite::Message::Text(text) = message {
            let value: Value = serde_json::from_str(&text).unwrap();
            if value["rid"] != "0" {
                return value;
            }
        }
    }
}

/// A WebSocket with a Swarm session restored for the demo member.
pub async fn member_socket(server: &Server) -> Ws {
    let mut client = Client::new(server).await;
    let login = client.login(server, "demo", "demo1234").await;
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/swarm", server.addr()))
        .await
        .unwrap();
    let session = ws_ask(
        &mut ws,
        json!({"command": "request_session", "rid": 1, "params": {}}),
    )
    .await;
    assert_eq!(session["code"], 0);
    let restored = ws_ask(
        &mut ws,
        json!({"command": "restore_login", "rid": 2, "params": {
        "user_id": login["data"]["user_id"], "auth_token": login["data"]["auth_token"]}}),
    )
    .await;
    assert_eq!(restored["code"], 0, "{restored}");
    ws
}
