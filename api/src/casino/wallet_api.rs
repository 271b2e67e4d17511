//! The seamless wallet over HTTP (DESIGN.md, Hub88's operator wallet API):
//! `POST /api/wallet/{provider}/user/info`, `/user/balance`,
//! `/transaction/bet`, `/transaction/win`, `/transaction/rollback`.
//! Plain JSON, HTTP 200 with a `status` field; requests signed by the
//! provider (`X-Hub88-Signature` over the raw body), answers signed by us.
//! Decoding only: the rules are in `commands::casino::seamless`.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use commands::casino::{TxCall, WalletAnswer};
use domain::casino::{Status, TxKind};
use serde_json::{json, Map, Value};

use crate::app::AppState;
use crate::casino::signing::HEADER;

pub fn router() -> Router<AppState> {
    Router::new().route("/api/wallet/{provider}/{group}/{action}", post(call))
}

/// The answer of every wallet call (Hub88's operator wallet API).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct WalletReply {
    /// RS_OK or RS_ERROR_* (domain::casino::Status).
    status: String,
    request_uuid: String,
    user: String,
    currency: String,
    /// In the currency's smallest unit (1/100 000).
    balance: i64,
    /// user/info only.
    country: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Info,
    Balance,
    Tx(TxKind),
}

fn action(group: &str, action: &str) -> Option<Action> {
    Some(match (group, action) {
        ("user", "info") => Action::Info,
        ("user", "balance") => Action::Balance,
        ("transaction", "bet") => Action::Tx(TxKind::Bet),
        ("transaction", "win") => Action::Tx(TxKind::Win),
        ("transaction", "rollback") => Action::Tx(TxKind::Rollback),
        _ => return None,
    })
}

/// Why a body is refused before it reaches the wallet.
enum Bad {
    Syntax,
    Types,
}

struct Fields<'a>(&'a Map<String, Value>);

impl Fields<'_> {
    fn text(&self, name: &str) -> Result<String, Bad> {
        match self.0.get(name) {
            None | Some(Value::Null) => Err(Bad::Syntax),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(Bad::Types),
        }
    }

    fn optional_text(&self, name: &str) -> Result<Option<String>, Bad> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(Bad::Types),
        }
    }

    fn flag(&self, name: &str) -> Result<bool, Bad> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(Bad::Types),
        }
    }

    fn integer(&self, name: &str) -> Result<i64, Bad> {
        match self.0.get(name) {
            None | Some(Value::Null) => Err(Bad::Syntax),
            Some(Value::Number(n)) => n.as_i64().ok_or(Bad::Types),
            Some(_) => Err(Bad::Types),
        }
    }
}

fn tx_call(provider: &str, kind: TxKind, f: &Fields) -> Result<TxCall, Bad> {
    Ok(TxCall {
        provider: provider.to_string(),
        kind,
        user: f.text("user")?,
        token: f.text("token")?,
        game_code: f.text("game_code")?,
        currency: f.text("currency")?,
        transaction_uuid: f.text("transaction_uuid")?,
        supplier_transaction_id: f
            .optional_text("supplier_transaction_id")?
            .unwrap_or_default(),
        round: f.text("round")?,
        round_closed: f.flag("round_closed")?,
        reference_transaction_uuid: match kind {
            TxKind::Bet => f.optional_text("reference_transaction_uuid")?,
            _ => Some(f.text("reference_transaction_uuid")?),
        },
        amount: match kind {
            TxKind::Rollback => 0,
            _ => f.integer("amount")?,
        },
    })
}

#[utoipa::path(post, path = "/api/wallet/{provider}/{group}/{action}", operation_id = "wallet_call", tag = crate::openapi::WALLET, params(("provider" = String, Path), ("group" = String, Path, description = "user or transaction"), ("action" = String, Path, description = "info, balance (user); bet, win, rollback (transaction)"), ("X-Hub88-Signature" = String, Header, description = "RSA-SHA256 of the raw body, base64")), request_body(content = Object, content_type = "application/json"), responses((status = 200, description = "Hub88 answer, signed in X-Hub88-Signature; `status` RS_OK or an RS_ERROR_* code", body = WalletReply), (status = 404, description = "Not one of user/info, user/balance, transaction/bet, transaction/win, transaction/rollback", content_type = "text/plain", body = String)))]
async fn call(
    State(state): State<AppState>,
    Path((provider, group, name)): Path<(String, String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let casino = &state.casino;
    let Some(action) = action(&group, &name) else {
        return (StatusCode::NOT_FOUND, "unknown wallet call").into_response();
    };
    let request: Option<Map<String, Value>> = serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|v| v.as_object().cloned());
    let request_uuid = request
        .as_ref()
        .and_then(|r| r.get("request_uuid"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .chars()
        .take(100)
        .collect::<String>();
    let refuse = |status: Status| {
        answer(
            &state,
            json!({"status": status.as_str(), "request_uuid": request_uuid, "user": "", "currency": "", "balance": 0}),
        )
    };
    let signature = headers
        .get(HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    match casino.verifiers.get(&provider) {
        Some(verifier) if verifier.verify(&body, signature) => {}
        _ => return refuse(Status::InvalidSignature),
    }
    let Some(request) = request else {
        return refuse(Status::WrongSyntax);
    };
    let fields = Fields(&request);
    if let Err(bad) = fields.text("request_uuid") {
        return refuse(bad.status());
    }
    let out: WalletAnswer = match action {
        Action::Info | Action::Balance => {
            let user = match fields.text("user") {
                Ok(u) => u,
                Err(bad) => return refuse(bad.status()),
            };
            let token = match (action, fields.optional_text("token")) {
                (_, Err(bad)) => return refuse(bad.status()),
                (Action::Balance, Ok(None)) => return refuse(Status::WrongSyntax),
                (_, Ok(token)) => token,
            };
            casino
                .seamless
                .user_balance(&provider, &user, token.as_deref())
                .await
        }
        Action::Tx(kind) => match tx_call(&provider, kind, &fields) {
            Ok(tx) => casino.seamless.transaction(&tx).await,
            Err(bad) => return refuse(bad.status()),
        },
    };
    let mut body = json!({
        "status": out.status.as_str(),
        "request_uuid": request_uuid,
        "user": out.user,
        "currency": out.currency,
        "balance": out.balance,
    });
    if action == Action::Info {
        body["country"] = json!("");
    }
    answer(&state, body)
}

impl Bad {
    fn status(&self) -> Status {
        match self {
            Bad::Syntax => Status::WrongSyntax,
            Bad::Types => Status::WrongTypes,
        }
    }
}

/// HTTP 200, JSON, signed with the platform's key.
fn answer(state: &AppState, body: Value) -> Response {
    let bytes = body.to_string().into_bytes();
    let mut response = (
        StatusCode::OK,
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        bytes.clone(),
    )
        .into_response();
    if let Some(signer) = &state.casino.signer {
        if let Ok(value) = HeaderValue::from_str(&signer.sign(&bytes)) {
            response.headers_mut().insert(HEADER, value);
        }
    }
    response
}

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(call))]
    struct Doc;
    #[allow(unused_mut)]
    let mut doc = <Doc as utoipa::OpenApi>::openapi();
    doc
}
