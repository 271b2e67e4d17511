//! Safer gambling (DESIGN.md "Responsible gambling"), over HTTP on both
//! stores: the member's limits refuse deposits and stakes past them on
//! every path, a time-out and a self-exclusion refuse play and keep the
//! account and withdrawals open, support sees and starts time-outs, and two
//! processes on one Postgres never pass a limit together.

mod casino_support;
mod common;

use common::{backoffice, member, pick, staff_token, swarm, Client, Server};
use serde_json::{json, Value};
use store::StoreKind;

store::on_both_stores!(
    a_deposit_limit_refuses_an_order_past_it_and_a_cancelled_order_gives_room_back,
    a_stake_limit_refuses_a_bet_past_it_and_counts_from_the_ledger,
    a_raise_waits_24_hours_and_a_lower_limit_applies_at_once,
    a_time_out_refuses_bets_deposits_real_casino_play_and_transfers_but_not_the_account,
    a_self_exclusion_cannot_be_shortened_and_refuses_casino_bets_as_user_disabled,
    a_casino_stake_past_the_limit_is_limit_reached,
    safer_calls_validate_their_input_with_the_spec_envelope,
    support_sees_the_history_and_starts_a_time_out_it_cannot_end,
    the_statement_lists_deposits_stakes_and_returns_as_csv,
    a_reality_check_notice_comes_once_per_interval_with_the_sessions_figures,
    an_excluded_member_gets_no_free_bet_and_no_promotion_reward,
);

async fn rules(client: &Client) -> Value {
    let answer = client.post("/api/user/rglimits", json!({})).await;
    assert_eq!(answer["status"], 0, "{answer}");
    answer["data"].clone()
}

async fn set(client: &Client, kind: &str, period: &str, amount: &str) -> Value {
    client
        .post(
            "/api/user/rglimitset",
            json!({"kind": kind, "period": period, "amount": amount}),
        )
        .await
}

async fn bet(server: &Server, sid: &str, amount: &str) -> Value {
    let (event_id, _, _, price) = pick(server);
    swarm(
        server,
        sid,
        json!({"command": "do_bet", "rid": 7, "params": {
            "type": 1, "mode": 2, "amount": amount,
            "bets": [{"event_id": event_id, "price": price.to_string()}]}}),
    )
    .await
}

fn result(placed: &Value) -> i64 {
    match &placed["data"]["result"] {
        Value::String(s) if s == "OK" => 0,
        other => other.as_i64().unwrap_or(-999),
    }
}

async fn deposit(client: &Client, amount: &str) -> Value {
    client
        .post("/api/emaildeposit/bankchongzhi", json!({"amount": amount}))
        .await
}

async fn a_deposit_limit_refuses_an_order_past_it_and_a_cancelled_order_gives_room_back(
    kind: StoreKind,
) {
    let server = common::start(kind).await;
    let (client, _) = member(&server).await;
    let limited = set(&client, "deposit", "day", "600").await;
    assert_eq!(limited["status"], 0, "{limited}");
    assert_eq!(limited["data"]["limits"][0]["amount"], "600.00");
    let first = deposit(&client, "500").await;
    assert_eq!(first["status"], 0, "{first}");
    let past = deposit(&client, "200").await;
    assert_eq!(past["status"], 2431, "{past}");
    assert!(
        past["msg"]
            .as_str()
            .unwrap()
            .contains("daily deposit limit"),
        "{past}"
    );
    let used = rules(&client).await;
    assert_eq!(used["limits"][0]["used"], "500.00", "{used}");
    // The member cancels the unpaid order: its amount no longer counts.
    let order = first["data"]["orderid"].as_str().unwrap();
    let cancelled = client
        .post("/api/emaildeposit/cancelorder", json!({"orderid": order}))
        .await;
    assert_eq!(cancelled["status"], 0, "{cancelled}");
    let again = deposit(&client, "200.50").await;
    assert_eq!(again["status"], 0, "{again}");
    server.stop().await;
}

async fn a_stake_limit_refuses_a_bet_past_it_and_counts_from_the_ledger(kind: StoreKind) {
    let server = common::start(kind).await;
    let (client, sid) = member(&server).await;
    // A bet before the limit: the limit starts from what the ledger shows.
    assert_eq!(result(&bet(&server, &sid, "30").await), 0);
    let runner = &server.running.state.runner;
    runner
        .settle("wallet_movements", std::time::Duration::from_secs(10))
        .await
        .unwrap();
    let limited = set(&client, "stake", "week", "100").await;
    assert_eq!(limited["status"], 0, "{limited}");
    assert_eq!(limited["data"]["limits"][0]["used"], "30.00", "{limited}");
    assert_eq!(result(&bet(&server, &sid, "70").await), 0);
    let past = bet(&server, &sid, "1").await;
    assert_eq!(result(&past), 2433, "{past}");
    assert_eq!(past["data"]["details"]["left"], "0.00", "{past}");
    assert_eq!(rules(&client).await["limits"][0]["used"], "100.00");
    server.stop().await;
}

async fn a_raise_waits_24_hours_and_a_lower_limit_applies_at_once(kind: StoreKind) {
    let server = common::start(kind).await;
    let (client, _) = member(&server).await;
    assert_eq!(set(&client, "loss", "month", "1000").await["status"], 0);
    let raised = set(&client, "loss", "month", "5000").await;
    assert_eq!(raised["status"], 0, "{raised}");
    let limit = &raised["data"]["limits"][0];
    assert_eq!(limit["amount"], "1000.00", "{raised}");
    assert_eq!(limit["pending"]["amount"], "5000.00");
    let now = server.running.state.clock.now_ms() / 1000;
    let effective = limit["pending"]["effective_at"].as_i64().unwrap();
    assert!((effective - now - 86_400).abs() <= 2, "{raised}");
    let removed = client
        .post(
            "/api/user/rglimitset",
            json!({"kind": "loss", "period": "month", "amount": ""}),
        )
        .await;
    assert_eq!(removed["status"], 0, "{removed}");
    assert_eq!(
        removed["data"]["limits"][0]["pending"]["amount"],
        Value::Null
    );
    let lower = set(&client, "loss", "month", "400").await;
    assert_eq!(lower["data"]["limits"][0]["amount"], "400.00", "{lower}");
    assert!(
        lower["data"]["limits"][0].get("pending").is_none(),
        "{lower}"
    );
    server.stop().await;
}

async fn a_time_out_refuses_bets_deposits_real_casino_play_and_transfers_but_not_the_account(
    kind: StoreKind,
) {
    let server = common::start(kind).await;
    let (client, sid) = member(&server).await;
    let out = client.post("/api/user/timeout", json!({"hours": 48})).await;
    assert_eq!(out["status"], 0, "{out}");
    let until = out["data"]["timeout_until"].as_i64().unwrap();
    assert!(until > server.running.state.clock.now_ms() / 1000 + 2 * 86_000);
    let refused = bet(&server, &sid, "10").await;
    assert_eq!(result(&refused), 2428, "{refused}");
    assert_eq!(refused["data"]["details"]["until"], until);
    assert_eq!(deposit(&client, "100").await["status"], 2428);
    let launch = client.get("/api/casino_auth?game_id=1001").await;
    assert_eq!(launch["status"], 2428, "{launch}");
    let transfer = client
        .post(
            "/api/security/transwalletmoney",
            json!({"from": "main", "to": "demo", "amount": "10"}),
        )
        .await;
    assert_eq!(transfer["status"], 2428, "{transfer}");
    // The account stays open: balance, profile, and the page itself.
    let balance = client.post("/api/user/getbalance", json!({})).await;
    assert_eq!(balance["status"], 0, "{balance}");
    assert_eq!(
        client.post("/api/user/userinfo", json!({})).await["status"],
        0
    );
    // It cannot be shortened.
    let shorter = client.post("/api/user/timeout", json!({"hours": 24})).await;
    assert_eq!(shorter["status"], -70009, "{shorter}");
    server.stop().await;
}

async fn a_self_exclusion_cannot_be_shortened_and_refuses_casino_bets_as_user_disabled(
    kind: StoreKind,
) {
    let server = common::start(kind).await;
    let l = casino_support::launch(&server, casino_support::SLOT).await;
    let excluded = l
        .client
        .post("/api/user/selfexclude", json!({"months": 12}))
        .await;
    assert_eq!(excluded["status"], 0, "{excluded}");
    let shorter = l
        .client
        .post("/api/user/selfexclude", json!({"months": 6}))
        .await;
    assert_eq!(shorter["status"], -70009, "{shorter}");
    let (b, round) = (casino_support::uuid("bet"), casino_support::uuid("round"));
    let request = casino_support::bet(&l, &b, &round, 100_000, false);
    let answer = casino_support::call(&server, "transaction/bet", &request).await;
    assert_eq!(answer["status"], "RS_ERROR_USER_DISABLED", "{answer}");
    // The same transaction answers the same, and nothing moved.
    let again = casino_support::call(&server, "transaction/bet", &request).await;
    assert_eq!(again["status"], "RS_ERROR_USER_DISABLED", "{again}");
    assert_eq!(casino_support::balance(&server, &l).await, 10_000 * 100_000);
    server.stop().await;
}

async fn a_casino_stake_past_the_limit_is_limit_reached(kind: StoreKind) {
    let server = common::start(kind).await;
    let l = casino_support::launch(&server, casino_support::SLOT).await;
    assert_eq!(set(&l.client, "stake", "day", "15").await["status"], 0);
    let round = casino_support::uuid("round");
    let first = casino_support::bet(
        &l,
        &casino_support::uuid("bet"),
        &round,
        10 * 100_000,
        false,
    );
    assert_eq!(
        casino_support::call(&server, "transaction/bet", &first).await["status"],
        "RS_OK"
    );
    let past = casino_support::bet(&l, &casino_support::uuid("bet"), &round, 6 * 100_000, false);
    let answer = casino_support::call(&server, "transaction/bet", &past).await;
    assert_eq!(answer["status"], "RS_ERROR_LIMIT_REACHED", "{answer}");
    assert_eq!(answer["balance"], 10_000 * 100_000 - 10 * 100_000);
    server.stop().await;
}

async fn safer_calls_validate_their_input_with_the_spec_envelope(kind: StoreKind) {
    let server = common::start(kind).await;
    let (client, _) = member(&server).await;
    for (path, body) in [
        (
            "/api/user/rglimitset",
            json!({"kind": "fun", "period": "day", "amount": "1"}),
        ),
        (
            "/api/user/rglimitset",
            json!({"kind": "loss", "period": "year", "amount": "1"}),
        ),
        (
            "/api/user/rglimitset",
            json!({"kind": "loss", "period": "day", "amount": "-1"}),
        ),
        (
            "/api/user/rglimitset",
            json!({"kind": "loss", "period": "day", "amount": "abc"}),
        ),
        (
            "/api/user/rglimitset",
            json!({"kind": "loss", "period": "day", "amount": "9".repeat(40)}),
        ),
        (
            "/api/user/rglimitset",
            json!({"kind": "loss", "period": "day", "amount": ""}),
        ),
        ("/api/user/timeout", json!({"hours": 23})),
        ("/api/user/timeout", json!({"hours": "many"})),
        ("/api/user/timeout", json!({"hours": 99999999999u64})),
        ("/api/user/selfexclude", json!({"months": 61})),
        ("/api/user/realitycheck", json!({"minutes": 45})),
    ] {
        let answer = client.post(path, body.clone()).await;
        assert_eq!(answer["status"], -70009, "{path} {body}: {answer}");
        assert!(answer["msg"].as_str().unwrap().len() > 5, "{answer}");
    }
    let check = client
        .post("/api/user/realitycheck", json!({"minutes": 30}))
        .await;
    assert_eq!(check["data"]["reality_check_minutes"], 30, "{check}");
    // Nothing was changed by the refusals.
    let now = rules(&client).await;
    assert_eq!(now["limits"], json!([]));
    assert_eq!(now["timeout_until"], 0);
    assert_eq!(now["self_excluded_until"], 0);
    // Not logged in.
    let guest = Client::new(&server).await;
    assert_eq!(
        guest.post("/api/user/rglimits", json!({})).await["status"],
        12
    );
    server.stop().await;
}

async fn support_sees_the_history_and_starts_a_time_out_it_cannot_end(kind: StoreKind) {
    let server = common::start(kind).await;
    let (client, sid) = member(&server).await;
    let user = client.post("/api/user/userinfo", json!({})).await["data"]["user_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(set(&client, "deposit", "week", "300").await["status"], 0);
    let support = staff_token(&server, "support", "support1234").await;
    let path = format!("/api/backoffice/members/{user}/timeout");
    let (status, missing) = backoffice(
        &server,
        "POST",
        &path,
        Some(&support),
        Some(json!({"hours": 48})),
    )
    .await;
    assert_eq!(
        (status, missing["status"].clone()),
        (400, json!(-70009)),
        "{missing}"
    );
    let (status, started) = backoffice(
        &server,
        "POST",
        &path,
        Some(&support),
        Some(json!({"hours": 48, "reason": "asked by phone"})),
    )
    .await;
    assert_eq!(status, 200, "{started}");
    assert!(started["data"]["timeout_until"].as_i64().unwrap() > 0);
    let history = started["data"]["history"].as_array().unwrap();
    assert_eq!(history[0]["what"], "limit_set");
    assert_eq!(history[1]["what"], "time_out");
    assert_eq!(history[1]["by"], "staff:support");
    assert!(history[1]["detail"]
        .as_str()
        .unwrap()
        .contains("asked by phone"));
    // Staff cannot shorten it either.
    let (status, shorter) = backoffice(
        &server,
        "POST",
        &path,
        Some(&support),
        Some(json!({"hours": 24, "reason": "lift it"})),
    )
    .await;
    assert_eq!(
        (status, shorter["status"].clone()),
        (400, json!(-70009)),
        "{shorter}"
    );
    assert_eq!(result(&bet(&server, &sid, "10").await), 2428);
    // A trader may not.
    let trader = staff_token(&server, "trader", "trader1234").await;
    let (status, _) = backoffice(
        &server,
        "GET",
        &format!("/api/backoffice/members/{user}/safer"),
        Some(&trader),
        None,
    )
    .await;
    assert_eq!(status, 403);
    server.stop().await;
}

async fn the_statement_lists_deposits_stakes_and_returns_as_csv(kind: StoreKind) {
    let server = common::start(kind).await;
    let (client, sid) = member(&server).await;
    assert_eq!(result(&bet(&server, &sid, "25").await), 0);
    server
        .running
        .state
        .runner
        .settle("wallet_movements", std::time::Duration::from_secs(10))
        .await
        .unwrap();
    let answer = common::http(
        server.addr(),
        "GET",
        "/api/user/statement?months=12",
        &client.headers(&common::unique_id(), None),
        b"",
    )
    .await;
    assert_eq!(answer.status, 200);
    let text = answer.text();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("date,type,reference,currency,amount,balance_after")
    );
    assert!(text.contains(",stake,bet:"), "{text}");
    assert!(text.contains("-25.00"), "{text}");
    assert!(text.contains("total,stake,,CNY,-25.00,"), "{text}");
    server.stop().await;
}

/// Two processes on one Postgres: deposits sent to both at once never pass
/// the member's limit together.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_deposits_at_once_on_two_processes_never_pass_a_limit_together() {
    let (db_a, db_b) = store::db::testing::fresh_pair(StoreKind::Postgres).await;
    let a = common::start_on(db_a, common::config(true)).await;
    let b = common::start_on(db_b, common::config(true)).await;
    let (client_a, _) = member(&a).await;
    let user = client_a.post("/api/user/userinfo", json!({})).await["data"]["user_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(set(&client_a, "deposit", "day", "1000").await["status"], 0);
    // Ten orders of 300 at once, half on each process: three fit.
    let (pa, pb) = (&a.running.state.payments, &b.running.state.payments);
    let mut tasks = Vec::new();
    for i in 0..10 {
        let payments = if i % 2 == 0 { pa } else { pb };
        let user = user.clone();
        tasks.push(async move {
            payments
                .create_deposit(&user, domain::payment::Channel::Bank, "300", None)
                .await
        });
    }
    let answers = futures::future::join_all(tasks).await;
    let placed = answers.iter().filter(|a| a.is_ok()).count();
    let refused = answers
        .iter()
        .filter(|a| matches!(a, Err(e) if e.to_string().contains("daily deposit limit")))
        .count();
    assert_eq!((placed, refused), (3, 7), "{answers:?}");
    let used = rules(&client_a).await;
    assert_eq!(used["limits"][0]["used"], "900.00", "{used}");
    a.stop().await;
    b.stop().await;
}

async fn a_reality_check_notice_comes_once_per_interval_with_the_sessions_figures(kind: StoreKind) {
    let server = common::start(kind).await;
    let (client, sid) = member(&server).await;
    let state = &server.running.state;
    let user = client.post("/api/user/userinfo", json!({})).await["data"]["user_id"]
        .as_str()
        .unwrap()
        .to_string();
    let on = client
        .post("/api/user/realitycheck", json!({"minutes": 10}))
        .await;
    assert_eq!(on["status"], 0, "{on}");
    assert_eq!(result(&bet(&server, &sid, "40").await), 0);
    state
        .runner
        .settle("wallet_movements", std::time::Duration::from_secs(10))
        .await
        .unwrap();
    let checks = commands::compliance::reality::RealityChecks::new(
        state.db.any.clone(),
        state.safer.clone(),
        state.notifications.clone(),
        state.clock.clone(),
    );
    // Not yet: the session is younger than 10 minutes.
    assert_eq!(checks.pass().await.unwrap(), 0);
    // The session began 11 minutes ago (and the bet within it).
    for sql in ["UPDATE sessions SET created_ms = created_ms - 660000 WHERE user_id = $1"] {
        sqlx::query(sql)
            .bind(&user)
            .execute(&state.db.any)
            .await
            .unwrap();
    }
    assert_eq!(checks.pass().await.unwrap(), 1);
    assert_eq!(checks.pass().await.unwrap(), 0, "once per interval");
    let body: String =
        sqlx::query_scalar("SELECT body FROM notifications WHERE user_id = $1 AND kind = 1020")
            .bind(&user)
            .fetch_one(&state.db.any)
            .await
            .unwrap();
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["session_minutes"], 11, "{body}");
    assert_eq!(body["stakes"], "40.00", "{body}");
    assert_eq!(body["net"], "-40.00", "{body}");
    assert_eq!(body["currency"], "CNY");
    // Off: no more notices.
    let off = client
        .post("/api/user/realitycheck", json!({"minutes": 0}))
        .await;
    assert_eq!(off["status"], 0, "{off}");
    sqlx::query("UPDATE sessions SET created_ms = created_ms - 6000000 WHERE user_id = $1")
        .bind(&user)
        .execute(&state.db.any)
        .await
        .unwrap();
    assert_eq!(checks.pass().await.unwrap(), 0);
    server.stop().await;
}

async fn an_excluded_member_gets_no_free_bet_and_no_promotion_reward(kind: StoreKind) {
    let server = common::start(kind).await;
    let (client, _) = member(&server).await;
    let user = client.post("/api/user/userinfo", json!({})).await["data"]["user_id"]
        .as_str()
        .unwrap()
        .to_string();
    let out = client.post("/api/user/timeout", json!({"hours": 24})).await;
    assert_eq!(out["status"], 0, "{out}");
    let support = staff_token(&server, "support", "support1234").await;
    let (status, granted) = backoffice(
        &server,
        "POST",
        "/api/backoffice/free-bets",
        Some(&support),
        Some(json!({"user": user, "amount": "10", "days": 7, "reason": "goodwill"})),
    )
    .await;
    assert_eq!(
        (status, granted["status"].clone()),
        (400, json!(2428)),
        "{granted}"
    );
    // The daily sign-in pays no reward while in a time-out.
    let signed = client.post("/api/activity/signin", json!({})).await;
    assert_ne!(signed["status"], 0, "{signed}");
    server.stop().await;
}
