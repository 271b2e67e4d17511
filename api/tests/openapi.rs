//! The OpenAPI description (docs/openapi.md): every route the server
//! registers is described, the description is served at
//! `/api/openapi.json`, its browsable page only in DEMO, and what the
//! schemathesis step of scripts/test.sh found stays fixed.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::{http, Server};
use serde_json::Value;
use store::StoreKind;

/// Routes that are not described, and why (docs/openapi.md).
const NOT_DESCRIBED: &[(&str, &str)] = &[
    (
        "/swarm",
        "the Swarm protocol: WebSocket and long-poll frames",
    ),
    ("/ws", "the realtime WebSocket"),
    ("/api/{*rest}", "the unknown-path answer (-404)"),
];

/// Every `.route("path", get(..).post(..))` (or `.read_route(..)`, a member
/// read, docs/architecture.md) in `api/src` outside test modules: (path,
/// method). Read from the source, so a route added in a new file is found
/// too.
fn registered_routes() -> BTreeSet<(String, String)> {
    let mut routes = BTreeSet::new();
    let mut files = Vec::new();
    collect_rs(&common::root().join("api/src"), &mut files);
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let text = match text.find("#[cfg(test)]") {
            Some(at) => &text[..at],
            None => &text[..],
        };
        let text = text.replace(".read_route(", ".route(");
        let mut rest = text.as_str();
        while let Some(at) = rest.find(".route(") {
            let call = &rest[at + ".route(".len()..];
            let inner = &call[..closing(call)];
            rest = &call[inner.len()..];
            let Some(path) = inner.split('"').nth(1) else {
                continue;
            };
            for method in ["get", "post", "put", "patch", "delete", "any"] {
                for prefix in ["(", " ", ".", "::", "\n"] {
                    if inner.contains(&format!("{prefix}{method}(")) {
                        routes.insert((path.to_string(), method.to_string()));
                    }
                }
            }
        }
    }
    routes
}

/// The index of the `)` closing a call whose `(` came just before `text`.
fn closing(text: &str) -> usize {
    let mut depth = 1;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    text.len()
}

fn collect_rs(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_rs(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn described(doc: &Value) -> BTreeSet<(String, String)> {
    let mut ops = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in ["get", "post", "put", "patch", "delete"] {
            if item.get(method).is_some() {
                ops.insert((path.clone(), method.to_string()));
            }
        }
    }
    ops
}

fn description() -> Value {
    serde_json::to_value(api::openapi::description()).unwrap()
}

#[test]
fn every_registered_route_is_in_the_openapi_description() {
    let routes = registered_routes();
    assert!(
        routes.len() > 100,
        "the route scan found too few routes: {routes:?}"
    );
    let ops = described(&description());
    let missing: Vec<_> = routes
        .iter()
        .filter(|(path, _)| !NOT_DESCRIBED.iter().any(|(p, _)| p == path))
        .filter(|op| !ops.contains(*op))
        .collect();
    assert!(
        missing.is_empty(),
        "routes missing from the OpenAPI description (add #[utoipa::path] to the handler and \
         list it in its module's doc()): {missing:?}"
    );
    // And nothing described that the server does not serve.
    let extra: Vec<_> = ops.iter().filter(|op| !routes.contains(*op)).collect();
    assert!(extra.is_empty(), "described but not routed: {extra:?}");
}

#[test]
fn the_description_is_valid_enough_for_a_client_generator() {
    let doc = description();
    assert_eq!(doc["openapi"], "3.1.0");
    let mut ids = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        let templated: BTreeSet<String> = path
            .split('{')
            .skip(1)
            .map(|p| {
                p.split('}')
                    .next()
                    .unwrap()
                    .trim_start_matches('*')
                    .to_string()
            })
            .collect();
        for (method, op) in item.as_object().unwrap() {
            let id = op["operationId"].as_str().unwrap_or_default().to_string();
            assert!(!id.is_empty(), "{method} {path} has no operationId");
            assert!(ids.insert(id.clone()), "operationId {id} twice");
            assert!(
                op["tags"].as_array().is_some_and(|t| !t.is_empty()),
                "{method} {path} has no tag"
            );
            assert!(
                op["responses"].as_object().is_some_and(|r| !r.is_empty()),
                "{method} {path} has no responses"
            );
            let params: BTreeSet<String> = op["parameters"]
                .as_array()
                .map(|ps| {
                    ps.iter()
                        .filter(|p| p["in"] == "path")
                        .map(|p| p["name"].as_str().unwrap().to_string())
                        .collect()
                })
                .unwrap_or_default();
            assert_eq!(params, templated, "{method} {path}: path parameters");
        }
    }
    // The envelope of the main API is explained.
    let info = doc["info"]["description"].as_str().unwrap();
    assert!(info.contains("AES-128-CBC") && info.contains("fuaohbcb"));
}

store::on_both_stores!(served_at_api_openapi_json_with_a_page_only_in_demo);

async fn served_at_api_openapi_json_with_a_page_only_in_demo(kind: StoreKind) {
    let server: Server = common::start(kind).await;
    let answer = http(server.addr(), "GET", "/api/openapi.json", &[], b"").await;
    assert_eq!(answer.status, 200);
    assert!(answer.content_type.starts_with("application/json"));
    assert_eq!(answer.json(), description());
    let page = http(server.addr(), "GET", "/api/docs", &[], b"").await;
    assert_eq!(page.status, 200);
    assert!(page.text().contains("/api/openapi.json"));
    server.stop().await;

    let server = common::start_with(kind, common::config(false)).await;
    let answer = http(server.addr(), "GET", "/api/openapi.json", &[], b"").await;
    assert_eq!(answer.status, 200);
    let page = http(server.addr(), "GET", "/api/docs", &[], b"").await;
    assert_eq!(page.status, 404, "the browsable page is DEMO only");
    server.stop().await;
}
