//! The member authorization matrix: member A cannot read, cash out, set or
//! cancel an auto cash-out on, answer a counter offer of, or stake a free
//! bet of member B's; each call answers as if the bet or free bet did not
//! exist for A, and B's bet, money and rules are unchanged.

mod common;

use commands::StoreKind;
use common::{backoffice, pick, staff_token, start, swarm, swarm_session, Client};
use serde_json::{json, Value};

commands::on_both_stores!(member_a_can_touch_nothing_of_member_bs,);

async fn member_a_can_touch_nothing_of_member_bs(kind: StoreKind) {
    let server = start(kind).await;
    // B is the demo member (money to bet); A registers.
    let mut b = Client::new(&server).await;
    let b_login = b.login(&server, "demo", "demo1234").await;
    let b_sid = swarm_session(&server, &b_login).await;
    let mut a = Client::new(&server).await;
    let phone = format!("139{:08}", rand_digits());
    let registered = a.register_phone(&server, &phone, "secret123").await;
    assert_eq!(registered["status"], 0, "{registered}");
    let a_sid = swarm_session(&server, &registered).await;

    // B's bets: a single with cash-out and an auto cash-out rule, and a
    // super bet waiting for an answer to a counter offer.
    let (event_id, _, _, price) = pick(&server);
    let single = swarm(
        &server,
        &b_sid,
        json!({"command": "do_bet", "rid": 3, "params": {
        "type": 1, "mode": 2, "amount": "100",
        "bets": [{"event_id": event_id, "price": price.to_string()}]}}),
    )
    .await;
    assert_eq!(single["data"]["result"], "OK", "{single}");
    let bet_id = single["data"]["details"]["bet_id"].as_i64().unwrap();
    let amount = swarm(
        &server,
        &b_sid,
        json!({"command": "calculate_cashout_amount", "rid": 4,
        "params": {"bet_ids": [bet_id]}}),
    )
    .await;
    let current = amount["data"]["details"][0]["CashoutAmount"]
        .as_f64()
        .expect("B sees its own cash-out amount");
    let rule = swarm(
        &server,
        &b_sid,
        json!({"command": "set_bet_auto_cashout", "rid": 5,
        "params": {"bet_id": bet_id, "min_amount": format!("{:.2}", current * 1.2)}}),
    )
    .await;
    assert_eq!(rule["data"]["result"], 0, "{rule}");
    let super_bet = swarm(
        &server,
        &b_sid,
        json!({"command": "do_bet", "rid": 6, "params": {
        "type": 1, "mode": -1, "amount": "60",
        "bets": [{"event_id": event_id, "price": price.to_string()}]}}),
    )
    .await;
    assert_eq!(super_bet["data"]["result"], "OK", "{super_bet}");
    let super_id = super_bet["data"]["details"]["bet_id"].as_i64().unwrap();
    let support = staff_token(&server, "support", "support1234").await;
    let (status, offered) = backoffice(
        &server,
        "POST",
        &format!("/api/backoffice/counter-offers/{super_id}/offer"),
        Some(&support),
        Some(json!({"amount": "30", "reason": "limit"})),
    )
    .await;
    assert_eq!(status, 200, "{offered}");
    let (status, granted) = backoffice(
        &server,
        "POST",
        "/api/backoffice/free-bets",
        Some(&support),
        Some(json!({"user": "demo", "amount": "20", "days": 3, "reason": "matrix"})),
    )
    .await;
    assert_eq!(status, 200, "{granted}");
    let free_id = granted["data"]["id"].as_str().unwrap().to_string();
    server.running.state.runner.catch_up_all().await.unwrap();
    let b_balance = b.post("/api/user/getbalance", json!({})).await;

    // A, on every call that names one of B's things.
    let history = a
        .post("/api/report/betrecods", json!({"BetId": bet_id}))
        .await;
    assert_eq!(history["status"], 0, "{history}");
    assert_eq!(history["data"]["list"], json!([]), "A reads B's bet");
    let swarm_history = swarm(
        &server,
        &a_sid,
        json!({"command": "bet_history", "rid": 10,
        "params": {"bet_id": bet_id}}),
    )
    .await;
    assert_eq!(swarm_history["data"]["bets"], json!([]), "{swarm_history}");
    let amount = swarm(
        &server,
        &a_sid,
        json!({"command": "calculate_cashout_amount", "rid": 11,
        "params": {"bet_ids": [bet_id, super_id]}}),
    )
    .await;
    assert_eq!(amount["data"]["details"], json!([]), "{amount}");
    let cashed = swarm(
        &server,
        &a_sid,
        json!({"command": "cashout", "rid": 12,
        "params": {"bet_id": bet_id, "price": current}}),
    )
    .await;
    assert_eq!(cashed["data"]["result"], "NotAvailable", "{cashed}");
    let rule = swarm(
        &server,
        &a_sid,
        json!({"command": "get_bet_auto_cashout", "rid": 13,
        "params": {"bet_id": bet_id}}),
    )
    .await;
    assert_eq!(rule["data"]["details"], Value::Null, "{rule}");
    let set = swarm(
        &server,
        &a_sid,
        json!({"command": "set_bet_auto_cashout", "rid": 14,
        "params": {"bet_id": bet_id, "min_amount": "1000"}}),
    )
    .await;
    assert_ne!(set["data"]["result"], 0, "{set}");
    let cancel = swarm(
        &server,
        &a_sid,
        json!({"command": "cancel_bet_auto_cashout", "rid": 15,
        "params": {"bet_id": bet_id}}),
    )
    .await;
    assert_ne!(cancel["data"]["result"], 0, "{cancel}");
    for accept in [true, false] {
        let answer = swarm(
            &server,
            &a_sid,
            json!({"command": "super_bet_answer", "rid": 16,
            "params": {"bet_id": super_id, "accept": accept}}),
        )
        .await;
        assert_ne!(answer["data"]["result"], 0, "{answer}");
    }
    let free = swarm(
        &server,
        &a_sid,
        json!({"command": "do_bet", "rid": 17, "params": {
        "type": 1, "mode": 2, "amount": "20", "bonus_id": free_id,
        "bets": [{"event_id": event_id, "price": price.to_string()}]}}),
    )
    .await;
    assert_eq!(free["data"]["result"], 1912, "{free}");
    let a_free = swarm(
        &server,
        &a_sid,
        json!({"command": "get_free_bets", "rid": 18, "params": {}}),
    )
    .await;
    assert_eq!(a_free["data"]["details"], json!([]), "{a_free}");

    // B's things are as they were.
    let rule = swarm(
        &server,
        &b_sid,
        json!({"command": "get_bet_auto_cashout", "rid": 20,
        "params": {"bet_id": bet_id}}),
    )
    .await;
    assert!(rule["data"]["details"]["MinAmount"].is_string(), "{rule}");
    let records = b
        .post("/api/report/betrecods", json!({"BetId": super_id}))
        .await;
    // Still on hold with support's offer, neither accepted nor declined.
    let record = &records["data"]["list"][0];
    assert_eq!(record["outcome"], -5, "{records}");
    assert_eq!(record["counter_offer"]["amount"], "30.00", "{records}");
    let b_free = swarm(
        &server,
        &b_sid,
        json!({"command": "get_free_bets", "rid": 21, "params": {}}),
    )
    .await;
    assert_eq!(
        b_free["data"]["details"][0]["id"]
            .to_string()
            .trim_matches('"'),
        free_id,
        "{b_free}"
    );
    server.running.state.runner.catch_up_all().await.unwrap();
    assert_eq!(b.post("/api/user/getbalance", json!({})).await, b_balance);
    server.stop().await;
}

fn rand_digits() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64
        % 100_000_000
}
