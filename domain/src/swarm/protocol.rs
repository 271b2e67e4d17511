//! The envelope of the Swarm-style protocol (DESIGN wire contract).
//!
//! Request `{"command": "...", "params": {...}, "rid": ...}`: `rid` is a
//! string or a number and is echoed back exactly as given; it may be left
//! out (or null), and is then answered as null. `params` may be left out
//! (an empty object) but is otherwise an object.
//!
//! Answer `{"code": n, "rid": ..., "data": ...}`, plus `"msg"` with the
//! reason when `code` is not 0. Codes: 0 ok, 2 invalid command (not JSON,
//! not an object, no or unknown `command`, a `rid` that is neither string
//! nor number), 3 invalid params (wrong shape, a malformed query),
//! 5 session lost, 12 not logged in. Codes 5 and 12 are decided by the
//! session layer; this module only names them.
//!
//! Push `{"code": 0, "rid": "0", "data": {"<subid>": <diff>, ...}}`: one
//! message may carry the diffs of several subscriptions.

use std::fmt;
use std::str::FromStr;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::query::QueryError;

pub const OK: i32 = 0;
pub const INVALID_COMMAND: i32 = 2;
pub const INVALID_PARAMS: i32 = 3;
pub const SESSION_LOST: i32 = 5;
pub const NOT_LOGGED_IN: i32 = 12;
/// Platform-defined: a bound of the server (sessions, subscriptions per
/// session, distinct subscriptions) is reached.
pub const LIMIT_REACHED: i32 = 29;

/// The request id, kept as the client wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Rid {
    Text(String),
    Number(serde_json::Number),
}

/// The commands of the data protocol (DESIGN wire contract, spec 000
/// section 7.3 and 7.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Command {
    RequestSession,
    Login,
    RestoreLogin,
    Logout,
    Get,
    Unsubscribe,
    WhatsUp,
    DoBet,
    GetMaxBet,
    BetHistory,
    CalculateCashoutAmount,
    Cashout,
    SetBetAutoCashout,
    GetBetAutoCashout,
    CancelBetAutoCashout,
    SuperBetAnswer,
    GetFreeBets,
    BookBet,
    GetBooking,
    Ping,
    GetBalance,
}

const COMMANDS: [(Command, &str); 21] = [
    (Command::RequestSession, "request_session"),
    (Command::Login, "login"),
    (Command::RestoreLogin, "restore_login"),
    (Command::Logout, "logout"),
    (Command::Get, "get"),
    (Command::Unsubscribe, "unsubscribe"),
    (Command::WhatsUp, "whats_up"),
    (Command::DoBet, "do_bet"),
    (Command::GetMaxBet, "get_max_bet"),
    (Command::BetHistory, "bet_history"),
    (Command::CalculateCashoutAmount, "calculate_cashout_amount"),
    (Command::Cashout, "cashout"),
    (Command::SetBetAutoCashout, "set_bet_auto_cashout"),
    (Command::GetBetAutoCashout, "get_bet_auto_cashout"),
    (Command::CancelBetAutoCashout, "cancel_bet_auto_cashout"),
    (Command::SuperBetAnswer, "super_bet_answer"),
    (Command::GetFreeBets, "get_free_bets"),
    (Command::BookBet, "book_bet"),
    (Command::GetBooking, "get_booking"),
    (Command::Ping, "ping"),
    (Command::GetBalance, "get_balance"),
];

impl Command {
    pub fn name(self) -> &'static str {
        COMMANDS
            .iter()
            .find(|(c, _)| *c == self)
            .map_or("", |(_, n)| n)
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Command {
    type Err = ProtocolErrorKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        COMMANDS
            .iter()
            .find(|(_, n)| *n == s)
            .map(|(c, _)| *c)
            .ok_or_else(|| ProtocolErrorKind::UnknownCommand(s.to_string()))
    }
}

/// A well-formed request. `params` is always an object.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub command: Command,
    pub params: Value,
    pub rid: Option<Rid>,
}

/// Why a request was refused, with its rid when one could be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{kind}")]
pub struct ProtocolError {
    pub rid: Option<Rid>,
    pub kind: ProtocolErrorKind,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProtocolErrorKind {
    #[error("request is not JSON: {0}")]
    NotJson(String),
    #[error("request must be a JSON object")]
    NotAnObject,
    #[error("request has no 'command' string")]
    MissingCommand,
    #[error("unknown command '{0}'")]
    UnknownCommand(String),
    #[error("'rid' must be a string or a number")]
    BadRid,
    #[error("'params' must be an object")]
    ParamsNotAnObject,
    #[error("invalid params: {0}")]
    InvalidParams(String),
    #[error("{0}")]
    Query(#[from] QueryError),
}

impl ProtocolError {
    pub fn code(&self) -> i32 {
        match self.kind {
            ProtocolErrorKind::NotJson(_)
            | ProtocolErrorKind::NotAnObject
            | ProtocolErrorKind::MissingCommand
            | ProtocolErrorKind::UnknownCommand(_)
            | ProtocolErrorKind::BadRid => INVALID_COMMAND,
            ProtocolErrorKind::ParamsNotAnObject
            | ProtocolErrorKind::InvalidParams(_)
            | ProtocolErrorKind::Query(_) => INVALID_PARAMS,
        }
    }

    /// The answer that tells the client.
    pub fn answer(&self) -> Answer {
        Answer::error(self.rid.clone(), self.code(), self.to_string())
    }
}

/// Reads one request. Never panics, whatever the text.
pub fn parse_request(text: &str) -> Result<Request, ProtocolError> {
    let value: Value = serde_json::from_str(text).map_err(|e| ProtocolError {
        rid: None,
        kind: ProtocolErrorKind::NotJson(e.to_string()),
    })?;
    let Value::Object(mut object) = value else {
        return Err(without_rid(ProtocolErrorKind::NotAnObject));
    };
    let rid = read_rid(object.remove("rid")).map_err(without_rid)?;
    let fail = |kind| ProtocolError {
        rid: rid.clone(),
        kind,
    };
    let command = match object.get("command") {
        Some(Value::String(name)) => name.parse::<Command>().map_err(fail)?,
        _ => return Err(fail(ProtocolErrorKind::MissingCommand)),
    };
    let params = match object.remove("params") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(params @ Value::Object(_)) => params,
        Some(_) => return Err(fail(ProtocolErrorKind::ParamsNotAnObject)),
    };
    Ok(Request {
        command,
        params,
        rid,
    })
}

fn without_rid(kind: ProtocolErrorKind) -> ProtocolError {
    ProtocolError { rid: None, kind }
}

fn read_rid(rid: Option<Value>) -> Result<Option<Rid>, ProtocolErrorKind> {
    match rid {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(Rid::Text(s))),
        Some(Value::Number(n)) => Ok(Some(Rid::Number(n))),
        Some(_) => Err(ProtocolErrorKind::BadRid),
    }
}

impl Request {
    /// The params as a typed struct; a mismatch is code 3.
    pub fn params_as<T: DeserializeOwned>(&self) -> Result<T, ProtocolError> {
        T::deserialize(&self.params)
            .map_err(|e| self.error(ProtocolErrorKind::InvalidParams(e.to_string())))
    }

    /// A refusal of this request, echoing its rid.
    pub fn error(&self, kind: ProtocolErrorKind) -> ProtocolError {
        ProtocolError {
            rid: self.rid.clone(),
            kind,
        }
    }

    pub fn ok(&self, data: Value) -> Answer {
        Answer::ok(self.rid.clone(), data)
    }
}

/// An answer or a push.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub code: i32,
    pub rid: Option<Rid>,
    pub data: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msg: Option<String>,
}

impl Answer {
    pub fn ok(rid: Option<Rid>, data: Value) -> Self {
        Answer {
            code: OK,
            rid,
            data,
            msg: None,
        }
    }

    /// A refusal: `data` is null and `msg` says why.
    pub fn error(rid: Option<Rid>, code: i32, msg: impl Into<String>) -> Self {
        Answer {
            code,
            rid,
            data: Value::Null,
            msg: Some(msg.into()),
        }
    }

    /// A push of subscription diffs, keyed by subid.
    pub fn push(diffs: impl IntoIterator<Item = (String, Value)>) -> Self {
        let data = diffs.into_iter().collect::<Map<_, _>>();
        Answer::ok(Some(Rid::Text("0".to_string())), Value::Object(data))
    }
}

/// The `data` of a `get` with `subscribe: true`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Subscribed {
    pub subid: String,
    pub data: Value,
}

/// `request_session {language, site_id, source}`; ids may be numbers or
/// strings on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestSessionParams {
    #[serde(default)]
    pub language: Option<String>,
    #[serde(default, deserialize_with = "opt_text")]
    pub site_id: Option<String>,
    #[serde(default, deserialize_with = "opt_text")]
    pub source: Option<String>,
}

/// `restore_login {user_id, auth_token}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestoreLoginParams {
    #[serde(deserialize_with = "text")]
    pub user_id: String,
    pub auth_token: String,
}

/// `unsubscribe {subid}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnsubscribeParams {
    #[serde(deserialize_with = "text")]
    pub subid: String,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum TextOrNumber {
    Text(String),
    Number(serde_json::Number),
}

fn text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(match TextOrNumber::deserialize(d)? {
        TextOrNumber::Text(s) => s,
        TextOrNumber::Number(n) => n.to_string(),
    })
}

fn opt_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Option::<TextOrNumber>::deserialize(d).map(|o| {
        o.map(|t| match t {
            TextOrNumber::Text(s) => s,
            TextOrNumber::Number(n) => n.to_string(),
        })
    })
}

impl Request {
    /// The params of a `get`, parsed into a query.
    pub fn get_params(&self) -> Result<super::query::GetRequest, ProtocolError> {
        super::query::GetRequest::parse(&self.params).map_err(|e| self.error(e.into()))
    }
}
