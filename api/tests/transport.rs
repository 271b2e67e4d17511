//! The request layer's refusals, each with its own code, none a panic.

mod common;

use commands::StoreKind;
use common::{http, start, unique_id, Client};
use serde_json::{json, Value};

commands::on_both_stores!(
    answers_come_sealed_with_the_request_pair,
    every_transport_error_has_its_own_code,
    a_repeated_submission_waits_with_66666,
    client_logs_are_stored,
);

async fn answers_come_sealed_with_the_request_pair(kind: StoreKind) {
    let server = start(kind).await;
    for pair in [0, 9] {
        let mut client = Client::new(&server).await;
        client.pair = pair;
        // `post` checks the pair index of the answer and opens it.
        let answer = client.post("/api/getdomainconfig", json!({})).await;
        assert_eq!(answer["status"], 0, "{answer}");
        assert_eq!(answer["data"]["pid"], "1054");
    }
    server.stop().await;
}

async fn refusal(client: &Client, headers: Vec<(String, String)>, body: &[u8]) -> (u16, Value) {
    let answer = http(client.addr, "POST", "/api/default/login", &headers, body).await;
    (answer.status, answer.json())
}

fn set(headers: &mut [(String, String)], name: &str, value: &str) {
    for header in headers.iter_mut() {
        if header.0 == name {
            header.1 = value.to_string();
        }
    }
}

async fn every_transport_error_has_its_own_code(kind: StoreKind) {
    let server = start(kind).await;
    let client = Client::new(&server).await;
    let plain = r#"{"username":"demo"}"#;
    let sealed = |pair: i64| {
        json!({"data": client.pairs.seal(pair, plain.as_bytes()).unwrap(), "fuaohbcb": pair})
            .to_string()
    };

    // Missing headers.
    let mut headers = client.headers(&unique_id(), Some(plain));
    headers.retain(|h| h.0 != "DeviceId");
    let (status, body) = refusal(&client, headers, sealed(1).as_bytes()).await;
    assert_eq!(
        (status, body["status"].clone()),
        (400, json!(-70007)),
        "{body}"
    );
    assert_eq!(body["msg"], "Missing request headers");

    // Not an envelope.
    let (_, body) = refusal(&client, client.headers(&unique_id(), Some(plain)), b"hello").await;
    assert_eq!(body["status"], -70001);

    // An index outside the ten pairs.
    let envelope = json!({"data": client.pairs.seal(1, plain.as_bytes()).unwrap(), "fuaohbcb": 10})
        .to_string();
    let (_, body) = refusal(
        &client,
        client.headers(&unique_id(), Some(plain)),
        envelope.as_bytes(),
    )
    .await;
    assert_eq!(body["status"], -70002);

    // Sealed with another pair than the one named: bad padding or garbage.
    let envelope =
        json!({"data": client.pairs.seal(1, plain.as_bytes()).unwrap(), "fuaohbcb": 2}).to_string();
    let (_, body) = refusal(
        &client,
        client.headers(&unique_id(), Some(plain)),
        envelope.as_bytes(),
    )
    .await;
    assert_eq!(body["status"], -70003);
    let envelope = json!({"data": "not base64 at all!", "fuaohbcb": 2}).to_string();
    let (_, body) = refusal(
        &client,
        client.headers(&unique_id(), Some(plain)),
        envelope.as_bytes(),
    )
    .await;
    assert_eq!(body["status"], -70003);

    // A signature over another body.
    let (_, body) = refusal(
        &client,
        client.headers(&unique_id(), Some(r#"{"username":"x"}"#)),
        sealed(1).as_bytes(),
    )
    .await;
    assert_eq!(body["status"], -70004);
    assert_eq!(body["msg"], "Invalid signature");

    // A replayed UniqueId.
    let unique = unique_id();
    let (_, first) = refusal(
        &client,
        client.headers(&unique, Some(plain)),
        sealed(1).as_bytes(),
    )
    .await;
    assert_ne!(first["status"], -70005);
    let (_, body) = refusal(
        &client,
        client.headers(&unique, Some(plain)),
        sealed(1).as_bytes(),
    )
    .await;
    assert_eq!(body["status"], -70005);

    // A UniqueId from six minutes ago.
    let old = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis()
        - 360_000;
    let stale = format!("{old:013}abc123");
    let (_, body) = refusal(
        &client,
        client.headers(&stale, Some(plain)),
        sealed(1).as_bytes(),
    )
    .await;
    assert_eq!(body["status"], -70006);

    // An app token the server never issued.
    let mut headers = client.headers(&unique_id(), Some(plain));
    set(
        &mut headers,
        "AppToken",
        "0123456789abcdef0123456789abcdef.0123456789abcdef0123456789abcdef",
    );
    let (_, body) = refusal(&client, headers, sealed(1).as_bytes()).await;
    assert_eq!(body["status"], -70008);

    // Parameters of the wrong shape.
    let answer = client
        .post("/api/default/login", json!({"username": ["a"]}))
        .await;
    assert_eq!(answer["status"], -70009, "{answer}");
    assert!(answer["msg"]
        .as_str()
        .unwrap()
        .starts_with("Invalid request parameters"));

    // The server is still fine.
    assert_eq!(
        http(client.addr, "GET", "/healthz", &[], b"").await.status,
        200
    );
    server.stop().await;
}

async fn a_repeated_submission_waits_with_66666(kind: StoreKind) {
    let server = start(kind).await;
    let client = Client::new(&server).await;
    let body = json!({"type": 2, "valtype": 1, "mobile": "13100131000"});
    assert_eq!(
        client.post("/api/sendcode", body.clone()).await["status"],
        0
    );
    let again = client.post("/api/sendcode", body).await;
    assert_eq!(again["status"], -66666);
    let wait = again["data"]["wait"].as_i64().unwrap();
    assert!((1..=3).contains(&wait));
    assert_eq!(
        again["msg"],
        format!("Repeated submission, please wait {wait} seconds.")
    );
    // Reads are never held back.
    assert_eq!(
        client.post("/api/user/getbalance", json!({})).await["status"],
        12
    );
    assert_eq!(
        client.post("/api/user/getbalance", json!({})).await["status"],
        12
    );
    server.stop().await;
}

async fn client_logs_are_stored(kind: StoreKind) {
    let server = start(kind).await;
    let event = json!([{"deviceData": {"userAgent": "test"}, "api": "/api/user/getbalance", "responseTime": 9001, "type": "slow"}]);
    for path in ["/api/logwriter/devicelog", "/api/logwriter/enerrorapi"] {
        let answer = http(
            server.addr(),
            "POST",
            path,
            &[],
            event.to_string().as_bytes(),
        )
        .await;
        assert_eq!(answer.json()["status"], 0, "{path}");
    }
    assert_eq!(
        http(server.addr(), "POST", "/api/logwriter/nonsense", &[], b"[]")
            .await
            .status,
        404
    );
    assert_eq!(
        http(
            server.addr(),
            "POST",
            "/api/logwriter/betlog",
            &[],
            b"{oops"
        )
        .await
        .json()["status"],
        -70009
    );
    let kinds: Vec<(String, String)> =
        sqlx::query_as("SELECT kind, language FROM client_logs ORDER BY id")
            .fetch_all(&server.running.state.db.any)
            .await
            .unwrap();
    assert_eq!(
        kinds,
        vec![
            ("devicelog".into(), "zh".into()),
            ("errorapi".into(), "en".into())
        ]
    );
    let bad_uid = http(
        server.addr(),
        "GET",
        "/api/validateimage?uid=short",
        &[],
        b"",
    )
    .await;
    assert_eq!(bad_uid.status, 400);
    server.stop().await;
}
