//! Accounts through the real request layer, on both stores: registration,
//! login, safety verification, sessions, password reset, profile changes.

mod common;

use common::{start, Client};
use serde_json::json;
use store::StoreKind;

store::on_both_stores!(
    a_member_registers_by_phone_and_is_logged_in,
    registration_refusals_name_their_field,
    login_checks_captcha_account_and_password,
    five_wrong_passwords_lock_the_account_with_1022,
    a_new_device_needs_the_safety_verification,
    a_session_expires_after_its_lifetime_unless_renewed,
    a_session_survives_a_restart_of_the_server,
    logout_ends_the_session,
    a_forgotten_password_is_reset_with_a_code,
    profile_changes_show_in_userinfo,
    codes_expire_mismatch_and_wait_sixty_seconds,
    login_is_rate_limited_per_account,
    a_partner_opens_a_one_hour_session,
    x_forwarded_for_from_an_untrusted_peer_does_not_change_the_rate_limit_key,
    login_answers_alike_for_a_bad_password_blob_an_unknown_user_and_a_wrong_password,
    a_bad_password_blob_cannot_skip_the_captcha_or_the_rate_limit,
    unknown_users_lock_after_five_failures_like_real_ones,
    a_safety_code_goes_only_to_the_bound_contact,
    a_safety_code_needs_the_devices_own_login_so_usernames_stay_unknown,
    rebinding_a_contact_needs_the_password_and_a_code_from_the_old_one,
    changing_the_login_password_ends_the_members_other_sessions,
    a_login_password_is_set_after_a_safety_code_without_the_old_one,
    a_login_password_is_set_after_the_security_answer,
    security_answers_have_five_tries_in_fifteen_minutes,
    passwords_confirming_an_action_have_five_tries_in_fifteen_minutes,
    a_contact_is_unbound_with_a_code_from_it_and_the_other_one_stays,
    a_birth_date_is_set_once_within_the_age_rule,
);

const PASSWORD: &str = "abc12345";

async fn a_member_registers_by_phone_and_is_logged_in(kind: StoreKind) {
    let server = start(kind).await;
    let mut client = Client::new(&server).await;
    let answer = client
        .register_phone(&server, "13800138000", PASSWORD)
        .await;
    assert_eq!(answer["status"], 0, "{answer}");
    let data = &answer["data"];
    assert_eq!(data["username"], "13800138000");
    assert!(data["auth_token"].as_str().unwrap().len() >= 32);
    assert!(data["session"].as_str().unwrap().len() >= 32);
    assert!(data["expires"].as_i64().unwrap() > server.clock_now());
    let info = client.post("/api/user/userinfo", json!({})).await;
    assert_eq!(info["status"], 0, "{info}");
    assert_eq!(info["data"]["phone"], "138****8000");
    assert_eq!(info["data"]["currency_name"], "CNY");
    let balance = client.post("/api/user/getbalance", json!({})).await;
    assert_eq!(balance["data"]["balance"], "0.00");
    assert_eq!(balance["data"]["currency"], "CNY");
    // The phone is taken now (asked from another device: the same device
    // repeating the same call within 3 s would meet the -66666 guard).
    let other = Client::new(&server).await;
    let again = other
        .post(
            "/api/sendcode",
            json!({"type": 2, "valtype": 1, "mobile": "13800138000"}),
        )
        .await;
    assert_eq!(again["status"], 1127);
    assert_eq!(again["data"]["field"], "mobile");
    server.stop().await;
}

async fn registration_refusals_name_their_field(kind: StoreKind) {
    let server = start(kind).await;
    let client = Client::new(&server).await;
    let (uid, code) = client.captcha(&server).await;
    let base = json!({"username": "player_one", "password": PASSWORD, "repassword": PASSWORD,
        "country_code": "CN", "currency_name": "CNY", "agree": "1", "language": "zhh", "uid": uid, "captcha": code});
    let with = |key: &str, value: serde_json::Value| {
        let mut body = base.clone();
        body[key] = value;
        body
    };
    let cases = [
        (
            with("password", json!("abcdefgh")),
            "password",
            "6 to 32 characters in length (a combination of numbers and letters)",
        ),
        (
            with("repassword", json!("abc123456")),
            "repassword",
            "Two passwords are inconsistent",
        ),
        (
            with("country_code", json!("GR")),
            "country_code",
            "You cannot Sign Up from Greece",
        ),
        (
            with("agree", json!(false)),
            "agree",
            "You must accept all terms and conditions to be able to register.",
        ),
        (
            with("invite_code", json!("12")),
            "invite_code",
            "This is not a valid invite code",
        ),
        (with("currency_name", json!("EUR")), "currency_name", ""),
    ];
    for (body, field, message) in cases {
        let answer = client.post("/api/default/register", body).await;
        assert_ne!(answer["status"], 0, "{answer}");
        assert_eq!(answer["data"]["field"], field, "{answer}");
        if !message.is_empty() {
            assert_eq!(answer["msg"], message);
        }
    }
    // A valid form with a wrong captcha.
    let answer = client
        .post("/api/default/register", with("captcha", json!("0000x")))
        .await;
    assert_eq!(answer["status"], 21, "{answer}");
    assert_eq!(answer["data"]["field"], "captcha");
    // A valid one registers; the same username again is refused.
    let (uid, code) = client.captcha(&server).await;
    let answer = client
        .post(
            "/api/default/register",
            with("uid", json!(uid)).merge("captcha", json!(code)),
        )
        .await;
    assert_eq!(answer["status"], 0, "{answer}");
    let (uid, code) = client.captcha(&server).await;
    let answer = client
        .post(
            "/api/default/register",
            with("uid", json!(uid)).merge("captcha", json!(code)),
        )
        .await;
    assert_eq!(answer["status"], 1118, "{answer}");
    assert_eq!(answer["data"]["field"], "username");
    server.stop().await;
}

trait Merge {
    fn merge(self, key: &str, value: serde_json::Value) -> serde_json::Value;
}

impl Merge for serde_json::Value {
    fn merge(mut self, key: &str, value: serde_json::Value) -> serde_json::Value {
        self[key] = value;
        self
    }
}

trait ClockNow {
    fn clock_now(&self) -> i64;
}

impl ClockNow for common::Server {
    fn clock_now(&self) -> i64 {
        use commands::platform::clock::Clock;
        self.clock.now_ms()
    }
}

async fn login_checks_captcha_account_and_password(kind: StoreKind) {
    let server = start(kind).await;
    let mut client = Client::new(&server).await;
    let demo = client.login(&server, "demo", "demo1234").await;
    assert_eq!(demo["status"], 0, "{demo}");
    assert_eq!(demo["data"]["username"], "demo");
    assert_eq!(demo["data"]["never_expires"], false);
    let balance = client.post("/api/user/getbalance", json!({})).await;
    assert_eq!(balance["status"], 0);

    let mut other = Client::new(&server).await;
    assert_eq!(
        other.login(&server, "nobody", "demo1234").await["status"],
        1002
    );
    assert_eq!(
        other.login(&server, "demo", "wrong999").await["status"],
        1002
    );
    // A wrong image code.
    let config = other.get("/api/getconfig").await;
    let pass =
        api::secrets::encrypt_for(config["data"]["public_key"].as_str().unwrap(), "demo1234")
            .unwrap();
    let (uid, _) = other.captcha(&server).await;
    let answer = other
        .post("/api/default/login", json!({"username": "demo", "loginpass": pass, "validateCode": "99999", "type": 1, "uid": uid}))
        .await;
    assert_eq!(answer["status"], 21);
    assert_eq!(answer["data"]["field"], "validateCode");
    // A password not encrypted with our key.
    let (uid, code) = other.captcha(&server).await;
    let answer = other
        .post("/api/default/login", json!({"username": "demo", "loginpass": "demo1234", "validateCode": code, "type": 1, "uid": uid}))
        .await;
    assert_eq!(answer["status"], 1002);
    server.stop().await;
}

async fn five_wrong_passwords_lock_the_account_with_1022(kind: StoreKind) {
    let server = start(kind).await;
    let mut client = Client::new(&server).await;
    for _ in 0..4 {
        assert_eq!(
            client.login(&server, "demo", "wrong999").await["status"],
            1002
        );
    }
    assert_eq!(
        client.login(&server, "demo", "wrong999").await["status"],
        1022
    );
    assert_eq!(
        client.login(&server, "demo", "demo1234").await["status"],
        1022
    );
    server.clock.advance(900_001);
    assert_eq!(client.login(&server, "demo", "demo1234").await["status"], 0);
    server.stop().await;
}

async fn a_new_device_needs_the_safety_verification(kind: StoreKind) {
    let server = start(kind).await;
    let mut first = Client::new(&server).await;
    assert_eq!(
        first.register_phone(&server, "13900139000", PASSWORD).await["status"],
        0
    );
    let mut second = Client::new(&server).await;
    let refused = second.login(&server, "13900139000", PASSWORD).await;
    assert_eq!(refused["status"], -10010, "{refused}");
    assert_eq!(refused["data"]["channels"], json!(["phone"]));
    assert_eq!(refused["data"]["phone"], "139****9000");
    let sent = second
        .post(
            "/api/sendcode",
            json!({"type": 8, "valtype": 1, "username": "13900139000"}),
        )
        .await;
    assert_eq!(sent["status"], 0, "{sent}");
    let uid = sent["data"]["uid"].as_str().unwrap().to_string();
    let code = server.outbox(|e| e["uid"] == uid.as_str()).await["code"]
        .as_str()
        .unwrap()
        .to_string();
    let checked = second
        .post("/api/checkcode", json!({"uid": uid, "type": 8, "valtype": 1, "username": "13900139000", "checkCode": code}))
        .await;
    assert_eq!(checked["status"], 0, "{checked}");
    assert_eq!(
        second.login(&server, "13900139000", PASSWORD).await["status"],
        0
    );
    server.stop().await;
}

async fn a_session_expires_after_its_lifetime_unless_renewed(kind: StoreKind) {
    let server = start(kind).await;
    let mut client = Client::new(&server).await;
    assert_eq!(client.login(&server, "demo", "demo1234").await["status"], 0);
    server.clock.advance(595_000);
    let renewed = client.post("/api/user/renewsession", json!({})).await;
    assert_eq!(renewed["status"], 0, "{renewed}");
    server.clock.advance(300_000);
    assert_eq!(
        client.post("/api/user/userinfo", json!({})).await["status"],
        0
    );
    server.clock.advance(300_001);
    let expired = client.post("/api/user/userinfo", json!({})).await;
    assert_eq!(expired["status"], -601);
    assert_eq!(
        expired["msg"],
        "Sorry, your login status has expired, please log in again"
    );
    client.user_token = None;
    assert_eq!(
        client.post("/api/user/userinfo", json!({})).await["status"],
        12
    );
    server.stop().await;
}

async fn a_session_survives_a_restart_of_the_server(kind: StoreKind) {
    let server = start(kind).await;
    let mut client = Client::new(&server).await;
    assert_eq!(client.login(&server, "demo", "demo1234").await["status"], 0);
    let db = server.running.state.db.clone();
    let config = server.running.state.config.as_ref().clone();
    let clock = server.clock.clone();
    let schema: Option<String> = match kind {
        StoreKind::Postgres => Some(
            sqlx::query_scalar("SELECT current_schema()::text")
                .fetch_one(&db.any)
                .await
                .unwrap(),
        ),
        StoreKind::Sqlite => None,
    };
    server.stop().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let reopened = reopen(db, schema).await;
    let running = api::app::start_with_clock(
        config,
        reopened,
        listener,
        std::sync::Arc::new(clock.clone()),
    )
    .await
    .unwrap();
    client.addr = running.addr;
    let token = client.get("/api/getapitoken").await;
    client.app_token = token["data"]["apitoken"].as_str().unwrap().to_string();
    let info = client.post("/api/user/userinfo", json!({})).await;
    assert_eq!(info["status"], 0, "{info}");
    assert_eq!(info["data"]["username"], "demo");
    running.stop().await.unwrap();
}

/// The same database through new pools (the old ones were closed).
async fn reopen(db: store::Db, schema: Option<String>) -> store::Db {
    match (&db.pool, schema) {
        (store::db::StorePool::Postgres(_), Some(schema)) => {
            store::Db::open_postgres(&store::db::testing::postgres_url(), Some(&schema))
                .await
                .unwrap()
        }
        (store::db::StorePool::Sqlite(pool), _) => {
            let path = pool.connect_options().get_filename().to_path_buf();
            store::Db::connect(&store::DbUrl::Sqlite(path))
                .await
                .unwrap()
        }
        _ => unreachable!("a Postgres store has a schema"),
    }
}

async fn logout_ends_the_session(kind: StoreKind) {
    let server = start(kind).await;
    let mut client = Client::new(&server).await;
    assert_eq!(client.login(&server, "demo", "demo1234").await["status"], 0);
    assert_eq!(client.post("/api/logout", json!({})).await["status"], 0);
    assert_eq!(
        client.post("/api/user/userinfo", json!({})).await["status"],
        -601
    );
    server.stop().await;
}

async fn a_forgotten_password_is_reset_with_a_code(kind: StoreKind) {
    let server = start(kind).await;
    let mut client = Client::new(&server).await;
    assert_eq!(
        client
            .register_phone(&server, "13700137000", PASSWORD)
            .await["status"],
        0
    );
    let unknown = client
        .post(
            "/api/sendcode",
            json!({"type": 5, "valtype": 1, "mobile": "13600136000"}),
        )
        .await;
    assert_eq!(unknown["msg"], "Enter your phone number");
    let sent = client
        .post(
            "/api/sendcode",
            json!({"type": 5, "valtype": 1, "mobile": "13700137000"}),
        )
        .await;
    let uid = sent["data"]["uid"].as_str().unwrap().to_string();
    let code = server.outbox(|e| e["uid"] == uid.as_str()).await["code"]
        .as_str()
        .unwrap()
        .to_string();
    let checked = client
        .post("/api/checkcode", json!({"uid": uid, "type": 5, "valtype": 1, "mobile": "13700137000", "checkCode": code}))
        .await;
    assert_eq!(checked["status"], 0);
    let mismatch = client
        .post("/api/forgetpass", json!({"mobile": "13700137000", "uid": uid, "newpass": "new12345", "confirm_newpass": "new12346"}))
        .await;
    assert_eq!(mismatch["msg"], "Two passwords are inconsistent");
    let reset = client
        .post("/api/forgetpass", json!({"mobile": "13700137000", "uid": uid, "newpass": "new12345", "confirm_newpass": "new12345"}))
        .await;
    assert_eq!(reset["status"], 0, "{reset}");
    // The old session ended; the old password is gone; the new one works.
    assert_eq!(
        client.post("/api/user/userinfo", json!({})).await["status"],
        -601
    );
    assert_eq!(
        client.login(&server, "13700137000", PASSWORD).await["status"],
        1002
    );
    assert_eq!(
        client.login(&server, "13700137000", "new12345").await["status"],
        0
    );
    // The code cannot be used twice.
    let again = client
        .post("/api/forgetpass", json!({"mobile": "13700137000", "uid": uid, "newpass": "abc99999", "confirm_newpass": "abc99999"}))
        .await;
    assert_eq!(again["status"], 1009);
    server.stop().await;
}

async fn profile_changes_show_in_userinfo(kind: StoreKind) {
    let server = start(kind).await;
    let mut client = Client::new(&server).await;
    assert_eq!(client.login(&server, "demo", "demo1234").await["status"], 0);
    let short = client
        .post("/api/user/nicknameupdate", json!({"nickname": "abc"}))
        .await;
    assert_ne!(short["status"], 0);
    assert_eq!(short["data"]["field"], "nickname");
    assert_eq!(
        client
            .post(
                "/api/user/nicknameupdate",
                json!({"nickname": "Lucky Star"})
            )
            .await["status"],
        0
    );
    assert_eq!(
        client
            .post("/api/user/realnameupdate", json!({"realname": "张三"}))
            .await["status"],
        0
    );
    assert_eq!(
        client
            .post("/api/user/setusersummary", json!({"summary": "hi"}))
            .await["status"],
        0
    );
    let address = json!({"consignee": "Zhang", "phone": "13800138000", "province": "GD", "city": "SZ", "district": "NS", "address": "1 Road"});
    assert_eq!(
        client
            .post("/api/user/setuseraddress", address.clone())
            .await["status"],
        0
    );
    assert_eq!(
        client.post("/api/user/useraddress", json!({})).await["data"],
        address
    );
    let wrong = client
        .post(
            "/api/user/loginpassedit",
            json!({"oldpass": "nope1234", "newpass": "next1234", "confirm_newpass": "next1234"}),
        )
        .await;
    assert_eq!(wrong["status"], 1003);
    let fund = client.post("/api/user/fundpassset", json!({"fundpass": "fund1234", "confirm_fundpass": "fund1234", "loginpass": "demo1234"})).await;
    assert_eq!(fund["status"], 0, "{fund}");
    let question = client
        .post(
            "/api/user/questionupdate",
            json!({"question": "Pet?", "answer": "Rex", "loginpass": "demo1234"}),
        )
        .await;
    assert_eq!(question["status"], 0);
    assert_eq!(
        client
            .post(
                "/api/user/questioncheck",
                json!({"question": "Pet?", "answer": "rex"})
            )
            .await["status"],
        0
    );
    assert_eq!(
        client
            .post(
                "/api/user/questioncheck",
                json!({"question": "Pet?", "answer": "Max"})
            )
            .await["status"],
        21
    );
    let info = client.post("/api/user/userinfo", json!({})).await["data"].clone();
    assert_eq!(info["nickname"], "Lucky Star");
    assert_eq!(info["realname"], "张三");
    assert_eq!(info["summary"], "hi");
    assert_eq!(info["has_fund_password"], true);
    assert_eq!(info["has_security_question"], true);
    let changed = client
        .post(
            "/api/user/loginpassedit",
            json!({"oldpass": "demo1234", "newpass": "next1234", "confirm_newpass": "next1234"}),
        )
        .await;
    assert_eq!(changed["status"], 0);
    assert_eq!(client.login(&server, "demo", "next1234").await["status"], 0);
    server.stop().await;
}

async fn changing_the_login_password_ends_the_members_other_sessions(kind: StoreKind) {
    // Two api processes on one store: a session ends for both of them.
    let (first, second) = store::db::testing::fresh_pair(kind).await;
    let a = common::start_on(first, common::config(true)).await;
    let b = common::start_on(second, common::config(true)).await;
    let mut changer = Client::new(&a).await;
    assert_eq!(changer.login(&a, "demo", "demo1234").await["status"], 0);
    let mut here = Client::new(&a).await;
    assert_eq!(here.login(&a, "demo", "demo1234").await["status"], 0);
    let mut there = Client::new(&b).await;
    let there_login = there.login(&b, "demo", "demo1234").await;
    assert_eq!(there_login["status"], 0, "{there_login}");
    let sid = common::swarm_session(&b, &there_login).await;
    let balance = json!({"command": "get_balance", "rid": 3});
    assert_eq!(userinfo(&mut here, a.addr()).await, 0);
    assert_eq!(userinfo(&mut there, b.addr()).await, 0);
    assert_eq!(common::swarm(&b, &sid, balance.clone()).await["code"], 0);
    let profile =
        json!({"command": "get", "rid": 4, "params": {"source": "user", "what": {"profile": []}}});
    assert_eq!(common::swarm(&b, &sid, profile.clone()).await["code"], 0);

    let changed = changer
        .post(
            "/api/user/loginpassedit",
            json!({"oldpass": "demo1234", "newpass": "next1234", "confirm_newpass": "next1234"}),
        )
        .await;
    assert_eq!(changed["status"], 0, "{changed}");

    // The other sessions ended, on the process that made the change and on
    // the other one, for the main API and for Swarm.
    assert_eq!(userinfo(&mut here, a.addr()).await, -601);
    assert_eq!(userinfo(&mut there, b.addr()).await, -601);
    assert_eq!(userinfo(&mut here, b.addr()).await, -601);
    // The profile is not readable through the ended login either.
    let swarm_profile = common::swarm(&b, &sid, profile).await;
    assert_eq!(swarm_profile["code"], 12, "{swarm_profile}");
    let swarm_balance = common::swarm(&b, &sid, balance).await;
    assert_eq!(swarm_balance["code"], 12, "{swarm_balance}");
    // The session that changed it keeps working, on both processes.
    assert_eq!(userinfo(&mut changer, a.addr()).await, 0);
    assert_eq!(userinfo(&mut changer, b.addr()).await, 0);
    // The old password is gone, the new one logs in.
    assert_eq!(here.login(&a, "demo", "demo1234").await["status"], 1002);
    assert_eq!(there.login(&b, "demo", "next1234").await["status"], 0);
    assert_eq!(userinfo(&mut there, b.addr()).await, 0);
    b.stop().await;
    a.stop().await;
}

/// `userinfo`'s status for `client`'s session, asked of the server at `addr`.
async fn userinfo(client: &mut Client, addr: std::net::SocketAddr) -> serde_json::Value {
    let home = std::mem::replace(&mut client.addr, addr);
    let status = client.post("/api/user/userinfo", json!({})).await["status"].clone();
    client.addr = home;
    status
}

async fn codes_expire_mismatch_and_wait_sixty_seconds(kind: StoreKind) {
    let server = start(kind).await;
    let client = Client::new(&server).await;
    let never = client
        .post("/api/checkcode", json!({"uid": "AAAAAAAAAAAAAAAA", "type": 2, "valtype": 1, "mobile": "13500135000", "checkCode": "1234"}))
        .await;
    assert_eq!(never["status"], -10202);
    assert_eq!(never["msg"], "too frequent");
    let sent = client
        .post(
            "/api/sendcode",
            json!({"type": 2, "valtype": 1, "mobile": "13500135000"}),
        )
        .await;
    let uid = sent["data"]["uid"].as_str().unwrap().to_string();
    let code = server.outbox(|e| e["uid"] == uid.as_str()).await["code"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(code.len(), 4);
    let other = Client::new(&server).await;
    let soon = other
        .post(
            "/api/sendcode",
            json!({"type": 2, "valtype": 1, "mobile": "13500135000"}),
        )
        .await;
    assert_eq!(soon["status"], -10201);
    assert!(soon["data"]["wait"].as_i64().unwrap() > 0);
    let wrong = if code == "0000" { "1111" } else { "0000" };
    let mismatch = client
        .post("/api/checkcode", json!({"uid": uid, "type": 2, "valtype": 1, "mobile": "13500135000", "checkCode": wrong}))
        .await;
    assert_eq!(mismatch["status"], 21);
    server.clock.advance(600_001);
    let late = client
        .post("/api/checkcode", json!({"uid": uid, "type": 2, "valtype": 1, "mobile": "13500135000", "checkCode": code}))
        .await;
    assert_eq!(late["status"], 1009);
    let third = Client::new(&server).await;
    let resent = third
        .post(
            "/api/sendcode",
            json!({"type": 2, "valtype": 1, "mobile": "13500135000"}),
        )
        .await;
    assert_eq!(resent["status"], 0);
    let bad_phone = client
        .post(
            "/api/sendcode",
            json!({"type": 2, "valtype": 1, "mobile": "12345"}),
        )
        .await;
    assert_eq!(bad_phone["msg"], "This is not a valid phone number");
    server.stop().await;
}

async fn login_is_rate_limited_per_account(kind: StoreKind) {
    let server = start(kind).await;
    let mut statuses = Vec::new();
    for _ in 0..11 {
        // A new device each time: the per-account limit, not the per-device
        // submission guard, must be what stops the eleventh.
        let mut client = Client::new(&server).await;
        statuses.push(
            client.login(&server, "nobody", "whatever1").await["status"]
                .as_i64()
                .unwrap(),
        );
    }
    // Unknown names lock after five failures like real accounts do.
    assert_eq!(&statuses[..4], &[1002; 4]);
    assert_eq!(&statuses[4..10], &[1022; 6]);
    assert_eq!(statuses[10], -10005);
    server.stop().await;
}

async fn a_partner_opens_a_one_hour_session(kind: StoreKind) {
    let mut config = common::config(true);
    // Compared exactly (and in constant time): upper case included.
    config.partner.key = "Partner-Secret".into();
    let server = common::start_with(kind, config).await;
    let user_id = server
        .running
        .state
        .accounts
        .find("demo")
        .await
        .unwrap()
        .unwrap();
    let body = json!({"user_id": user_id}).to_string();
    let key = |k: &str| {
        vec![
            ("X-Partner-Key".to_string(), k.to_string()),
            ("Content-Type".to_string(), "application/json".to_string()),
        ]
    };
    let refused = common::http(
        server.addr(),
        "POST",
        "/api/partner/session",
        &key("wrong"),
        body.as_bytes(),
    )
    .await;
    assert_eq!(refused.json()["status"], 12);
    let opened = common::http(
        server.addr(),
        "POST",
        "/api/partner/session",
        &key("Partner-Secret"),
        body.as_bytes(),
    )
    .await
    .json();
    assert_eq!(opened["status"], 0, "{opened}");
    assert_eq!(opened["data"]["UserId"], user_id.as_str());
    let mut client = Client::new(&server).await;
    client.user_token = Some(opened["data"]["AuthToken"].as_str().unwrap().to_string());
    assert_eq!(
        client.post("/api/user/userinfo", json!({})).await["data"]["username"],
        "demo"
    );
    server.clock.advance(3_600_001);
    assert_eq!(
        client.post("/api/user/userinfo", json!({})).await["status"],
        -601
    );
    let page = common::http(server.addr(), "GET", "/dev/outbox", &[], b"").await;
    assert!(page.text().contains("Outbox"));
    server.stop().await;
}

/// Ten code sends per IP in ten minutes: the eleventh waits, whatever
/// X-Forwarded-For says, unless the peer is a trusted proxy.
async fn x_forwarded_for_from_an_untrusted_peer_does_not_change_the_rate_limit_key(
    kind: StoreKind,
) {
    async fn sends(server: &common::Server) -> Vec<i64> {
        let mut statuses = Vec::new();
        for i in 0..11 {
            // A device of its own each time (the submission guard is per
            // device), each claiming another client address.
            let mut client = Client::new(server).await;
            client.extra_headers = vec![(
                "X-Forwarded-For".to_string(),
                format!("203.0.113.{}", i + 1),
            )];
            let sent = client
                .post(
                    "/api/sendcode",
                    json!({"type": 2, "valtype": 1, "mobile": format!("138000000{:02}", i + 10)}),
                )
                .await;
            statuses.push(sent["status"].as_i64().unwrap());
        }
        statuses
    }
    let server = start(kind).await;
    let statuses = sends(&server).await;
    assert_eq!(&statuses[..10], &[0; 10]);
    assert_eq!(statuses[10], -10201, "the socket's IP is the key");
    server.stop().await;

    let mut config = common::config(true);
    config.server.trusted_proxies = vec!["127.0.0.1/32".to_string()];
    let server = common::start_with(kind, config).await;
    assert_eq!(
        sends(&server).await,
        vec![0; 11],
        "a trusted proxy's X-Forwarded-For is the key"
    );
    server.stop().await;
}

/// One login through the request layer with `loginpass` as given (a fresh
/// captcha): the answer and how long the login call took.
async fn login_with(
    server: &common::Server,
    username: &str,
    loginpass: &str,
) -> (serde_json::Value, std::time::Duration) {
    let client = Client::new(server).await;
    let (uid, code) = client.captcha(server).await;
    let started = std::time::Instant::now();
    let answer = client
        .post(
            "/api/default/login",
            json!({"username": username, "loginpass": loginpass, "validateCode": code, "type": 1, "uid": uid}),
        )
        .await;
    (answer, started.elapsed())
}

async fn sealed(server: &common::Server, password: &str) -> String {
    let config = Client::new(server).await.get("/api/getconfig").await;
    api::secrets::encrypt_for(config["data"]["public_key"].as_str().unwrap(), password).unwrap()
}

/// A blob that is base64 of the key's size but no valid PKCS#1 v1.5 block.
fn bad_padding_blob() -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode([0x5au8; 256])
}

async fn login_answers_alike_for_a_bad_password_blob_an_unknown_user_and_a_wrong_password(
    kind: StoreKind,
) {
    let mut config = common::config(true);
    // Room for every failure below without locking the demo account.
    config.accounts.max_login_failures = 17;
    let server = common::start_with(kind, config).await;
    let wrong = sealed(&server, "wrong999").await;
    let right = sealed(&server, "demo1234").await;
    let cases = [
        ("wrong password", "demo", wrong.clone()),
        ("unknown user", "nobody_here", right.clone()),
        ("bad RSA padding", "demo", bad_padding_blob()),
        ("not base64", "demo", "demo1234".to_string()),
        ("unknown user, bad blob", "nobody_here", bad_padding_blob()),
    ];
    let mut fastest: Vec<(&str, std::time::Duration)> = cases
        .iter()
        .map(|(case, _, _)| (*case, std::time::Duration::MAX))
        .collect();
    // Three rounds of every case, one after the other (so that a burst of
    // load from other tests slows a round's cases alike, not all of one
    // case's tries): the demo account's ten logins a minute.
    for _ in 0..3 {
        for ((case, username, loginpass), best) in cases.iter().zip(&mut fastest) {
            let (answer, took) = login_with(&server, username, loginpass).await;
            assert_eq!(
                answer,
                json!({"status": 1002, "msg": "Invalid username and/or password", "data": null}),
                "{case}"
            );
            best.1 = best.1.min(took);
        }
    }
    // Every refusal spends the password hash's time: none is much faster
    // than a wrong password for a real account (noise only adds time, so
    // the fastest of three is the fair comparison; a wrong password also
    // records the failure on the account, hence the margin of three: a
    // refusal without the hash would take a tenth).
    let reference = fastest[0].1;
    for (case, took) in &fastest[1..] {
        assert!(
            *took * 3 >= reference,
            "{case} took {took:?}, a wrong password {reference:?}: {fastest:?}"
        );
    }
    let (ok, _) = login_with(&server, "demo", &right).await;
    assert_eq!(ok["status"], 0, "{ok}");
    server.stop().await;
}

async fn a_bad_password_blob_cannot_skip_the_captcha_or_the_rate_limit(kind: StoreKind) {
    let server = start(kind).await;
    let client = Client::new(&server).await;
    let (uid, _) = client.captcha(&server).await;
    let answer = client
        .post("/api/default/login", json!({"username": "demo", "loginpass": bad_padding_blob(), "validateCode": "0000x", "type": 1, "uid": uid}))
        .await;
    assert_eq!(answer["status"], 21, "{answer}");
    assert_eq!(answer["data"]["field"], "validateCode");
    let mut statuses = Vec::new();
    for _ in 0..11 {
        let (answer, _) = login_with(&server, "demo", &bad_padding_blob()).await;
        statuses.push(answer["status"].as_i64().unwrap());
    }
    // Counted like wrong passwords: the fifth locks, the eleventh within
    // the minute meets the per-account limit.
    assert_eq!(
        statuses,
        [1002, 1002, 1002, 1002, 1022, 1022, 1022, 1022, 1022, 1022, -10005]
    );
    server.stop().await;
}

/// A lock that only real accounts get would tell which names exist.
async fn unknown_users_lock_after_five_failures_like_real_ones(kind: StoreKind) {
    let server = start(kind).await;
    let wrong = sealed(&server, "wrong999").await;
    let mut known = Vec::new();
    let mut unknown = Vec::new();
    for _ in 0..6 {
        known.push(login_with(&server, "demo", &wrong).await.0);
        unknown.push(login_with(&server, "nobody_here", &wrong).await.0);
    }
    assert_eq!(known, unknown);
    assert_eq!(known[3]["status"], 1002);
    assert_eq!(known[4]["status"], 1022);
    assert_eq!(known[5]["status"], 1022);
    server.stop().await;
}

/// The code of a `sendcode` answer, from the outbox.
async fn code_of(server: &common::Server, sent: &serde_json::Value) -> (String, String) {
    assert_eq!(sent["status"], 0, "{sent}");
    let uid = sent["data"]["uid"].as_str().unwrap().to_string();
    let code = server.outbox(|e| e["uid"] == uid.as_str()).await["code"]
        .as_str()
        .unwrap()
        .to_string();
    (uid, code)
}

/// Someone who knows the password but not the phone cannot have the
/// safety code sent to a phone or e-mail of their own.
async fn a_safety_code_goes_only_to_the_bound_contact(kind: StoreKind) {
    let server = start(kind).await;
    let mut owner = Client::new(&server).await;
    assert_eq!(
        owner.register_phone(&server, "13900139000", PASSWORD).await["status"],
        0
    );
    let mut intruder = Client::new(&server).await;
    let refused = intruder.login(&server, "13900139000", PASSWORD).await;
    assert_eq!(refused["status"], -10010, "{refused}");
    let own_phone = intruder
        .post(
            "/api/sendcode",
            json!({"type": 8, "valtype": 1, "mobile": "13911112222", "username": "13900139000"}),
        )
        .await;
    assert_eq!(
        own_phone,
        json!({"status": 1134, "msg": "Enter your phone number", "data": {"field": "mobile"}})
    );
    let own_email = intruder
        .post(
            "/api/sendcode",
            json!({"type": 8, "valtype": 2, "email": "me@intruder.example", "username": "13900139000"}),
        )
        .await;
    assert_eq!(
        own_email,
        json!({"status": 1119, "msg": "Enter your email address", "data": {"field": "email"}})
    );
    let entries = common::http(server.addr(), "GET", "/api/dev/outbox", &[], b"")
        .await
        .json();
    assert!(
        !entries.to_string().contains("13911112222")
            && !entries.to_string().contains("intruder.example"),
        "{entries}"
    );
    // A check against another target is refused the same way.
    let checked = intruder
        .post("/api/checkcode", json!({"uid": "AAAAAAAAAAAAAAAA", "type": 8, "valtype": 1, "mobile": "13911112222", "username": "13900139000", "checkCode": "1234"}))
        .await;
    assert_eq!(checked["status"], 1134, "{checked}");
    // Naming the bound phone itself is fine: the code goes there.
    let bound = intruder
        .post(
            "/api/sendcode",
            json!({"type": 8, "valtype": 1, "mobile": "13900139000", "username": "13900139000"}),
        )
        .await;
    let (uid, _) = code_of(&server, &bound).await;
    let entry = server.outbox(|e| e["uid"] == uid.as_str()).await;
    assert_eq!(entry["to"], "13900139000");
    server.stop().await;
}

/// Changing a bound phone: the password, a code from the old phone (type
/// 8), and a code to the new one (type 2, a contact nobody uses).
async fn rebinding_a_contact_needs_the_password_and_a_code_from_the_old_one(kind: StoreKind) {
    let server = start(kind).await;
    let mut member = Client::new(&server).await;
    assert_eq!(
        member
            .register_phone(&server, "13900139000", PASSWORD)
            .await["status"],
        0
    );
    let new_phone = "13911112222";
    let sent = member
        .post(
            "/api/sendcode",
            json!({"type": 2, "valtype": 1, "mobile": new_phone}),
        )
        .await;
    let (new_uid, new_code) = code_of(&server, &sent).await;
    let checked = member
        .post("/api/checkcode", json!({"uid": new_uid, "type": 2, "valtype": 1, "mobile": new_phone, "checkCode": new_code}))
        .await;
    assert_eq!(checked["status"], 0, "{checked}");

    // Without a code from the old phone.
    let no_old = member
        .post(
            "/api/user/mobileupdate",
            json!({"mobile": new_phone, "uid": new_uid, "loginpass": PASSWORD}),
        )
        .await;
    assert_eq!(
        no_old,
        json!({"status": 21, "msg": "Please enter the 4-digit verification code", "data": {"field": "old_uid"}})
    );
    // The old phone's code (safety verification, to the bound phone).
    let sent = member
        .post(
            "/api/sendcode",
            json!({"type": 8, "valtype": 1, "username": "13900139000"}),
        )
        .await;
    let (old_uid, old_code) = code_of(&server, &sent).await;
    let checked = member
        .post("/api/checkcode", json!({"uid": old_uid, "type": 8, "valtype": 1, "username": "13900139000", "checkCode": old_code}))
        .await;
    assert_eq!(checked["status"], 0, "{checked}");
    // A wrong password, or none.
    for password in ["wrong999", ""] {
        let wrong = member
            .post(
                "/api/user/mobileupdate",
                json!({"mobile": new_phone, "uid": new_uid, "old_uid": old_uid, "loginpass": password}),
            )
            .await;
        assert_eq!(
            wrong,
            json!({"status": 1003, "msg": "Wrong password", "data": {"field": "loginpass"}})
        );
    }
    // A code of the new phone does not stand for the old one.
    let swapped = member
        .post(
            "/api/user/mobileupdate",
            json!({"mobile": new_phone, "uid": new_uid, "old_uid": new_uid, "loginpass": PASSWORD}),
        )
        .await;
    assert_eq!(swapped["status"], 1009, "{swapped}");
    assert_eq!(swapped["data"]["field"], "old_uid", "{swapped}");
    // Everything: done, once.
    let done = member
        .post(
            "/api/user/mobileupdate",
            json!({"mobile": new_phone, "uid": new_uid, "old_uid": old_uid, "loginpass": PASSWORD}),
        )
        .await;
    assert_eq!(done["status"], 0, "{done}");
    let info = member.post("/api/user/userinfo", json!({})).await;
    assert_eq!(info["data"]["phone"], "139****2222", "{info}");
    // The new phone logs in (from a new device: safety check first), and
    // safety codes go to it now.
    let mut again = Client::new(&server).await;
    assert_eq!(
        again.login(&server, new_phone, PASSWORD).await["status"],
        -10010
    );
    let sent = again
        .post(
            "/api/sendcode",
            json!({"type": 8, "valtype": 1, "username": "13900139000"}),
        )
        .await;
    let (uid, _) = code_of(&server, &sent).await;
    assert_eq!(
        server.outbox(|e| e["uid"] == uid.as_str()).await["to"],
        new_phone
    );
    // A first e-mail has no old one to prove: password and its code.
    let sent = member
        .post(
            "/api/sendcode",
            json!({"type": 2, "valtype": 2, "email": "me@example.com"}),
        )
        .await;
    let (mail_uid, mail_code) = code_of(&server, &sent).await;
    let checked = member
        .post("/api/checkcode", json!({"uid": mail_uid, "type": 2, "valtype": 2, "email": "me@example.com", "checkCode": mail_code}))
        .await;
    assert_eq!(checked["status"], 0, "{checked}");
    let bound = member
        .post(
            "/api/user/emailupdate",
            json!({"email": "me@example.com", "uid": mail_uid, "loginpass": PASSWORD}),
        )
        .await;
    assert_eq!(bound["status"], 0, "{bound}");
    // The new phone is a login name now: nobody registers it as a
    // username (a login would then match two accounts).
    let newcomer = Client::new(&server).await;
    let (uid, code) = newcomer.captcha(&server).await;
    let taken = newcomer
        .post(
            "/api/default/register",
            json!({"username": new_phone, "password": PASSWORD, "repassword": PASSWORD,
                "country_code": "CN", "currency_name": "CNY", "agree": "1", "language": "zhh",
                "uid": uid, "captcha": code}),
        )
        .await;
    assert_eq!(taken["status"], 1118, "{taken}");
    assert_eq!(taken["data"]["field"], "username", "{taken}");
    server.stop().await;
}

/// Code type 8 (the safety verification) is open only on the device whose
/// login with the right password asked for it: for any other username or
/// device the answer is the one an unknown username gets, so sendcode does
/// not tell which usernames exist.
async fn a_safety_code_needs_the_devices_own_login_so_usernames_stay_unknown(kind: StoreKind) {
    let server = start(kind).await;
    let mut owner = Client::new(&server).await;
    assert_eq!(
        owner.register_phone(&server, "13900139000", PASSWORD).await["status"],
        0
    );
    let stranger = Client::new(&server).await;
    let ask = |username: &str| json!({"type": 8, "valtype": 1, "username": username});
    let unknown = stranger.post("/api/sendcode", ask("13900139999")).await;
    let known = stranger.post("/api/sendcode", ask("13900139000")).await;
    assert_eq!(unknown["status"], 1002, "{unknown}");
    assert_eq!(known, unknown);
    // A login asks for it on its own device only.
    let mut newcomer = Client::new(&server).await;
    assert_eq!(
        newcomer.login(&server, "13900139000", PASSWORD).await["status"],
        -10010
    );
    let other_device = Client::new(&server).await;
    assert_eq!(
        other_device.post("/api/sendcode", ask("13900139000")).await,
        unknown
    );
    let sent = newcomer.post("/api/sendcode", ask("13900139000")).await;
    assert_eq!(sent["status"], 0, "{sent}");
    // It closes after a while (another body: not a repeated submission).
    server
        .clock
        .advance(commands::accounts::SAFETY_CHALLENGE_MS + 61_000);
    let again = json!({"type": 8, "valtype": 1, "username": "13900139000", "mobile": ""});
    assert_eq!(newcomer.post("/api/sendcode", again).await, unknown);
    server.stop().await;
}

/// A checked safety code (type 8) of the member's own phone: its uid for
/// the calls that take one.
async fn safety_uid(
    server: &common::Server,
    member: &Client,
    username: &str,
    valtype: i64,
) -> String {
    let sent = member
        .post(
            "/api/sendcode",
            json!({"type": 8, "valtype": valtype, "username": username}),
        )
        .await;
    let (uid, code) = code_of(server, &sent).await;
    let checked = member
        .post("/api/checkcode", json!({"uid": uid, "type": 8, "valtype": valtype, "username": username, "checkCode": code}))
        .await;
    assert_eq!(checked["status"], 0, "{checked}");
    uid
}

/// A phone or e-mail bound with a type-2 code (no old one to prove).
async fn bind_email(server: &common::Server, member: &Client, email: &str) {
    let sent = member
        .post(
            "/api/sendcode",
            json!({"type": 2, "valtype": 2, "email": email}),
        )
        .await;
    let (uid, code) = code_of(server, &sent).await;
    let checked = member
        .post(
            "/api/checkcode",
            json!({"uid": uid, "type": 2, "valtype": 2, "email": email, "checkCode": code}),
        )
        .await;
    assert_eq!(checked["status"], 0, "{checked}");
    let bound = member
        .post(
            "/api/user/emailupdate",
            json!({"email": email, "uid": uid, "loginpass": PASSWORD}),
        )
        .await;
    assert_eq!(bound["status"], 0, "{bound}");
}

/// `/setting/changeloginsteps/1`: a code to the bound phone, then the new
/// password without the old one; the code is used once.
async fn a_login_password_is_set_after_a_safety_code_without_the_old_one(kind: StoreKind) {
    let server = start(kind).await;
    let mut member = Client::new(&server).await;
    assert_eq!(
        member
            .register_phone(&server, "13900139000", PASSWORD)
            .await["status"],
        0
    );
    // Another session of the member (on this verified device), logged in
    // with the old password.
    let mut elsewhere = Client::new(&server).await;
    elsewhere.device_id = member.device_id.clone();
    assert_eq!(
        elsewhere.login(&server, "13900139000", PASSWORD).await["status"],
        0
    );
    let uid = safety_uid(&server, &member, "13900139000", 1).await;
    // A refused new password spends nothing.
    let weak = member
        .post(
            "/api/user/loginpassedit",
            json!({"uid": uid, "valtype": 1, "newpass": "abcdefgh", "confirm_newpass": "abcdefgh"}),
        )
        .await;
    assert_eq!(weak["status"], 1010, "{weak}");
    // The e-mail way: nothing bound there.
    let no_email = member
        .post(
            "/api/user/loginpassedit",
            json!({"uid": uid, "valtype": 2, "newpass": "next1234", "confirm_newpass": "next1234"}),
        )
        .await;
    assert_eq!(no_email["status"], -10101, "{no_email}");
    assert_eq!(no_email["data"]["field"], "valtype");
    let other = member
        .post(
            "/api/user/loginpassedit",
            json!({"uid": uid, "valtype": 7, "newpass": "next1234", "confirm_newpass": "next1234"}),
        )
        .await;
    assert_eq!(other["status"], -10101, "{other}");
    let changed = member
        .post(
            "/api/user/loginpassedit",
            json!({"uid": uid, "valtype": 1, "newpass": "next1234", "confirm_newpass": "next1234"}),
        )
        .await;
    assert_eq!(changed["status"], 0, "{changed}");
    // As with the old password: the other session ends, this one works.
    let addr = server.addr();
    assert_eq!(userinfo(&mut elsewhere, addr).await, -601);
    assert_eq!(userinfo(&mut member, addr).await, 0);
    let again = member
        .post(
            "/api/user/loginpassedit",
            json!({"uid": uid, "valtype": "1", "newpass": "next5678", "confirm_newpass": "next5678"}),
        )
        .await;
    assert_eq!(
        again,
        json!({"status": 1009, "msg": "code expired", "data": {"field": "uid"}})
    );
    assert_eq!(
        member.login(&server, "13900139000", "next1234").await["status"],
        0
    );
    server.stop().await;
}

/// `/setting/changeloginsteps/3`: userinfo shows the member's question;
/// a right answer gives a uid that sets the password once.
async fn a_login_password_is_set_after_the_security_answer(kind: StoreKind) {
    let server = start(kind).await;
    let mut member = Client::new(&server).await;
    assert_eq!(member.login(&server, "demo", "demo1234").await["status"], 0);
    let no_question = member
        .post(
            "/api/user/questioncheck",
            json!({"question": "Pet?", "answer": "Rex"}),
        )
        .await;
    assert_eq!(no_question["status"], -10101, "{no_question}");
    let set = member
        .post(
            "/api/user/questionupdate",
            json!({"question": "Pet?", "answer": "Rex", "loginpass": "demo1234"}),
        )
        .await;
    assert_eq!(set["status"], 0, "{set}");
    let info = member.post("/api/user/userinfo", json!({})).await;
    assert_eq!(info["data"]["security_question"], "Pet?", "{info}");
    let wrong = member
        .post(
            "/api/user/questioncheck",
            json!({"question": "Pet?", "answer": "Max"}),
        )
        .await;
    assert_eq!(wrong["status"], 21, "{wrong}");
    assert_eq!(wrong["data"]["field"], "answer");
    let right = member
        .post(
            "/api/user/questioncheck",
            json!({"question": "Pet?", "answer": " rex "}),
        )
        .await;
    assert_eq!(right["status"], 0, "{right}");
    let uid = right["data"]["uid"].as_str().unwrap().to_string();
    assert_eq!(uid.len(), 16);
    // A refused confirmation spends nothing.
    let differ = member
        .post(
            "/api/user/loginpassedit",
            json!({"uid": uid, "valtype": 3, "newpass": "next1234", "confirm_newpass": "next9999"}),
        )
        .await;
    assert_eq!(
        differ,
        json!({"status": -10101, "msg": "Two passwords are inconsistent", "data": {"field": "repassword"}})
    );
    let changed = member
        .post(
            "/api/user/loginpassedit",
            json!({"uid": uid, "valtype": 3, "newpass": "next1234", "confirm_newpass": "next1234"}),
        )
        .await;
    assert_eq!(changed["status"], 0, "{changed}");
    let again = member
        .post(
            "/api/user/loginpassedit",
            json!({"uid": uid, "valtype": 3, "newpass": "next4321", "confirm_newpass": "next4321"}),
        )
        .await;
    assert_eq!(again["status"], 1009, "{again}");
    // A made-up uid proves nothing either.
    let made_up = member
        .post(
            "/api/user/loginpassedit",
            json!({"uid": "AAAAAAAAAAAAAAAA", "valtype": 3, "newpass": "next4321", "confirm_newpass": "next4321"}),
        )
        .await;
    assert_eq!(made_up["status"], 1009, "{made_up}");
    let too_long = member
        .post(
            "/api/user/loginpassedit",
            json!({"uid": "A".repeat(5000), "valtype": 3, "newpass": "next4321", "confirm_newpass": "next4321"}),
        )
        .await;
    assert_eq!(too_long["status"], 21, "{too_long}");
    assert_eq!(member.login(&server, "demo", "next1234").await["status"], 0);
    server.stop().await;
}

/// The answer is guessed at most five times in fifteen minutes, wherever
/// the tries land (the count is in the store).
async fn security_answers_have_five_tries_in_fifteen_minutes(kind: StoreKind) {
    let server = start(kind).await;
    let mut member = Client::new(&server).await;
    assert_eq!(member.login(&server, "demo", "demo1234").await["status"], 0);
    let set = member
        .post(
            "/api/user/questionupdate",
            json!({"question": "Pet?", "answer": "Rex", "loginpass": "demo1234"}),
        )
        .await;
    assert_eq!(set["status"], 0, "{set}");
    for guess in ["a", "b", "c", "d", "e"] {
        let wrong = member
            .post(
                "/api/user/questioncheck",
                json!({"question": "Pet?", "answer": guess}),
            )
            .await;
        assert_eq!(wrong["status"], 21, "{wrong}");
    }
    let waiting = member
        .post(
            "/api/user/questioncheck",
            json!({"question": "Pet?", "answer": "Rex"}),
        )
        .await;
    assert_eq!(waiting["status"], -10108, "{waiting}");
    assert!(waiting["data"]["wait"].as_i64().unwrap() > 0, "{waiting}");
    server
        .clock
        .advance(commands::accounts::ANSWER_WINDOW_MS + 1_000);
    // (The session did not outlive the quarter of an hour.)
    assert_eq!(member.login(&server, "demo", "demo1234").await["status"], 0);
    let right = member
        .post(
            "/api/user/questioncheck",
            json!({"question": "Pet?", "answer": "rex"}),
        )
        .await;
    assert_eq!(right["status"], 0, "{right}");
    server.stop().await;
}

/// A stolen session cannot guess the login password that confirms an
/// action (a fund password, unbinding a contact, ...): five wrong ones in
/// fifteen minutes, counted in the store across every such call, then
/// every try waits; a right one clears the count.
async fn passwords_confirming_an_action_have_five_tries_in_fifteen_minutes(kind: StoreKind) {
    let server = start(kind).await;
    let mut member = Client::new(&server).await;
    assert_eq!(member.login(&server, "demo", "demo1234").await["status"], 0);
    let fund = |login: &str| json!({"fundpass": "fund1234", "confirm_fundpass": "fund1234", "loginpass": login});
    // Wrong, wrong, right: the right one clears the count.
    for guess in ["guess001", "guess002"] {
        let wrong = member.post("/api/user/fundpassset", fund(guess)).await;
        assert_eq!(wrong["status"], 1003, "{wrong}");
    }
    let right = member.post("/api/user/fundpassset", fund("demo1234")).await;
    assert_eq!(right["status"], 0, "{right}");
    // Five wrong ones, over two different calls.
    for guess in ["guess003", "guess004", "guess005"] {
        let wrong = member.post("/api/user/fundpassset", fund(guess)).await;
        assert_eq!(wrong["status"], 1003, "{wrong}");
    }
    for guess in ["guess006", "guess007"] {
        let wrong = member
            .post(
                "/api/user/mobileunbind",
                json!({"uid": "abcdefgh12345678", "loginpass": guess}),
            )
            .await;
        assert_eq!(wrong["status"], 1003, "{wrong}");
    }
    // The sixth waits, even with the right password (another fund
    // password: not a repeat of the first call within 3 s).
    let waiting = member
        .post(
            "/api/user/fundpassset",
            json!({"fundpass": "fund5678", "confirm_fundpass": "fund5678", "loginpass": "demo1234"}),
        )
        .await;
    assert_eq!(waiting["status"], -10109, "{waiting}");
    assert!(waiting["data"]["wait"].as_i64().unwrap() > 0, "{waiting}");
    assert!(waiting["msg"]
        .as_str()
        .unwrap()
        .starts_with("Too many wrong passwords"));
    server
        .clock
        .advance(commands::accounts::PASSWORD_WINDOW_MS + 1_000);
    // (The session did not outlive the quarter of an hour.)
    assert_eq!(member.login(&server, "demo", "demo1234").await["status"], 0);
    let after = member
        .post(
            "/api/user/fundpassset",
            json!({"fundpass": "fund9999", "confirm_fundpass": "fund9999", "loginpass": "demo1234"}),
        )
        .await;
    assert_eq!(after["status"], 0, "{after}");
    server.stop().await;
}

/// `/setting/untiedphone` and `/setting/untiedmail`: the password and a
/// code from the contact itself; the account keeps one of the two.
async fn a_contact_is_unbound_with_a_code_from_it_and_the_other_one_stays(kind: StoreKind) {
    let server = start(kind).await;
    let mut member = Client::new(&server).await;
    let phone = "13900139000";
    assert_eq!(
        member.register_phone(&server, phone, PASSWORD).await["status"],
        0
    );
    let uid = safety_uid(&server, &member, phone, 1).await;
    let wrong = member
        .post(
            "/api/user/mobileunbind",
            json!({"uid": uid, "loginpass": "wrong999"}),
        )
        .await;
    assert_eq!(
        wrong,
        json!({"status": 1003, "msg": "Wrong password", "data": {"field": "loginpass"}})
    );
    let no_code = member
        .post("/api/user/mobileunbind", json!({"loginpass": PASSWORD}))
        .await;
    assert_eq!(no_code["status"], 21, "{no_code}");
    assert_eq!(no_code["data"]["field"], "uid");
    let only_one = member
        .post(
            "/api/user/mobileunbind",
            json!({"uid": uid, "loginpass": PASSWORD}),
        )
        .await;
    assert_eq!(
        only_one,
        json!({"status": -10106, "msg": "Bind another phone number or e-mail address before unbinding this one", "data": {"field": "mobile"}})
    );
    let no_email = member
        .post(
            "/api/user/emailunbind",
            json!({"uid": uid, "loginpass": PASSWORD}),
        )
        .await;
    assert_eq!(no_email["status"], -10105, "{no_email}");
    assert_eq!(no_email["data"]["field"], "email");

    bind_email(&server, &member, "me@example.com").await;
    // The code (not spent by the refusals) unbinds the phone now (the body
    // names the phone: not the -66666 repeat of the refused one).
    let unbound = member
        .post(
            "/api/user/mobileunbind",
            json!({"uid": uid, "loginpass": PASSWORD, "mobile": phone}),
        )
        .await;
    assert_eq!(unbound["status"], 0, "{unbound}");
    let info = member.post("/api/user/userinfo", json!({})).await;
    assert_eq!(info["data"]["phone"], "", "{info}");
    assert_eq!(info["data"]["email"], "m***@example.com", "{info}");
    // The phone is no verification channel any more: a safety code has
    // nowhere to go (it stays the account's login name, registered by it).
    let none = member
        .post(
            "/api/sendcode",
            json!({"type": 8, "valtype": 1, "username": phone, "mobile": ""}),
        )
        .await;
    assert_eq!(none["status"], 1134, "{none}");
    // The e-mail is the last contact: it stays.
    let mail_uid = safety_uid(&server, &member, phone, 2).await;
    let last = member
        .post(
            "/api/user/emailunbind",
            json!({"uid": mail_uid, "loginpass": PASSWORD}),
        )
        .await;
    assert_eq!(last["status"], -10106, "{last}");
    server.stop().await;
}

/// `/setting/mybirth`: 18 to 100 years old on today's date, set once.
async fn a_birth_date_is_set_once_within_the_age_rule(kind: StoreKind) {
    let server = start(kind).await;
    let mut member = Client::new(&server).await;
    assert_eq!(member.login(&server, "demo", "demo1234").await["status"], 0);
    let today = domain::account::Date::from_epoch_ms(server.clock_now());
    let years_ago = |years: i32, days: i64| {
        let date =
            domain::account::Date::new(today.year() - years, today.month(), today.day().min(28))
                .unwrap();
        domain::account::Date::from_days_since_epoch(date.days_since_epoch() + days).to_string()
    };
    for (value, message) in [
        (
            years_ago(17, 0),
            format!("Value {} is not valid.", years_ago(17, 0)),
        ),
        (
            years_ago(101, -1),
            format!("Value {} is not valid.", years_ago(101, -1)),
        ),
        (
            "1990-02-30".to_string(),
            "Value 1990-02-30 is not valid.".to_string(),
        ),
        (
            "20/05/1990".to_string(),
            "Value 20/05/1990 is not valid.".to_string(),
        ),
        (String::new(), "Required".to_string()),
    ] {
        let refused = member
            .post("/api/user/birthdateupdate", json!({ "birth_date": value }))
            .await;
        assert_eq!(
            refused,
            json!({"status": -10101, "msg": message, "data": {"field": "birth_date"}}),
            "{value}"
        );
    }
    let eighteen = years_ago(18, -1);
    let set = member
        .post(
            "/api/user/birthdateupdate",
            json!({ "birth_date": eighteen }),
        )
        .await;
    assert_eq!(set["status"], 0, "{set}");
    let info = member.post("/api/user/userinfo", json!({})).await;
    assert_eq!(info["data"]["birth_date"], eighteen, "{info}");
    let again = member
        .post(
            "/api/user/birthdateupdate",
            json!({"birth_date": "1990-05-20"}),
        )
        .await;
    assert_eq!(
        again,
        json!({"status": -10107, "msg": "The birth date is already set and cannot be changed", "data": {"field": "birth_date"}})
    );
    server.stop().await;
}
