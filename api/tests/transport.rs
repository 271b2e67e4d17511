//! The request layer's refusals, each with its own code, none a panic.

mod common;

use common::{http, start, Client};
use serde_json::json;
use store::StoreKind;

store::on_both_stores!(
    answers_come_sealed_with_the_request_pair,
    every_transport_error_has_its_own_code,
    a_repeated_submission_waits_with_66666,
    a_route_marked_as_a_read_is_never_held_back,
    client_logs_are_stored,
);

async fn answers_come_sealed_with_the_request_pair(kind: StoreKind) {
    let server = start(kind).await;
    for pair in [0, 9] {
        let mut client = Client::new(&server).await;
        client.pair = pair;
        // `post` checks the pair index of the answer and opens it.
        let answer = client.post("/api/getdomainconfig", json!({})).await;
        assert_eq!(answer["status"], 0, "{answer}");
        assert_eq!(answer["data"]["pid"], "1054");
    }
    server.stop().await;
}

async fn every_transport_error_has_its_own_code(kind: StoreKind) {
    let server = start(kind).await;
    let client = Client::new(&server).await;
    common::conformance::transport_refusals(&client).await;
    server.stop().await;
}

async fn a_repeated_submission_waits_with_66666(kind: StoreKind) {
    let server = start(kind).await;
    let client = Client::new(&server).await;
    let body = json!({"type": 2, "valtype": 1, "mobile": "13100131000"});
    assert_eq!(
        client.post("/api/sendcode", body.clone()).await["status"],
        0
    );
    let again = client.post("/api/sendcode", body).await;
    assert_eq!(again["status"], -66666);
    let wait = again["data"]["wait"].as_i64().unwrap();
    assert!((1..=3).contains(&wait));
    assert_eq!(
        again["msg"],
        format!("Repeated submission, please wait {wait} seconds.")
    );
    // Reads are never held back (a casino page lists its games again, with
    // the same body, when the member logs in).
    for _ in 0..2 {
        let list = client
            .post(
                "/api/thirdgamelist",
                json!({"section": "casino", "pagesize": 200}),
            )
            .await;
        assert_eq!(list["status"], 0, "{list}");
        let search = client
            .post("/api/casino/search", json!({"query": "sev"}))
            .await;
        assert_eq!(search["status"], 0, "{search}");
    }
    assert_eq!(
        client.post("/api/user/getbalance", json!({})).await["status"],
        12
    );
    assert_eq!(
        client.post("/api/user/getbalance", json!({})).await["status"],
        12
    );
    server.stop().await;
}

/// Every route that was in the request layer's former `READS` list, now
/// marked where it is registered (`read_route`, or `mark_reads` for the
/// casino's router).
const READ_ROUTES: &[&str] = &[
    "/api/user/userinfo",
    "/api/user/getbalance",
    "/api/user/useraddress",
    "/api/user/messagesconfig",
    "/api/user/renewsession",
    "/api/report/betrecods",
    "/api/report/betanalytics",
    "/api/vipsystem/allvipdetail",
    "/api/vipsystem/vipdetail",
    "/api/vipsystem/vipxporders",
    "/api/vipsystem/scoreorders",
    "/api/vipsystem/mcoindetail",
    "/api/emaildeposit/channels",
    "/api/emaildeposit/GetVirtualExchangeRate",
    "/api/emaildeposit/frame",
    "/api/emaildeposit/newframe",
    "/api/security/userbankinfo",
    "/api/security/uservirtualbankinfo",
    "/api/user/getthirdbalance",
    "/api/report/moneyorders",
    "/api/report/accountchanges",
    "/api/report/depositrecordsdel",
    "/api/report/depositprogress",
    "/api/report/withdrawprogress",
    "/api/report/withdrawbetlistv2",
    "/api/report/memberreport",
    "/api/report/usercenter",
    "/api/thirdgamelist",
    "/api/thirdgameshowctl",
    "/api/casino/search",
    "/api/sport/search",
    "/api/user/getcompetitions",
    "/api/user/getteams",
    "/api/user/myteam",
    "/api/vipsystem/seasoninfo",
    "/api/vipsystem/seasonbonusinfo",
    "/api/vipsystem/seasontaskbonusinfo",
    "/api/activity/index",
    "/api/activity/actinfo",
    "/api/activity/gettasklist",
    "/api/activity/reissuelist",
    "/api/activity/MedalsNum",
    "/api/shop/goodslist",
    "/api/shop/goodsinfo",
    "/api/user/invite",
    "/api/user/invitetemplate",
];

async fn a_route_marked_as_a_read_is_never_held_back(kind: StoreKind) {
    let server = start(kind).await;
    let client = Client::new(&server).await;
    for path in READ_ROUTES {
        // The same body twice within 3 s: a read answers both (whatever its
        // own answer, e.g. 12 without a session), never -66666.
        for round in 0..2 {
            let answer = client.post(path, json!({})).await;
            assert_ne!(answer["status"], -66666, "{path} round {round}: {answer}");
        }
    }
    // A write route is still guarded: the shop purchase (promotions) and a
    // season claim, each the same body twice.
    for path in ["/api/shop/buy", "/api/vipsystem/getseasonbonus"] {
        let body = json!({"id": 1});
        let first = client.post(path, body.clone()).await;
        assert_ne!(first["status"], -66666, "{path}: {first}");
        let again = client.post(path, body).await;
        assert_eq!(again["status"], -66666, "{path}: {again}");
    }
    server.stop().await;
}

async fn client_logs_are_stored(kind: StoreKind) {
    let server = start(kind).await;
    let event = json!([{"deviceData": {"userAgent": "test"}, "api": "/api/user/getbalance", "responseTime": 9001, "type": "slow"}]);
    for path in ["/api/logwriter/devicelog", "/api/logwriter/enerrorapi"] {
        let answer = http(
            server.addr(),
            "POST",
            path,
            &[],
            event.to_string().as_bytes(),
        )
        .await;
        assert_eq!(answer.json()["status"], 0, "{path}");
    }
    assert_eq!(
        http(server.addr(), "POST", "/api/logwriter/nonsense", &[], b"[]")
            .await
            .status,
        404
    );
    assert_eq!(
        http(
            server.addr(),
            "POST",
            "/api/logwriter/betlog",
            &[],
            b"{oops"
        )
        .await
        .json()["status"],
        -70009
    );
    let kinds: Vec<(String, String)> =
        sqlx::query_as("SELECT kind, language FROM client_logs ORDER BY id")
            .fetch_all(&server.running.state.db.any)
            .await
            .unwrap();
    assert_eq!(
        kinds,
        vec![
            ("devicelog".into(), "zh".into()),
            ("errorapi".into(), "en".into())
        ]
    );
    let bad_uid = http(
        server.addr(),
        "GET",
        "/api/validateimage?uid=short",
        &[],
        b"",
    )
    .await;
    assert_eq!(bad_uid.status, 400);
    server.stop().await;
}
