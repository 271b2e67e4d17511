//! Payments (issue 10, item 9): deposits through the sandbox provider and
//! its signed callbacks, USDT with confirmations and quotes, withdrawals
//! with their freeze and finance's decisions, on both stores.

mod common;

use std::time::Duration;

use commands::payments::provider::sign;
use common::{backoffice, http, staff_token, Client, Server};
use serde_json::{json, Value};
use store::StoreKind;

store::on_both_stores!(
    a_sandbox_deposit_credits_once_though_its_callback_arrives_three_times_and_out_of_order,
    callbacks_with_a_bad_signature_a_stale_timestamp_or_a_wrong_amount_credit_nothing,
    deposits_keep_their_channel_limits_and_members_cancel_only_their_own_open_orders,
    deposit_records_count_only_the_members_own_orders,
    the_sandbox_pay_page_pays_and_its_own_callbacks_credit_the_order,
    a_usdt_deposit_credits_after_its_confirmations_at_the_quote_and_a_late_one_is_requoted,
    a_withdrawal_freezes_at_once_and_finance_pays_or_rejects_it,
    withdrawal_refusals_answer_20_20003_20004_and_20007,
    withdrawals_per_day_follow_the_vip_level,
    bank_cards_follow_the_market_rule_the_real_name_the_count_limit_and_the_blacklist,
    transfers_move_money_between_the_main_and_the_game_wallet_exactly_once,
    a_transfer_given_up_by_the_sweeper_never_debits_later_and_one_debited_is_credited,
    an_approved_withdrawal_is_paid_out_by_the_payout_provider_once_and_a_declined_one_unfreezes,
    wallet_movements_continue_each_wallets_balance_from_its_head_or_its_newest_movement,
);

const SECRET: &str = "development-sandbox-secret-change-me";

async fn settle(server: &Server) {
    let runner = &server.running.state.runner;
    for name in ["balances", "money_orders", "wallet_movements"] {
        runner.settle(name, Duration::from_secs(10)).await.unwrap();
    }
}

/// The demo member with a fund password and a real name.
async fn member(server: &Server) -> (Client, String) {
    let mut client = Client::new(server).await;
    let login = client.login(server, "demo", "demo1234").await;
    assert_eq!(login["status"], 0, "{login}");
    let user_id = login["data"]["user_id"].as_str().unwrap().to_string();
    let set = client
        .post(
            "/api/user/fundpassset",
            json!({"fundpass": "fund1234", "confirm_fundpass": "fund1234", "loginpass": "demo1234"}),
        )
        .await;
    assert_eq!(set["status"], 0, "{set}");
    let named = client
        .post("/api/user/realnameupdate", json!({"realname": "张三"}))
        .await;
    assert_eq!(named["status"], 0, "{named}");
    (client, user_id)
}

/// The member's balance and frozen balance as `getbalance` reads them
/// (from the balance projection, once it caught up).
async fn balance(server: &Server, user_id: &str) -> (String, String) {
    settle(server).await;
    let b = api::routes::user::balance_of(&server.running.state, user_id)
        .await
        .unwrap();
    (b.balance, b.frozen_balance)
}

/// Posts a provider callback as the sandbox would: (HTTP status, answer).
async fn callback(server: &Server, body: &Value, t: i64, secret: &str) -> (u16, Value) {
    let raw = body.to_string();
    let headers = vec![
        ("Content-Type".to_string(), "application/json".to_string()),
        ("X-Signature".to_string(), sign(secret, raw.as_bytes(), t)),
    ];
    let answer = http(
        server.addr(),
        "POST",
        "/api/payments/callback/sandbox",
        &headers,
        raw.as_bytes(),
    )
    .await;
    (
        answer.status,
        serde_json::from_slice(&answer.body).unwrap_or(Value::Null),
    )
}

fn now_s(server: &Server) -> i64 {
    use commands::platform::clock::Clock;
    server.clock.now_ms() / 1000
}

fn report(order: &str, tx: &str, amount: &str, status: &str, created: i64) -> Value {
    json!({"event_id": format!("{tx}-{status}-{created}"), "order_id": order,
        "provider_tx_id": tx, "amount": amount, "currency": "CNY", "status": status,
        "created": created})
}

async fn deposit_events(server: &Server, order: &str) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT event_type || ' ' || payload FROM events WHERE aggregate_type = 'Deposit' AND aggregate_id = $1 ORDER BY sequence",
    )
    .bind(order)
    .fetch_all(&server.running.state.db.any)
    .await
    .unwrap()
}

async fn a_sandbox_deposit_credits_once_though_its_callback_arrives_three_times_and_out_of_order(
    kind: StoreKind,
) {
    let server = common::start(kind).await;
    let (client, user_id) = member(&server).await;
    let (before, _) = balance(&server, &user_id).await;
    let order = client
        .post("/api/emaildeposit/chongzhi", json!({"amount": "250.00"}))
        .await;
    assert_eq!(order["status"], 0, "{order}");
    let order_id = order["data"]["orderid"].as_str().unwrap().to_string();
    assert!(order["data"]["pay_url"]
        .as_str()
        .unwrap()
        .contains(&order_id));
    assert_eq!(order["data"]["currency"], "CNY");
    let t = now_s(&server);
    // A failed attempt reported late (older than the payment), and the
    // payment itself three times, all at once.
    let paid = report(&order_id, "TX-1", "250.00", "paid", t);
    let stale = report(&order_id, "TX-0", "250.00", "failed", t - 60);
    let sends = [paid.clone(), stale, paid.clone(), paid];
    let answers =
        futures::future::join_all(sends.iter().map(|body| callback(&server, body, t, SECRET)))
            .await;
    for (status, answer) in &answers {
        assert_eq!((*status, answer.clone()), (200, json!({"received": true})));
    }
    let (after, _) = balance(&server, &user_id).await;
    let expected =
        before.parse::<rust_decimal::Decimal>().unwrap() + rust_decimal::Decimal::new(25000, 2);
    assert_eq!(after, expected.to_string());
    let events = deposit_events(&server, &order_id).await;
    assert_eq!(
        events
            .iter()
            .filter(|e| e.starts_with("DepositCredited "))
            .count(),
        1,
        "{events:?}"
    );
    // One wallet movement of kind deposit under the order's reference.
    let credits: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM wallet_movements WHERE member_id = $1 AND reference = $2",
    )
    .bind(&user_id)
    .bind(format!("deposit:{order_id}"))
    .fetch_one(&server.running.state.db.any)
    .await
    .unwrap();
    assert_eq!(credits, 1);
    // The money order shows it credited; the tip 1000 went to the member.
    let orders = client
        .post("/api/report/moneyorders", json!({"preset": "today"}))
        .await;
    let row = orders["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["orderid"] == order_id.as_str())
        .cloned()
        .unwrap_or_else(|| panic!("{orders}"));
    assert_eq!(row["status"], "credited", "{row}");
    assert_eq!(row["credited_amount"], "250.00");
    let tips: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM notifications WHERE user_id = $1 AND kind = 1000")
            .bind(&user_id)
            .fetch_one(&server.running.state.db.any)
            .await
            .unwrap();
    assert_eq!(tips, 1);
    // A repeat long after still answers 200 and moves nothing.
    let again = callback(
        &server,
        &report(&order_id, "TX-1", "250.00", "paid", t),
        t,
        SECRET,
    )
    .await;
    assert_eq!(again.0, 200);
    assert_eq!(balance(&server, &user_id).await.0, expected.to_string());
    server.stop().await;
}

async fn callbacks_with_a_bad_signature_a_stale_timestamp_or_a_wrong_amount_credit_nothing(
    kind: StoreKind,
) {
    let server = common::start(kind).await;
    let (client, user_id) = member(&server).await;
    let (before, _) = balance(&server, &user_id).await;
    let order = client
        .post("/api/emaildeposit/chongzhi", json!({"amount": "100.00"}))
        .await;
    let order_id = order["data"]["orderid"].as_str().unwrap().to_string();
    let t = now_s(&server);
    let paid = report(&order_id, "TX-9", "100.00", "paid", t);
    let (status, _) = callback(&server, &paid, t, "not-the-secret").await;
    assert_eq!(status, 400, "a bad signature");
    let (status, _) = callback(&server, &paid, t - 301, SECRET).await;
    assert_eq!(status, 400, "a stale timestamp");
    let (status, _) = callback(&server, &paid, t + 301, SECRET).await;
    assert_eq!(status, 400, "a timestamp from the future");
    // A body changed after signing.
    let raw = paid.to_string();
    let header = sign(SECRET, raw.as_bytes(), t);
    let tampered = raw.replace("100.00", "900.00");
    let answer = http(
        server.addr(),
        "POST",
        "/api/payments/callback/sandbox",
        &[("X-Signature".to_string(), header)],
        tampered.as_bytes(),
    )
    .await;
    assert_eq!(answer.status, 400, "a tampered body");
    assert!(
        deposit_events(&server, &order_id).await.len() == 1,
        "only created"
    );
    // A signed report of another amount: recorded, flagged, not credited.
    let wrong = report(&order_id, "TX-9", "1000.00", "paid", t);
    assert_eq!(callback(&server, &wrong, t, SECRET).await.0, 200);
    let usd = json!({"event_id": "usd-1", "order_id": order_id, "provider_tx_id": "TX-10",
        "amount": "100.00", "currency": "USD", "status": "paid", "created": t + 1});
    assert_eq!(callback(&server, &usd, t, SECRET).await.0, 200);
    assert_eq!(balance(&server, &user_id).await.0, before);
    let finance = staff_token(&server, "finance", "finance1234").await;
    let (status, flagged) = backoffice(
        &server,
        "GET",
        "/api/backoffice/payments/deposits",
        Some(&finance),
        None,
    )
    .await;
    assert_eq!(status, 200, "{flagged}");
    let row = flagged["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["orderid"] == order_id.as_str())
        .cloned()
        .unwrap_or_else(|| panic!("not flagged: {flagged}"));
    assert_eq!(row["status"], "flagged");
    // The reconciliation view shows the paid reports and the difference.
    let (_, view) = backoffice(
        &server,
        "GET",
        "/api/backoffice/payments/reconciliation",
        Some(&finance),
        None,
    )
    .await;
    assert!(view["data"]["differences"].as_i64().unwrap() >= 1, "{view}");
    // Finance credits what arrived in the order's currency.
    let (status, reviewed) = backoffice(
        &server,
        "POST",
        &format!("/api/backoffice/payments/deposits/{order_id}/review"),
        Some(&finance),
        Some(json!({"credit": false, "reason": "refunded to the payer"})),
    )
    .await;
    assert_eq!(status, 200, "{reviewed}");
    assert_eq!(balance(&server, &user_id).await.0, before);
    // An unknown provider and an unknown order change nothing either.
    let unknown = report("D999999999", "TX-X", "1.00", "paid", t);
    assert_eq!(callback(&server, &unknown, t, SECRET).await.0, 400);
    server.stop().await;
}

async fn deposits_keep_their_channel_limits_and_members_cancel_only_their_own_open_orders(
    kind: StoreKind,
) {
    let server = common::start(kind).await;
    let (client, _) = member(&server).await;
    let low = client
        .post("/api/emaildeposit/chongzhi", json!({"amount": "10"}))
        .await;
    assert_eq!(
        (low["status"].clone(), low["msg"].clone()),
        (json!(20003), json!("Min deposit is 50.00"))
    );
    let high = client
        .post(
            "/api/emaildeposit/bankchongzhi",
            json!({"amount": "50000.01"}),
        )
        .await;
    assert_eq!(
        (high["status"].clone(), high["msg"].clone()),
        (json!(20004), json!("Max deposit is 50000.00"))
    );
    let float = client
        .post("/api/emaildeposit/chongzhi", json!({"amount": "100.001"}))
        .await;
    assert_eq!(float["status"], 1109, "{float}");
    let bank = client
        .post("/api/emaildeposit/bankchongzhi", json!({"amount": "500"}))
        .await;
    assert_eq!(bank["status"], 0, "{bank}");
    assert!(bank["data"]["bank"]["account"].is_string());
    let order_id = bank["data"]["orderid"].as_str().unwrap().to_string();
    let confirmed = client
        .post(
            "/api/emaildeposit/confirmorder",
            json!({"orderid": order_id}),
        )
        .await;
    assert_eq!(confirmed["status"], 0, "{confirmed}");
    // Another member cannot cancel it.
    let mut other = Client::new(&server).await;
    let registered = other
        .register_phone(
            &server,
            &format!("139{:08}", std::process::id() % 100_000_000),
            "secret123",
        )
        .await;
    assert_eq!(registered["status"], 0, "{registered}");
    let theirs = other
        .post(
            "/api/emaildeposit/cancelorder",
            json!({"orderid": order_id}),
        )
        .await;
    assert_eq!(theirs["status"], -30602, "{theirs}");
    let cancelled = client
        .post(
            "/api/emaildeposit/cancelorder",
            json!({"orderid": order_id}),
        )
        .await;
    assert_eq!(cancelled["status"], 0, "{cancelled}");
    // The clock passes the order time of another order: it expires.
    let open = client
        .post("/api/emaildeposit/chongzhi", json!({"amount": "60"}))
        .await;
    let open_id = open["data"]["orderid"].as_str().unwrap().to_string();
    settle(&server).await;
    server.clock.advance(31 * 60_000);
    server
        .running
        .state
        .payments
        .sweep_deposits()
        .await
        .unwrap();
    settle(&server).await;
    // (The member's session has expired too: read the order as staff do.)
    let order = server
        .running
        .state
        .payments
        .order(&open_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(order.status, "expired");
    server.stop().await;
}

/// `report/depositrecordsdel` for `client`: the order ids listed and the
/// total answered.
async fn deposit_records(client: &Client, params: Value) -> (Vec<String>, i64) {
    let answer = client.post("/api/report/depositrecordsdel", params).await;
    assert_eq!(answer["status"], 0, "{answer}");
    let ids = answer["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["orderid"].as_str().unwrap().to_string())
        .collect();
    (ids, answer["data"]["total"].as_i64().unwrap())
}

async fn deposit_records_count_only_the_members_own_orders(kind: StoreKind) {
    let server = common::start(kind).await;
    let (client, _) = member(&server).await;
    let mut mine = Vec::new();
    for amount in ["500", "600"] {
        let order = client
            .post("/api/emaildeposit/chongzhi", json!({"amount": amount}))
            .await;
        assert_eq!(order["status"], 0, "{order}");
        mine.push(order["data"]["orderid"].as_str().unwrap().to_string());
    }
    let mut other = Client::new(&server).await;
    let registered = other
        .register_phone(&server, "13500135000", "secret123")
        .await;
    assert_eq!(registered["status"], 0, "{registered}");
    let theirs = other
        .post("/api/emaildeposit/chongzhi", json!({"amount": "700"}))
        .await;
    assert_eq!(theirs["status"], 0, "{theirs}");
    let theirs = theirs["data"]["orderid"].as_str().unwrap().to_string();
    settle(&server).await;
    // The list and its total: the member's own deposits only.
    let (ids, total) = deposit_records(&client, json!({})).await;
    assert_eq!((ids.len(), total), (2, 2), "{ids:?}");
    let (ids, total) = deposit_records(&other, json!({})).await;
    assert_eq!((ids, total), (vec![theirs.clone()], 1));
    // Asked by id: another member's order is not found, nor counted.
    let (ids, total) = deposit_records(&other, json!({"orderid": mine[0]})).await;
    assert_eq!((ids, total), (vec![], 0));
    let (ids, total) = deposit_records(&client, json!({"orderid": theirs})).await;
    assert_eq!((ids, total), (vec![], 0));
    let (ids, total) = deposit_records(&client, json!({"orderid": mine[1]})).await;
    assert_eq!((ids, total), (vec![mine[1].clone()], 1));
    server.stop().await;
}

async fn the_sandbox_pay_page_pays_and_its_own_callbacks_credit_the_order(kind: StoreKind) {
    let server = common::start(kind).await;
    let (client, user_id) = member(&server).await;
    let (before, _) = balance(&server, &user_id).await;
    let order = client
        .post("/api/emaildeposit/chongzhi", json!({"amount": "120"}))
        .await;
    let order_id = order["data"]["orderid"].as_str().unwrap().to_string();
    let pay_url = order["data"]["pay_url"].as_str().unwrap().to_string();
    settle(&server).await;
    let page = http(server.addr(), "GET", &pay_url, &[], b"").await;
    assert_eq!(page.status, 200);
    assert!(page.text().contains("120.00 CNY"), "{}", page.text());
    let paid = http(
        server.addr(),
        "POST",
        &pay_url,
        &[(
            "Content-Type".to_string(),
            "application/x-www-form-urlencoded".to_string(),
        )],
        b"outcome=paid",
    )
    .await;
    assert_eq!(paid.status, 200, "{}", paid.text());
    // The sandbox delivers its callbacks in the background (copies later).
    let expected = (before.parse::<rust_decimal::Decimal>().unwrap()
        + rust_decimal::Decimal::new(12000, 2))
    .to_string();
    let mut now = String::new();
    for _ in 0..100 {
        now = balance(&server, &user_id).await.0;
        if now == expected {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(now, expected);
    server.clock.advance(5_000);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        balance(&server, &user_id).await.0,
        expected,
        "copies moved nothing"
    );
    let events = deposit_events(&server, &order_id).await;
    assert_eq!(
        events
            .iter()
            .filter(|e| e.starts_with("DepositCredited "))
            .count(),
        1
    );
    server.stop().await;
}

async fn a_usdt_deposit_credits_after_its_confirmations_at_the_quote_and_a_late_one_is_requoted(
    kind: StoreKind,
) {
    let server = common::start(kind).await;
    let (client, user_id) = member(&server).await;
    let (before, _) = balance(&server, &user_id).await;
    let before: rust_decimal::Decimal = before.parse().unwrap();
    let quote = client
        .post(
            "/api/emaildeposit/GetVirtualExchangeRate",
            json!({"amount": "720"}),
        )
        .await;
    assert_eq!(quote["data"]["rate"], "7.20", "{quote}");
    assert_eq!(quote["data"]["usdt_amount"], "100.000000");
    let order = client
        .post(
            "/api/emaildeposit/virtualchongzhi",
            json!({"amount": "720", "chain": "TRC20"}),
        )
        .await;
    assert_eq!(order["status"], 0, "{order}");
    let address = order["data"]["usdt"]["address"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(order["data"]["usdt"]["confirmations"], 19);
    settle(&server).await;
    // The rate moves; the order keeps its quote.
    let payments = &server.running.state.payments;
    payments
        .set_usdt_rate(domain::Currency::Cny, "8.00".parse().unwrap())
        .await
        .unwrap();
    let usdt: rust_decimal::Decimal = "100".parse().unwrap();
    for confirmations in [1, 10, 18] {
        payments
            .chain_transfer(
                domain::payment::Chain::Trc20,
                &address,
                "0xtrc1",
                usdt,
                confirmations,
            )
            .await
            .unwrap();
    }
    assert_eq!(
        balance(&server, &user_id).await.0,
        before.to_string(),
        "not before 19"
    );
    payments
        .chain_transfer(domain::payment::Chain::Trc20, &address, "0xtrc1", usdt, 19)
        .await
        .unwrap();
    payments
        .chain_transfer(domain::payment::Chain::Trc20, &address, "0xtrc1", usdt, 25)
        .await
        .unwrap();
    let after_first = before + rust_decimal::Decimal::new(72000, 2);
    assert_eq!(balance(&server, &user_id).await.0, after_first.to_string());

    // ERC20: the quote expires before the transfer is seen: re-quoted at
    // the rate of that moment (8.00), credited after 64 confirmations.
    let order = client
        .post(
            "/api/emaildeposit/virtualchongzhi",
            json!({"amount": "800", "chain": "ERC20"}),
        )
        .await;
    assert_eq!(order["status"], 0, "{order}");
    let order_id = order["data"]["orderid"].as_str().unwrap().to_string();
    let address = order["data"]["usdt"]["address"]
        .as_str()
        .unwrap()
        .to_string();
    settle(&server).await;
    server.clock.advance(16 * 60_000);
    let usdt: rust_decimal::Decimal = "100".parse().unwrap();
    payments
        .chain_transfer(domain::payment::Chain::Erc20, &address, "0xerc1", usdt, 63)
        .await
        .unwrap();
    assert_eq!(balance(&server, &user_id).await.0, after_first.to_string());
    payments
        .chain_transfer(domain::payment::Chain::Erc20, &address, "0xerc1", usdt, 64)
        .await
        .unwrap();
    assert_eq!(
        balance(&server, &user_id).await.0,
        (after_first + rust_decimal::Decimal::new(80000, 2)).to_string()
    );
    let events = deposit_events(&server, &order_id).await;
    assert!(
        events.iter().any(|e| e.starts_with("DepositRequoted ")),
        "{events:?}"
    );
    server.stop().await;
}

async fn bind_card(client: &Client) -> String {
    let card = client
        .post(
            "/api/security/adduserbank",
            json!({"bank_name": "ICBC", "card_number": "6222021234567890", "holder": "张三", "fundpass": "fund1234"}),
        )
        .await;
    assert_eq!(card["status"], 0, "{card}");
    assert_eq!(card["data"]["masked"], "***********7890");
    card["data"]["id"].as_str().unwrap().to_string()
}

async fn a_withdrawal_freezes_at_once_and_finance_pays_or_rejects_it(kind: StoreKind) {
    let server = common::start(kind).await;
    let (client, user_id) = member(&server).await;
    let card = bind_card(&client).await;
    let (before, _) = balance(&server, &user_id).await;
    let before: rust_decimal::Decimal = before.parse().unwrap();
    let w = client
        .post(
            "/api/security/platwithdraw",
            json!({"amount": "300", "bank_id": card, "fundpass": "fund1234"}),
        )
        .await;
    assert_eq!(w["status"], 0, "{w}");
    let id = w["data"]["orderid"].as_str().unwrap().to_string();
    let (main, frozen) = balance(&server, &user_id).await;
    assert_eq!(
        (main, frozen),
        (
            (before - rust_decimal::Decimal::new(300, 0))
                .round_dp(2)
                .to_string(),
            "300.00".to_string()
        )
    );
    let finance = staff_token(&server, "finance", "finance1234").await;
    let (_, queue) = backoffice(
        &server,
        "GET",
        "/api/backoffice/payments/withdrawals",
        Some(&finance),
        None,
    )
    .await;
    assert!(
        queue["data"]["list"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["orderid"] == id.as_str()),
        "{queue}"
    );
    // Paid before approval is refused; approve, then pay.
    let (status, _) = backoffice(
        &server,
        "POST",
        &format!("/api/backoffice/payments/withdrawals/{id}/paid"),
        Some(&finance),
        Some(json!({})),
    )
    .await;
    assert_eq!(status, 400);
    let (status, a) = backoffice(
        &server,
        "POST",
        &format!("/api/backoffice/payments/withdrawals/{id}/approve"),
        Some(&finance),
        Some(json!({"reason": "checked"})),
    )
    .await;
    assert_eq!(status, 200, "{a}");
    let (status, p) = backoffice(
        &server,
        "POST",
        &format!("/api/backoffice/payments/withdrawals/{id}/paid"),
        Some(&finance),
        Some(json!({"reason": "bank ref 42"})),
    )
    .await;
    assert_eq!(status, 200, "{p}");
    let (main, frozen) = balance(&server, &user_id).await;
    assert_eq!(
        (main, frozen),
        (
            (before - rust_decimal::Decimal::new(300, 0))
                .round_dp(2)
                .to_string(),
            "0.00".to_string()
        )
    );
    // The staff id and reason are in the event metadata.
    let metadata: String = sqlx::query_scalar(
        "SELECT CAST(metadata AS TEXT) FROM events WHERE aggregate_type = 'Withdrawal' AND aggregate_id = $1 AND event_type = 'WithdrawalApproved'",
    )
    .bind(&id)
    .fetch_one(&server.running.state.db.any)
    .await
    .unwrap();
    assert!(
        metadata.contains("checked") && metadata.contains("staff_id"),
        "{metadata}"
    );
    let tips: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM notifications WHERE user_id = $1 AND kind = 1001")
            .bind(&user_id)
            .fetch_one(&server.running.state.db.any)
            .await
            .unwrap();
    assert_eq!(tips, 1);

    // A second one is rejected: the money comes back.
    let w = client
        .post(
            "/api/security/platwithdraw",
            json!({"amount": "200.50", "bank_id": card, "fundpass": "fund1234"}),
        )
        .await;
    assert_eq!(w["status"], 0, "{w}");
    let id = w["data"]["orderid"].as_str().unwrap().to_string();
    let (status, _) = backoffice(
        &server,
        "POST",
        &format!("/api/backoffice/payments/withdrawals/{id}/reject"),
        Some(&finance),
        Some(json!({})),
    )
    .await;
    assert_eq!(status, 400, "a rejection needs a reason");
    let (status, r) = backoffice(
        &server,
        "POST",
        &format!("/api/backoffice/payments/withdrawals/{id}/reject"),
        Some(&finance),
        Some(json!({"reason": "name mismatch"})),
    )
    .await;
    assert_eq!(status, 200, "{r}");
    let (main, frozen) = balance(&server, &user_id).await;
    assert_eq!(
        (main, frozen),
        (
            (before - rust_decimal::Decimal::new(300, 0))
                .round_dp(2)
                .to_string(),
            "0.00".to_string()
        )
    );
    // A third one the member cancels while requested; a cancelled one
    // cannot be cancelled twice into more money.
    let w = client
        .post(
            "/api/security/platwithdraw",
            json!({"amount": "100", "bank_id": card, "fundpass": "fund1234"}),
        )
        .await;
    let id = w["data"]["orderid"].as_str().unwrap().to_string();
    let c = client
        .post("/api/security/cancelwithdraw", json!({"orderid": id}))
        .await;
    assert_eq!(c["status"], 0, "{c}");
    // A repeat (past the duplicate-submit guard) answers the same.
    server
        .running
        .state
        .payments
        .cancel_withdrawal(&user_id, &id)
        .await
        .expect("a repeated cancel answers the same");
    let (main, frozen) = balance(&server, &user_id).await;
    assert_eq!(
        (main, frozen),
        (
            (before - rust_decimal::Decimal::new(300, 0))
                .round_dp(2)
                .to_string(),
            "0.00".to_string()
        )
    );
    let progress = client
        .post("/api/report/withdrawprogress", json!({"preset": "today"}))
        .await;
    let statuses: Vec<&str> = progress["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        vec!["cancelled", "rejected", "paid"],
        "{progress}"
    );
    server.stop().await;
}

async fn withdrawal_refusals_answer_20_20003_20004_and_20007(kind: StoreKind) {
    let server = common::start(kind).await;
    let (client, user_id) = member(&server).await;
    let none = client
        .post(
            "/api/security/platwithdraw",
            json!({"amount": "300", "bank_id": "1", "fundpass": "fund1234"}),
        )
        .await;
    assert_eq!(none["status"], -30403, "no card: {none}");
    let card = bind_card(&client).await;
    let ask =
        |amount: &str, pass: &str| json!({"amount": amount, "bank_id": card, "fundpass": pass});
    let wrong = client
        .post("/api/security/platwithdraw", ask("300", "nope1234"))
        .await;
    assert_eq!(wrong["status"], -30402, "{wrong}");
    let low = client
        .post("/api/security/platwithdraw", ask("99.99", "fund1234"))
        .await;
    assert_eq!(
        (low["status"].clone(), low["msg"].clone()),
        (json!(20003), json!("Min withdraw is 100.00"))
    );
    // The VIP level caps one withdrawal below `[payments] withdraw_limits`
    // (300000.00): level 1 of zhh, withdrawlimits 50000.
    let high = client
        .post("/api/security/platwithdraw", ask("50000.01", "fund1234"))
        .await;
    assert_eq!(
        (high["status"].clone(), high["msg"].clone()),
        (json!(20004), json!("Max withdraw is 50000.00"))
    );
    let rich = client
        .post("/api/security/platwithdraw", ask("20000", "fund1234"))
        .await;
    assert_eq!(rich["status"], 20, "{rich}");
    let (main, frozen) = balance(&server, &user_id).await;
    assert_eq!(frozen, "0.00");
    let first = client
        .post("/api/security/platwithdraw", ask("100", "fund1234"))
        .await;
    assert_eq!(first["status"], 0, "{first}");
    // Two at once: one open request per member, the other 20007.
    let (a, b) = tokio::join!(
        client.post("/api/security/platwithdraw", ask("100.00", "fund1234")),
        client.post("/api/security/platwithdraw", ask("100.0", "fund1234")),
    );
    assert_eq!(
        (a["status"].clone(), b["status"].clone()),
        (json!(20007), json!(20007))
    );
    let (after, frozen) = balance(&server, &user_id).await;
    assert_eq!(frozen, "100.00");
    let main: rust_decimal::Decimal = main.parse().unwrap();
    assert_eq!(
        after,
        (main - rust_decimal::Decimal::new(100, 0))
            .round_dp(2)
            .to_string()
    );
    server.stop().await;
}

async fn bank_cards_follow_the_market_rule_the_real_name_the_count_limit_and_the_blacklist(
    kind: StoreKind,
) {
    let mut config = common::config(true);
    config.payments.max_cards = 2;
    config.payments.blacklist = vec!["6222029999999999".into()];
    let server = common::start_with(kind, config).await;
    let (client, _) = member(&server).await;
    let add = |number: &str, holder: &str| json!({"bank_name": "ICBC", "card_number": number, "holder": holder, "fundpass": "fund1234"});
    let short = client
        .post("/api/security/adduserbank", add("622202123456789", "张三"))
        .await;
    assert_eq!(short["status"], -30501, "zhh: 16 to 19 digits {short}");
    let zero = client
        .post("/api/security/adduserbank", add("0222021234567890", "张三"))
        .await;
    assert_eq!(zero["status"], -30501, "zhh: not starting with 0 {zero}");
    let other = client
        .post("/api/security/adduserbank", add("6222021234567890", "李四"))
        .await;
    assert_eq!(other["status"], -30502, "{other}");
    let black = client
        .post("/api/security/adduserbank", add("6222029999999999", "张三"))
        .await;
    assert_eq!(black["status"], -30504, "{black}");
    assert_eq!(
        client
            .post("/api/security/adduserbank", add("6222021234567890", "张三"))
            .await["status"],
        0
    );
    let twice = client
        .post(
            "/api/security/adduserbank",
            add("6222 0212 3456 7890", "张 三"),
        )
        .await;
    assert_eq!(twice["status"], -30505, "{twice}");
    assert_eq!(
        client
            .post("/api/security/adduserbank", add("6222021234567891", "张三"))
            .await["status"],
        0
    );
    let third = client
        .post("/api/security/adduserbank", add("6222021234567892", "张三"))
        .await;
    assert_eq!(third["status"], -30503, "{third}");
    let list = client.post("/api/security/userbankinfo", json!({})).await;
    let numbers: Vec<&str> = list["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["masked"].as_str().unwrap())
        .collect();
    assert_eq!(numbers, vec!["***********7890", "***********7891"]);
    assert!(
        !list.to_string().contains("6222021234567890"),
        "never the full number"
    );
    let usdt = client
        .post(
            "/api/security/addvirtualbank",
            json!({"chain": "TRC20", "address": "not-an-address", "fundpass": "fund1234"}),
        )
        .await;
    assert_eq!(usdt["status"], -30507, "{usdt}");
    let usdt = client
        .post("/api/security/addvirtualbank", json!({"chain": "ERC20", "address": "0x52908400098527886E0F7030069857D2E4169EE7", "fundpass": "fund1234"}))
        .await;
    assert_eq!(usdt["status"], 0, "{usdt}");
    let check = client
        .post(
            "/api/security/checksecuritypass",
            json!({"fundpass": "fund1234"}),
        )
        .await;
    assert_eq!(check["status"], 0);
    server.stop().await;
}

async fn transfers_move_money_between_the_main_and_the_game_wallet_exactly_once(kind: StoreKind) {
    let server = common::start(kind).await;
    let (client, user_id) = member(&server).await;
    let (before, _) = balance(&server, &user_id).await;
    let before: rust_decimal::Decimal = before.parse().unwrap();
    let t = client
        .post(
            "/api/security/transwalletmoney",
            json!({"from": "main", "to": "demo", "amount": "150.25"}),
        )
        .await;
    assert_eq!(t["status"], 0, "{t}");
    assert_eq!(t["data"]["msg"], "Transfer success");
    let games = client.post("/api/user/getthirdbalance", json!({})).await;
    assert_eq!(games["data"]["list"][0]["balance"], "150.25", "{games}");
    let back = client
        .post(
            "/api/security/transwalletmoney",
            json!({"from": "demo", "to": "main", "amount": "200"}),
        )
        .await;
    assert_eq!(back["status"], -30702, "{back}");
    let back = client
        .post(
            "/api/security/transwalletmoney",
            json!({"from": "demo", "to": "main", "amount": "50.25"}),
        )
        .await;
    assert_eq!(back["status"], 0, "{back}");
    let nowhere = client
        .post(
            "/api/security/transwalletmoney",
            json!({"from": "main", "to": "elsewhere", "amount": "1"}),
        )
        .await;
    assert_eq!(nowhere["status"], -30701);
    let (main, _) = balance(&server, &user_id).await;
    assert_eq!(
        main,
        (before - rust_decimal::Decimal::new(100, 0))
            .round_dp(2)
            .to_string()
    );
    let changes = client
        .post("/api/report/accountchanges", json!({"preset": "today"}))
        .await;
    let wallets: Vec<&str> = changes["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["wallet"].as_str().unwrap())
        .collect();
    assert!(
        wallets.contains(&"demo") && wallets.contains(&"main"),
        "{changes}"
    );
    server.stop().await;
}

/// A process wrote the transfer row and froze (or died) before its debit,
/// or after its debit and before the credit: the sweeper finishes each, and
/// the frozen debit that commits after the sweeper gave up moves nothing.
async fn a_transfer_given_up_by_the_sweeper_never_debits_later_and_one_debited_is_credited(
    kind: StoreKind,
) {
    use commands::platform::clock::Clock;
    use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletError, WalletId};
    let server = common::start(kind).await;
    let (_client, user_id) = member(&server).await;
    let state = server.running.state.clone();
    let main = WalletId::new(user_id.clone(), domain::Currency::Cny);
    let game = WalletId::new(format!("{user_id}@demo"), domain::Currency::Cny);
    let pending = |id: &'static str| {
        sqlx::query(
            "INSERT INTO game_transfers (transfer_id, member_id, provider, direction, amount, currency, status, created_ms) VALUES ($1, $2, 'demo', 'in', '40.00', 'CNY', 'pending', $3)",
        )
        .bind(id)
        .bind(user_id.clone())
        .bind(server.clock.now_ms())
        .execute(&state.db.any)
    };
    let debit = |id: &str| {
        WalletCommand::new(
            main.clone(),
            format!("transfer:{id}:out"),
            WalletAction::Debit {
                amount: rust_decimal::Decimal::new(4000, 2),
                pot: Pot::Main,
                kind: MovementKind::Adjustment,
            },
        )
    };
    let status = |id: &'static str| {
        let pool = state.db.any.clone();
        async move {
            sqlx::query_scalar::<_, String>(
                "SELECT status FROM game_transfers WHERE transfer_id = $1",
            )
            .bind(id)
            .fetch_one(&pool)
            .await
            .unwrap()
        }
    };
    let before = state.wallets.load(&main).await.unwrap().balances().main;
    // T1 froze before its debit; T2 died after its debit.
    pending("T900000001").await.unwrap();
    pending("T900000002").await.unwrap();
    state.wallets.execute(debit("T900000002")).await.unwrap();
    server.clock.advance(150_000);
    state.payments.sweep_transfers().await.unwrap();
    assert_eq!(status("T900000001").await, "refused");
    assert_eq!(status("T900000002").await, "done");
    // T1's process wakes up and commits its debit: voided, nothing moves.
    let late = state.wallets.execute(debit("T900000001")).await;
    assert!(
        matches!(
            late,
            Err(store::CommandError::Rejected(WalletError::Voided))
        ),
        "{late:?}"
    );
    let after = state.wallets.load(&main).await.unwrap().balances().main;
    assert_eq!(
        after,
        before - rust_decimal::Decimal::new(4000, 2),
        "only T2 left main"
    );
    let credited = state.wallets.load(&game).await.unwrap().balances().main;
    assert_eq!(
        credited,
        rust_decimal::Decimal::new(4000, 2),
        "T2 reached the game wallet once"
    );
    // Sweeping again changes nothing.
    server.clock.advance(150_000);
    state.payments.sweep_transfers().await.unwrap();
    assert_eq!(
        state.wallets.load(&game).await.unwrap().balances().main,
        credited
    );
    server.stop().await;
}

/// `[payments] payouts = "sandbox"` (DEMO): finance approves, the sandbox
/// payout provider reports through signed, repeated callbacks; the
/// withdrawal is paid out of the frozen balance once, or unfrozen when the
/// provider declines (a destination ending in 0002).
async fn an_approved_withdrawal_is_paid_out_by_the_payout_provider_once_and_a_declined_one_unfreezes(
    kind: StoreKind,
) {
    let server = common::start(kind).await;
    let (client, user_id) = member(&server).await;
    let finance = staff_token(&server, "finance", "finance1234").await;
    let (before, _) = balance(&server, &user_id).await;
    let before: rust_decimal::Decimal = before.parse().unwrap();
    let status_of = |id: String| {
        let server = &server;
        async move {
            settle(server).await;
            sqlx::query_scalar::<_, String>("SELECT status FROM money_orders WHERE order_id = $1")
                .bind(id)
                .fetch_one(&server.running.state.db.any)
                .await
                .unwrap()
        }
    };
    let withdraw_and_approve = |card: String, amount: &'static str| {
        let (client, server, finance) = (&client, &server, finance.clone());
        async move {
            let w = client
                .post(
                    "/api/security/platwithdraw",
                    json!({"amount": amount, "bank_id": card, "fundpass": "fund1234"}),
                )
                .await;
            assert_eq!(w["status"], 0, "{w}");
            let id = w["data"]["orderid"].as_str().unwrap().to_string();
            let (status, a) = backoffice(
                server,
                "POST",
                &format!("/api/backoffice/payments/withdrawals/{id}/approve"),
                Some(&finance),
                Some(json!({"reason": "checked"})),
            )
            .await;
            assert_eq!(status, 200, "{a}");
            id
        }
    };
    let wait_for = |id: String, want: &'static str| {
        let server = &server;
        let status_of = &status_of;
        async move {
            let mut seen = String::new();
            for _ in 0..150 {
                server.clock.advance(1_000);
                seen = status_of(id.clone()).await;
                if seen == want {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            panic!("withdrawal {id} is {seen}, expected {want}");
        }
    };
    // Paid: out of the frozen balance, once, whatever the copies.
    let card = bind_card(&client).await;
    let paid = withdraw_and_approve(card, "300").await;
    assert_eq!(
        status_of(paid.clone()).await,
        "approved",
        "the provider reports later"
    );
    wait_for(paid.clone(), "paid").await;
    server.clock.advance(10_000);
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let (main, frozen) = balance(&server, &user_id).await;
    let after_paid = before - rust_decimal::Decimal::new(300, 0);
    assert_eq!(
        (main, frozen),
        (after_paid.round_dp(2).to_string(), "0.00".to_string())
    );
    let metadata: String = sqlx::query_scalar(
        "SELECT CAST(metadata AS TEXT) FROM events WHERE aggregate_type = 'Withdrawal' AND aggregate_id = $1 AND event_type = 'WithdrawalPaid'",
    )
    .bind(&paid)
    .fetch_one(&server.running.state.db.any)
    .await
    .unwrap();
    assert!(metadata.contains("provider:sandbox"), "{metadata}");
    // Declined: the frozen amount goes back.
    let declined_card = client
        .post(
            "/api/security/adduserbank",
            json!({"bank_name": "ICBC", "card_number": "6222021234560002", "holder": "张三", "fundpass": "fund1234"}),
        )
        .await;
    assert_eq!(declined_card["status"], 0, "{declined_card}");
    let declined = withdraw_and_approve(
        declined_card["data"]["id"].as_str().unwrap().to_string(),
        "200",
    )
    .await;
    wait_for(declined, "failed").await;
    let (main, frozen) = balance(&server, &user_id).await;
    assert_eq!(
        (main, frozen),
        (after_paid.round_dp(2).to_string(), "0.00".to_string())
    );
    server.stop().await;
}

mod conservation {
    //! Money is conserved across deposits (through signed callbacks),
    //! bets, payouts and withdrawals (frozen, paid, rejected), on both
    //! stores: every wallet's total equals its movements, the platform's
    //! balances equal deposits - withdrawals - stakes + payouts, and the
    //! payment events, the wallet and the read models agree.

    use super::*;
    use commands::sportsbook::feed::Finished;
    use domain::bet::{AcceptMode, BetRequest, BetType, Pick};
    use domain::catalogue::GameType;
    use domain::result::{settle as outcome_of, FinalScore, SelectionResult};
    use domain::wallet::{MovementKind, WalletEvent, WalletId};
    use domain::Currency;
    use rust_decimal::Decimal;

    store::on_both_stores!(deposits_bets_payouts_and_withdrawals_conserve_money,);

    async fn deposits_bets_payouts_and_withdrawals_conserve_money(kind: StoreKind) {
        let mut config = common::config(false);
        config.feed.tick_ms = 3_600_000;
        let server = common::start_with(kind, config).await;
        let state = server.running.state.clone();
        let payments = state.payments.clone();
        let mut members = Vec::new();
        for i in 0..4 {
            let id = state
                .accounts
                .ensure_member(&format!("payer{i}"), "secret123", Currency::Cny)
                .await
                .unwrap();
            state
                .accounts
                .set_fund_password(&id, "fund1234", "fund1234", "secret123")
                .await
                .unwrap();
            members.push(id);
        }
        // Deposits through the provider's signed callbacks (each twice).
        let t = now_s(&server);
        for (i, member) in members.iter().enumerate() {
            let order = payments
                .create_deposit(
                    member,
                    domain::payment::Channel::Provider,
                    &format!("{}", 500 + i * 100),
                    None,
                )
                .await
                .unwrap();
            let body = report(&order.orderid, &format!("C{i}"), &order.amount, "paid", t);
            for _ in 0..2 {
                let raw = body.to_string();
                payments
                    .callback("sandbox", raw.as_bytes(), &sign(SECRET, raw.as_bytes(), t))
                    .await
                    .unwrap();
            }
        }
        // Bets on one prematch game, then its result and settlement.
        let catalogue = state.live.read(|c| c.clone());
        let game = catalogue
            .games()
            .values()
            .find(|g| {
                g.game_type == GameType::Prematch
                    && catalogue
                        .lineage(g.id)
                        .is_some_and(|l| l.sport.id != commands::sportsbook::feed::RACING_SPORT_ID)
                    && catalogue.markets_of(g.id).any(|m| m.market_type == "P1XP2")
            })
            .unwrap()
            .clone();
        let market = catalogue
            .markets_of(game.id)
            .find(|m| m.market_type == "P1XP2")
            .unwrap()
            .clone();
        let events: Vec<_> = catalogue.events_of(market.id).cloned().collect();
        for (i, member) in members.iter().enumerate() {
            let event = &events[i % events.len()];
            let request = BetRequest {
                bet_type: BetType::Single,
                mode: AcceptMode::Any,
                amount: Decimal::new(5000 + i as i64 * 1000, 2),
                each_way: false,
                sys_bet: None,
                bonus_id: None,
                is_offer: false,
                selections: vec![Pick {
                    event_id: event.id,
                    price: event.price,
                    banker: false,
                    base: event.base,
                }],
            };
            state
                .betting
                .bets
                .place(member, Currency::Cny, &request, None)
                .await
                .unwrap();
        }
        let score = FinalScore {
            team1: 2,
            team2: 1,
            first_half: Some((1, 0)),
            corners: Some(7),
        };
        let mut selections = Vec::new();
        for m in catalogue.markets_of(game.id) {
            for e in catalogue.events_of(m.id) {
                if let Some(outcome) =
                    outcome_of(&m.market_type, &e.type_, e.base.or(m.base), &score)
                {
                    selections.push(SelectionResult {
                        event_id: e.id,
                        market_id: m.id,
                        outcome,
                        sp_price: None,
                    });
                }
            }
        }
        state
            .results
            .record(
                Finished {
                    game_id: game.id,
                    score,
                    selections,
                },
                1,
            )
            .await
            .unwrap();
        for _ in 0..50 {
            state.runner.catch_up_all().await.unwrap();
            if state.settlement.pass().await.unwrap() == 0 {
                break;
            }
        }
        // Withdrawals: two paid, one rejected, one left waiting (frozen).
        let finance = "finance-test";
        for (i, member) in members.iter().enumerate() {
            let address = payments
                .add_usdt_address(member, "ERC20", &format!("0x{:040x}", i + 1), "fund1234")
                .await
                .unwrap();
            let w = payments
                .request_withdrawal(member, "120.00", &address.id, "fund1234")
                .await
                .unwrap();
            use commands::payments::withdrawals::Decision;
            match i {
                0 | 1 => {
                    payments
                        .decide_withdrawal(&w.withdrawal_id, Decision::Approve, finance, "ok")
                        .await
                        .unwrap();
                    payments
                        .decide_withdrawal(&w.withdrawal_id, Decision::Paid, finance, "ref")
                        .await
                        .unwrap();
                    // A repeat of the payout moves nothing.
                    payments
                        .decide_withdrawal(&w.withdrawal_id, Decision::Paid, finance, "ref")
                        .await
                        .unwrap();
                }
                2 => payments
                    .decide_withdrawal(&w.withdrawal_id, Decision::Reject, finance, "no")
                    .await
                    .unwrap(),
                _ => {}
            }
        }
        settle(&server).await;

        // Every wallet: its total is its movements' sum.
        let (mut deposits, mut withdrawals, mut stakes, mut payouts) =
            (Decimal::ZERO, Decimal::ZERO, Decimal::ZERO, Decimal::ZERO);
        let mut totals = Decimal::ZERO;
        for member in &members {
            let id = WalletId::new(member.clone(), Currency::Cny);
            let (mut d, mut w, mut s, mut p) =
                (Decimal::ZERO, Decimal::ZERO, Decimal::ZERO, Decimal::ZERO);
            for event in state.wallets.events(&id).await.unwrap() {
                match event {
                    WalletEvent::Credited {
                        amount,
                        kind: MovementKind::Deposit,
                        ..
                    } => d += amount,
                    WalletEvent::Debited {
                        amount,
                        kind: MovementKind::Withdrawal,
                        ..
                    } => w += amount,
                    WalletEvent::Credited { .. } | WalletEvent::Debited { .. } => {
                        panic!("unexpected movement")
                    }
                    WalletEvent::StakeTaken { amount, .. }
                    | WalletEvent::StakeReservedAndTaken { amount, .. } => s += amount,
                    WalletEvent::PaidOut { amount, .. } => p += amount,
                    _ => {}
                }
            }
            let wallet = state.wallets.replay(&id).await.unwrap();
            let total = wallet.ledger.total();
            assert_eq!(total, d - w - s + p, "wallet {member}");
            assert!(wallet.balances().main >= Decimal::ZERO);
            // The movements read model ends on the same spendable balance.
            let last: String = sqlx::query_scalar(
                "SELECT balance_after FROM wallet_movements WHERE wallet_id = $1 ORDER BY sequence DESC LIMIT 1",
            )
            .bind(id.to_string())
            .fetch_one(&state.db.any)
            .await
            .unwrap();
            let b = wallet.balances();
            assert_eq!(
                last.parse::<Decimal>().unwrap(),
                b.main + b.bonus + b.bonus_win,
                "{member}"
            );
            deposits += d;
            withdrawals += w;
            stakes += s;
            payouts += p;
            totals += total;
        }
        assert_eq!(deposits, Decimal::new(500 + 600 + 700 + 800, 0));
        assert_eq!(withdrawals, Decimal::new(240, 0));
        assert!(stakes > Decimal::ZERO);
        // The platform: balances read model = deposits - withdrawals - stakes + payouts.
        let read: Decimal = projections::balances::all(&state.db.any)
            .await
            .unwrap()
            .into_iter()
            .filter(|r| members.contains(&r.member_id))
            .map(|r| r.ledger.total())
            .sum();
        assert_eq!(read, totals);
        assert_eq!(read, deposits - withdrawals - stakes + payouts);
        // The payment events agree with the wallet.
        let credited: Vec<String> = sqlx::query_scalar(
            "SELECT credited_amount FROM money_orders WHERE kind = 'deposit' AND status = 'credited'",
        )
        .fetch_all(&state.db.any)
        .await
        .unwrap();
        let credited: Decimal = credited.iter().map(|a| a.parse::<Decimal>().unwrap()).sum();
        assert_eq!(credited, deposits);
        let paid: Vec<String> = sqlx::query_scalar(
            "SELECT credited_amount FROM money_orders WHERE kind = 'withdrawal' AND status = 'paid'",
        )
        .fetch_all(&state.db.any)
        .await
        .unwrap();
        assert_eq!(
            paid.iter()
                .map(|a| a.parse::<Decimal>().unwrap())
                .sum::<Decimal>(),
            withdrawals
        );
        // One withdrawal still waits: its amount is frozen, not gone.
        let frozen: Decimal = projections::balances::all(&state.db.any)
            .await
            .unwrap()
            .into_iter()
            .filter(|r| members.contains(&r.member_id))
            .map(|r| r.ledger.balances.frozen)
            .sum();
        assert_eq!(frozen, Decimal::new(120, 0));
        // The member report sees the same deposits and withdrawals.
        let period = commands::payments::reports::Period {
            from_ms: 0,
            to_ms: i64::MAX / 2,
        };
        let report = payments.member_report(&members[0], period).await.unwrap();
        assert_eq!(report["deposits"], "500.00", "{report}");
        assert_eq!(report["withdrawals"], "120.00", "{report}");
        server.stop().await;
    }
}

/// Withdrawals per day follow the member's VIP level (level 1: 3 a day,
/// where `[payments] withdraw_times_per_day` says 5): requests the member
/// cancelled still count.
async fn withdrawals_per_day_follow_the_vip_level(kind: StoreKind) {
    let server = common::start(kind).await;
    let (client, _user_id) = member(&server).await;
    let card = bind_card(&client).await;
    let ask = |amount: &str| json!({"amount": amount, "bank_id": card, "fundpass": "fund1234"});
    for (n, amount) in [(1, "101"), (2, "102"), (3, "103"), (4, "104")] {
        let next = client.post("/api/security/platwithdraw", ask(amount)).await;
        if n <= 3 {
            assert_eq!(next["status"], 0, "withdrawal {n} of the day: {next}");
            let id = next["data"]["orderid"].as_str().unwrap().to_string();
            let cancelled = client
                .post("/api/security/cancelwithdraw", json!({"orderid": id}))
                .await;
            assert_eq!(cancelled["status"], 0, "{cancelled}");
        } else {
            assert_eq!(next["msg"], "You can withdraw 3 times a day", "{next}");
        }
    }
    server.stop().await;
}

/// The wallet movements read model starts each batch from the wallet's
/// head (`wallet_heads`, read by key). A wallet whose head is missing or
/// behind (movements written by a node of the version before the heads, in
/// a rolling upgrade) continues from its newest movement instead.
async fn wallet_movements_continue_each_wallets_balance_from_its_head_or_its_newest_movement(
    kind: StoreKind,
) {
    use commands::wallet::WalletService;
    use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletId};
    use domain::Currency;
    use rust_decimal::Decimal;

    let server = common::start(kind).await;
    let state = &server.running.state;
    let any = &state.db.any;
    let credit =
        |wallets: &std::sync::Arc<WalletService>, id: &WalletId, reference: &str, amount: i64| {
            let command = WalletCommand::new(
                id.clone(),
                reference,
                WalletAction::Credit {
                    amount: Decimal::new(amount, 0),
                    pot: Pot::Main,
                    kind: MovementKind::Deposit,
                },
            );
            let wallets = wallets.clone();
            async move { wallets.execute(command).await.unwrap() }
        };
    let ids: Vec<WalletId> = (0..3)
        .map(|i| WalletId::new(format!("heads-member-{i}"), Currency::Cny))
        .collect();
    for (i, id) in ids.iter().enumerate() {
        credit(&state.wallets, id, &format!("h-{i}-1"), 100).await;
    }
    settle(&server).await;
    let head = |id: &WalletId| {
        let id = id.to_string();
        async move {
            sqlx::query_as::<_, (i64, String)>(
                "SELECT sequence, balance_after FROM wallet_heads WHERE wallet_id = $1",
            )
            .bind(id)
            .fetch_optional(any)
            .await
            .unwrap()
        }
    };
    for id in &ids {
        let (sequence, balance) = head(id).await.expect("a head after the first movement");
        assert!(sequence > 0);
        assert_eq!(balance.parse::<Decimal>().unwrap(), Decimal::new(100, 0));
    }
    // Wallet 1 loses its head; wallet 2's head falls behind its newest
    // movement (as if an older node had written the movements after it).
    sqlx::query("DELETE FROM wallet_heads WHERE wallet_id = $1")
        .bind(ids[1].to_string())
        .execute(any)
        .await
        .unwrap();
    sqlx::query(
        "UPDATE wallet_heads SET sequence = sequence - 1, balance_after = '0' WHERE wallet_id = $1",
    )
    .bind(ids[2].to_string())
    .execute(any)
    .await
    .unwrap();
    for (i, id) in ids.iter().enumerate() {
        credit(&state.wallets, id, &format!("h-{i}-2"), 50).await;
    }
    settle(&server).await;
    for id in &ids {
        let newest: String = sqlx::query_scalar(
            "SELECT balance_after FROM wallet_movements WHERE wallet_id = $1 ORDER BY sequence DESC LIMIT 1",
        )
        .bind(id.to_string())
        .fetch_one(any)
        .await
        .unwrap();
        assert_eq!(
            newest.parse::<Decimal>().unwrap(),
            Decimal::new(150, 0),
            "{id}"
        );
        let (_, balance) = head(id).await.expect("a head after the second movement");
        assert_eq!(
            balance.parse::<Decimal>().unwrap(),
            Decimal::new(150, 0),
            "{id}"
        );
    }
    server.stop().await;
}
