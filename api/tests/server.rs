//! The real server on port 0, on a fresh store of each kind, spoken to over
//! plain HTTP/1.1.

use std::path::PathBuf;

use api::app;
use api::config::Config;
use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletId};
use domain::Currency;
use rust_decimal_macros::dec;
use serde_json::Value;
use store::db::testing;
use store::StoreKind;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

struct Answer {
    status: u16,
    content_type: String,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

async fn get(addr: std::net::SocketAddr, path: &str) -> Answer {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = text.split_once("\r\n\r\n").expect("an HTTP answer");
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    let content_type = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-type:")
                .map(|v| v.trim().to_string())
        })
        .unwrap_or_default();
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_string()
    };
    Answer {
        status,
        content_type,
        body,
    }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        out.push_str(&rest[..size]);
        body = &rest[size + 2..];
    }
    out
}

/// A client build stand-in, so the SPA fallback can be checked without npm.
fn fake_dist() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dist-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    std::fs::write(
        dir.join("index.html"),
        "<!doctype html><div id=root>shell</div>",
    )
    .unwrap();
    std::fs::write(dir.join("assets/app.js"), "console.log('app')").unwrap();
    dir
}

fn config(demo: bool) -> Config {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut config = Config::from_file(&root.join("config/default.toml")).unwrap();
    config.server.web_dist = fake_dist();
    config.server.skins_dir = root.join("config/skins");
    config.demo_mode = demo;
    config
}

async fn start(kind: StoreKind, demo: bool) -> app::Running {
    let db = testing::fresh(kind).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    app::start(config(demo), db, listener).await.unwrap()
}

store::on_both_stores!(
    healthz_names_the_store,
    the_demo_balance_comes_from_the_balance_projection,
    demo_endpoints_do_not_exist_without_the_flag,
    unknown_api_paths_answer_json_and_other_paths_the_client,
    skins_are_served,
    metrics_count_requests_commands_and_projection_lag,
);

async fn healthz_names_the_store(kind: StoreKind) {
    let server = start(kind, false).await;
    let answer = get(server.addr, "/healthz").await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.json()["status"], "ok");
    assert_eq!(answer.json()["store"], kind.name());
    server.stop().await.unwrap();
}

async fn the_demo_balance_comes_from_the_balance_projection(kind: StoreKind) {
    let server = start(kind, true).await;
    let balance = |answer: Answer| {
        answer.json()["data"]["balance"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let mut seen = String::new();
    for _ in 0..1000 {
        seen = balance(get(server.addr, "/api/dev/balance").await);
        if seen == "10000.00" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(seen, "10000.00");
    let answer = get(server.addr, "/api/dev/balance").await.json();
    assert_eq!(answer["status"], 0);
    assert_eq!(answer["data"]["currency"], "CNY");
    assert_eq!(answer["data"]["username"], "demo");
    assert_eq!(answer["data"]["frozen_balance"], "0.00");

    // A movement through the wallet shows up through the projection.
    let user_id = server.state.accounts.find("demo").await.unwrap().unwrap();
    let wallet = WalletId::new(user_id, Currency::Cny);
    let debit = WalletAction::Debit {
        amount: dec!(0.50),
        pot: Pot::Main,
        kind: MovementKind::GameDebit,
    };
    server
        .state
        .wallets
        .execute(WalletCommand::new(wallet, "t-1", debit))
        .await
        .unwrap();
    for _ in 0..1000 {
        seen = balance(get(server.addr, "/api/dev/balance").await);
        if seen == "9999.50" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(seen, "9999.50");
    server.stop().await.unwrap();
}

async fn demo_endpoints_do_not_exist_without_the_flag(kind: StoreKind) {
    let server = start(kind, false).await;
    let answer = get(server.addr, "/api/dev/balance").await;
    assert_eq!(answer.status, 404);
    assert_eq!(answer.json()["msg"], "Unknown API path");
    let wallet = WalletId::new("demo", Currency::Cny);
    assert_eq!(
        server
            .state
            .wallets
            .replay(&wallet)
            .await
            .unwrap()
            .ledger
            .total(),
        dec!(0)
    );
    server.stop().await.unwrap();
}

async fn unknown_api_paths_answer_json_and_other_paths_the_client(kind: StoreKind) {
    let server = start(kind, false).await;
    let api = get(server.addr, "/api/user/nothing").await;
    assert_eq!(api.status, 404);
    assert!(api.content_type.contains("json"));
    assert_ne!(api.json()["status"], 0);
    for path in ["/", "/prematch/football/europe/42", "/live"] {
        let page = get(server.addr, path).await;
        assert_eq!(page.status, 200, "{path}");
        assert!(page.body.contains("id=root"), "{path}: {}", page.body);
    }
    let asset = get(server.addr, "/assets/app.js").await;
    assert!(asset.body.contains("console.log"));
    server.stop().await.unwrap();
}

async fn skins_are_served(kind: StoreKind) {
    let server = start(kind, false).await;
    let conf = get(server.addr, "/skins/conf.json").await;
    assert_eq!(conf.status, 200);
    assert!(conf.json()["main_menu_order"].is_array());
    for lang in ["zhh", "eng", "tha"] {
        let answer = get(server.addr, &format!("/skins/languages/{lang}.json")).await;
        assert_eq!(answer.status, 200, "{lang}");
        assert!(answer.json().is_object());
    }
    server.stop().await.unwrap();
}

async fn metrics_count_requests_commands_and_projection_lag(kind: StoreKind) {
    let server = start(kind, true).await;
    get(server.addr, "/healthz").await;
    // What no route matched (the client's files, its pages) counts as
    // `static`, whatever its path.
    let page = get(server.addr, "/no/such/page").await;
    let patience = std::time::Duration::from_secs(20);
    server
        .state
        .runner
        .settle("balances", patience)
        .await
        .unwrap();
    let text = get(server.addr, "/metrics").await.body;
    assert!(
        text.contains(r#"http_requests_total{method="GET",route="/healthz",status="200"} 1"#),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            r#"http_requests_total{{method="GET",route="static",status="{}"}} 1"#,
            page.status
        )),
        "{text}"
    );
    assert!(!text.contains("/no/such/page"), "{text}");
    assert!(
        text.contains("http_request_duration_seconds_bucket"),
        "{text}"
    );
    assert!(
        text.contains(r#"commands_handled_total{aggregate="Wallet",outcome="ok"} 1"#),
        "{text}"
    );
    assert!(
        text.contains(r#"projection_lag_events{projection="balances"} 0"#),
        "{text}"
    );
    assert!(text.contains("command_conflicts_retried"), "{text}");
    // Every metric the operators' dashboard (docs/dashboards) plots exists.
    let exported: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let dashboard = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/dashboards/platform.json"),
    )
    .unwrap();
    let dashboard: Value = serde_json::from_str(&dashboard).unwrap();
    let mut plotted = 0;
    for panel in dashboard["panels"].as_array().unwrap() {
        for target in panel["targets"].as_array().unwrap() {
            let expr = target["expr"].as_str().unwrap();
            // Label values (quoted) are not metric names.
            let expr: String = expr.split('"').step_by(2).collect::<Vec<_>>().join(" ");
            let names = expr
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|w| w.contains('_') && *w != "histogram_quantile");
            for name in names {
                let base = name
                    .strip_suffix("_total")
                    .or_else(|| name.strip_suffix("_bucket"))
                    .unwrap_or(name);
                assert!(
                    exported.contains(&base),
                    "{expr}: no metric {base} on /metrics"
                );
                plotted += 1;
            }
        }
    }
    assert!(plotted >= 16, "{plotted}");
    server.stop().await.unwrap();
}
