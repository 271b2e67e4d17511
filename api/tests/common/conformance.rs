//! Protocol checks written once and run against one process (the per-area
//! test files) and against a deployment behind a balancer (cluster.rs).

use serde_json::{json, Value};

use super::{http, unique_id, Client};

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

/// Every refusal of the request layer, each with its own code, against
/// whatever answers at `client.addr` (one process or a balancer: the
/// replayed UniqueId then reaches another process than the first).
pub async fn transport_refusals(client: &Client) {
    let plain = r#"{"username":"demo"}"#;
    let sealed = |pair: i64| {
        json!({"data": client.pairs.seal(pair, plain.as_bytes()).unwrap(), "fuaohbcb": pair})
            .to_string()
    };

    // Missing headers.
    let mut headers = client.headers(&unique_id(), Some(plain));
    headers.retain(|h| h.0 != "DeviceId");
    let (status, body) = refusal(client, headers, sealed(1).as_bytes()).await;
    assert_eq!(
        (status, body["status"].clone()),
        (400, json!(-70007)),
        "{body}"
    );
    assert_eq!(body["msg"], "Missing request headers");

    // Not an envelope.
    let (_, body) = refusal(client, client.headers(&unique_id(), Some(plain)), b"hello").await;
    assert_eq!(body["status"], -70001);

    // An index outside the ten pairs.
    let envelope = json!({"data": client.pairs.seal(1, plain.as_bytes()).unwrap(), "fuaohbcb": 10})
        .to_string();
    let (_, body) = refusal(
        client,
        client.headers(&unique_id(), Some(plain)),
        envelope.as_bytes(),
    )
    .await;
    assert_eq!(body["status"], -70002);

    // Sealed with another pair than the one named: bad padding or garbage.
    let envelope =
        json!({"data": client.pairs.seal(1, plain.as_bytes()).unwrap(), "fuaohbcb": 2}).to_string();
    let (_, body) = refusal(
        client,
        client.headers(&unique_id(), Some(plain)),
        envelope.as_bytes(),
    )
    .await;
    assert_eq!(body["status"], -70003);
    let envelope = json!({"data": "not base64 at all!", "fuaohbcb": 2}).to_string();
    let (_, body) = refusal(
        client,
        client.headers(&unique_id(), Some(plain)),
        envelope.as_bytes(),
    )
    .await;
    assert_eq!(body["status"], -70003);

    // A signature over another body.
    let (_, body) = refusal(
        client,
        client.headers(&unique_id(), Some(r#"{"username":"x"}"#)),
        sealed(1).as_bytes(),
    )
    .await;
    assert_eq!(body["status"], -70004);
    assert_eq!(body["msg"], "Invalid signature");

    // A replayed UniqueId.
    let unique = unique_id();
    let (_, first) = refusal(
        client,
        client.headers(&unique, Some(plain)),
        sealed(1).as_bytes(),
    )
    .await;
    assert_ne!(first["status"], -70005);
    let (_, body) = refusal(
        client,
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
        client,
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
    let (_, body) = refusal(client, headers, sealed(1).as_bytes()).await;
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
}
