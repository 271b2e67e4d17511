//! The member authorization matrix: member A cannot read, cash out, set or
//! cancel an auto cash-out on, answer a counter offer of, or stake a free
//! bet of member B's; each call answers as if the bet or free bet did not
//! exist for A, and B's bet, money and rules are unchanged; nor can A
//! see, read or delete B's inbox messages.

mod casino_support;
mod common;

use common::{backoffice, pick, staff_token, start, swarm, swarm_session, Client};
use serde_json::{json, Value};
use store::StoreKind;

store::on_both_stores!(member_a_can_touch_nothing_of_member_bs,);

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
    server
        .running
        .state
        .runner
        .settle("balances", std::time::Duration::from_secs(10))
        .await
        .unwrap();
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
    server
        .running
        .state
        .runner
        .settle("balances", std::time::Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(b.post("/api/user/getbalance", json!({})).await, b_balance);

    // B's inbox: A can neither see, read nor delete B's messages.
    let marketing = staff_token(&server, "marketing", "marketing1234").await;
    let (status, _) = backoffice(
        &server,
        "POST",
        "/api/backoffice/campaigns",
        Some(&marketing),
        Some(json!({"title": "For B", "content": "only B", "segment": {"type": "users", "usernames": ["demo"]}})),
    )
    .await;
    assert_eq!(status, 200);
    let b_inbox = b.get("/api/user/messages").await;
    let b_message = b_inbox["data"]["list"][0]["id"].clone();
    assert!(b_message.is_i64(), "{b_inbox}");
    let a_inbox = a.get("/api/user/messages").await;
    assert!(
        a_inbox["data"]["list"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["id"] != b_message),
        "{a_inbox}"
    );
    a.post("/api/user/messages", json!({"id": b_message})).await;
    a.post(
        "/api/user/messages",
        json!({"id": b_message, "action": "delete"}),
    )
    .await;
    assert_eq!(b.get("/api/user/messages").await["data"], b_inbox["data"]);
    server.stop().await;
}

fn rand_digits() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64
        % 100_000_000
}

// --- Casino (issue 18): the catalogue's back-office endpoints are the
// admin's alone; a member's favourites and launch tokens are their own.
mod casino {
    use super::common::{self, backoffice, staff_token, Client};
    use serde_json::{json, Value};
    use store::StoreKind;

    store::on_both_stores!(
        casino_catalogue_editing_is_for_admins_only,
        casino_favourites_and_launch_tokens_are_the_members_own,
    );

    fn endpoints() -> Vec<(&'static str, &'static str, Option<Value>)> {
        let game = json!({"id": 9001, "provider": "demo", "front_game_id": "demo_slot_x",
            "extearnal_game_id": "demo_slot_x", "types": {"realMode": 1, "viewMode": 0, "funMode": 1},
            "name": "Matrix Slot", "category": "slots", "section": "casino"});
        vec![
            ("GET", "/api/backoffice/casino/games", None),
            ("POST", "/api/backoffice/casino/games", Some(game.clone())),
            (
                "POST",
                "/api/backoffice/casino/games/1001/enabled",
                Some(json!({"enabled": true})),
            ),
            (
                "POST",
                "/api/backoffice/casino/import",
                Some(json!({"games": [game]})),
            ),
            ("DELETE", "/api/backoffice/casino/games/9001", None),
        ]
    }

    async fn casino_catalogue_editing_is_for_admins_only(kind: StoreKind) {
        let server = common::start(kind).await;
        let mut staff = Vec::new();
        for (name, password) in [
            ("support", "support1234"),
            ("auditor", "auditor1234"),
            ("trader", "trader1234"),
            ("admin", "admin1234"),
        ] {
            staff.push((name, staff_token(&server, name, password).await));
        }
        for (method, path, body) in endpoints() {
            let (status, _) = backoffice(&server, method, path, None, body.clone()).await;
            assert_eq!(status, 401, "anonymous {method} {path}");
            for (role, token) in &staff {
                let (status, answer) =
                    backoffice(&server, method, path, Some(token), body.clone()).await;
                if *role == "admin" {
                    assert_eq!(status, 200, "{role} {method} {path}: {answer}");
                } else {
                    assert_eq!(
                        (status, answer["status"].as_i64()),
                        (403, Some(-403)),
                        "{role} {method} {path}"
                    );
                }
            }
        }
        server.stop().await;
    }

    async fn casino_favourites_and_launch_tokens_are_the_members_own(kind: StoreKind) {
        let server = common::start(kind).await;
        let mut b = Client::new(&server).await;
        assert_eq!(b.login(&server, "demo", "demo1234").await["status"], 0);
        let mut a = Client::new(&server).await;
        let phone = format!("137{:08}", super::rand_digits());
        assert_eq!(
            a.register_phone(&server, &phone, "secret123").await["status"],
            0
        );
        let marked = b
            .post(
                "/api/thirdgamefavorite",
                json!({"game_id": 1001, "favorite": 1}),
            )
            .await;
        assert_eq!(marked["data"]["list"], json!([1001]), "{marked}");
        let a_favourites = a.post("/api/thirdgamefavorite", json!({})).await;
        assert_eq!(a_favourites["data"]["list"], json!([]), "{a_favourites}");
        let a_list = a
            .post(
                "/api/thirdgamelist",
                json!({"section": "casino", "favorite": 1}),
            )
            .await;
        assert_eq!(a_list["data"]["total_count"], 0, "{a_list}");
        // B's launch token does not work for A's user id.
        let auth = b.get("/api/casino_auth?game_id=1001").await;
        let token = auth["data"]["token"].as_str().unwrap();
        let a_info = a.post("/api/user/userinfo", json!({})).await;
        let a_user = a_info["data"]["user_id"].as_str().unwrap();
        let body = json!({"user": a_user, "token": token, "request_uuid": "r1", "game_code": "demo_slot",
            "currency": "CNY", "transaction_uuid": "matrix-1", "round": "m1", "round_closed": false, "amount": 100000});
        let answer = super::casino_support::call(&server, "transaction/bet", &body).await;
        assert_eq!(answer["status"], "RS_ERROR_INVALID_TOKEN", "{answer}");
        server.stop().await;
    }
}

// Seasons (issue 12): task reward claims and the prize fulfilment queue.
// Member A's claim touches only A's tasks (a claim names a task, never a
// member); the back-office season endpoints answer by role: the claim
// queue, review and fulfilment to support and admin, task definitions and
// ranks to admin only; a member's token is no staff token.
mod season_claims {
    use super::*;

    store::on_both_stores!(season_claims_and_fulfilment_by_role,);

    async fn season_claims_and_fulfilment_by_role(kind: StoreKind) {
        let server = start(kind).await;
        let mut b = Client::new(&server).await;
        let b_login = b.login(&server, "demo", "demo1234").await;
        let b_id = b_login["data"]["user_id"].as_str().unwrap().to_string();
        let member_token = b_login["data"]["auth_token"].as_str().unwrap().to_string();
        let mut a = Client::new(&server).await;
        let phone = format!("137{:08}", rand_digits());
        let registered = a.register_phone(&server, &phone, "secret123").await;
        assert_eq!(registered["status"], 0, "{registered}");
        // A claims: it is A's own task list (undone), B's is untouched.
        let claim = a
            .post("/api/vipsystem/getseasontaskbonus", json!({"id": 1}))
            .await;
        assert_ne!(claim["status"], 0, "{claim}");
        let b_tasks = b
            .post("/api/vipsystem/seasontaskbonusinfo", json!({}))
            .await;
        assert!(b_tasks["data"]["list"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["status"] == 0 || t["status"] == 1));
        // A reads B's rank reward? Only its own (no member parameter).
        let info = a
            .post(
                "/api/vipsystem/seasonbonusinfo",
                json!({"seasonid": 3, "member_id": b_id}),
            )
            .await;
        assert_eq!(info["data"]["aUserActInfo"]["userrank"], 0, "{info}");
        let review = json!({"reference": format!("seasontask:3:{b_id}:1"), "approve": true});
        let ship = json!({"seasonid": 3, "member_id": b_id});
        let task = json!({"seasonid": 3, "task": {"id": 1, "tasktype": 1, "taskvalue": "1"}});
        let rank = json!({"seasonid": 3, "member_id": b_id, "rank": 5});
        let calls: [(&str, &str, Option<Value>, &[&str]); 7] = [
            (
                "GET",
                "/api/backoffice/season/claims",
                None,
                &["support", "admin"],
            ),
            (
                "GET",
                &*format!("/api/backoffice/season/claim?reference=seasontask:3:{b_id}:1"),
                None,
                &["support", "admin"],
            ),
            (
                "POST",
                "/api/backoffice/season/claims/review",
                Some(review),
                &["support", "admin"],
            ),
            (
                "GET",
                "/api/backoffice/season/fulfilment",
                None,
                &["support", "admin"],
            ),
            (
                "POST",
                "/api/backoffice/season/fulfilment/ship",
                Some(ship),
                &["support", "admin"],
            ),
            (
                "POST",
                "/api/backoffice/season/tasks",
                Some(task),
                &["admin"],
            ),
            (
                "POST",
                "/api/backoffice/season/ranks",
                Some(rank),
                &["admin"],
            ),
        ];
        let mut staff = Vec::new();
        for (name, password) in [
            ("support", "support1234"),
            ("auditor", "auditor1234"),
            ("trader", "trader1234"),
            ("admin", "admin1234"),
        ] {
            staff.push((name, staff_token(&server, name, password).await));
        }
        for (method, path, body, allowed) in calls.iter() {
            let (status, _) = backoffice(&server, method, path, None, body.clone()).await;
            assert_eq!(status, 401, "no token {method} {path}");
            let (status, _) =
                backoffice(&server, method, path, Some(&member_token), body.clone()).await;
            assert_eq!(status, 401, "a member's token {method} {path}");
            for (role, token) in &staff {
                let (status, answer) =
                    backoffice(&server, method, path, Some(token), body.clone()).await;
                if allowed.contains(role) {
                    assert_ne!(status, 401, "{role} {method} {path}: {answer}");
                    assert_ne!(status, 403, "{role} {method} {path}: {answer}");
                } else {
                    assert_eq!(status, 403, "{role} {method} {path}: {answer}");
                }
            }
        }
        server.stop().await;
    }
}
