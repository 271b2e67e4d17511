//! Against a real deployment: two or three `api` processes on one Postgres
//! behind HAProxy (round robin, no stickiness), started by
//! `scripts/test.sh` (`scripts/lib.sh cluster_start`). Ignored unless
//! `CLUSTER_URL` (host:port of the balancer) is set; `CLUSTER_PIDS` lists
//! the nodes' process ids, the first of which this test kills with -9 while
//! bets are being placed.
//!
//! `CLUSTER_URL=127.0.0.1:18080 CLUSTER_PIDS="123 456" cargo test -p api --test cluster -- --ignored`

mod common;

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::{try_http, Client};
use rust_decimal::Decimal;
use serde_json::{json, Value};

fn cluster() -> Option<(SocketAddr, Vec<i32>)> {
    let url = std::env::var("CLUSTER_URL").ok()?;
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .expect("CLUSTER_URL is host:port");
    let pids = std::env::var("CLUSTER_PIDS")
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect();
    Some((addr, pids))
}

/// A Swarm request over long-poll; `None` when the balancer or the node
/// failed (a node killed mid-request).
async fn swarm_at(addr: SocketAddr, sid: &str, body: Value) -> Option<Value> {
    let headers = vec![
        ("swarm-session".to_string(), sid.to_string()),
        ("Content-Type".to_string(), "application/json".to_string()),
    ];
    let answer = tokio::time::timeout(
        Duration::from_secs(20),
        try_http(
            addr,
            "POST",
            "/swarm",
            &headers,
            body.to_string().as_bytes(),
        ),
    )
    .await
    .ok()?
    .ok()?;
    if answer.status != 200 {
        return None;
    }
    serde_json::from_slice(&answer.body).ok()
}

async fn balance(client: &Client) -> Decimal {
    let answer = client.post("/api/user/getbalance", json!({})).await;
    answer["data"]["balance"].as_str().unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs the cluster that scripts/test.sh starts (CLUSTER_URL)"]
async fn a_node_killed_under_load_loses_no_accepted_bet_and_no_money() {
    let Some((addr, pids)) = cluster() else {
        eprintln!("CLUSTER_URL not set: skipped");
        return;
    };
    // Bets of the tests before this one are out of its history window.
    tokio::time::sleep(Duration::from_secs(6)).await;
    let mut client = Client::at(addr).await;
    let login = client.login_here("demo", "demo1234").await;
    assert_eq!(login["status"], 0, "{login}");
    let started_s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let session = swarm_at(
        addr,
        "",
        json!({"command": "request_session", "rid": 1, "params": {}}),
    )
    .await
    .unwrap();
    let sid = session["data"]["sid"].as_str().unwrap().to_string();
    let restored = swarm_at(addr, &sid, json!({"command": "restore_login", "rid": 2,
        "params": {"user_id": login["data"]["user_id"], "auth_token": login["data"]["auth_token"]}}))
    .await
    .unwrap();
    assert_eq!(restored["code"], 0, "{restored}");
    // A prematch selection, read through the balancer.
    let games = swarm_at(
        addr,
        &sid,
        json!({"command": "get", "rid": 3, "params": {
        "what": {"game": ["id"], "market": ["id"], "event": ["id", "price"]},
        "where": {"game": {"type": 0}}}}),
    )
    .await
    .unwrap();
    let event = games["data"]["data"]["game"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|g| g["market"].as_object().into_iter().flat_map(|m| m.values()))
        .flat_map(|m| m["event"].as_object().into_iter().flat_map(|e| e.values()))
        .find(|e| e["price"].as_f64().is_some_and(|p| p > 1.0))
        .expect("a prematch selection")
        .clone();
    let before = balance(&client).await;

    // Four clients bet 1.00 each for six seconds (at most about 25 bets a
    // second each, so the history fits one page); node 1 dies after two.
    let deadline = Instant::now() + Duration::from_secs(6);
    let mut workers = Vec::new();
    for w in 0..4 {
        let sid = sid.clone();
        let event = event.clone();
        workers.push(tokio::spawn(async move {
            let (mut ok, mut failed) = (Vec::new(), 0);
            let mut rid = 0;
            while Instant::now() < deadline {
                rid += 1;
                let answer = swarm_at(
                    addr,
                    &sid,
                    json!({"command": "do_bet", "rid": w * 100_000 + rid,
                    "params": {"type": 1, "mode": 2, "amount": "1.00",
                        "bets": [{"event_id": event["id"], "price": event["price"]}]}}),
                )
                .await;
                match answer {
                    Some(a) if a["data"]["result"] == "OK" => {
                        ok.push(a["data"]["details"]["bet_id"].as_i64().unwrap())
                    }
                    _ => failed += 1,
                }
                tokio::time::sleep(Duration::from_millis(40)).await;
            }
            (ok, failed)
        }));
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    if let Some(pid) = pids.first() {
        let killed = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status()
            .unwrap();
        assert!(killed.success(), "kill -9 {pid}");
    }
    let mut accepted = BTreeSet::new();
    let mut failed = 0;
    for worker in workers {
        let (ok, f) = worker.await.unwrap();
        accepted.extend(ok);
        failed += f;
    }
    eprintln!("{} bets accepted, {failed} requests failed", accepted.len());
    assert!(accepted.len() > 20, "bets go on through the surviving node");

    // Every accepted bet is in the history, and the balance moved by
    // exactly the stakes of the bets the history holds (a request that
    // failed in flight may still have placed its bet: then it is there
    // and its stake is taken, once).
    let mut settled_view = None;
    let mut last = String::new();
    for _ in 0..100 {
        let history = client
            .post(
                "/api/report/betrecods",
                json!({"from_date": started_s - 5, "to_date": started_s + 3600, "pn": 1000}),
            )
            .await;
        assert_eq!(history["status"], 0, "{history}");
        let list = history["data"]["list"].as_array().unwrap().clone();
        let ids: BTreeSet<i64> = list
            .iter()
            .filter_map(|b| b["id"].as_i64().or_else(|| b["id"].as_str()?.parse().ok()))
            .collect();
        let staked: Decimal = list
            .iter()
            .map(|b| b["amount"].as_str().unwrap().parse::<Decimal>().unwrap())
            .sum();
        let now = balance(&client).await;
        if accepted.is_subset(&ids) && now == before - staked {
            settled_view = Some((ids.len(), staked));
            break;
        }
        last = format!(
            "{} accepted not in the history of {}; balance {now}, before {before}, staked {staked}",
            accepted.difference(&ids).count(),
            ids.len()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let (placed, staked) = settled_view.unwrap_or_else(|| {
        panic!("every accepted bet in the history and balance = before - stakes: {last}")
    });
    eprintln!("{placed} bets in the history, {staked} staked");
    assert!(placed >= accepted.len());
}

// Protocol conformance through the balancer: every request may reach
// another process than the one before, so whatever must hold across
// requests is shared. Run while every node is up (scripts/test.sh runs
// these before the kill test).

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs the cluster that scripts/test.sh starts (CLUSTER_URL)"]
async fn through_the_balancer_every_request_layer_refusal_keeps_its_code() {
    let Some((addr, _)) = cluster() else {
        eprintln!("CLUSTER_URL not set: skipped");
        return;
    };
    let client = Client::at(addr).await;
    // The replayed UniqueId inside reaches the other node: -70005 there too.
    common::conformance::transport_refusals(&client).await;
    // Signed and sealed requests answer on whichever node they reach (a
    // device of its own each: one device repeating a call within 3 s is a
    // repeated submission).
    for _ in 0..6 {
        let answer = Client::at(addr)
            .await
            .post("/api/getdomainconfig", json!({}))
            .await;
        assert_eq!(answer["status"], 0, "{answer}");
    }
}

/// The data of a plain `get` answer, in either of the protocol's shapes
/// (`data: {...}` or `data: {data: {...}}`).
fn snapshot(answer: &Value) -> Value {
    let data = &answer["data"];
    match data.get("data") {
        Some(inner) if inner.is_object() && data.get("subid").is_none() => inner.clone(),
        _ => data.clone(),
    }
}

fn live_games() -> Value {
    json!({"game": ["id", "team1_name", "type", "info"], "market": ["id"], "event": ["id", "price"]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs the cluster that scripts/test.sh starts (CLUSTER_URL)"]
async fn through_the_balancer_a_long_poll_subscription_converges_on_the_fresh_snapshot() {
    let Some((addr, _)) = cluster() else {
        eprintln!("CLUSTER_URL not set: skipped");
        return;
    };
    let session = swarm_at(
        addr,
        "",
        json!({"command": "request_session", "rid": 1,
        "params": {"language": "eng", "site_id": 1054}}),
    )
    .await
    .unwrap();
    assert_eq!(session["code"], 0, "{session}");
    let sid = session["data"]["sid"].as_str().unwrap().to_string();
    let query = json!({"what": live_games(), "where": {"game": {"type": 1}}});
    let mut params = query.clone();
    params["subscribe"] = json!(true);
    let subscribed = swarm_at(
        addr,
        &sid,
        json!({"command": "get", "rid": 2, "params": params}),
    )
    .await
    .unwrap();
    assert_eq!(subscribed["code"], 0, "{subscribed}");
    let subid = subscribed["data"]["subid"].as_str().unwrap().to_string();
    let mut view = subscribed["data"]["data"].clone();
    assert!(
        view["game"].as_object().is_some_and(|g| !g.is_empty()),
        "live games: {view}"
    );
    // Polls alternate between the nodes while the feed moves the prices;
    // each node answers the diff from what the session last received.
    let mut diffs = 0;
    let mut converged = false;
    for round in 0..60 {
        tokio::time::sleep(Duration::from_millis(250)).await;
        let answer = swarm_at(addr, &sid, json!({"command": "whats_up", "rid": 3}))
            .await
            .unwrap();
        assert_eq!(answer["code"], 0, "{answer}");
        // `{subid: diff}` (a push's shape), or a list of pushes.
        let pushes = match &answer["data"] {
            Value::Array(list) => list.iter().map(|p| p["data"].clone()).collect(),
            other => vec![other.clone()],
        };
        for push in pushes {
            if let Some(diff) = push.get(&subid) {
                domain::swarm::merge(&mut view, diff);
                diffs += 1;
            }
        }
        if round < 12 {
            continue;
        }
        let fresh = swarm_at(
            addr,
            &sid,
            json!({"command": "get", "rid": 4, "params": query}),
        )
        .await
        .unwrap();
        if snapshot(&fresh) == view {
            converged = true;
            break;
        }
    }
    assert!(diffs > 0, "the feed moved no live price in 15 s");
    assert!(converged, "the merged diffs never met a fresh snapshot");
    let gone = swarm_at(
        addr,
        &sid,
        json!({"command": "unsubscribe", "rid": 5,
        "params": {"subid": subid}}),
    )
    .await
    .unwrap();
    assert_eq!(gone["code"], 0, "{gone}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs the cluster that scripts/test.sh starts (CLUSTER_URL)"]
async fn through_the_balancer_a_websocket_streams_pushes_and_takes_a_bet() {
    use futures::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let Some((addr, _)) = cluster() else {
        eprintln!("CLUSTER_URL not set: skipped");
        return;
    };
    let mut client = Client::at(addr).await;
    let login = client.login_here("demo", "demo1234").await;
    assert_eq!(login["status"], 0, "{login}");
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/swarm"))
        .await
        .expect("a WebSocket through the balancer");
    let pushes = std::cell::Cell::new(0);
    // Sends a request and waits for its answer, counting pushes meanwhile.
    let ask = async |ws: &mut tokio_tungstenite::WebSocketStream<_>, body: Value| -> Value {
        let rid = body["rid"].clone();
        ws.send(Message::Text(body.to_string().into()))
            .await
            .unwrap();
        loop {
            let message = tokio::time::timeout(Duration::from_secs(20), ws.next())
                .await
                .expect("an answer within 20 s")
                .unwrap()
                .unwrap();
            if let Message::Text(text) = message {
                let value: Value = serde_json::from_str(&text).unwrap();
                if value["rid"] == rid {
                    return value;
                }
                pushes.set(pushes.get() + 1);
            }
        }
    };
    let session = ask(
        &mut ws,
        json!({"command": "request_session", "rid": "s",
        "params": {"language": "eng", "site_id": 1054}}),
    )
    .await;
    assert_eq!(session["code"], 0, "{session}");
    let restored = ask(&mut ws, json!({"command": "restore_login", "rid": "r",
        "params": {"user_id": login["data"]["user_id"], "auth_token": login["data"]["auth_token"]}}))
    .await;
    assert_eq!(restored["code"], 0, "{restored}");
    let subscribed = ask(
        &mut ws,
        json!({"command": "get", "rid": "g", "params": {
        "subscribe": true, "what": live_games(), "where": {"game": {"type": 1}}}}),
    )
    .await;
    assert_eq!(subscribed["code"], 0, "{subscribed}");
    let prematch = ask(
        &mut ws,
        json!({"command": "get", "rid": "p", "params": {
        "what": {"game": ["id"], "market": ["id"], "event": ["id", "price"]},
        "where": {"game": {"type": 0}}}}),
    )
    .await;
    let event = snapshot(&prematch)["game"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|g| g["market"].as_object().into_iter().flat_map(|m| m.values()))
        .flat_map(|m| m["event"].as_object().into_iter().flat_map(|e| e.values()))
        .find(|e| {
            e["price"]
                .as_f64()
                .or_else(|| e["price"].as_str()?.parse().ok())
                .is_some_and(|p| p > 1.0)
        })
        .expect("a prematch selection")
        .clone();
    let before = balance(&client).await;
    let bet = ask(
        &mut ws,
        json!({"command": "do_bet", "rid": "b", "params": {
        "type": 1, "mode": 2, "amount": "1.00",
        "bets": [{"event_id": event["id"], "price": event["price"]}]}}),
    )
    .await;
    assert_eq!(bet["data"]["result"], "OK", "{bet}");
    // The balance read through the balancer (either node) shows the stake.
    let mut after = before;
    for _ in 0..50 {
        after = balance(&client).await;
        if after == before - Decimal::ONE {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(after, before - Decimal::ONE);
    // The feed's live prices reach the socket as pushes.
    let deadline = Instant::now() + Duration::from_secs(20);
    while pushes.get() == 0 && Instant::now() < deadline {
        let pong = ask(&mut ws, json!({"command": "ping", "rid": "x"})).await;
        assert_eq!(pong["code"], 0);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(pushes.get() > 0, "no push through the balancer in 20 s");
}
