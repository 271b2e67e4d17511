//! Several `api` processes on one Postgres (DESIGN.md "Scale-out"): two
//! servers in this test binary share a schema, each with its own caches,
//! guards and sessions, as two processes behind a load balancer would.

mod common;

use std::time::Duration;

use common::{config, http, start_on, swarm, Client, Server};
use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletId};
use rust_decimal::Decimal;
use serde_json::{json, Value};
use store::db::testing;

/// Two nodes on one fresh schema (node A seeds the demo member).
async fn two_nodes() -> (Server, Server) {
    let (db, schema) = testing::fresh_postgres_schema().await;
    let a = start_on(db, config(true)).await;
    let b = start_on(testing::open_schema(&schema).await, config(true)).await;
    (a, b)
}

/// The demo member logged in on `server`, with a Swarm session there.
async fn member_on(server: &Server) -> (Client, String, String) {
    let mut client = Client::new(server).await;
    let login = client.login(server, "demo", "demo1234").await;
    assert_eq!(login["status"], 0, "{login}");
    let sid = common::swarm_session(server, &login).await;
    let user_id = login["data"]["user_id"].as_str().unwrap().to_string();
    (client, sid, user_id)
}

async fn single(server: &Server, sid: &str, amount: &str) -> Value {
    let (event_id, _, _, price) = common::pick(server);
    let answer = swarm(
        server,
        sid,
        json!({"command": "do_bet", "rid": 5, "params": {
            "type": 1, "mode": 2, "amount": amount,
            "bets": [{"event_id": event_id, "price": price.to_string()}]}}),
    )
    .await;
    assert_eq!(answer["code"], 0, "{answer}");
    answer["data"].clone()
}

async fn balance(client: &Client) -> Decimal {
    let answer = client.post("/api/user/getbalance", json!({})).await;
    answer["data"]["balance"].as_str().unwrap().parse().unwrap()
}

/// The balance read model once it shows `expected` (it follows the events).
async fn balance_becomes(client: &Client, expected: Decimal) {
    let mut seen = Decimal::ZERO;
    for _ in 0..100 {
        seen = balance(client).await;
        if seen == expected {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(seen, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_node_with_a_stale_wallet_never_refuses_2400_when_the_store_holds_the_money() {
    let (a, b) = two_nodes().await;
    let (_ca, _sa, user_id) = member_on(&a).await;
    let (cb, sb, _) = member_on(&b).await;
    // Node B stakes everything: its cache holds the wallet at 0.00.
    let all_in = single(&b, &sb, "10000").await;
    assert_eq!(all_in["result"], "OK", "{all_in}");
    balance_becomes(&cb, Decimal::ZERO).await;
    // Node A pays the member 25.00 (as a settlement would).
    let wallet = WalletId::new(user_id.clone(), domain::Currency::Cny);
    a.running
        .state
        .wallets
        .execute(WalletCommand::new(
            wallet,
            "test:payout:1",
            WalletAction::Credit {
                amount: Decimal::new(2500, 2),
                pot: Pot::Main,
                kind: MovementKind::Adjustment,
            },
        ))
        .await
        .unwrap();
    // Node B, at once: the max bet and a 1.00 bet see the money.
    let max = swarm(
        &b,
        &sb,
        json!({"command": "get_max_bet", "rid": 6, "params": {}}),
    )
    .await;
    assert_eq!(max["data"]["amount"], "25.00", "{max}");
    let bet = single(&b, &sb, "1").await;
    assert_eq!(bet["result"], "OK", "{bet}");
    // And a bet above what is there is still refused with 2400.
    let too_much = single(&b, &sb, "30").await;
    assert_eq!(too_much["result"], 2400, "{too_much}");
    balance_becomes(&cb, Decimal::new(2400, 2)).await;
    b.stop().await;
    a.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn bets_on_both_nodes_for_one_member_never_fail_and_take_exactly_the_stakes() {
    let (a, b) = two_nodes().await;
    let (ca, sa, _) = member_on(&a).await;
    let (_cb, sb, _) = member_on(&b).await;
    let before = balance(&ca).await;
    let per_node = 60;
    let place = |server: &Server, sid: String| {
        let addr = server.addr();
        let (event_id, _, _, price) = common::pick(server);
        async move {
            let mut answers = Vec::new();
            let mut tasks = Vec::new();
            for i in 0..per_node {
                let sid = sid.clone();
                tasks.push(tokio::spawn(async move {
                    let body = json!({"command": "do_bet", "rid": i, "params": {
                        "type": 1, "mode": 2, "amount": "1.5",
                        "bets": [{"event_id": event_id, "price": price.to_string()}]}});
                    let headers = vec![("swarm-session".to_string(), sid)];
                    http(
                        addr,
                        "POST",
                        "/swarm",
                        &headers,
                        body.to_string().as_bytes(),
                    )
                    .await
                    .json()
                }));
            }
            for task in tasks {
                answers.push(task.await.unwrap());
            }
            answers
        }
    };
    let (on_a, on_b) = tokio::join!(place(&a, sa), place(&b, sb));
    let mut accepted = 0;
    for answer in on_a.iter().chain(&on_b) {
        assert_eq!(answer["code"], 0, "{answer}");
        assert_eq!(answer["data"]["result"], "OK", "{answer}");
        accepted += 1;
    }
    assert_eq!(accepted, 2 * per_node);
    let staked = Decimal::new(15, 1) * Decimal::from(accepted);
    // The balance read model catches up; it must equal the stakes exactly.
    balance_becomes(&ca, before - staked).await;
    b.stop().await;
    a.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_request_replayed_on_another_node_is_refused_as_a_reused_id() {
    let (a, b) = two_nodes().await;
    let (client, _, _) = member_on(&a).await;
    let unique = common::unique_id();
    let headers = client.headers(&unique, None);
    let first = http(a.addr(), "GET", "/api/user/getbalance", &headers, b"").await;
    assert_eq!(client.open(&first)["status"], 0, "{}", first.text());
    let replayed = http(b.addr(), "GET", "/api/user/getbalance", &headers, b"").await;
    assert_eq!(replayed.status, 400, "{}", replayed.text());
    assert_eq!(replayed.json()["status"], -70005);
    b.stop().await;
    a.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn staff_lockout_and_login_limits_hold_across_nodes() {
    let (a, b) = two_nodes().await;
    // Five wrong staff passwords spread over two nodes lock the name on both.
    for i in 0..5 {
        let node = if i % 2 == 0 { &a } else { &b };
        let (status, _) = common::backoffice(
            node,
            "POST",
            "/api/backoffice/login",
            None,
            Some(json!({"username": "support", "password": "wrong"})),
        )
        .await;
        assert_eq!(status, 401);
    }
    for node in [&a, &b] {
        let (_, answer) = common::backoffice(
            node,
            "POST",
            "/api/backoffice/login",
            None,
            Some(json!({"username": "support", "password": "support1234"})),
        )
        .await;
        assert_eq!(answer["status"], 1022, "{answer}");
    }
    b.stop().await;
    a.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_tip_reaches_the_members_socket_on_another_node_than_the_bind() {
    use futures::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let (a, b) = two_nodes().await;
    let (client, _, user_id) = member_on(&a).await;
    // The socket is on node B; the bind goes through node A.
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws", b.addr()))
        .await
        .unwrap();
    ws.send(Message::Text(json!({"type": "init"}).to_string().into()))
        .await
        .unwrap();
    let next = async |ws: &mut tokio_tungstenite::WebSocketStream<_>| -> Value {
        loop {
            let message = tokio::time::timeout(Duration::from_secs(10), ws.next())
                .await
                .expect("a message within 10 s")
                .unwrap()
                .unwrap();
            if let Message::Text(text) = message {
                return serde_json::from_str(&text).unwrap();
            }
        }
    };
    let init = next(&mut ws).await;
    let client_id = init["client_id"].as_str().unwrap().to_string();
    let bound = client
        .post("/api/user/bindws", json!({"client_id": client_id}))
        .await;
    assert_eq!(bound["status"], 0, "{bound}");
    let unknown = client
        .post(
            "/api/user/bindws",
            json!({"client_id": "nobody-holds-this"}),
        )
        .await;
    assert_eq!(unknown["status"], -10101, "{unknown}");
    // Node A decides a win tip.
    a.running
        .state
        .notifications
        .send(&user_id, 1004, &json!({"id": "42", "amount": "10.00"}))
        .await
        .unwrap();
    let tip = next(&mut ws).await;
    assert_eq!(tip["type"], 1004, "{tip}");
    assert_eq!(tip["data"]["id"], "42");
    assert_eq!(tip["client_id"], client_id.as_str());
    b.stop().await;
    a.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_long_poll_session_works_on_whichever_node_each_poll_reaches() {
    let (a, b) = two_nodes().await;
    let mut client = Client::new(&a).await;
    let login = client.login(&a, "demo", "demo1234").await;
    let headers = vec![("Content-Type".to_string(), "application/json".to_string())];
    let session = http(
        a.addr(),
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
    // Login on B, subscribe on A, bet on B, poll on both.
    let restored = swarm(&b, &sid, json!({"command": "restore_login", "rid": 2,
        "params": {"user_id": login["data"]["user_id"], "auth_token": login["data"]["auth_token"]}}))
    .await;
    assert_eq!(restored["code"], 0, "{restored}");
    let what = json!({"game": ["id", "team1_name", "is_blocked"], "market": ["id"], "event": ["id", "price"]});
    let where_ = json!({"game": {"type": 1}});
    let subscribed = swarm(
        &a,
        &sid,
        json!({"command": "get", "rid": 3,
        "params": {"subscribe": true, "what": what, "where": where_}}),
    )
    .await;
    assert_eq!(subscribed["code"], 0, "{subscribed}");
    let subid = subscribed["data"]["subid"].as_str().unwrap().to_string();
    let mut copy = subscribed["data"]["data"].clone();
    let bet = single(&b, &sid, "2").await;
    assert_eq!(bet["result"], "OK", "{bet}");
    let mut pushes = 0;
    for round in 0..12 {
        let node = if round % 2 == 0 { &b } else { &a };
        let polled = swarm(
            node,
            &sid,
            json!({"command": "whats_up", "rid": 10 + round}),
        )
        .await;
        assert_eq!(polled["code"], 0, "{polled}");
        if let Some(diff) = polled["data"].get(&subid) {
            domain::swarm::merge(&mut copy, diff);
            pushes += 1;
        }
        tokio::time::sleep(Duration::from_millis(400)).await;
    }
    assert!(pushes > 0, "live prices move within 5 s");
    // The merged copy is what a fresh get answers on the node polled last.
    let mut same = false;
    for _ in 0..5 {
        let polled = swarm(&a, &sid, json!({"command": "whats_up", "rid": 50})).await;
        if let Some(diff) = polled["data"].get(&subid) {
            domain::swarm::merge(&mut copy, diff);
        }
        let fresh = swarm(
            &a,
            &sid,
            json!({"command": "get", "rid": 51,
            "params": {"what": what, "where": where_}}),
        )
        .await;
        if fresh["data"]["data"] == copy {
            same = true;
            break;
        }
    }
    assert!(same, "the merged pushes equal a fresh answer");
    // Unsubscribed on B: no more pushes on A.
    let gone = swarm(
        &b,
        &sid,
        json!({"command": "unsubscribe", "rid": 60, "params": {"subid": subid}}),
    )
    .await;
    assert_eq!(gone["code"], 0);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let polled = swarm(&a, &sid, json!({"command": "whats_up", "rid": 61})).await;
    assert_eq!(polled["data"], json!({}));
    b.stop().await;
    a.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_follower_takes_a_bet_on_the_leaders_latest_price_not_its_own_stale_one() {
    use domain::catalogue::GameType;
    let (db, schema) = testing::fresh_postgres_schema().await;
    let mut leader_config = config(true);
    leader_config.feed.tick_ms = 200;
    let a = start_on(db, leader_config).await;
    // The follower would apply the leader's log only every 30 s.
    let mut follower_config = config(true);
    follower_config.feed.tick_ms = 30_000;
    let b = start_on(testing::open_schema(&schema).await, follower_config).await;
    let (_cb, sb, _) = member_on(&b).await;
    // A selection whose price the leader has moved and the follower has not.
    let mut moved = None;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let leader_prices: std::collections::HashMap<u64, Decimal> =
            a.running.state.live.read(|c| {
                c.games()
                    .values()
                    .filter(|g| g.game_type == GameType::Prematch && !g.is_blocked)
                    .flat_map(|g| c.markets_of(g.id).collect::<Vec<_>>())
                    .flat_map(|m| {
                        c.events_of(m.id)
                            .map(|e| (e.id, e.price))
                            .collect::<Vec<_>>()
                    })
                    .collect()
            });
        moved = b.running.state.live.read(|c| {
            leader_prices.iter().find_map(|(id, price)| {
                let event = c.events().get(id)?;
                (event.price != *price && *price > Decimal::ONE).then_some((*id, *price))
            })
        });
        if moved.is_some() {
            break;
        }
    }
    let (event_id, price) = moved.expect("the leader moves a prematch price within 10 s");
    let answer = swarm(
        &b,
        &sb,
        json!({"command": "do_bet", "rid": 5, "params": {
            "type": 1, "mode": 0, "amount": "1",
            "bets": [{"event_id": event_id, "price": price.to_string()}]}}),
    )
    .await;
    // Mode 0 accepts no change: only the leader's price can pass (unless the
    // leader moved it again meanwhile: then 1800 with the newer price).
    let result = &answer["data"]["result"];
    if result != "OK" {
        assert_eq!(result, 1800, "{answer}");
        let newest = a
            .running
            .state
            .live
            .read(|c| c.events().get(&event_id).map(|e| e.price));
        assert_ne!(
            newest,
            Some(price),
            "refused although the price is current: {answer}"
        );
    }
    b.stop().await;
    a.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_game_ended_on_a_follower_leaves_every_nodes_catalogue_through_the_leader() {
    let (db, schema) = testing::fresh_postgres_schema().await;
    let mut fast = config(true);
    fast.feed.tick_ms = 200;
    let a = start_on(db, fast.clone()).await;
    let b = start_on(testing::open_schema(&schema).await, fast).await;
    let (_cb, sb, _) = member_on(&b).await;
    let bet = single(&b, &sb, "5").await;
    assert_eq!(bet["result"], "OK", "{bet}");
    let bet_id = bet["details"]["bet_id"].as_i64().unwrap();
    let game_id = bet["details"]["events"][0]["game_id"].as_u64().unwrap();
    let headers = vec![("Content-Type".to_string(), "application/json".to_string())];
    let ended = http(
        b.addr(),
        "POST",
        "/api/dev/end-bet-games",
        &headers,
        json!({"bet_id": bet_id.to_string()}).to_string().as_bytes(),
    )
    .await;
    assert_eq!(ended.json()["status"], 0, "{}", ended.text());
    // The leader takes the game out; the follower follows its log, and the
    // two catalogues stay the same (a follower that changed its own copy
    // could no longer apply the leader's changes).
    let mut same = false;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let gone = |s: &Server| {
            s.running
                .state
                .live
                .read(|c| !c.games().contains_key(&game_id))
        };
        if gone(&a) && gone(&b) {
            b.running
                .state
                .live
                .ensure_fresh(&b.running.state.db.any)
                .await
                .unwrap();
            let (ca, cb) = (
                a.running.state.live.read(|c| c.clone()),
                b.running.state.live.read(|c| c.clone()),
            );
            if ca == cb {
                same = true;
                break;
            }
        }
    }
    assert!(same, "the game left both catalogues and they are equal");
    b.stop().await;
    a.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_members_sessions_are_capped_across_nodes_sockets_included() {
    let (db, schema) = testing::fresh_postgres_schema().await;
    let mut limited = config(true);
    limited.swarm.max_sessions_per_member = 2;
    let a = start_on(db, limited.clone()).await;
    let b = start_on(testing::open_schema(&schema).await, limited).await;
    // Two sockets on node A.
    let mut first = common::member_socket(&a).await;
    let mut second = common::member_socket(&a).await;
    // A third session on node B, socket or long-poll, is one too many.
    let mut client = Client::new(&b).await;
    let login = client.login(&b, "demo", "demo1234").await;
    let restore = json!({"command": "restore_login", "rid": 2, "params": {
        "user_id": login["data"]["user_id"], "auth_token": login["data"]["auth_token"]}});
    let sid = swarm(
        &b,
        "",
        json!({"command": "request_session", "rid": 1, "params": {}}),
    )
    .await["data"]["sid"]
        .as_str()
        .unwrap()
        .to_string();
    let refused = swarm(&b, &sid, restore.clone()).await;
    assert_eq!(refused["code"], 29, "{refused}");
    // Logging out on A frees a place on B.
    let out = common::ws_ask(
        &mut first,
        json!({"command": "logout", "rid": 9, "params": {}}),
    )
    .await;
    assert_eq!(out["code"], 0);
    assert_eq!(swarm(&b, &sid, restore.clone()).await["code"], 0);
    // A socket closed on A frees one too (its row goes when the socket does).
    let sid2 = swarm(
        &b,
        "",
        json!({"command": "request_session", "rid": 1, "params": {}}),
    )
    .await["data"]["sid"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(swarm(&b, &sid2, restore.clone()).await["code"], 29);
    futures::SinkExt::close(&mut second).await.unwrap();
    let mut freed = false;
    for _ in 0..50 {
        if swarm(&b, &sid2, restore.clone()).await["code"] == 0 {
            freed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(freed, "a closed socket on A still counted on B");
    a.stop().await;
    b.stop().await;
}
