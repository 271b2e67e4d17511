//! The one place where failures become the wire's `{status, msg}` answers.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use commands::CommandError;
use domain::wallet::WalletError;
use domain::Code;
use serde::Serialize;

/// The answer envelope of the main API.
#[derive(Debug, Serialize)]
pub struct Envelope<T: Serialize> {
    pub status: i32,
    pub msg: String,
    pub data: T,
}

pub fn ok<T: Serialize>(data: T) -> Json<Envelope<T>> {
    Json(Envelope {
        status: 0,
        msg: String::new(),
        data,
    })
}

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// A catalogue code: a business answer, HTTP 200.
    #[error("{}", .0.message())]
    Code(Code),
    /// No such path under /api.
    #[error("Unknown API path")]
    NotFound,
    /// Something broke inside; logged, answered generically.
    #[error("internal: {0}")]
    Internal(String),
}

impl From<CommandError<WalletError>> for ApiError {
    fn from(e: CommandError<WalletError>) -> Self {
        match e {
            CommandError::Rejected(refusal) => ApiError::Code(refusal.code()),
            other => ApiError::Internal(other.to_string()),
        }
    }
}

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        ApiError::Internal(e.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (http, code) = match &self {
            ApiError::Code(code) => (StatusCode::OK, *code),
            ApiError::NotFound => (StatusCode::NOT_FOUND, Code(-404)),
            ApiError::Internal(detail) => {
                tracing::error!(error = %detail, "request failed");
                (StatusCode::INTERNAL_SERVER_ERROR, Code::INTERNAL)
            }
        };
        let msg = match self {
            ApiError::NotFound => "Unknown API path".to_string(),
            _ => code.message(),
        };
        let body = Envelope {
            status: code.0,
            msg,
            data: serde_json::Value::Null,
        };
        (http, Json(body)).into_response()
    }
}
