//! Booking ids end to end over /swarm: `book_bet` saves a slip's picks
//! under a short id (members and visitors alike), `get_booking` loads it
//! from any session with the current live prices.

mod common;

use common::{http, start, start_with, Client};
use domain::catalogue::GameType;
use rust_decimal::Decimal;
use serde_json::{json, Value};
use store::StoreKind;

store::on_both_stores!(
    a_visitor_books_and_anyone_loads_the_slip,
    a_member_books_too,
    bad_slips_and_unknown_ids_are_refused_with_their_codes,
    loading_answers_the_current_live_prices,
);

async fn swarm(server: &common::Server, sid: &str, body: Value) -> Value {
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

/// A Swarm session without a login.
async fn visitor(server: &common::Server) -> String {
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
    session["data"]["sid"].as_str().unwrap().to_string()
}

/// One open prematch selection from each of `n` games: (event, price).
fn picks(server: &common::Server, n: usize) -> Vec<(u64, Decimal)> {
    server.running.state.live.read(|c| {
        c.games()
            .values()
            .filter(|g| g.game_type == GameType::Prematch && !g.is_blocked)
            .filter_map(|g| {
                let market = c.markets_of(g.id).find(|m| !m.is_suspended)?;
                let event = c.events_of(market.id).find(|e| !e.is_suspended)?;
                Some((event.id, event.price))
            })
            .take(n)
            .collect()
    })
}

fn book(picks: &[(u64, Decimal)], bet_type: u8) -> Value {
    let bets: Vec<Value> = picks
        .iter()
        .map(|(id, price)| json!({"event_id": id, "price": price.to_string()}))
        .collect();
    json!({"command": "book_bet", "rid": "b", "params": {"type": bet_type, "bets": bets}})
}

fn load(id: &str) -> Value {
    json!({"command": "get_booking", "rid": "g", "params": {"booking_id": id}})
}

fn booking_id(answer: &Value) -> String {
    assert_eq!(answer["code"], 0, "{answer}");
    assert_eq!(answer["data"]["result"], 0, "{answer}");
    answer["data"]["details"]["number"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"))
        .to_string()
}

async fn a_visitor_books_and_anyone_loads_the_slip(kind: StoreKind) {
    let server = start(kind).await;
    let sid = visitor(&server).await;
    let chosen = picks(&server, 3);
    let booked = swarm(&server, &sid, book(&chosen, 2)).await;
    assert_eq!(booked["rid"], "b");
    let id = booking_id(&booked);
    assert_eq!(id.len(), 8, "{id}");
    assert!(
        id.chars()
            .all(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
            && !id.contains(['0', 'O', '1', 'I']),
        "{id}"
    );
    // Booking again gives another id.
    assert_ne!(
        booking_id(&swarm(&server, &sid, book(&chosen, 2)).await),
        id
    );

    // Another visitor's session loads it.
    let other = visitor(&server).await;
    let loaded = swarm(&server, &other, load(&id)).await;
    assert_eq!(loaded["code"], 0, "{loaded}");
    assert_eq!(loaded["data"]["result"], 0, "{loaded}");
    let details = &loaded["data"]["details"];
    assert_eq!(details["type"], 2);
    assert_eq!(details["sys_bet"], Value::Null);
    let bets = details["bets"].as_array().unwrap();
    assert_eq!(bets.len(), 3);
    for (bet, (event_id, _)) in bets.iter().zip(&chosen) {
        assert_eq!(bet["event_id"], *event_id, "in booking order");
        let current = server
            .running
            .state
            .live
            .read(|c| c.events().get(event_id).map(|e| e.price));
        if let Some(price) = current {
            assert_eq!(bet["price"], price.to_string(), "{bet}");
        }
        for field in ["game_id", "market_id", "start_ts"] {
            assert!(bet[field].is_u64() || bet[field].is_i64(), "{field}: {bet}");
        }
        for field in ["event_name", "market_name", "team1"] {
            assert!(bet[field].is_string(), "{field}: {bet}");
        }
        assert!(bet["available"].is_boolean(), "{bet}");
        assert_eq!(bet["is_live"], false);
    }
    assert_eq!(bets[0]["available"], true, "{}", bets[0]);
    // Typed in lower case with spaces around: the same booking.
    let typed = swarm(&server, &other, load(&format!("  {}  ", id.to_lowercase()))).await;
    assert_eq!(
        typed["data"]["details"]["bets"].as_array().unwrap().len(),
        3
    );

    // A system booking keeps its size.
    let system = swarm(&server, &sid, json!({"command": "book_bet", "rid": 5, "params": {
        "type": 3, "sys_bet": 2, "bets": chosen.iter().map(|(id, p)| json!({"event_id": id, "price": p})).collect::<Vec<_>>()}}))
    .await;
    let loaded = swarm(&server, &other, load(&booking_id(&system))).await;
    assert_eq!(loaded["data"]["details"]["type"], 3);
    assert_eq!(loaded["data"]["details"]["sys_bet"], 2);
    server.stop().await;
}

async fn a_member_books_too(kind: StoreKind) {
    let server = start(kind).await;
    let mut client = Client::new(&server).await;
    let login = client.login(&server, "demo", "demo1234").await;
    assert_eq!(login["status"], 0, "{login}");
    let sid = visitor(&server).await;
    let restored = swarm(&server, &sid, json!({"command": "restore_login", "rid": 2,
        "params": {"user_id": login["data"]["user_id"], "auth_token": login["data"]["auth_token"]}})).await;
    assert_eq!(restored["code"], 0, "{restored}");
    let chosen = picks(&server, 1);
    let id = booking_id(&swarm(&server, &sid, book(&chosen, 1)).await);
    // A visitor loads the member's booking.
    let loaded = swarm(&server, &visitor(&server).await, load(&id)).await;
    assert_eq!(loaded["data"]["details"]["type"], 1, "{loaded}");
    assert_eq!(
        loaded["data"]["details"]["bets"][0]["event_id"],
        chosen[0].0
    );
    server.stop().await;
}

async fn bad_slips_and_unknown_ids_are_refused_with_their_codes(kind: StoreKind) {
    let server = start(kind).await;
    let sid = visitor(&server).await;
    let refused = |answer: &Value, code: i64, text: &str| {
        assert_eq!(answer["code"], 0, "{answer}");
        assert_eq!(answer["data"]["result"], code, "{answer}");
        assert_eq!(answer["data"]["result_text"], text, "{answer}");
    };

    let empty = swarm(&server, &sid, book(&[], 1)).await;
    refused(&empty, 1901, "Add more events to place a bet.");

    let many = server.running.state.live.read(|c| {
        c.events()
            .values()
            .take(31)
            .map(|e| (e.id, e.price))
            .collect::<Vec<_>>()
    });
    let oversized = swarm(&server, &sid, book(&many, 2)).await;
    refused(&oversized, 1931, "Too many events in betslip.");
    assert_eq!(oversized["data"]["details"]["max"], 30);
    // Thirty is fine.
    booking_id(&swarm(&server, &sid, book(&many[..30], 2)).await);

    let chosen = picks(&server, 2);
    let twice = swarm(&server, &sid, book(&[chosen[0], chosen[1], chosen[0]], 2)).await;
    refused(&twice, 1909, "The bet is not valid.");
    assert_eq!(twice["data"]["details"]["event_id"], chosen[0].0);

    let unknown = swarm(
        &server,
        &sid,
        book(&[chosen[0], (999_999_999, Decimal::TWO)], 2),
    )
    .await;
    refused(&unknown, 1902, "Event is not available.");
    assert_eq!(unknown["data"]["details"]["event_id"], 999_999_999u64);

    let zero_price = swarm(&server, &sid, book(&[(chosen[0].0, Decimal::ZERO)], 1)).await;
    refused(&zero_price, 1108, "Wrong coefficient");

    // Malformed params are a protocol error (code 3), not a refusal.
    let no_type = swarm(
        &server,
        &sid,
        json!({"command": "book_bet", "rid": 7, "params": {"bets": []}}),
    )
    .await;
    assert_eq!(no_type["code"], 3, "{no_type}");
    let bad_type = swarm(
        &server,
        &sid,
        json!({"command": "book_bet", "rid": 7, "params": {"type": 9, "bets": []}}),
    )
    .await;
    assert_eq!(bad_type["code"], 3, "{bad_type}");
    let no_id = swarm(
        &server,
        &sid,
        json!({"command": "get_booking", "rid": 8, "params": {}}),
    )
    .await;
    assert_eq!(no_id["code"], 3, "{no_id}");

    for id in ["ZZZZZZZZ", "", "0000", "not a booking id"] {
        let missing = swarm(&server, &sid, load(id)).await;
        refused(&missing, 1930, "Booking not found");
        assert_eq!(missing["data"]["details"], Value::Null);
    }
    // Still a session: booking without one is code 5 like every command.
    let lost = swarm(&server, "nope", load("ZZZZZZZZ")).await;
    assert_eq!(lost["code"], 5, "{lost}");
    server.stop().await;
}

async fn loading_answers_the_current_live_prices(kind: StoreKind) {
    let mut config = common::config(true);
    // The feed stays still while the test moves prices itself.
    config.feed.tick_ms = 3_600_000;
    config.feed.price_moves_per_tick = 0;
    let server = start_with(kind, config).await;
    let sid = visitor(&server).await;
    let chosen = picks(&server, 3);
    let booked: Vec<(u64, Decimal)> = chosen
        .iter()
        .map(|(id, _)| (*id, Decimal::new(15, 1)))
        .collect();
    let id = booking_id(&swarm(&server, &sid, book(&booked, 2)).await);

    let moved = Decimal::new(7777, 3);
    let mut loaded = Value::Null;
    for _ in 0..20 {
        server.running.state.live.update(|c| {
            let _ = c.update_event(chosen[0].0, |e| e.price = moved);
            c.remove_event(chosen[1].0);
            if let Some(market) = c.events().get(&chosen[2].0).map(|e| e.market_id) {
                let _ = c.update_market(market, |m| m.is_suspended = true);
            }
        });
        loaded = swarm(&server, &sid, load(&id)).await;
        // The feed's first tick may replace the catalogue under us: again.
        let kept = server.running.state.live.read(|c| {
            c.events().get(&chosen[0].0).map(|e| e.price) == Some(moved)
                && !c.events().contains_key(&chosen[1].0)
        });
        if kept {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let bets = loaded["data"]["details"]["bets"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(bets[0]["price"], "7.777", "{loaded}");
    assert_eq!(bets[0]["booked_price"], "1.5");
    assert_eq!(bets[0]["available"], true);
    // Gone from the catalogue: no price, unavailable, still named.
    assert_eq!(bets[1]["event_id"], chosen[1].0);
    assert_eq!(bets[1]["price"], Value::Null, "{loaded}");
    assert_eq!(bets[1]["available"], false);
    assert!(!bets[1]["market_name"].as_str().unwrap().is_empty());
    // Suspended: priced but not available.
    assert_eq!(bets[2]["price"], chosen[2].1.to_string());
    assert_eq!(bets[2]["available"], false);
    server.stop().await;
}
