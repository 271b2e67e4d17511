//! The back office's authorization matrix and staff sessions: every
//! endpoint called anonymously, with a member's token and as each role.

mod common;

use common::{backoffice, staff_token, Client};
use serde_json::{json, Value};
use store::StoreKind;

store::on_both_stores!(
    every_back_office_endpoint_lets_in_only_the_roles_it_names,
    staff_logins_lock_after_five_failures_and_tokens_end_at_logout,
    admins_create_staff_with_a_valid_role_only,
    unknown_staff_logins_spend_the_same_argon2_time,
    free_bet_grants_are_capped_and_need_a_reason,
    free_bet_grants_at_once_never_pass_the_daily_cap_together,
);

/// (method, path, body, roles allowed)
fn endpoints() -> Vec<(
    &'static str,
    &'static str,
    Option<Value>,
    &'static [&'static str],
)> {
    const QUEUE: &[&str] = &["support", "admin"];
    const AUDIT: &[&str] = &["auditor", "admin"];
    const RESULTS: &[&str] = &["trader", "admin"];
    const ANY: &[&str] = &[
        "support",
        "auditor",
        "trader",
        "admin",
        "finance",
        "marketing",
    ];
    const FINANCE: &[&str] = &["finance", "admin"];
    const MARKETING: &[&str] = &["marketing", "admin"];
    vec![
        ("GET", "/api/backoffice/promo/tasks", None, MARKETING),
        (
            "POST",
            "/api/backoffice/promo/tasks",
            Some(json!({"signin": [], "tasks": [], "turnover_multiple": "1"})),
            MARKETING,
        ),
        ("GET", "/api/backoffice/promo/task-claims", None, MARKETING),
        (
            "POST",
            "/api/backoffice/promo/task-claims/review",
            Some(json!({"reference": "none", "approve": true})),
            MARKETING,
        ),
        ("GET", "/api/backoffice/promo/board", None, MARKETING),
        (
            "POST",
            "/api/backoffice/promo/board",
            Some(json!({"prizes": [], "period": "day", "turnover_multiple": "1"})),
            MARKETING,
        ),
        ("GET", "/api/backoffice/promo/goods", None, MARKETING),
        (
            "POST",
            "/api/backoffice/promo/goods",
            Some(json!({"id": 0, "name": "", "kind": "cash", "points": "0", "stock": 0})),
            MARKETING,
        ),
        ("GET", "/api/backoffice/promo/campaigns", None, MARKETING),
        (
            "POST",
            "/api/backoffice/promo/campaigns",
            Some(
                json!({"id": 5, "slug": "x", "pages": {}, "start_ms": 0, "end_ms": 1,
                        "repeat": "once", "rule": {"type": "turnover", "tiers": []},
                        "turnover_multiple": "1"}),
            ),
            MARKETING,
        ),
        ("GET", "/api/backoffice/promo/referral", None, MARKETING),
        (
            "POST",
            "/api/backoffice/promo/referral",
            Some(json!({"min_deposit": "500", "gift": "0", "days": 30, "turnover_multiple": "2"})),
            MARKETING,
        ),
        ("GET", "/api/backoffice/promo/referrals", None, MARKETING),
        ("GET", "/api/backoffice/promo/fulfilment", None, MARKETING),
        (
            "POST",
            "/api/backoffice/promo/fulfilment/ship",
            Some(json!({"source": "order", "id": "none"})),
            MARKETING,
        ),
        ("GET", "/api/backoffice/me", None, ANY),
        ("GET", "/api/backoffice/counter-offers", None, QUEUE),
        (
            "GET",
            "/api/backoffice/counter-offers?status=all",
            None,
            QUEUE,
        ),
        ("GET", "/api/backoffice/counter-offers/1000001", None, QUEUE),
        (
            "POST",
            "/api/backoffice/counter-offers/1000001/offer",
            Some(json!({"amount": "1", "reason": "r"})),
            QUEUE,
        ),
        (
            "POST",
            "/api/backoffice/counter-offers/1000001/accept",
            Some(json!({})),
            QUEUE,
        ),
        (
            "POST",
            "/api/backoffice/counter-offers/1000001/decline",
            Some(json!({"reason": "r"})),
            QUEUE,
        ),
        ("GET", "/api/backoffice/bets?bet_id=1000001", None, AUDIT),
        ("GET", "/api/backoffice/bets/1000001/events", None, AUDIT),
        ("POST", "/api/backoffice/audit/replay", None, AUDIT),
        ("GET", "/api/backoffice/audit/replay/stream", None, AUDIT),
        ("GET", "/api/backoffice/parked-events", None, AUDIT),
        (
            "GET",
            "/api/backoffice/parked-events?status=all",
            None,
            AUDIT,
        ),
        (
            "POST",
            "/api/backoffice/parked-events/1/retry",
            None,
            &["admin"],
        ),
        (
            "POST",
            "/api/backoffice/parked-events/1/skip",
            None,
            &["admin"],
        ),
        (
            "POST",
            "/api/backoffice/free-bets",
            Some(json!({"user": "nobody", "amount": "1", "reason": "r"})),
            QUEUE,
        ),
        (
            "POST",
            "/api/backoffice/games/1/result",
            Some(json!({"score": {"team1": 1, "team2": 0}, "reason": "r"})),
            RESULTS,
        ),
        (
            "POST",
            "/api/backoffice/games/1/void",
            Some(json!({"reason": "r"})),
            RESULTS,
        ),
        (
            "POST",
            "/api/backoffice/markets/1/void",
            Some(json!({"reason": "r"})),
            RESULTS,
        ),
        ("GET", "/api/backoffice/shortfalls", None, QUEUE),
        ("GET", "/api/backoffice/shortfalls?status=all", None, QUEUE),
        (
            "POST",
            "/api/backoffice/shortfalls/1/collect",
            Some(json!({})),
            QUEUE,
        ),
        (
            "POST",
            "/api/backoffice/shortfalls/1/write-off",
            Some(json!({"reason": "r"})),
            QUEUE,
        ),
        ("GET", "/api/backoffice/payments/withdrawals", None, FINANCE),
        (
            "GET",
            "/api/backoffice/payments/withdrawals?status=all",
            None,
            FINANCE,
        ),
        (
            "POST",
            "/api/backoffice/payments/withdrawals/W000000001/approve",
            Some(json!({"reason": "r"})),
            FINANCE,
        ),
        (
            "POST",
            "/api/backoffice/payments/withdrawals/W000000001/reject",
            Some(json!({"reason": "r"})),
            FINANCE,
        ),
        (
            "POST",
            "/api/backoffice/payments/withdrawals/W000000001/paid",
            Some(json!({"reason": "r"})),
            FINANCE,
        ),
        (
            "POST",
            "/api/backoffice/payments/withdrawals/W000000001/failed",
            Some(json!({"reason": "r"})),
            FINANCE,
        ),
        ("GET", "/api/backoffice/payments/deposits", None, FINANCE),
        (
            "POST",
            "/api/backoffice/payments/deposits/D000000001/review",
            Some(json!({"credit": false, "reason": "r"})),
            FINANCE,
        ),
        (
            "GET",
            "/api/backoffice/payments/members/demo",
            None,
            FINANCE,
        ),
        (
            "GET",
            "/api/backoffice/payments/reconciliation",
            None,
            FINANCE,
        ),
        (
            "POST",
            "/api/backoffice/payments/blacklist",
            Some(json!({"value": "6222020000000000", "reason": "matrix"})),
            FINANCE,
        ),
        ("GET", "/api/backoffice/content/notice", None, MARKETING),
        ("GET", "/api/backoffice/content/banner", None, MARKETING),
        (
            "POST",
            "/api/backoffice/content/notice",
            Some(json!({"content": "matrix notice"})),
            MARKETING,
        ),
        (
            "POST",
            "/api/backoffice/content/popup/preview",
            Some(json!({"title": "t", "content": "c"})),
            MARKETING,
        ),
        (
            "POST",
            "/api/backoffice/content/notice/1",
            Some(json!({"content": "matrix edit"})),
            MARKETING,
        ),
        (
            "POST",
            "/api/backoffice/content/news/1/delete",
            None,
            MARKETING,
        ),
        ("GET", "/api/backoffice/campaigns", None, MARKETING),
        (
            "POST",
            "/api/backoffice/campaigns",
            Some(
                json!({"title": "t", "content": "c", "segment": {"type": "users", "usernames": ["demo"]}}),
            ),
            MARKETING,
        ),
        ("GET", "/api/backoffice/content-audit", None, MARKETING),
        // Seasons (docs/seasons.md): claims, prizes and the ranking for
        // support; ranks and task definitions for admin staff only.
        ("GET", "/api/backoffice/season/claims", None, QUEUE),
        (
            "GET",
            "/api/backoffice/season/claim?reference=seasontask:3:nobody:1",
            None,
            QUEUE,
        ),
        (
            "POST",
            "/api/backoffice/season/claims/review",
            Some(
                json!({"reference": "seasontask:3:nobody:1", "approve": false, "reason": "matrix"}),
            ),
            QUEUE,
        ),
        ("GET", "/api/backoffice/season/fulfilment", None, QUEUE),
        (
            "POST",
            "/api/backoffice/season/fulfilment/ship",
            Some(json!({"seasonid": 3, "member_id": "nobody"})),
            QUEUE,
        ),
        (
            "GET",
            "/api/backoffice/season/ranking?seasonid=3",
            None,
            QUEUE,
        ),
        (
            "GET",
            "/api/backoffice/season/tasks?seasonid=3",
            None,
            QUEUE,
        ),
        (
            "POST",
            "/api/backoffice/season/ranks",
            Some(json!({"seasonid": 3, "member_id": "nobody", "rank": 5})),
            &["admin"],
        ),
        (
            "POST",
            "/api/backoffice/season/tasks",
            Some(json!({"seasonid": 3, "task": {"id": 99, "tasktype": 1, "taskvalue": "1"}})),
            &["admin"],
        ),
        ("GET", "/api/backoffice/staff", None, &["admin"]),
        (
            "POST",
            "/api/backoffice/staff",
            Some(json!({"username": "x", "password": "short", "role": "support"})),
            &["admin"],
        ),
    ]
}

async fn every_back_office_endpoint_lets_in_only_the_roles_it_names(kind: StoreKind) {
    let server = common::start(kind).await;
    let mut member = Client::new(&server).await;
    let login = member.login(&server, "demo", "demo1234").await;
    let member_token = login["data"]["auth_token"].as_str().unwrap().to_string();
    let mut staff = Vec::new();
    for (name, password) in [
        ("support", "support1234"),
        ("auditor", "auditor1234"),
        ("trader", "trader1234"),
        ("admin", "admin1234"),
        ("finance", "finance1234"),
        ("marketing", "marketing1234"),
    ] {
        staff.push((name, staff_token(&server, name, password).await));
    }
    let mut checked = 0;
    for (method, path, body, allowed) in endpoints() {
        let (status, answer) = backoffice(&server, method, path, None, body.clone()).await;
        assert_eq!(
            (status, answer["status"].as_i64()),
            (401, Some(-401)),
            "anonymous {method} {path}: {answer}"
        );
        let (status, _) =
            backoffice(&server, method, path, Some("not-a-token"), body.clone()).await;
        assert_eq!(status, 401, "made-up token {method} {path}");
        let (status, _) =
            backoffice(&server, method, path, Some(&member_token), body.clone()).await;
        assert_eq!(status, 401, "a member's token {method} {path}");
        for (role, token) in &staff {
            let (status, answer) =
                backoffice(&server, method, path, Some(token), body.clone()).await;
            if allowed.contains(role) {
                assert!(
                    ![401, 403].contains(&status),
                    "{role} {method} {path} refused: {status} {answer}"
                );
                assert_ne!(status, 500, "{role} {method} {path}: {answer}");
            } else {
                assert_eq!(
                    (status, answer["status"].as_i64()),
                    (403, Some(-403)),
                    "{role} {method} {path}: {answer}"
                );
            }
            checked += 1;
        }
    }
    assert_eq!(checked, endpoints().len() * staff.len());
    server.stop().await;
}

async fn staff_logins_lock_after_five_failures_and_tokens_end_at_logout(kind: StoreKind) {
    let server = common::start(kind).await;
    let (status, bad_body) = backoffice(
        &server,
        "POST",
        "/api/backoffice/login",
        None,
        Some(json!({"username": 1})),
    )
    .await;
    assert_eq!(
        (status, bad_body["status"].as_i64()),
        (400, Some(-70009)),
        "{bad_body}"
    );
    // The member's credentials are no staff credentials.
    let (status, member) = backoffice(
        &server,
        "POST",
        "/api/backoffice/login",
        None,
        Some(json!({"username": "demo", "password": "demo1234"})),
    )
    .await;
    assert_eq!(
        (status, member["status"].as_i64()),
        (401, Some(1002)),
        "{member}"
    );
    for _ in 0..5 {
        let (status, wrong) = backoffice(
            &server,
            "POST",
            "/api/backoffice/login",
            None,
            Some(json!({"username": "auditor", "password": "wrong-password"})),
        )
        .await;
        assert_eq!(status, 401, "{wrong}");
    }
    let (status, locked) = backoffice(
        &server,
        "POST",
        "/api/backoffice/login",
        None,
        Some(json!({"username": "auditor", "password": "auditor1234"})),
    )
    .await;
    assert_eq!(
        (status, locked["status"].as_i64()),
        (401, Some(1022)),
        "locked even with the right password: {locked}"
    );
    // Others are not locked.
    let support = staff_token(&server, "support", "support1234").await;
    let (status, me) = backoffice(&server, "GET", "/api/backoffice/me", Some(&support), None).await;
    assert_eq!(
        (status, me["data"]["role"].clone()),
        (200, json!("support"))
    );
    let (status, _) = backoffice(
        &server,
        "POST",
        "/api/backoffice/logout",
        Some(&support),
        None,
    )
    .await;
    assert_eq!(status, 200);
    let (status, _) = backoffice(&server, "GET", "/api/backoffice/me", Some(&support), None).await;
    assert_eq!(status, 401, "the token ended at logout");
    // Tokens end after 8 hours.
    let admin = staff_token(&server, "admin", "admin1234").await;
    server
        .clock
        .advance(commands::accounts::staff::STAFF_SESSION_MS + 1);
    let (status, _) = backoffice(&server, "GET", "/api/backoffice/me", Some(&admin), None).await;
    assert_eq!(status, 401, "expired");
    server.stop().await;
}

async fn admins_create_staff_with_a_valid_role_only(kind: StoreKind) {
    let server = common::start(kind).await;
    let admin = staff_token(&server, "admin", "admin1234").await;
    let (status, bad_role) = backoffice(
        &server,
        "POST",
        "/api/backoffice/staff",
        Some(&admin),
        Some(json!({"username": "eve", "password": "longenough1", "role": "root"})),
    )
    .await;
    assert_eq!(
        (status, bad_role["status"].as_i64()),
        (400, Some(-70009)),
        "{bad_role}"
    );
    let (status, short) = backoffice(
        &server,
        "POST",
        "/api/backoffice/staff",
        Some(&admin),
        Some(json!({"username": "eve", "password": "short", "role": "auditor"})),
    )
    .await;
    assert_eq!(status, 400, "{short}");
    let (status, created) = backoffice(
        &server,
        "POST",
        "/api/backoffice/staff",
        Some(&admin),
        Some(json!({"username": "eve", "password": "longenough1", "role": "auditor"})),
    )
    .await;
    assert_eq!(status, 200, "{created}");
    let (status, taken) = backoffice(
        &server,
        "POST",
        "/api/backoffice/staff",
        Some(&admin),
        Some(json!({"username": "eve", "password": "longenough1", "role": "auditor"})),
    )
    .await;
    assert_eq!(status, 400, "{taken}");
    let eve = staff_token(&server, "eve", "longenough1").await;
    let (status, _) = backoffice(
        &server,
        "GET",
        "/api/backoffice/bets?bet_id=1",
        Some(&eve),
        None,
    )
    .await;
    assert_eq!(status, 200);
    let (status, _) = backoffice(
        &server,
        "GET",
        "/api/backoffice/counter-offers",
        Some(&eve),
        None,
    )
    .await;
    assert_eq!(status, 403);
    let (_, list) = backoffice(&server, "GET", "/api/backoffice/staff", Some(&admin), None).await;
    let names: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["username"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "admin",
            "auditor",
            "eve",
            "finance",
            "marketing",
            "support",
            "trader"
        ]
    );
    server.stop().await;
}

/// An unknown user name must not answer faster than a wrong password for
/// a real one (that would list the staff accounts).
async fn unknown_staff_logins_spend_the_same_argon2_time(kind: StoreKind) {
    let server = common::start(kind).await;
    async fn fastest(server: &common::Server, username: &str) -> (Value, std::time::Duration) {
        let mut best = std::time::Duration::MAX;
        let mut last = Value::Null;
        for _ in 0..3 {
            let started = std::time::Instant::now();
            let (status, answer) = backoffice(
                server,
                "POST",
                "/api/backoffice/login",
                None,
                Some(json!({"username": username, "password": "wrong-password"})),
            )
            .await;
            best = best.min(started.elapsed());
            assert_eq!(status, 401, "{answer}");
            last = answer;
        }
        (last, best)
    }
    let (known, known_took) = fastest(&server, "support").await;
    let (unknown, unknown_took) = fastest(&server, "nobody-at-all").await;
    assert_eq!(known, unknown);
    assert_eq!(known["status"], 1002);
    assert!(
        unknown_took * 2 >= known_took,
        "unknown user {unknown_took:?}, wrong password {known_took:?}"
    );
    server.stop().await;
}

/// Support grants free bets of at most `[bets] free_bet_grant_max` each
/// and `free_bet_daily_max` per member in 24 hours, with a reason that is
/// kept with the grant's wallet event.
async fn free_bet_grants_are_capped_and_need_a_reason(kind: StoreKind) {
    let server = common::start(kind).await;
    let support = staff_token(&server, "support", "support1234").await;
    let grant = |body: Value| {
        let (server, support) = (&server, support.clone());
        async move {
            backoffice(
                server,
                "POST",
                "/api/backoffice/free-bets",
                Some(&support),
                Some(body),
            )
            .await
        }
    };
    let refused = |status: u16, answer: &Value| {
        (
            status,
            answer["status"].as_i64().unwrap_or_default(),
            answer["msg"].as_str().unwrap_or_default().to_string(),
        )
    };
    let (status, answer) = grant(json!({"user": "demo", "amount": "20"})).await;
    assert_eq!(
        refused(status, &answer),
        (
            400,
            -70009,
            "Invalid request parameters: reason: Required".into()
        )
    );
    let (status, answer) = grant(json!({"user": "demo", "amount": "20", "reason": "  "})).await;
    assert_eq!(
        refused(status, &answer),
        (
            400,
            -70009,
            "Invalid request parameters: reason: Required".into()
        )
    );
    let (status, answer) =
        grant(json!({"user": "demo", "amount": "20", "reason": "x".repeat(201)})).await;
    assert_eq!(
        refused(status, &answer),
        (
            400,
            -70009,
            "Invalid request parameters: reason: Should be less than 201 characters long.".into()
        )
    );
    let (status, answer) =
        grant(json!({"user": "demo", "amount": "1000.01", "reason": "VIP gesture"})).await;
    assert_eq!(
        refused(status, &answer),
        (400, 20004, "Max amount is 1000.00".into())
    );
    // Up to the per-grant cap, and up to the daily total.
    for amount in ["1000.00", "900.00"] {
        let (status, answer) =
            grant(json!({"user": "demo", "amount": amount, "reason": "VIP gesture"})).await;
        assert_eq!(status, 200, "{answer}");
    }
    let (status, answer) =
        grant(json!({"user": "demo", "amount": "200.00", "reason": "VIP gesture"})).await;
    assert_eq!(
        refused(status, &answer),
        (
            400,
            20004,
            "Max amount is 100.00 (free bets granted to this member in 24 hours: at most 2000.00)"
                .into()
        )
    );
    let (status, granted) =
        grant(json!({"user": "demo", "amount": "100.00", "reason": "Sorry for the outage"})).await;
    assert_eq!(status, 200, "{granted}");
    server.clock.advance(86_400_001);
    let support = staff_token(&server, "support", "support1234").await;
    let (status, answer) = backoffice(
        &server,
        "POST",
        "/api/backoffice/free-bets",
        Some(&support),
        Some(json!({"user": "demo", "amount": "1000.00", "reason": "A new day"})),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    // Who granted it and why, in the grant's wallet event.
    let id = granted["data"]["id"].as_str().unwrap();
    let metadata: String = sqlx::query_scalar(
        "SELECT CAST(metadata AS TEXT) FROM events
         WHERE aggregate_type = 'Wallet' AND CAST(payload AS TEXT) LIKE $1",
    )
    .bind(format!("%freebet:{id}\"%"))
    .fetch_one(&server.running.state.db.any)
    .await
    .unwrap();
    let metadata: Value = serde_json::from_str(&metadata).unwrap();
    assert_eq!(metadata["reason"], "Sorry for the outage", "{metadata}");
    assert!(
        metadata["granted_by"]
            .as_str()
            .unwrap()
            .starts_with("staff-"),
        "{metadata}"
    );
    server.stop().await;
}

/// Grants to one member take turns: eight grants of 600.00 at once, with a
/// daily cap of 2000.00, grant exactly three.
async fn free_bet_grants_at_once_never_pass_the_daily_cap_together(kind: StoreKind) {
    let server = common::start(kind).await;
    let support = staff_token(&server, "support", "support1234").await;
    let grants = (0..8).map(|n| {
        let (server, support) = (&server, support.clone());
        async move {
            backoffice(
                server,
                "POST",
                "/api/backoffice/free-bets",
                Some(&support),
                Some(json!({"user": "demo", "amount": "600.00", "reason": format!("gesture {n}")})),
            )
            .await
        }
    });
    let answers = futures::future::join_all(grants).await;
    let granted = answers.iter().filter(|(status, _)| *status == 200).count();
    assert_eq!(granted, 3, "{answers:?}");
    for (status, answer) in answers.iter().filter(|(status, _)| *status != 200) {
        assert_eq!(
            (*status, answer["status"].clone()),
            (400, json!(20004)),
            "{answer}"
        );
    }
    server.stop().await;
}
