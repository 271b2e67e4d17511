//! The Swarm-style data protocol at /swarm: WebSocket and HTTP long-poll.

mod common;

use common::{http, start, Client};
use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use store::StoreKind;
use tokio_tungstenite::tungstenite::Message;

store::on_both_stores!(
    a_poll_session_gets_data_and_subscription_diffs,
    pushed_diffs_applied_to_the_snapshot_equal_a_fresh_snapshot,
    a_lost_session_answers_code_5,
    a_websocket_survives_malformed_messages_and_streams_pushes,
    restore_login_binds_the_member_and_betting_needs_it,
    sport_search_groups_games_by_sport_and_needs_four_characters,
);

async fn sport_search_groups_games_by_sport_and_needs_four_characters(kind: StoreKind) {
    let server = start(kind).await;
    let client = Client::new(&server).await;
    let team = server
        .running
        .state
        .live
        .read(|c| c.games().values().next().unwrap().team1_name.clone());
    let found = client
        .post(
            "/api/sport/search",
            json!({"term": team, "language": "zhh"}),
        )
        .await;
    assert_eq!(found["status"], 0, "{found}");
    let groups = found["data"].as_array().unwrap();
    assert!(!groups.is_empty());
    let result = &groups[0]["results"][0];
    assert!(result["game"]["id"].is_u64());
    assert!(result["competition"]["name"].is_string());
    let short = client
        .post(
            "/api/sport/search",
            json!({"term": "A r", "language": "zhh"}),
        )
        .await;
    assert_eq!(short["data"], json!([]));
    server.stop().await;
}

async fn swarm(server: &common::Server, sid: Option<&str>, body: Value) -> Value {
    let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
    if let Some(sid) = sid {
        headers.push(("swarm-session".to_string(), sid.to_string()));
    }
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

async fn session(server: &common::Server) -> String {
    let answer = swarm(server, None, json!({"command": "request_session", "params": {"language": "eng", "site_id": 1054, "source": 42}, "rid": "r1"})).await;
    assert_eq!(answer["code"], 0, "{answer}");
    assert_eq!(answer["rid"], "r1");
    answer["data"]["sid"].as_str().unwrap().to_string()
}

fn live_games() -> Value {
    json!({"source": "betting",
        "what": {"sport": ["id", "name"], "game": ["id", "team1_name", "team2_name", "type", "info"], "market": [], "event": []},
        "where": {"game": {"type": 1}}})
}

/// Moves every live price a little, as the feed would.
fn move_prices(server: &common::Server) {
    server.running.state.live.update(|catalogue| {
        let ids: Vec<u64> = catalogue.events().keys().copied().collect();
        for id in ids.iter().step_by(3) {
            let _ = catalogue.update_event(*id, |e| e.price += rust_decimal::Decimal::new(1, 2));
        }
        let market = *catalogue.markets().keys().next().unwrap();
        catalogue.remove_market(market);
    });
}

async fn a_poll_session_gets_data_and_subscription_diffs(kind: StoreKind) {
    let server = start(kind).await;
    let sid = session(&server).await;
    let sports = swarm(&server, Some(&sid), json!({"command": "get", "params": {"source": "betting", "what": {"sport": ["id", "name", "alias"]}}, "rid": 2})).await;
    assert_eq!(sports["rid"], 2);
    // A plain get answers `data: {data: ...}`, like a subscribed one.
    assert_eq!(sports["data"]["data"]["sport"]["1"]["name"], "Football");
    assert_eq!(sports["data"]["data"]["sport"]["3"]["name"], "Basketball");
    let subscribed = swarm(&server, Some(&sid), json!({"command": "get", "params": {"subscribe": true, "what": live_games()["what"], "where": live_games()["where"]}, "rid": 3})).await;
    assert_eq!(subscribed["code"], 0, "{subscribed}");
    let subid = subscribed["data"]["subid"].as_str().unwrap().to_string();
    assert!(
        subscribed["data"]["data"]["sport"]
            .as_object()
            .unwrap()
            .len()
            >= 3
    );
    move_prices(&server);
    // whats_up answers in the shape of a push: data maps subid -> diff.
    let mut push = Value::Null;
    for _ in 0..100 {
        let answer = swarm(
            &server,
            Some(&sid),
            json!({"command": "whats_up", "rid": "w"}),
        )
        .await;
        assert_eq!(answer["code"], 0);
        assert_eq!(answer["rid"], "w");
        if !answer["data"].as_object().unwrap().is_empty() {
            push = answer;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(push["data"][&subid].is_object(), "{push}");
    let unsubscribed = swarm(
        &server,
        Some(&sid),
        json!({"command": "unsubscribe", "params": {"subid": subid}, "rid": 9}),
    )
    .await;
    assert_eq!(unsubscribed["code"], 0);
    server.stop().await;
}

async fn pushed_diffs_applied_to_the_snapshot_equal_a_fresh_snapshot(kind: StoreKind) {
    let server = start(kind).await;
    let sid = session(&server).await;
    let params =
        json!({"subscribe": true, "what": live_games()["what"], "where": live_games()["where"]});
    let subscribed = swarm(
        &server,
        Some(&sid),
        json!({"command": "get", "params": params, "rid": 1}),
    )
    .await;
    let subid = subscribed["data"]["subid"].as_str().unwrap().to_string();
    let mut view = subscribed["data"]["data"].clone();
    for _ in 0..5 {
        move_prices(&server);
        tokio::time::sleep(std::time::Duration::from_millis(30)).await;
        let answer = swarm(
            &server,
            Some(&sid),
            json!({"command": "whats_up", "rid": "w"}),
        )
        .await;
        if let Some(diff) = answer["data"].get(&subid) {
            domain::swarm::merge(&mut view, diff);
        }
    }
    // The feed may tick between the last poll and the fresh answer: poll
    // and compare again until they meet.
    let mut fresh = Value::Null;
    for _ in 0..10 {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        let answer = swarm(
            &server,
            Some(&sid),
            json!({"command": "whats_up", "rid": "w"}),
        )
        .await;
        if let Some(diff) = answer["data"].get(&subid) {
            domain::swarm::merge(&mut view, diff);
        }
        fresh = swarm(&server, Some(&sid), json!({"command": "get", "params": {"what": live_games()["what"], "where": live_games()["where"]}, "rid": 2})).await["data"]["data"].clone();
        if view == fresh {
            break;
        }
    }
    assert_eq!(view, fresh);
    server.stop().await;
}

async fn a_lost_session_answers_code_5(kind: StoreKind) {
    let server = start(kind).await;
    let answer = swarm(
        &server,
        Some("nope"),
        json!({"command": "get", "params": {"what": {"sport": []}}, "rid": 1}),
    )
    .await;
    assert_eq!(answer["code"], 5);
    assert_eq!(answer["rid"], 1);
    let answer = swarm(&server, None, json!({"command": "whats_up", "rid": 2})).await;
    assert_eq!(answer["code"], 5);
    server.stop().await;
}

async fn a_websocket_survives_malformed_messages_and_streams_pushes(kind: StoreKind) {
    let server = start(kind).await;
    let url = format!("ws://{}/swarm", server.addr());
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let ask = async |ws: &mut tokio_tungstenite::WebSocketStream<_>, text: String| -> Value {
        ws.send(Message::Text(text.into())).await.unwrap();
        loop {
            let message = ws.next().await.unwrap().unwrap();
            if let Message::Text(text) = message {
                let value: Value = serde_json::from_str(&text).unwrap();
                if value["rid"] != "0" {
                    return value;
                }
            }
        }
    };
    assert_eq!(ask(&mut ws, "{not json".into()).await["code"], 2);
    assert_eq!(
        ask(&mut ws, r#"{"command":"teleport","rid":1}"#.into()).await["code"],
        2
    );
    assert_eq!(
        ask(
            &mut ws,
            r#"{"command":"get","rid":2,"params":{"what":{"sport":[]}}}"#.into()
        )
        .await["code"],
        5
    );
    let sid = ask(
        &mut ws,
        r#"{"command":"request_session","rid":3,"params":{"language":"zhh"}}"#.into(),
    )
    .await;
    assert_eq!(sid["code"], 0);
    let bad = ask(
        &mut ws,
        r#"{"command":"get","rid":4,"params":{"what":{"planet":[]}}}"#.into(),
    )
    .await;
    assert_eq!(bad["code"], 3, "{bad}");
    let params =
        json!({"subscribe": true, "what": live_games()["what"], "where": live_games()["where"]});
    let subscribed = ask(
        &mut ws,
        json!({"command": "get", "params": params, "rid": 5}).to_string(),
    )
    .await;
    let subid = subscribed["data"]["subid"].as_str().unwrap().to_string();
    move_prices(&server);
    let push = tokio::time::timeout(std::time::Duration::from_secs(5), async {
        loop {
            if let Message::Text(text) = ws.next().await.unwrap().unwrap() {
                let value: Value = serde_json::from_str(&text).unwrap();
                if value["rid"] == "0" {
                    return value;
                }
            }
        }
    })
    .await
    .expect("a push");
    assert!(push["data"][&subid].is_object());
    ws.close(None).await.unwrap();
    // The server is still fine.
    assert_eq!(
        http(server.addr(), "GET", "/healthz", &[], b"")
            .await
            .status,
        200
    );
    server.stop().await;
}

async fn restore_login_binds_the_member_and_betting_needs_it(kind: StoreKind) {
    let server = start(kind).await;
    let sid = session(&server).await;
    let bet =
        json!({"command": "do_bet", "params": {"type": 1, "amount": 1, "bets": []}, "rid": 1});
    assert_eq!(swarm(&server, Some(&sid), bet.clone()).await["code"], 12);
    let mut client = Client::new(&server).await;
    let login = client.login(&server, "demo", "demo1234").await;
    let (user_id, token) = (
        login["data"]["user_id"].clone(),
        login["data"]["auth_token"].clone(),
    );
    let wrong = swarm(&server, Some(&sid), json!({"command": "restore_login", "params": {"user_id": user_id, "auth_token": "bad"}, "rid": 2})).await;
    assert_eq!(wrong["code"], 12);
    let restored = swarm(&server, Some(&sid), json!({"command": "restore_login", "params": {"user_id": user_id, "auth_token": token}, "rid": 3})).await;
    assert_eq!(restored["code"], 0, "{restored}");
    assert_eq!(restored["data"]["user_id"], user_id);
    assert_ne!(swarm(&server, Some(&sid), bet.clone()).await["code"], 12);
    // Logged out of the main API: the poll session's login ends with it
    // (the login is read with the session, in the same statement).
    assert_eq!(client.post("/api/logout", json!({})).await["status"], 0);
    assert_eq!(swarm(&server, Some(&sid), bet).await["code"], 12);
    server.stop().await;
}

/// Two `api` processes on one Postgres: the one holding the feed's lock
/// ticks it; the other applies the logged changes, and its subscribers get
/// pushes. When the first stops, the second takes the feed over.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_subscriber_on_another_process_receives_the_feeds_changes() {
    let mut config = common::config(true);
    config.feed.tick_ms = 100;
    let first = common::start_with(StoreKind::Postgres, config.clone()).await;
    let schema: String = sqlx::query_scalar("SELECT current_schema()::text")
        .fetch_one(&first.running.state.db.any)
        .await
        .unwrap();
    let db = store::Db::open_postgres(&store::db::testing::postgres_url(), Some(&schema))
        .await
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let second = api::app::start(config, db, listener).await.unwrap();
    let second = common::Server {
        running: second,
        clock: commands::platform::clock::ManualClock::at(0),
    };

    let sid = session(&second).await;
    let params = json!({"subscribe": true, "what": {"event": ["id", "price"]}, "where": {}});
    let subscribed = swarm(
        &second,
        Some(&sid),
        json!({"command": "get", "params": params, "rid": 1}),
    )
    .await;
    let subid = subscribed["data"]["subid"].as_str().unwrap().to_string();
    assert!(
        subscribed["data"]["data"]["event"]
            .as_object()
            .unwrap()
            .len()
            > 100,
        "the follower has the catalogue"
    );
    let mut pushed = false;
    for _ in 0..100 {
        let answer = swarm(
            &second,
            Some(&sid),
            json!({"command": "whats_up", "rid": "w"}),
        )
        .await;
        if answer["data"].get(&subid).is_some() {
            pushed = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(
        pushed,
        "the follower's subscriber got the leader's price moves"
    );
    let leader_view = first.running.state.live.read(|c| c.clone());
    let mut converged = false;
    for _ in 0..40 {
        let follower_view = second.running.state.live.read(|c| c.clone());
        let leader_now = first.running.state.live.read(|c| c.clone());
        if follower_view == leader_now {
            converged = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert!(converged, "the follower's catalogue equals the leader's");
    first.stop().await;
    // The second process takes the feed over and keeps it moving.
    let mut moved = false;
    for _ in 0..100 {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        if second.running.state.live.read(|c| c.clone()) != leader_view
            && second.running.state.live.version() > 0
        {
            let before = second.running.state.live.read(|c| c.clone());
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            if second.running.state.live.read(|c| c.clone()) != before {
                moved = true;
                break;
            }
        }
    }
    assert!(moved, "the survivor runs the feed");
    second.stop().await;
}

/// The realtime socket: init gives a client id, p answers p, and after
/// user/bindws the member's notifications arrive on it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn realtime_notifications_reach_the_bound_socket() {
    let server = start(StoreKind::Sqlite).await;
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws", server.addr()))
        .await
        .unwrap();
    let next = async |ws: &mut tokio_tungstenite::WebSocketStream<_>| -> Value {
        loop {
            if let Message::Text(text) = ws.next().await.unwrap().unwrap() {
                return serde_json::from_str(&text).unwrap();
            }
        }
    };
    ws.send(Message::Text(r#"{"type":"init"}"#.into()))
        .await
        .unwrap();
    let init = next(&mut ws).await;
    let client_id = init["client_id"].as_str().unwrap().to_string();
    ws.send(Message::Text(r#"{"type":"p"}"#.into()))
        .await
        .unwrap();
    assert_eq!(next(&mut ws).await["type"], "p");
    let mut client = Client::new(&server).await;
    assert_eq!(client.login(&server, "demo", "demo1234").await["status"], 0);
    assert_eq!(
        client
            .post("/api/user/bindws", json!({"client_id": "nope"}))
            .await["status"],
        -10101
    );
    assert_eq!(
        client
            .post("/api/user/bindws", json!({"client_id": client_id}))
            .await["status"],
        0
    );
    let user_id = server
        .running
        .state
        .accounts
        .find("demo")
        .await
        .unwrap()
        .unwrap();
    server
        .running
        .state
        .notifications
        .send(
            &user_id,
            commands::engagement::notify::WIN,
            &json!({"subject": "win", "id": 7, "money": "12.00", "bonus": "0.00"}),
        )
        .await
        .unwrap();
    let pushed = tokio::time::timeout(std::time::Duration::from_secs(5), next(&mut ws))
        .await
        .unwrap();
    assert_eq!(pushed["type"], 1004);
    assert_eq!(pushed["data"]["money"], "12.00");
    assert_eq!(pushed["client_id"], client_id.as_str());

    // The binding lives as long as the login that made it: after logout
    // the socket gets no more of the member's notifications, while a socket
    // bound by another live login of the member does.
    let (mut live_ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws", server.addr()))
        .await
        .unwrap();
    live_ws
        .send(Message::Text(r#"{"type":"init"}"#.into()))
        .await
        .unwrap();
    let live_id = next(&mut live_ws).await["client_id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut other = Client::new(&server).await;
    assert_eq!(other.login(&server, "demo", "demo1234").await["status"], 0);
    assert_eq!(
        other
            .post("/api/user/bindws", json!({"client_id": live_id}))
            .await["status"],
        0
    );
    assert_eq!(client.post("/api/logout", json!({})).await["status"], 0);
    server
        .running
        .state
        .notifications
        .send(
            &user_id,
            commands::engagement::notify::WIN,
            &json!({"subject": "win", "id": 8, "money": "13.00", "bonus": "0.00"}),
        )
        .await
        .unwrap();
    let delivered = tokio::time::timeout(std::time::Duration::from_secs(5), async {
        loop {
            let message = next(&mut live_ws).await;
            if message["type"] == 1004 {
                return message;
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(delivered["data"]["money"], "13.00");
    // Delivered in the same pass: whatever the logged-out socket got
    // before the answer to a ping sent now must not be the notification.
    ws.send(Message::Text(r#"{"type":"p"}"#.into()))
        .await
        .unwrap();
    let after = tokio::time::timeout(std::time::Duration::from_secs(3), async {
        loop {
            let message = next(&mut ws).await;
            if message["type"] == "p" {
                return None;
            }
            if message["type"] == 1004 {
                return Some(message);
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(after, None, "a logged-out socket got {after:?}");
    server.stop().await;
}
