//! Bad input against a running server: each case was found by a try that
//! crashed a handler, stalled the server or grew its memory. The bounds do
//! not depend on the store, so these run on SQLite only.

mod common;

use std::time::{Duration, Instant};

use common::{http, member, member_socket, start, start_with, swarm, ws_ask as ask};
use domain::catalogue::GameType;
use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use store::StoreKind;
use tokio_tungstenite::tungstenite::Message;

/// `n` prematch selections, each of another game.
fn selections(server: &common::Server, n: usize) -> Vec<Value> {
    // Games starting last, open markets: none starts or is suspended by the
    // feed while the test runs on a busy machine.
    server.running.state.live.read(|c| {
        let mut games: Vec<_> = c
            .games()
            .values()
            .filter(|g| g.game_type == GameType::Prematch && !g.is_blocked)
            .collect();
        games.sort_by_key(|g| std::cmp::Reverse(g.start_ts));
        games
            .into_iter()
            .filter_map(|g| {
                let market = c.markets_of(g.id).find(|m| !m.is_suspended)?;
                let event = c.events_of(market.id).next()?;
                Some(json!({"event_id": event.id, "price": event.price.to_string(), "banker": false}))
            })
            .take(60)
            .collect::<Vec<_>>()
            .into_iter()
            .cycle()
            .take(n)
            .collect()
    })
}

async fn healthz_within(server: &common::Server, limit: Duration) {
    let started = Instant::now();
    let answer = tokio::time::timeout(limit, http(server.addr(), "GET", "/healthz", &[], b""))
        .await
        .expect("/healthz answers while the bad request is handled");
    assert_eq!(answer.status, 200);
    assert!(started.elapsed() < limit);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_express_of_37_selections_is_answered_1913_over_websocket_and_post() {
    let server = start(StoreKind::Sqlite).await;
    let bets = selections(&server, 37);
    let do_bet = |rid: i64| {
        json!({"command": "do_bet", "rid": rid, "params": {
            "type": 2, "mode": 2, "amount": "10", "each_way": true, "bets": bets}})
    };
    let mut ws = member_socket(&server).await;
    let answer = ask(&mut ws, do_bet(3)).await;
    assert_eq!(answer["code"], 0, "{answer}");
    assert_eq!(answer["data"]["result"], 1913, "{answer}");
    assert_eq!(
        answer["data"]["result_text"],
        "Too many selections: a bet holds at most 30."
    );
    let (_client, sid) = member(&server).await;
    let answer = swarm(&server, &sid, do_bet(4)).await;
    assert_eq!(answer["data"]["result"], 1913, "{answer}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_express_past_the_old_overflow_answers_the_odds_limit_when_the_cap_is_raised() {
    let mut config = common::config(true);
    config.bets.max_selections = 60;
    let server = start_with(StoreKind::Sqlite, config).await;
    // 45 picks whose product overflows a Decimal (prices are >= 1.01 ...
    // long lists of long prices did overflow): the limit answers first.
    let bets = selections(&server, 45);
    let mut ws = member_socket(&server).await;
    let answer = ask(
        &mut ws,
        json!({"command": "do_bet", "rid": 3, "params": {
        "type": 2, "mode": 2, "amount": "10", "each_way": false, "bets": bets}}),
    )
    .await;
    assert_eq!(answer["code"], 0, "{answer}");
    let result = answer["data"]["result"].as_i64().unwrap();
    // Distinct games are few in the demo catalogue: a conflict (1904) or
    // the odds limit (1906), never a dropped request.
    assert!([1904, 1906].contains(&result), "{answer}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_system_of_35_of_36_does_not_stall_the_server() {
    let mut config = common::config(true);
    config.bets.max_selections = 40;
    let server = start_with(StoreKind::Sqlite, config).await;
    let bets = selections(&server, 36);
    let mut ws = member_socket(&server).await;
    let started = Instant::now();
    let request = json!({"command": "do_bet", "rid": 3, "params": {
        "type": 3, "sys_bet": 35, "mode": 2, "amount": "36", "bets": bets}});
    let (answer, ()) = tokio::join!(
        ask(&mut ws, request),
        healthz_within(&server, Duration::from_secs(2))
    );
    assert_eq!(answer["code"], 0, "{answer}");
    assert!(answer["data"]["result"].is_number(), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(5));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_get_with_a_hundred_thousand_ids_is_refused_and_stalls_nobody() {
    let mut config = common::config(true);
    config.server.ws_max_message_bytes = 4 * 1024 * 1024;
    config.server.max_body_bytes = 4 * 1024 * 1024;
    let server = start_with(StoreKind::Sqlite, config).await;
    let ids: Vec<u64> = (0..100_000).collect();
    let request = json!({"command": "get", "rid": 7, "params": {
        "what": {"event": ["id"]}, "where": {"event": {"id": {"@in": ids}}}}});
    // A visitor, no login, over long-poll.
    let session = swarm(
        &server,
        "",
        json!({"command": "request_session", "rid": 1, "params": {}}),
    )
    .await;
    let sid = session["data"]["sid"].as_str().unwrap().to_string();
    let started = Instant::now();
    let (answer, ()) = tokio::join!(
        swarm(&server, &sid, request),
        healthz_within(&server, Duration::from_millis(500))
    );
    assert_eq!(answer["code"], 3, "{answer}");
    assert!(answer["msg"]
        .as_str()
        .unwrap_or_default()
        .contains("too large"));
    assert!(started.elapsed() < Duration::from_secs(2));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_websocket_message_over_the_bound_closes_the_socket_before_parsing() {
    let server = start(StoreKind::Sqlite).await;
    let mut ws = member_socket(&server).await;
    // A 1 MB do_bet (the bound is 64 KiB).
    let padding = "x".repeat(1024 * 1024);
    let huge = json!({"command": "do_bet", "rid": 5, "params": {"type": 1, "pad": padding}});
    let _ = ws.send(Message::Text(huge.to_string().into())).await;
    let closed = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match ws.next().await {
                None | Some(Err(_)) => return true,
                Some(Ok(Message::Close(_))) => return true,
                Some(Ok(_)) => continue,
            }
        }
    })
    .await
    .unwrap_or(false);
    assert!(closed, "the socket is closed");
    // The same bound on /ws.
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws", server.addr()))
        .await
        .unwrap();
    let _ = ws
        .send(Message::Text(
            format!("{{\"type\":\"init\",\"pad\":\"{padding}\"}}").into(),
        ))
        .await;
    let closed = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match ws.next().await {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return true,
                Some(Ok(_)) => continue,
            }
        }
    })
    .await
    .unwrap_or(false);
    assert!(closed, "the /ws socket is closed");
    healthz_within(&server, Duration::from_secs(1)).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn subscriptions_per_session_and_distinct_groups_are_bounded() {
    let mut config = common::config(true);
    config.swarm.max_subscriptions_per_session = 3;
    config.swarm.max_groups = 5;
    let server = start_with(StoreKind::Sqlite, config).await;
    let session = |rid: i64| json!({"command": "request_session", "rid": rid, "params": {}});
    let sub = |rid: i64, id: i64| {
        json!({"command": "get", "rid": rid, "params": {"subscribe": true,
            "what": {"game": ["id"]}, "where": {"game": {"id": id}}}})
    };
    let a = swarm(&server, "", session(1)).await["data"]["sid"]
        .as_str()
        .unwrap()
        .to_string();
    let mut subids = Vec::new();
    for id in 1..=2 {
        let answer = swarm(&server, &a, sub(id, id)).await;
        assert_eq!(answer["code"], 0);
        subids.push(answer["data"]["subid"].clone());
    }
    // The same query again is a subscription of its own, with its own subid.
    let again = swarm(&server, &a, sub(9, 1)).await;
    assert_eq!(again["code"], 0);
    assert!(!subids.contains(&again["data"]["subid"]), "{again}");
    let refused = swarm(&server, &a, sub(4, 4)).await;
    assert_eq!(refused["code"], 29, "{refused}");
    assert!(refused["msg"].as_str().unwrap().contains("at most 3"));
    // Distinct queries run per process for sockets: five, then refused;
    // a query someone already runs is shared, so it is not refused.
    let mut ws = member_socket(&server).await;
    for id in 1..=5 {
        assert_eq!(
            ask(&mut ws, sub(10 + id, id)).await["code"],
            if id <= 3 { 0 } else { 29 }
        );
    }
    let mut other = member_socket(&server).await;
    assert_eq!(ask(&mut other, sub(20, 4)).await["code"], 0);
    assert_eq!(ask(&mut other, sub(21, 5)).await["code"], 0);
    let refused = ask(&mut other, sub(22, 6)).await;
    assert_eq!(refused["code"], 29, "{refused}");
    assert!(refused["msg"].as_str().unwrap().contains("distinct"));
    assert_eq!(ask(&mut other, sub(23, 1)).await["code"], 0);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn put_and_delete_answer_http_405_and_large_bodies_413_on_the_real_router() {
    let server = start(StoreKind::Sqlite).await;
    for method in ["PUT", "DELETE"] {
        let answer = http(server.addr(), method, "/api/user/getbalance", &[], b"").await;
        assert_eq!(answer.status, 405, "{method} {}", answer.text());
        assert_eq!(answer.json()["status"], -405);
    }
    let big = vec![b'{'; 600 * 1024];
    for path in ["/api/user/getbalance", "/swarm", "/api/backoffice/login"] {
        let (status, body) = post_ignoring_early_close(server.addr(), path, &big).await;
        assert_eq!(status, 413, "{path}: {body}");
        assert_eq!(body["status"], -413);
    }
    server.stop().await;
}

/// A POST whose body may be refused before it is all sent (the server
/// answers from Content-Length and closes).
async fn post_ignoring_early_close(
    addr: std::net::SocketAddr,
    path: &str,
    body: &[u8],
) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let _ = stream.write_all(body).await;
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw).await;
    let text = String::from_utf8_lossy(&raw).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .and_then(|(_, b)| serde_json::from_str(b).ok())
        .unwrap_or(Value::Null);
    (status, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_wrongly_typed_history_filter_is_refused_not_ignored() {
    let server = start(StoreKind::Sqlite).await;
    let (client, sid) = member(&server).await;
    for filter in [
        json!({"outcome": "won"}),
        json!({"bet_type": {"@gt": 1}}),
        json!({"BetId": [1, 2]}),
        json!({"from_date": 1.5}),
        json!({"pn": 100000}),
    ] {
        let answer = client.post("/api/report/betrecods", filter.clone()).await;
        assert_eq!(answer["status"], -70009, "{filter}: {answer}");
        let mut params = filter.as_object().unwrap().clone();
        params.insert("settled".into(), json!(false));
        let answer = swarm(
            &server,
            &sid,
            json!({"command": "bet_history", "rid": 9, "params": params}),
        )
        .await;
        assert_eq!(answer["code"], 3, "{filter}: {answer}");
    }
    // Well-typed filters still work, numbers as strings too.
    let answer = client
        .post("/api/report/betrecods", json!({"outcome": "1", "pn": 10}))
        .await;
    assert_eq!(answer["status"], 0, "{answer}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn visitors_book_at_most_thirty_times_in_ten_minutes_per_ip() {
    let server = start(StoreKind::Sqlite).await;
    let visitor = swarm(
        &server,
        "",
        json!({"command": "request_session", "rid": 1, "params": {}}),
    )
    .await["data"]["sid"]
        .as_str()
        .unwrap()
        .to_string();
    let (event_id, _, _, price) = common::pick(&server);
    let book = |rid: i64| {
        json!({"command": "book_bet", "rid": rid, "params": {"type": 1,
            "bets": [{"event_id": event_id, "price": price.to_string()}]}})
    };
    for rid in 0..30 {
        let booked = swarm(&server, &visitor, book(rid)).await;
        assert_eq!(booked["data"]["result"], 0, "{booked}");
    }
    let refused = swarm(&server, &visitor, book(31)).await;
    assert_eq!(refused["code"], 29, "{refused}");
    assert!(refused["msg"]
        .as_str()
        .unwrap()
        .contains("too many bookings"));
    // Another session from the same address is the same visitor.
    let again = swarm(
        &server,
        "",
        json!({"command": "request_session", "rid": 1, "params": {}}),
    )
    .await["data"]["sid"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(swarm(&server, &again, book(32)).await["code"], 29);
    // A member is not a visitor.
    let (_client, sid) = member(&server).await;
    let booked = swarm(&server, &sid, book(33)).await;
    assert_eq!(booked["data"]["result"], 0, "{booked}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_member_is_logged_in_on_at_most_the_configured_sessions() {
    let mut config = common::config(true);
    config.swarm.max_sessions_per_member = 2;
    let server = start_with(StoreKind::Sqlite, config).await;
    let mut client = common::Client::new(&server).await;
    let login = client.login(&server, "demo", "demo1234").await;
    let restore = json!({"command": "restore_login", "rid": 2, "params": {
        "user_id": login["data"]["user_id"], "auth_token": login["data"]["auth_token"]}});
    let mut sids = Vec::new();
    for _ in 0..3 {
        let sid = swarm(
            &server,
            "",
            json!({"command": "request_session", "rid": 1, "params": {}}),
        )
        .await["data"]["sid"]
            .as_str()
            .unwrap()
            .to_string();
        sids.push(sid);
    }
    assert_eq!(swarm(&server, &sids[0], restore.clone()).await["code"], 0);
    // A socket counts too.
    let mut ws = member_socket(&server).await;
    let third = swarm(&server, &sids[1], restore.clone()).await;
    assert_eq!(third["code"], 29, "{third}");
    assert!(third["msg"]
        .as_str()
        .unwrap()
        .contains("at most 2 sessions"));
    // Restoring again on a session already counted is not a new one.
    assert_eq!(swarm(&server, &sids[0], restore.clone()).await["code"], 0);
    // Logging out elsewhere frees a place.
    let out = ask(
        &mut ws,
        json!({"command": "logout", "rid": 9, "params": {}}),
    )
    .await;
    assert_eq!(out["code"], 0);
    assert_eq!(swarm(&server, &sids[2], restore).await["code"], 0);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_login_that_ended_elsewhere_no_longer_counts_toward_the_session_cap() {
    let mut config = common::config(true);
    config.swarm.max_sessions_per_member = 2;
    let server = start_with(StoreKind::Sqlite, config).await;
    let new_sid = || async {
        swarm(
            &server,
            "",
            json!({"command": "request_session", "rid": 1, "params": {}}),
        )
        .await["data"]["sid"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // A socket logged in with username and password counts, like one
    // restored with a token.
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/swarm", server.addr()))
        .await
        .unwrap();
    assert_eq!(
        ask(
            &mut ws,
            json!({"command": "request_session", "rid": 1, "params": {}})
        )
        .await["code"],
        0
    );
    let by_password = ask(
        &mut ws,
        json!({"command": "login", "rid": 2, "params": {"username": "demo", "password": "demo1234"}}),
    )
    .await;
    assert_eq!(by_password["code"], 0, "{by_password}");
    // A long-poll session restored from a main API login is the second.
    let mut web = common::Client::new(&server).await;
    let login = web.login(&server, "demo", "demo1234").await;
    let restore = json!({"command": "restore_login", "rid": 2, "params": {
        "user_id": login["data"]["user_id"], "auth_token": login["data"]["auth_token"]}});
    let polled = new_sid().await;
    assert_eq!(swarm(&server, &polled, restore.clone()).await["code"], 0);
    // A third is refused...
    let mut other = common::Client::new(&server).await;
    let third_login = other.login(&server, "demo", "demo1234").await;
    let third = json!({"command": "restore_login", "rid": 2, "params": {
        "user_id": third_login["data"]["user_id"], "auth_token": third_login["data"]["auth_token"]}});
    let third_sid = new_sid().await;
    assert_eq!(swarm(&server, &third_sid, third.clone()).await["code"], 29);
    // ...until the second's main API login ends (logout on the web site):
    // its Swarm session is no longer logged in, whether or not it has
    // polled since, and no longer takes a place.
    assert_eq!(web.post("/api/logout", json!({})).await["status"], 0);
    let now = swarm(&server, &third_sid, third.clone()).await;
    assert_eq!(now["code"], 0, "{now}");
    // An expired login stops counting too: the socket's (by password) and
    // the third's expire; two fresh logins restore on two new sessions,
    // where the expired socket would have been the second's one too many.
    server
        .clock
        .advance(commands::accounts::sessions::SESSION_LIFETIME_MS + 1_000);
    for _ in 0..2 {
        member(&server).await; // asserts the restore answered code 0
    }
    server.stop().await;
}

#[tokio::test]
async fn every_answer_names_its_request_id_and_json_is_compressed_for_clients_that_take_gzip() {
    let server = start(StoreKind::Sqlite).await;
    let header = |answer: &common::Answer| {
        answer
            .head
            .lines()
            .find_map(|l| {
                l.strip_prefix("x-request-id:")
                    .map(|v| v.trim().to_string())
            })
            .unwrap_or_default()
    };
    // A new id per request, 16 hex digits.
    let first = header(&http(server.addr(), "GET", "/healthz", &[], b"").await);
    let second = header(&http(server.addr(), "GET", "/healthz", &[], b"").await);
    assert_eq!(first.len(), 16, "{first}");
    assert!(first.chars().all(|c| c.is_ascii_hexdigit()));
    assert_ne!(first, second);
    // A load balancer's id is kept; a malformed one is replaced.
    let given = http(
        server.addr(),
        "GET",
        "/healthz",
        &[("X-Request-Id".into(), "lb-42.a_b".into())],
        b"",
    )
    .await;
    assert_eq!(header(&given), "lb-42.a_b");
    let bad = http(
        server.addr(),
        "GET",
        "/healthz",
        &[("X-Request-Id".into(), "a b<script>".into())],
        b"",
    )
    .await;
    assert_eq!(header(&bad).len(), 16);
    // JSON in gzip for a client that takes it, plain otherwise.
    let gzip = [("Accept-Encoding".to_string(), "gzip".to_string())];
    let zipped = http(
        server.addr(),
        "GET",
        "/skins/languages/eng.json",
        &gzip,
        b"",
    )
    .await;
    assert_eq!(zipped.status, 200);
    assert!(
        zipped.head.contains("content-encoding: gzip"),
        "{}",
        zipped.head
    );
    assert_eq!(&zipped.body[..2], &[0x1f, 0x8b], "a gzip stream");
    let plain = http(server.addr(), "GET", "/skins/languages/eng.json", &[], b"").await;
    assert!(!plain.head.contains("content-encoding"));
    assert!(plain.json()["menu.scores"].is_string());
    server.stop().await;
}

/// Found by the schemathesis step (docs/openapi.md): a path segment, query
/// string or JSON body axum could not decode, or a JSON body sent without
/// `Content-Type: application/json`, was answered in plain text (HTTP 400,
/// 415 or 422) where every other bad parameter is HTTP 400 with the
/// envelope and -70009.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn undecodable_paths_queries_and_bodies_answer_400_with_the_envelope_and_70009() {
    let server = start(StoreKind::Sqlite).await;
    let token = common::staff_token(&server, "admin", "admin1234").await;
    let json = ("Content-Type".to_string(), "application/json".to_string());
    let bearer = ("Authorization".to_string(), format!("Bearer {token}"));
    type Case<'a> = (&'a str, &'a str, Vec<(String, String)>, &'a [u8]);
    let cases: Vec<Case> = vec![
        // A path segment that is not a number.
        (
            "DELETE",
            "/api/backoffice/casino/games/abc",
            vec![bearer.clone()],
            b"",
        ),
        (
            "GET",
            "/api/casino/icons/9223372036854775808/1.svg",
            vec![],
            b"",
        ),
        // A query parameter of the wrong type.
        (
            "GET",
            "/api/backoffice/payments/deposits?pn=x",
            vec![bearer.clone()],
            b"",
        ),
        // A JSON body of the wrong shape (was 422).
        (
            "POST",
            "/api/backoffice/counter-offers/1/accept",
            vec![bearer.clone(), json.clone()],
            br#"{"reason": {"a": 1}}"#,
        ),
        (
            "POST",
            "/demo-provider/api/slot/spin",
            vec![json.clone()],
            b"[1, 2]",
        ),
        // No Content-Type (was 415).
        (
            "POST",
            "/api/partner/session",
            vec![],
            br#"{"user_id": "1"}"#,
        ),
        (
            "POST",
            "/api/dev/end-bet-games",
            vec![],
            br#"{"bet_id": 1}"#,
        ),
    ];
    for (method, path, headers, body) in cases {
        let answer = http(server.addr(), method, path, &headers, body).await;
        assert_eq!(answer.status, 400, "{method} {path}: {}", answer.text());
        assert!(
            answer.content_type.starts_with("application/json"),
            "{method} {path}: {}",
            answer.content_type
        );
        let envelope = answer.json();
        assert_eq!(envelope["status"], -70009, "{method} {path}: {envelope}");
        assert!(
            envelope["msg"]
                .as_str()
                .unwrap()
                .starts_with("Invalid request parameters: "),
            "{envelope}"
        );
        assert_eq!(envelope["data"], Value::Null);
    }
    server.stop().await;
}
