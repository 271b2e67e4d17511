//! Swarm protocol conformance: the requests an independently written
//! client of the real protocol sends, and the answer shapes it reads
//! (docs/protocol.md "Sportsbook data protocol", issue 17). Each test is
//! one documented behaviour.

mod common;

use commands::platform::clock::Clock;
use common::{pick, start, swarm, Server};
use serde_json::{json, Value};
use store::StoreKind;

async fn session_in(server: &Server, language: &str) -> String {
    let answer = swarm(
        server,
        "",
        json!({"command": "request_session", "rid": 1, "params": {"language": language, "site_id": 1}}),
    )
    .await;
    assert_eq!(answer["code"], 0, "{answer}");
    answer["data"]["sid"].as_str().unwrap().to_string()
}

/// A session logged in with the protocol's own `login`.
async fn logged_in(server: &Server) -> (String, Value) {
    let sid = session_in(server, "eng").await;
    let login = swarm(
        server,
        &sid,
        json!({"command": "login", "rid": 2, "params": {"username": "demo", "password": "demo1234", "encrypted_token": true}}),
    )
    .await;
    assert_eq!(login["code"], 0, "{login}");
    (sid, login)
}

async fn get(server: &Server, sid: &str, params: Value) -> Value {
    swarm(
        server,
        sid,
        json!({"command": "get", "rid": 7, "params": params}),
    )
    .await
}

fn all_events(answer: &Value) -> Vec<Value> {
    fn walk(v: &Value, out: &mut Vec<Value>) {
        if let Some(object) = v.as_object() {
            if let Some(Value::Object(events)) = object.get("event") {
                out.extend(events.values().cloned());
            }
            for child in object.values() {
                walk(child, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(answer, &mut out);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fields_a_level_does_not_have_are_left_out_and_lists_may_be_nested() {
    let server = start(StoreKind::Sqlite).await;
    let sid = session_in(&server, "eng").await;
    let answer = get(
        &server,
        &sid,
        json!({"source": "betting",
            "what": {
                "sport": [["id", "name", "alias", "order", "type"]],
                "competition": ["id", "name", "alias", "order", "exclude_ids"],
                "game": [["id", "team1_name", "team1_reg_name", "video_id", "tv_type", "stats",
                          "is_started", "visible_in_prematch", "order"]],
                "market": ["id", "type", "market_type", "col_count", "display_key", "express_id", "main_order", "order"],
                "event": ["id", "price", "order", "base", "type_1"]},
            "where": {"game": {"type": 1}, "market": null}}),
    )
    .await;
    assert_eq!(answer["code"], 0, "{answer}");
    // A plain get answers data: {data: ...}.
    let data = &answer["data"]["data"];
    let football = &data["sport"]["1"];
    assert_eq!(football["name"], "Football");
    assert_eq!(football["type"], 0);
    let competition = football["competition"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap();
    assert!(competition["alias"].is_string() && competition.get("exclude_ids").is_none());
    let game = competition["game"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap();
    assert_eq!(game["is_started"], true);
    for absent in ["team1_reg_name", "video_id", "tv_type", "stats"] {
        assert!(game.get(absent).is_none(), "{absent} left out");
    }
    let market = game["market"].as_object().unwrap().values().next().unwrap();
    assert_eq!(market["type"], market["market_type"]);
    assert!(market["col_count"].is_u64() && market["display_key"].is_string());
    let events = all_events(data);
    assert!(!events.is_empty());
    // Prices are JSON numbers.
    assert!(
        events
            .iter()
            .all(|e| e["price"].is_number() && e["order"].is_i64()),
        "{events:?}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_count_answers_the_bare_number_in_place_of_the_level() {
    let server = start(StoreKind::Sqlite).await;
    let sid = session_in(&server, "eng").await;
    let answer = get(
        &server,
        &sid,
        json!({"source": "betting", "what": {"sport": ["id"], "game": "@count"}, "where": {"game": {"type": 1}}}),
    )
    .await;
    let live_football = server.running.state.live.read(|c| {
        c.games()
            .values()
            .filter(|g| g.game_type == domain::catalogue::GameType::Live)
            .filter(|g| c.lineage(g.id).unwrap().sport.id == 1)
            .count()
    });
    assert_eq!(
        answer["data"]["data"]["sport"]["1"]["game"],
        json!(live_football),
        "{answer}"
    );
    let root = get(&server, &sid, json!({"what": {"game": ["@count"]}})).await;
    assert!(root["data"]["data"]["game"].is_u64(), "{root}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_now_and_at_limit_select_the_next_kick_offs() {
    let server = start(StoreKind::Sqlite).await;
    let sid = session_in(&server, "eng").await;
    let now = server.clock.now_ms() / 1000;
    let answer = get(
        &server,
        &sid,
        json!({"what": {"game": ["id", "start_ts"]},
               "where": {"game": {"start_ts": {"@now": {"@gte": 0, "@lt": 3600}}, "type": 0, "@limit": 3}}}),
    )
    .await;
    assert_eq!(answer["code"], 0, "{answer}");
    let games = answer["data"]["data"]["game"].as_object().unwrap();
    assert_eq!(
        games.len(),
        3,
        "several kick-offs within the hour: {answer}"
    );
    for game in games.values() {
        let start = game["start_ts"].as_i64().unwrap();
        assert!(start >= now && start < now + 3600, "{game}");
    }
    let started = get(
        &server,
        &sid,
        json!({"what": {"game": ["start_ts"]}, "where": {"game": {"start_ts": {"@lt": {"@now": 0}}}}}),
    )
    .await;
    let started = started["data"]["data"]["game"].as_object().unwrap();
    assert!(!started.is_empty());
    assert!(started
        .values()
        .all(|g| g["start_ts"].as_i64().unwrap() < now + 1));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_come_in_the_sessions_language_and_like_takes_a_language_map() {
    let server = start(StoreKind::Sqlite).await;
    let zhh = session_in(&server, "zhh").await;
    let tha = session_in(&server, "tha").await;
    let what = json!({"sport": ["name"]});
    let where_ = json!({"sport": {"id": 1}});
    let in_zhh = get(&server, &zhh, json!({"what": what, "where": where_})).await;
    assert_eq!(in_zhh["data"]["data"]["sport"]["1"]["name"], "足球");
    let in_tha = get(&server, &tha, json!({"what": what, "where": where_})).await;
    assert_eq!(in_tha["data"]["data"]["sport"]["1"]["name"], "ฟุตบอล");
    let like = get(
        &server,
        &zhh,
        json!({"what": {"sport": ["id"], "competition": ["name"]},
               "where": {"competition": {"name": {"@like": {"eng": "premier league", "zhh": "英超"}}}}}),
    )
    .await;
    let sports = like["data"]["data"]["sport"].as_object().unwrap();
    assert_eq!(sports.keys().collect::<Vec<_>>(), ["1"], "{like}");
    let competitions: Vec<&Value> = sports["1"]["competition"]
        .as_object()
        .unwrap()
        .values()
        .collect();
    assert_eq!(competitions.len(), 1);
    assert_eq!(competitions[0]["name"], "英超");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_types_answer_code_3_naming_the_field() {
    let server = start(StoreKind::Sqlite).await;
    let sid = session_in(&server, "eng").await;
    for (where_, field) in [
        (json!({"game": {"type": "live"}}), "game.type"),
        (
            json!({"game": {"start_ts": {"@gte": {"@now": "soon"}}}}),
            "game.start_ts",
        ),
        (
            json!({"sport": {"name": {"@like": {"eng": 1}}}}),
            "sport.name",
        ),
        (json!({"game": {"@limit": "ten"}}), "@limit"),
    ] {
        let answer = get(
            &server,
            &sid,
            json!({"what": {"game": ["id"]}, "where": where_}),
        )
        .await;
        assert_eq!(answer["code"], 3, "{answer}");
        assert!(answer["msg"].as_str().unwrap().contains(field), "{answer}");
    }
    let bad_what = get(&server, &sid, json!({"what": {"game": 5}})).await;
    assert_eq!(bad_what["code"], 3);
    assert!(bad_what["msg"].as_str().unwrap().contains("what.game"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_subscription_has_its_own_subid_and_whats_up_answers_like_a_push() {
    let server = start(StoreKind::Sqlite).await;
    let sid = session_in(&server, "eng").await;
    let params = json!({"source": "betting", "subscribe": true,
        "what": {"event": ["id", "price"]}, "where": {"game": {"type": 1}}});
    let first = get(&server, &sid, params.clone()).await;
    let second = get(&server, &sid, params).await;
    let (a, b) = (
        first["data"]["subid"].clone(),
        second["data"]["subid"].clone(),
    );
    assert!(a.is_string() && b.is_string());
    assert_ne!(a, b, "an identical query is its own subscription");
    assert_eq!(first["data"]["data"], second["data"]["data"]);
    server.running.state.live.update(|c| {
        let ids: Vec<u64> = c.events().keys().copied().collect();
        for id in ids {
            let _ = c.update_event(id, |e| e.price += rust_decimal::Decimal::new(1, 2));
        }
    });
    let mut seen = serde_json::Map::new();
    for _ in 0..50 {
        let answer = swarm(&server, &sid, json!({"command": "whats_up", "rid": "w"})).await;
        assert_eq!(answer["code"], 0, "{answer}");
        // The shape of a push: data maps subid -> diff.
        seen.extend(answer["data"].as_object().unwrap().clone());
        if seen.len() >= 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    for subid in [&a, &b] {
        let diff = &seen[subid.as_str().unwrap()];
        let price = diff["event"].as_object().unwrap().values().next().unwrap()["price"].clone();
        assert!(price.is_number(), "{diff}");
    }
    // Unsubscribing one leaves the other.
    let gone = swarm(
        &server,
        &sid,
        json!({"command": "unsubscribe", "rid": 9, "params": {"subid": a}}),
    )
    .await;
    assert_eq!(gone["code"], 0);
    server.running.state.live.update(|c| {
        let id = *c.events().keys().next().unwrap();
        let _ = c.update_event(id, |e| e.price += rust_decimal::Decimal::new(1, 2));
    });
    let answer = swarm(&server, &sid, json!({"command": "whats_up", "rid": "w"})).await;
    assert!(
        answer["data"].get(a.as_str().unwrap()).is_none(),
        "{answer}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_with_username_and_password_then_balance_and_start_up_sources() {
    let server = start(StoreKind::Sqlite).await;
    let (sid, login) = logged_in(&server).await;
    assert!(login["data"]["auth_token"].is_string(), "{login}");
    assert!(login["data"]["user_id"].is_number(), "{login}");
    let balance = swarm(&server, &sid, json!({"command": "get_balance", "rid": 3})).await;
    assert_eq!(balance["code"], 0, "{balance}");
    assert!(balance["data"]["balance"].is_number(), "{balance}");
    assert_eq!(balance["data"]["currency"], "CNY");
    let user = get(
        &server,
        &sid,
        json!({"source": "user", "what": {"profile": []}, "subscribe": true}),
    )
    .await;
    assert_eq!(user["code"], 0, "{user}");
    assert!(user["data"]["subid"].is_string());
    let id = login["data"]["user_id"].to_string();
    let profile = &user["data"]["data"]["profile"][&id];
    assert_eq!(profile["username"], "demo", "{user}");
    assert_eq!(profile["balance"], balance["data"]["balance"]);
    let partner = get(
        &server,
        &sid,
        json!({"source": "partner.config", "what": {"partner": []}}),
    )
    .await;
    let partner = partner["data"]["data"]["partner"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap()
        .clone();
    assert_eq!(partner["currency"], "CNY");
    assert_eq!(partner["max_odd_for_multiple_bet"], 1000);
    let currency = get(
        &server,
        &sid,
        json!({"source": "config.currency", "what": {"currency": []}, "where": {"currency": {"name": "THB"}}}),
    )
    .await;
    let currencies = currency["data"]["data"]["currency"].as_object().unwrap();
    assert_eq!(currencies.keys().collect::<Vec<_>>(), ["THB"]);
    assert_eq!(currencies["THB"]["rounding"], 2);
    // restore_login answers the token too, as real clients check.
    let again = session_in(&server, "eng").await;
    let restored = swarm(&server, &again, json!({"command": "restore_login", "rid": 4,
        "params": {"user_id": login["data"]["user_id"], "auth_token": login["data"]["auth_token"]}})).await;
    assert_eq!(restored["code"], 0, "{restored}");
    assert_eq!(restored["data"]["auth_token"], login["data"]["auth_token"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_password_is_code_12_with_the_catalogue_code() {
    let server = start(StoreKind::Sqlite).await;
    let sid = session_in(&server, "eng").await;
    let refused = swarm(
        &server,
        &sid,
        json!({"command": "login", "rid": 2, "params": {"username": "demo", "password": "wrong-one"}}),
    )
    .await;
    assert_eq!(refused["code"], 12, "{refused}");
    assert_eq!(refused["data"]["status"], 1002);
    // Nothing is logged in.
    let balance = swarm(&server, &sid, json!({"command": "get_balance", "rid": 3})).await;
    assert_eq!(balance["code"], 12);
    let missing = swarm(
        &server,
        &sid,
        json!({"command": "login", "rid": 4, "params": {"username": "demo"}}),
    )
    .await;
    assert_eq!(missing["code"], 3, "{missing}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn do_bet_takes_numeric_flags_and_bet_history_reads_where() {
    let server = start(StoreKind::Sqlite).await;
    let (sid, _) = logged_in(&server).await;
    let (event_id, _, _, price) = pick(&server);
    let bet = |flag: Value| {
        json!({"command": "do_bet", "rid": 5, "params": {
            "type": 1, "mode": 2, "amount": 10, "each_way": 0, "is_offer": flag,
            "bets": [{"event_id": event_id, "price": price.to_string().parse::<f64>().unwrap(), "banker": 0}]}})
    };
    let placed = swarm(&server, &sid, bet(json!(0))).await;
    assert_eq!(placed["code"], 0, "{placed}");
    assert_eq!(placed["data"]["result"], "OK", "{placed}");
    assert_eq!(
        placed["data"]["details"]["events"][0]["selection_id"],
        event_id
    );
    let bet_id = placed["data"]["details"]["bet_id"].clone();
    // is_offer as 1 is read as a flag (never code 3), whatever the outcome.
    let offered = swarm(&server, &sid, bet(json!(1))).await;
    assert_eq!(offered["code"], 0, "{offered}");
    assert!(offered["data"].get("result").is_some());
    // The history is a read model: it shows the bet once it has caught up.
    let mut history = Value::Null;
    for _ in 0..100 {
        history = swarm(
            &server,
            &sid,
            json!({"command": "bet_history", "rid": 6,
            "params": {"where": {"bet_id": bet_id}}}),
        )
        .await;
        assert_eq!(history["code"], 0, "{history}");
        if history["data"]["bets"]
            .as_array()
            .is_some_and(|b| !b.is_empty())
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let bets = history["data"]["bets"].as_array().unwrap();
    assert_eq!(bets.len(), 1, "{history}");
    assert!(
        bets[0]["cash_out"].is_number(),
        "cash_out is the amount: {history}"
    );
    let none = swarm(
        &server,
        &sid,
        json!({"command": "bet_history", "rid": 6,
        "params": {"where": {"bet_id": 1, "outcome": 0}}}),
    )
    .await;
    assert_eq!(none["data"]["bets"], json!([]), "{none}");
    let wrong = swarm(
        &server,
        &sid,
        json!({"command": "bet_history", "rid": 6,
        "params": {"where": {"outcome": "won"}}}),
    )
    .await;
    assert_eq!(wrong["code"], 3, "{wrong}");
    let max = swarm(
        &server,
        &sid,
        json!({"command": "get_max_bet", "rid": 7,
        "params": {"type": 1, "bets": [{"event_id": event_id}]}}),
    )
    .await;
    assert!(max["data"]["result"].is_number(), "{max}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_language_must_be_a_short_code() {
    let server = start(StoreKind::Sqlite).await;
    let long = "x".repeat(40);
    for language in [json!(long), json!("e n g"), json!("")] {
        let answer = swarm(
            &server,
            "",
            json!({"command": "request_session", "rid": 1, "params": {"language": language}}),
        )
        .await;
        assert_eq!(answer["code"], 3, "{answer}");
        assert!(answer["msg"].as_str().unwrap().contains("language"));
    }
    server.stop().await;
}
