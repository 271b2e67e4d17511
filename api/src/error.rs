//! The one place where failures become the wire's `{status, msg}` answers.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use domain::wallet::WalletError;
use domain::Code;
use serde::Serialize;
use store::CommandError;

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
    /// A business answer with its own message and data (field errors,
    /// waits), HTTP 200.
    #[error("{msg}")]
    Answer {
        status: i32,
        msg: String,
        data: serde_json::Value,
    },
    /// The request layer refused the request: HTTP 400, plain JSON.
    #[error("{msg}")]
    Transport { status: i32, msg: String },
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

impl From<commands::accounts::AccountFailure> for ApiError {
    fn from(e: commands::accounts::AccountFailure) -> Self {
        use commands::accounts::AccountFailure as F;
        match e {
            F::Refused {
                code,
                msg,
                field: Some(field),
            } => ApiError::field(code, msg, field),
            F::Refused {
                code,
                msg,
                field: None,
            } => ApiError::with_message(code, msg),
            F::Wait { code, msg, wait } => ApiError::wait(code, msg, wait),
            F::VerifyDevice(challenge) => ApiError::Answer {
                status: -10010,
                msg: "Please verify this device to log in".into(),
                data: serde_json::to_value(challenge).unwrap_or_default(),
            },
            F::Internal(detail) => ApiError::Internal(detail),
        }
    }
}

impl From<domain::safer::SaferError> for ApiError {
    fn from(e: domain::safer::SaferError) -> Self {
        match e {
            domain::safer::SaferError::NeedReturns => ApiError::Internal(e.to_string()),
            refusal => ApiError::Answer {
                status: refusal.code().0,
                msg: refusal.to_string(),
                data: refusal.details(),
            },
        }
    }
}

impl From<commands::compliance::safer::SaferFailure> for ApiError {
    fn from(e: commands::compliance::safer::SaferFailure) -> Self {
        match e {
            commands::compliance::safer::SaferFailure::Refused(refusal) => refusal.into(),
            commands::compliance::safer::SaferFailure::Internal(why) => ApiError::Internal(why),
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
        let (http, status, msg, data) = match self {
            ApiError::Answer { status, msg, data } => (StatusCode::OK, status, msg, data),
            ApiError::Transport { status, msg } => (
                StatusCode::BAD_REQUEST,
                status,
                msg,
                serde_json::Value::Null,
            ),
            other => {
                let (http, code, msg) = other.parts();
                (http, code.0, msg, serde_json::Value::Null)
            }
        };
        (http, Json(Envelope { status, msg, data })).into_response()
    }
}

impl ApiError {
    /// A refusal with a message other than the catalogue's.
    pub fn with_message(code: i32, msg: impl Into<String>) -> Self {
        ApiError::Answer {
            status: code,
            msg: msg.into(),
            data: serde_json::Value::Null,
        }
    }

    /// A refusal about one form field.
    pub fn field(code: i32, msg: impl Into<String>, field: &str) -> Self {
        ApiError::Answer {
            status: code,
            msg: msg.into(),
            data: serde_json::json!({ "field": field }),
        }
    }

    /// A refusal that says how many seconds to wait.
    pub fn wait(code: i32, msg: impl Into<String>, seconds: i64) -> Self {
        ApiError::Answer {
            status: code,
            msg: msg.into(),
            data: serde_json::json!({ "wait": seconds }),
        }
    }

    fn parts(self) -> (StatusCode, Code, String) {
        let (http, code) = match &self {
            ApiError::Code(code) => (StatusCode::OK, *code),
            ApiError::NotFound => (StatusCode::NOT_FOUND, Code(-404)),
            ApiError::Internal(detail) => {
                tracing::error!(error = %detail, "request failed");
                (StatusCode::INTERNAL_SERVER_ERROR, Code::INTERNAL)
            }
            ApiError::Answer { .. } | ApiError::Transport { .. } => {
                unreachable!("answered in into_response")
            }
        };
        let msg = match self {
            ApiError::NotFound => "Unknown API path".to_string(),
            _ => code.message(),
        };
        (http, code, msg)
    }
}
